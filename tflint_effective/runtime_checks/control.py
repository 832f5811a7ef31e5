"""Tie assertion ops to the tensor they guard."""
import tensorflow as tf


def with_assertions(tensor, *checks, name=None):
    """Return ``tensor`` so that evaluating it first runs every check.

    Target of rule TFE311 (an assert, ``check_numerics`` or print op whose
    result is never used, which TF1 graph mode silently prunes).  ``checks``
    are the results of ``tf.debugging.assert_*``, ``tf.debugging.Assert``,
    ``tf.print`` or ``tf.debugging.check_numerics`` (lists are flattened).
    In graph mode and tf.function the result is an identity of ``tensor``
    (or of every tensor in a nested structure) with control dependencies on
    the checks; in eager mode the checks have already run, so ``tensor`` is
    returned as is.  ``tf.control_dependencies`` plus ``tf.identity`` is the
    TensorFlow spelling; this adds the argument checks.
    """
    if tensor is None:
        raise TypeError("with_assertions: tensor is None")
    deps = []
    for check in tf.nest.flatten(checks):
        if check is None:  # what tf.debugging.assert_* return in eager mode, after running
            continue
        if not (isinstance(check, tf.Operation) or tf.is_tensor(check)):
            raise TypeError(f"with_assertions: checks must be assertion ops or tensors, got {check!r}")
        if tf.is_tensor(check) and check.dtype == tf.bool:
            raise TypeError("with_assertions: got a boolean tensor, which would be evaluated but never "
                            "checked; wrap the condition in tf.debugging.Assert or an assert_* op")
        deps.append(check)
    if not deps or tf.executing_eagerly():
        return tensor
    with tf.name_scope(name or "with_assertions"), tf.control_dependencies(deps):
        return tf.nest.map_structure(tf.identity, tensor)
