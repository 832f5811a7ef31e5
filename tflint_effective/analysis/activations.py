"""The activation a layer applies last, as a TensorFlow path (``"nn.softmax"``): Keras layers and
``tf.layers`` functions given ``activation=``, ``Softmax()``, through a name or attribute holding
the layer (the numerical-stability rules read softmax and sigmoid outputs through these)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .keras_models import keras_path
from .names import Assigned
from .syntax import call_arg, has_star_args
from .tf_api import ACTIVATED_LAYER_CLASSES, ACTIVATED_LAYER_FUNCTIONS, KERAS_ACTIVATIONS


def layer_activation(context, call: cst.Call, scope) -> Optional[str]:
    """The TF path of the activation the layer ``call`` applies last (``"nn.softmax"``), if known."""
    name = context.tf_name(call.func, scope)
    if name is not None:
        position = ACTIVATED_LAYER_FUNCTIONS.get(name.path, -1)
        return None if position == -1 else _activation(context, _activation_arg(call, position), scope)
    layer = call.func
    if isinstance(layer, cst.Name):
        bindings = context.owner(layer.value, scope)
        bindings = bindings.bindings[layer.value] if bindings is not None else ()
        layer, scope = ((bindings[0].value, bindings[0].scope) if len(bindings) == 1
                        and isinstance(bindings[0], Assigned) else (None, scope))
    elif isinstance(layer, cst.Attribute):
        layer, scope = context.attribute_value(layer) or (None, scope)
    if not isinstance(layer, cst.Call):
        return None
    path = keras_path(context, layer.func, scope)
    if path is None:  # not Keras: TensorFlow's own ``tf.layers.Dense``, or nothing known
        name = context.tf_name(layer.func, scope)
        path = name.path if name is not None else ""
    if not path.startswith("layers.") or path.count(".") != 1:
        return None
    cls = path.rpartition(".")[2]
    if cls == "Softmax":
        return "nn.softmax"
    position = ACTIVATED_LAYER_CLASSES.get(cls, -1)
    return None if position == -1 else _activation(context, _activation_arg(layer, position), scope)


def _activation_arg(call: cst.Call, position: Optional[int]) -> Optional[cst.Arg]:
    """``activation=`` (``**kwargs`` cannot pass it again), or the positional argument when
    no ``*args`` can shift it."""
    arg = call_arg(call, None, "activation")
    return arg if arg is not None or has_star_args(call) else call_arg(call, position, "activation")


def _activation(context, arg: Optional[cst.Arg], scope) -> Optional[str]:
    """``"softmax"``, ``tf.nn.softmax``, ``keras.activations.softmax``: the TF path (``"nn.softmax"``)."""
    if arg is None:
        return None
    if isinstance(arg.value, cst.SimpleString):
        return KERAS_ACTIVATIONS.get(arg.value.evaluated_value)
    name = context.tf_name(arg.value, scope)
    if name is not None and not name.path.startswith("keras."):
        return name.path
    path = keras_path(context, arg.value, scope) or ""
    return KERAS_ACTIVATIONS.get(path.rpartition(".")[2]) if path.startswith("activations.") else None
