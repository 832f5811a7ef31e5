"""What a call gives a function's parameters: the argument it passes by keyword or position, else
the default (part of the semantic model, for ``summaries.py``)."""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from .names import Scope


def parameters(function: cst.FunctionDef) -> Tuple[cst.Param, ...]:
    return (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)


def parameter(function: cst.FunctionDef, name: str) -> Optional[cst.Param]:
    return next((p for p in parameters(function) if p.name.value == name), None)


def given(call: cst.Call, site: Optional[Scope], function: cst.FunctionDef, scope: Scope, param: cst.Param
          ) -> Optional[Tuple[cst.BaseExpression, Optional[Scope]]]:
    """What ``call`` (read in ``site``) gives ``param`` of ``function`` (whose scope is ``scope``): the
    argument it passes, else the default, read where the function is defined; None when neither."""
    value = argument(call, position(function, scope, param.name.value), param.name.value)
    if value is not None:
        return value, site
    return (param.default, scope.parent) if param.default is not None else None


def positional_names(function: cst.FunctionDef, scope: Scope) -> List[str]:
    """The parameters calls pass by position, in order (a method's ``self`` is none: calls pass no ``self``)."""
    names = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    return names[1:] if scope.parent.is_class else names


def position(function: cst.FunctionDef, scope: Scope, name: str) -> Optional[int]:
    """Where calls pass ``name`` by position; None if they cannot (keyword-only, a method's ``self``)."""
    names = positional_names(function, scope)
    return names.index(name) if name in names else None


def argument(call: cst.Call, index: Optional[int], name: str) -> Optional[cst.BaseExpression]:
    if any(arg.star for arg in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    return positional[index].value if index is not None and index < len(positional) else None
