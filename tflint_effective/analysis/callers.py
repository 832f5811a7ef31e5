"""The mode of a helper from its callers (part of the semantic model, step 2 of ``modes.py``).

A function of this module with no declared mode and no mode signals of its own
runs traced when every call of it is in traced code: autograph converts a
helper called from a ``tf.function`` like the function itself.  Only when
every caller is in sight: the helper is defined once, undecorated, only ever
called (never passed as a value, never in ``__all__``), and private, nested,
or in a script or notebook.  A method counts when every ``self.<name>`` of the
module is in traced code (a Keras layer's helpers, called from its ``call``)
and no other receiver's ``.<name>`` is read in the module.  Another module may
still call a public method, in another mode: F is the verdict under which the
mode-dependent rules say least.
"""
from __future__ import annotations

from typing import Dict, Optional, Set, Tuple

import libcst as cst

from .modes import EAGER, GRAPH, TF1_NAME


class CallerModes:
    """The visitor methods that record calls and names, and a helper's mode from its callers."""

    def _init_callers(self) -> None:
        # (id(owner scope), name) -> the enclosing mode_stack of every call ``name(...)``
        self.call_stacks: Dict[Tuple[int, str], list] = {}
        self.used_names: Set[str] = set()  # names read other than as the function of a call
        self._exports: Optional[Tuple[bool, Optional[Set[str]]]] = None  # (a script?, ``__all__``)
        self._callee_modes: Dict[cst.FunctionDef, Optional[str]] = {}
        self.self_attributes: Dict[str, list] = {}  # name -> the enclosing mode_stack of every ``self.<name>``
        self.other_attributes: Set[str] = set()  # names read as ``<other receiver>.<name>``

    def _record_call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name:
            owner = self.context.owner(node.func.value)
            self.call_stacks.setdefault((id(owner), node.func.value), []).append(tuple(self.mode_stack))

    def _record_attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        if type(node.value) is cst.Name and node.value.value == "self":
            self.self_attributes.setdefault(name, []).append(tuple(self.mode_stack))
        else:
            self.other_attributes.add(name)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.used_names:
            return  # the hottest visitor: most names are seen again and again
        parent = self.context.parent
        kind = type(parent)
        if not ((kind is cst.Call and parent.func is node)
                or ((kind is cst.FunctionDef or kind is cst.ClassDef) and parent.name is node)
                or (kind is cst.Attribute and parent.attr is node)
                or (kind is cst.Arg and parent.keyword is node)):
            self.used_names.add(node.value)

    def _callee_mode(self, function: cst.FunctionDef) -> Optional[str]:
        """F or F0 when every call of this helper runs traced."""
        if function in self._callee_modes:
            return self._callee_modes[function]
        self._callee_modes[function] = None  # while resolving: a call from itself gives no verdict
        name = function.name.value
        scope = self.context.scope_of(function)
        if (scope is None or scope.parent is None or function.decorators
                or function.asynchronous is not None or name in self.used_names
                or self.signals.get(function, set()) & {GRAPH, TF1_NAME, EAGER}
                or len(scope.parent.bindings.get(name, ())) != 1):
            return None
        if scope.parent.is_class:
            dunder = name.startswith("__") and name.endswith("__")  # Python calls these itself
            stacks = () if dunder or name in self.other_attributes else self.self_attributes.get(name, ())
        else:
            stacks = self._function_callers(scope, name)
        modes = {self._settle(stack) for stack in stacks}
        mode = None
        if modes and modes <= {"F", "F0"}:
            mode = "F" if "F" in modes else "F0"
        self._callee_modes[function] = mode
        return mode

    def _function_callers(self, scope, name: str):
        """The enclosing mode_stack of every call of a function that only this module can call; () for others."""
        if self._exports is None:
            self._exports = module_exports(self.context.module, self.context.path)
        script, exported = self._exports
        if exported is None or name in exported:
            return ()  # listed in ``__all__``, or an ``__all__`` not spelled out
        if not (scope.parent.parent is not None or name.startswith("_") or script):
            return ()  # a public function of a library: callers may be in other modules
        return self.call_stacks.get((id(scope.parent), name), ())


def module_exports(module: cst.Module, path: str) -> Tuple[bool, Optional[Set[str]]]:
    """(whether the module is a script or notebook, the names its ``__all__`` lists, None when
    some ``__all__`` is not a literal list of strings): from its top-level statements only."""
    script = path.endswith((".ipynb", ".ipynb.py"))
    exported: Optional[Set[str]] = set()
    for statement in module.body:
        if (isinstance(statement, cst.If) and isinstance(statement.test, cst.Comparison)
                and isinstance(statement.test.left, cst.Name) and statement.test.left.value == "__name__"):
            script = True  # if __name__ == "__main__":
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            targets = ([t.target for t in small.targets] if isinstance(small, cst.Assign)
                       else [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign)) else [])
            if exported is None or not any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
                continue
            value = small.value
            if isinstance(value, (cst.List, cst.Tuple)) and all(
                    isinstance(e.value, cst.SimpleString) for e in value.elements):
                exported.update(str(e.value.evaluated_value) for e in value.elements)
            else:
                exported = None
    return script, exported
