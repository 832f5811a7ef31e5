"""Multi-device towers: ``with tf.device(...)`` scopes that copy a model onto several devices.

Towers are recognised, in one function, by a ``tf.device`` scope whose device
depends on the variable of an enclosing loop (``for i in range(n): with
tf.device(f"/gpu:{i}")``), by literal devices of one type with different
indices (``"/gpu:0"`` then ``"/gpu:1"``; ``devices[0]`` then ``devices[1]``),
or by a call to a function of the module that builds towers (a
``make_parallel`` helper defined earlier) or to ``runtime_checks.make_parallel``.
Used by TFE501 and TFE502.
"""
from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from .holding import holding_assignment
from .loops import enclosing_loops
from .names import Scope
from .syntax import call_arg, names_in

VARYING = "varying"  # a device that changes with a loop variable, or towers built by a call
OTHER = "other"  # a device scope we cannot tell apart from others
DeviceKey = Union[str, Tuple[str, int]]
_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})  # where the search for devices stops
_BLOCKS = frozenset({cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module})

LITERAL_DEVICE = re.compile(r"(?:^|/)(?:device:)?(?P<type>cpu|gpu|tpu):(?P<index>\d+)$", re.I)
RUNTIME_BUILDERS = {"tflint_effective.runtime_checks.make_parallel",
                    "tflint_effective.runtime_checks.devices.make_parallel"}


class Towers:
    """Tower devices seen in a region of code (a function body, a tape's block)."""

    def __init__(self):
        self.literal: Set[Tuple[str, int]] = set()
        self.varying = False

    def add(self, key: DeviceKey) -> None:
        if key == VARYING:
            self.varying = True
        elif isinstance(key, tuple):
            self.literal.add(key)

    @property
    def multi(self) -> bool:
        return self.varying or any(self.is_tower(key) for key in self.literal)

    def is_tower(self, key: Optional[DeviceKey]) -> bool:
        """A varying device, or one of several literal devices of one type."""
        if key == VARYING:
            return True
        return isinstance(key, tuple) and sum(k[0] == key[0] for k in self.literal) > 1


class TowerTracker:
    """Follows, during the traversal, which functions build towers."""

    def __init__(self, context):
        self.context = context
        self.by_scope: Dict[Scope, Towers] = {}
        # (id of scope, name) -> devices it was computed under; values it was computed from elsewhere
        # (their names are read only when a gradient asks, by ``_sources``)
        self.devices_of: Dict[Tuple[int, str], Set[DeviceKey]] = {}
        self.computed_from: Dict[Tuple[int, str], List[cst.CSTNode]] = {}
        self.device_of_value: Dict[int, DeviceKey] = {}  # id of an assigned value -> its device
        self.builders: Set[Tuple[int, str]] = set()  # (id of owner scope, function name)
        self.regions: List[Tuple[Scope, Towers]] = []  # open regions that also collect towers
        # (id(block), id(scope)) -> (block, the devices around it): see _enclosing_devices
        self._devices_in: Dict[Tuple[int, int], Tuple[cst.CSTNode, List[DeviceKey]]] = {}

    def towers(self) -> Towers:
        """The towers seen so far in the current function (or module)."""
        return self.by_scope.setdefault(self.context.scope, Towers())

    def device_key(self, expr: cst.BaseExpression, ancestors=None) -> Optional[DeviceKey]:
        """The device of a ``tf.device(...)`` call; None for anything else.

        ``ancestors`` are those of the ``with`` statement (default: the current node's).
        """
        name = self.context.tf_call(expr)
        if name is None or name.path != "device":
            return None
        arg = call_arg(expr, 0, "device_name")
        if arg is None:
            return OTHER
        loops = enclosing_loops(self.context.ancestors if ancestors is None else ancestors)
        loop_names = set().union(*(loop.targets for loop in loops))
        if loop_names & names_in([arg.value]):
            return VARYING
        return self._literal(arg.value) or OTHER

    def _literal(self, expr) -> Optional[Tuple[str, int]]:
        if isinstance(expr, cst.SimpleString):
            match = LITERAL_DEVICE.search(expr.evaluated_value)
            return (match["type"].upper(), int(match["index"])) if match else None
        if (isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name)
                and len(expr.slice) == 1):
            index = expr.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                return expr.value.value + "[]", int(index.value.value)  # devices[0], devices[1]
        name = self.context.tf_call(expr)
        if name is not None and name.path == "DeviceSpec":
            kind, index = call_arg(expr, 3, "device_type"), call_arg(expr, 4, "device_index")
            if (kind and index and isinstance(kind.value, cst.SimpleString)
                    and isinstance(index.value, cst.Integer)):
                return kind.value.evaluated_value.upper(), int(index.value.value)
        return None

    def see_with(self, item: cst.WithItem) -> None:
        key = self.device_key(item.item)
        if key is not None:
            self.see(key)

    def see_call(self, call: cst.Call) -> None:
        if self.is_builder_call(call):
            self.see(VARYING)
        func = call.func
        if (type(func) is cst.Attribute and func.attr.value in ("append", "extend")
                and type(func.value) is cst.Name):  # losses.append(tower_loss)
            self.see_binding([func.value.value], call)

    def see_binding(self, names, value: cst.BaseExpression) -> None:
        """``names`` are given ``value`` here: under a device scope, or computed from other names."""
        scope = id(self.context.scope)
        device = self._device_here()
        if device is None and type(value) is cst.Call and self.is_builder_call(value):
            device = VARYING
        if device is not None:
            self.device_of_value[id(value)] = device
        for name in names:
            if device is not None:
                self.devices_of.setdefault((scope, name), set()).add(device)
            else:
                self.computed_from.setdefault((scope, name), []).append(value)

    def spans_devices(self, expr: cst.BaseExpression, towers: Towers) -> bool:
        """``expr`` is computed from values built under two or more of ``towers``' devices.  A name
        whose assignment at the read the statements before it show (``holding``) is followed to that
        assignment; any other, to every value it is given in the function."""
        scope = id(self.context.scope)
        seen, devices = set(), set()
        pending = [(name, self.context.ancestors) for name in names_in([expr])]
        while pending:
            name, path = pending.pop()
            held = holding_assignment(name, path) if path is not None else None
            if held is not None:
                assign, path = held
                if id(assign) not in seen:
                    seen.add(id(assign))
                    device = self.device_of_value.get(id(assign.value))
                    devices.add(device)
                    if device is None:
                        pending.extend((source, path) for source in names_in([assign.value]))
            elif name not in seen:
                seen.add(name)
                devices |= self.devices_of.get((scope, name), set())
                pending.extend((source, None) for source in self._sources(scope, name))
        devices = {d for d in devices if towers.is_tower(d)}
        return VARYING in devices or len(devices) > 1

    def _sources(self, scope: int, name: str) -> Set[str]:
        """The names ``name`` was computed from in the scope ``scope`` (ids)."""
        values = self.computed_from.get((scope, name))
        return names_in(values) if values else set()

    def _device_here(self) -> Optional[DeviceKey]:
        """The device of the innermost ``tf.device`` block around the current node (same function)."""
        devices = self._enclosing_devices()
        return devices[0] if devices else None

    def see(self, key: DeviceKey) -> None:
        """Towers (or one device scope) in the current function."""
        scope = self.context.scope
        for region_scope, region in self.regions:
            if region_scope is scope:
                region.add(key)
        towers = self.towers()
        towers.add(key)
        if towers.multi and isinstance(scope.node, cst.FunctionDef) and scope.parent is not None:
            self.builders.add((id(scope.parent), scope.node.name.value))

    def is_builder_call(self, call: cst.Call) -> bool:
        """A call to a function that builds towers: a helper seen earlier, or make_parallel."""
        func = call.func
        kind = type(func)
        # an attribute's qualified name ends with it: only ``...make_parallel`` can be a builder
        if (kind is cst.Name or (kind is cst.Attribute and func.attr.value == "make_parallel")) and \
                self.context.qualname(func) in RUNTIME_BUILDERS:
            return True
        if kind is not cst.Name:
            return False
        name = func.value
        owner = self.context.owner(name)
        return (owner is not None and (id(owner), name) in self.builders
                and len(owner.bindings[name]) == 1)

    def inside_tower(self, towers: Towers) -> bool:
        """The current node runs under one of ``towers``' device scopes (same function)."""
        return any(towers.is_tower(key) for key in self._enclosing_devices())

    def _enclosing_devices(self) -> List[DeviceKey]:
        """The devices of the ``tf.device`` blocks around the current node, innermost first,
        up to the enclosing function; the same for every node of a block (up to a nested
        function or lambda): memoized per block and scope."""
        ancestors = self.context.ancestors
        for depth in range(len(ancestors) - 2, -1, -1):
            kind = type(ancestors[depth])
            if kind in _SCOPES:
                return []
            if kind in _BLOCKS:
                break
        else:
            return []
        block = ancestors[depth]
        key = (id(block), id(self.context.scope))
        known = self._devices_in.get(key)
        if known is None:  # the node is kept so that its id is not reused
            known = self._devices_in[key] = (block, list(self._devices_above(ancestors, depth)))
        return known[1]

    def _devices_above(self, ancestors, depth: int) -> Iterator[DeviceKey]:
        for depth in range(depth, -1, -1):
            node = ancestors[depth]
            kind = type(node)
            if kind in _SCOPES:
                return
            if kind is cst.With and ancestors[depth + 1] is node.body:
                for item in node.items:
                    key = self.device_key(item.item, ancestors[:depth + 1])
                    if key is not None:
                        yield key
