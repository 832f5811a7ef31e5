"""Kinds of values (tensor, scalar tensor, dataset, number) and of expressions.

Part of the semantic model: ``Kinds.kind(expr)`` asks the flow-sensitive table
of ``flow`` for names of the current function, and judges names read from an
enclosing function or the module (closures, globals) flow-insensitively: every
binding must agree.  Unknown is never a tensor.
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from .names import OTHER
from .syntax import call_arg, has_star_args, is_false, is_none
from .tf_api import (DATASET_METHODS, NOT_TENSOR, NOT_TENSOR_PREFIXES, RECORD_DATASETS, SCALAR_APIS,
                     SCALAR_REDUCTIONS, TENSOR_MODULES, TFName)

# SCALAR is a tensor of rank 0; NUMBER a Python int/float literal.
TENSOR, SCALAR, DATASET, NUMBER = "tensor", "scalar", "dataset", "number"
TENSOR_KINDS = (TENSOR, SCALAR)
ARITHMETIC_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def returns_tensor(name: TFName) -> bool:
    """Whether calling this TensorFlow API gives a tensor (unknown: no)."""
    path = name.path
    if not path or path in NOT_TENSOR or path.startswith(NOT_TENSOR_PREFIXES):
        return False
    if ".nest." in f".{path}":  # Python structures and booleans, wherever ``nest`` is exposed (``tf.nn.nest``)
        return False
    if "." in path and path.split(".", 1)[0] not in TENSOR_MODULES:
        return False
    leaf = name.leaf
    if leaf.startswith(("assert_", "_", "enable_", "disable_")) or leaf.endswith("candidate_sampler"):
        return False
    if "initializer" in leaf:
        return False
    return leaf[:1].islower()  # classes (tf.Variable, tf.TensorArray, ...) are not tensors


def merge(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """The kind a value has on both paths (a scalar is a tensor)."""
    if a == b:
        return a
    return TENSOR if {a, b} == {TENSOR, SCALAR} else None


def arithmetic(operator: str, left: Optional[str], right: Optional[str]) -> Optional[str]:
    """The kind of ``left <op> right``: a tensor when either side is (``%`` needs the left:
    ``"%s" % t`` is a string)."""
    if left == NUMBER and right == NUMBER:
        return NUMBER
    if operator == "Modulo" and left not in TENSOR_KINDS:
        return None
    if left not in TENSOR_KINDS and right not in TENSOR_KINDS:
        return None
    scalar = left in (SCALAR, NUMBER) and right in (SCALAR, NUMBER) and operator != "MatrixMultiply"
    return SCALAR if scalar else TENSOR


class Kinds:
    """Kinds of expressions, for the semantic model (which supplies ``context`` and the frames)."""

    _static: Dict[int, Optional[str]]

    # == kinds of expressions =============================================
    def _kind(self, expr: cst.BaseExpression, scope, flow: bool) -> Optional[str]:
        kind = type(expr)  # concrete node classes: ``is`` is exact, isinstance is slow on libcst's ABCs
        if kind is cst.Name:
            return self._name_kind(expr.value, scope, flow)
        if kind is cst.Integer or kind is cst.Float:
            return NUMBER
        if kind is cst.Call:
            return self._call_kind(expr, scope, flow)
        if kind is cst.BinaryOperation:
            return arithmetic(type(expr.operator).__name__, self._kind(expr.left, scope, flow),
                               self._kind(expr.right, scope, flow))
        if kind is cst.Comparison:
            if len(expr.comparisons) != 1 or type(expr.comparisons[0].operator) not in ARITHMETIC_COMPARISONS:
                return None
            return arithmetic("Compare", self._kind(expr.left, scope, flow),
                               self._kind(expr.comparisons[0].comparator, scope, flow))
        if kind is cst.UnaryOperation and type(expr.operator) is not cst.Not:
            return self._kind(expr.expression, scope, flow)
        if kind is cst.Subscript:
            return TENSOR if self._kind(expr.value, scope, flow) in TENSOR_KINDS else None
        if kind is cst.IfExp:
            return merge(self._kind(expr.body, scope, flow), self._kind(expr.orelse, scope, flow))
        if kind is cst.NamedExpr:
            return self._kind(expr.value, scope, flow)
        if kind is cst.Attribute and type(expr.value) is cst.Name:
            cls = self.summaries.class_of_self(expr.value.value, scope)
            if cls is None:
                return self.summaries.instance_attribute_kind(expr.value.value, expr.attr.value, scope)
            return self.summaries.attribute_kind(cls, expr.attr.value)
        return None

    def static_kind(self, expr: cst.BaseExpression, scope) -> Optional[str]:
        """The kind of ``expr`` read in ``scope``, whatever the program point."""
        return self._kind(expr, scope, False)

    def _name_kind(self, name: str, scope, flow: bool) -> Optional[str]:
        owner = self.context.owner(name, scope)
        if owner is None:
            return None
        frame = self.frames[-1]
        if flow and owner is frame.scope:
            if name in frame.lazy:
                return self.summaries.parameter_kind(owner.node, name)
            return None if name in frame.escaped else frame.kinds.get(name)
        if owner is self.context.module_scope and name in self.frames[0].escaped:
            return None
        bindings = owner.bindings[name]
        if isinstance(owner.node, cst.FunctionDef) and bindings == [OTHER]:  # a parameter, read in a closure
            return self.summaries.parameter_kind(owner.node, name)
        kinds = {self._static_kind(binding) for binding in bindings}
        return kinds.pop() if len(kinds) == 1 else merge(*kinds) if len(kinds) == 2 else None

    def _static_kind(self, binding) -> Optional[str]:
        """The kind of a binding's value, whatever the program point (closures, globals)."""
        key = id(binding)
        if key not in self._static:
            self._static[key] = None  # a binding that refers to itself is unknown
            value = getattr(binding, "value", None)
            if isinstance(value, cst.BaseExpression):
                self._static[key] = self._kind(value, binding.scope, False)
        return self._static[key]

    def _call_kind(self, call: cst.Call, scope, flow: bool) -> Optional[str]:
        func = call.func
        name = self.context.tf_name(func, scope)  # cached: the mode visitor and rules ask the same
        if name is None:
            if (isinstance(func, cst.Attribute) and func.attr.value in DATASET_METHODS
                    and self._kind(func.value, scope, flow) == DATASET):
                return DATASET
            function = self.summaries.function_called(func, scope)
            return None if function is None else self.summaries.return_kind(function)
        if name.path in RECORD_DATASETS or (name.path.startswith("data.Dataset.")
                                            and name.leaf[:1].islower()):
            return DATASET
        if not returns_tensor(name):
            return None
        return SCALAR if self._is_scalar_call(name, call, scope, flow) else TENSOR

    def _is_scalar_call(self, name: TFName, call: cst.Call, scope, flow: bool) -> bool:
        if has_star_args(call):
            return False
        if name.path in SCALAR_REDUCTIONS or name.path in SCALAR_APIS:
            if name.path in SCALAR_APIS - {"norm", "linalg.norm"}:
                return True
            axis = call_arg(call, 1, "axis") or call_arg(call, None, "reduction_indices")
            keep = call_arg(call, None, "keepdims") or call_arg(call, None, "keep_dims")
            if name.path in ("norm", "linalg.norm"):
                axis = call_arg(call, 2, "axis")
            return (axis is None or is_none(axis.value)) and (keep is None or is_false(keep.value))
        if name.path in ("constant", "convert_to_tensor", "cast", "identity", "stop_gradient"):
            first = call_arg(call, 0, "value" if name.path != "cast" else "x")
            if first is None:
                return False
            value = first.value
            if isinstance(value, cst.UnaryOperation):
                value = value.expression
            return (self._kind(value, scope, flow) in (NUMBER, SCALAR)
                    or isinstance(value, cst.Name) and value.value in ("True", "False"))
        return False
