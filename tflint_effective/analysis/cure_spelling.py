"""How a fix spells its cure: from the user's own names for TensorFlow's modules, in the API
(``compat.v1`` or not) of the code it replaces."""
from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from .names import Import


def spell(context, compat: Optional[str], paths: Sequence[str],
          hints: Sequence[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """``tensorflow[.compat.vN].<path>`` spelled from the user's own name for one of its modules.

    ``hints`` are names the user wrote (``tf1.nn.softmax``); the longest prefix of one that
    resolves, here, to a parent module of the first possible target is extended
    (``tf1.nn.log_softmax``).  Failing that, a module-level name that resolves here is used
    (``tf`` for ``from tensorflow.nn import softmax`` in a file that also imports ``tf``).
    """
    prefix = "tensorflow." + (f"compat.{compat}." if compat else "")
    module_names = [cst.Name(name) for name in context.module_scope.bindings]
    for target in (prefix + path for path in paths):
        for hint in (*hints, *module_names):
            chain = hint
            while isinstance(chain, (cst.Attribute, cst.Name)):
                module = context.qualname(chain)
                if module is not None and target.startswith(module + "."):
                    for part in target[len(module) + 1:].split("."):
                        chain = cst.Attribute(value=chain, attr=cst.Name(part))
                    return chain
                chain = chain.value if isinstance(chain, cst.Attribute) else None
    return None


def importable(context, module: str, name: str) -> bool:
    """``from module import name`` can be added: ``name`` means nothing else here."""
    if context.module_scope.star_import:
        return False
    bindings = context.bindings(name)
    return bindings is None or all(b == Import(f"{module}.{name}") for b in bindings)


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` without spaces around ``=``."""
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value=value, keyword=cst.Name(name), equal=equal)


def compat_of(context, call: cst.Call) -> Optional[str]:
    """"v1" for ``tf.compat.v1.exp(...)``: the API a fix must stay in."""
    name = context.tf_call(call)
    return name.compat if name is not None else None
