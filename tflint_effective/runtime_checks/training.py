"""TF1 training loops: update ops that run, and a graph that cannot grow unnoticed."""
import contextlib

import tensorflow as tf

UPDATE_OPS = tf.compat.v1.GraphKeys.UPDATE_OPS


def _update_ops(update_ops):
    ops = tf.compat.v1.get_collection(UPDATE_OPS) if update_ops is None else list(update_ops)
    for op in ops:
        if not (isinstance(op, tf.Operation) or tf.is_tensor(op)):
            raise TypeError(f"update ops must be operations or tensors, got {op!r}")
    return ops


def train_op_with_updates(optimizer, loss, var_list=None, global_step=None, update_ops=None, name=None,
                          **minimize_kwargs):
    """``optimizer.minimize(loss, ...)`` built so that the update ops run first, at every step.

    Target of rule TFE602: ``tf.compat.v1.layers.batch_normalization`` (and
    contrib/slim batch norm) put their moving-average updates in the
    ``UPDATE_OPS`` collection, and in TF1 graph mode nothing runs them unless
    the train op depends on them.  The step is built under
    ``tf.control_dependencies(update_ops)``, the pattern TensorFlow documents
    for batch normalization, and what TF1's contrib ``create_train_op``
    helpers did (TF2 has no such builder).  ``update_ops`` defaults to the
    default graph's ``UPDATE_OPS`` collection (pass a tower's own ops to pick
    them).  Extra keyword arguments go to ``minimize``.  In eager mode the
    collection is empty (Keras layers update during the call) and this is
    ``minimize`` itself, which there needs a callable ``loss``.
    """
    updates = _update_ops(update_ops)
    kwargs = dict(minimize_kwargs)
    if var_list is not None:
        kwargs["var_list"] = var_list
    if global_step is not None:
        kwargs["global_step"] = global_step
    with tf.name_scope(name or "train"), tf.control_dependencies(updates):
        return optimizer.minimize(loss, **kwargs)


def with_update_ops(train_op, update_ops=None, name=None):
    """One op that runs ``train_op`` and the update ops (default: the ``UPDATE_OPS`` collection).

    Also for rule TFE602, when the train op was built elsewhere: this is
    ``tf.group(train_op, *update_ops)``, which runs both but orders neither
    (:func:`train_op_with_updates` makes the updates run first).  Returns
    ``train_op`` unchanged when there is nothing to add (always so in eager
    mode).
    """
    updates = _update_ops(update_ops)
    if not updates:
        return train_op
    return tf.group(train_op, *updates, name=name or "train_with_updates")


@contextlib.contextmanager
def finalized_graph(graph=None, reopen=True):
    """Finalize ``graph`` (default: the default graph) for the body of a session loop.

    Target of rule TFE601 (ops built in every iteration of a loop that runs
    a session: the graph grows, each step gets slower, memory leaks).  Inside
    the block, building any op raises ``RuntimeError`` at once, while running
    the ops built before works as usual.  TensorFlow has no public API to
    reopen a finalized graph: on leaving the block this reopens it through
    the private ``Graph._unsafe_unfinalize`` (if this TensorFlow has it),
    unless ``reopen=False`` or the graph was already final on entry.
    ``tf.compat.v1.train.MonitoredTrainingSession`` already finalizes its
    graph, so this is for loops over a plain ``Session``.  TF1 graphs only:
    it raises ``RuntimeError`` in eager mode (no graph grows) and while a
    ``tf.function`` is being traced.
    """
    if graph is None:
        if tf.executing_eagerly():
            raise RuntimeError("finalized_graph: eager mode builds no graph (ops run at once); use it "
                               "inside `with tf.Graph().as_default():` or pass the session's graph")
        graph = tf.compat.v1.get_default_graph()
    if graph.building_function:
        raise RuntimeError("finalized_graph: a tf.function graph is being traced and must stay open; "
                           "finalize only a TF1 graph that a Session runs")
    was_final = graph.finalized
    graph.finalize()
    try:
        yield graph
    finally:
        if reopen and not was_final and hasattr(graph, "_unsafe_unfinalize"):
            graph._unsafe_unfinalize()
