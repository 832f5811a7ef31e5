"""Batch normalization whose moving-average updates (UPDATE_OPS) no train op runs (TF1 graph mode).

Why: in a TF1 graph ``tf.compat.v1.layers.batch_normalization(x, training=...)``
and ``tf.contrib.layers.batch_norm`` / ``slim.batch_norm`` (``is_training``
defaults to True, ``updates_collections`` to ``UPDATE_OPS``) do not update
their moving mean and variance themselves: they put the update ops in the
``tf.GraphKeys.UPDATE_OPS`` collection, and a train op built with
``optimizer.minimize(loss)`` does not depend on them, so they never run.
Training looks fine (it normalises with batch statistics), but the moving
statistics keep their initial 0 and 1, and inference (``training=False``)
normalises with them: the deployed model is silently wrong (measured on
TF 2.21 with legacy Keras, fixtures/batch_norm_updates_not_run: after 100
steps on features of mean 5 the moving mean is still 0, and the loss is
2e-5 in training mode but 217 at inference).  Build the train op under
``with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):``
or with ``runtime_checks.train_op_with_updates(optimizer, loss)``
(``runtime_checks.with_update_ops(train_op)`` for a train op built
elsewhere), or pass ``updates_collections=None`` to update in place.

Severity: error in G; off in F, F0 and E (eager execution and ``tf.function``
update the statistics during the call).

Fix safety: none offered; which update ops belong to which train op (towers,
GANs with two optimizers) is a decision about the program.

Known problems: reported only in a module that builds the train op itself
(``minimize`` / ``apply_gradients``) and shows no other way the updates may
run: no ``UPDATE_OPS`` / ``update_ops`` in any name or string, no
``create_train_op``, ``optimize_loss``, ``updates_collections``, Keras
``updates``, ``get_collection`` of a key it cannot read,
``control_dependencies`` on a list it cannot see, or ``tf.group(*ops)``; a
train op built in another module keeps it silent.  ``training`` counts as
training unless it is literally False (or ``tf.layers``' default);
contrib/slim batch norms are not reported in a module that uses
``arg_scope`` (it may change their defaults).  Nothing is reported in a module
whose batch norms all train (``training`` / ``is_training`` certainly True): the
moving statistics are read only in inference mode, and such a module never
uses it (a GAN that samples in training mode); a program that restores the
checkpoint for inference elsewhere is not seen.  Likewise a batch norm that always
trains (its flag certainly True, or contrib's default) is reported only in a module
with a batch norm that certainly infers (flag False, or a mode comparison), which may
share its statistics (``reuse=True``): a flexible flag elsewhere does not make it read them.  A flag of unknown value (a
parameter, a placeholder) counts as inference only where the module shows one
now or later: False passed or fed for a training flag (``net(x,
is_training=False)``, ``generator(z, False)`` of ``def generator(z, is_train=True)`` in the module,
``{is_training: False}``), a ``placeholder_with_default``
flag, estimator ``ModeKeys``, or a ``Saver`` / SavedModel export.  False fed in a run
(``sess.run(G_sample, {is_training: False})``, ``t.eval(feed_dict=...)``) counts only for the batch
norms the run's fetches may depend on (the generator's, not the discriminator's), followed through
the module's assignments, attributes, functions and classes (``fetches.py``); a fetch it cannot
follow (a parameter, a call) or a feed dict built elsewhere counts for all.  A flag only
ever fed True trains in every run, and so does a parameter to which every call of its
function in the module gives True (``net(x, True)``, or ``net(x)`` of ``def net(x,
is_training=True)``, or a parameter of its one caller that is so in turn; a model object's
``__call__`` counts the calls of the names and attributes holding its instances,
``self.gen(z, True)``: a Saver alone does not make it infer).  Layer objects
(``tf.layers.BatchNormalization``) and Keras layers are not seen.
"""
import re

import libcst as cst

from ..analysis.fetches import DEFS, reached
from ..analysis.syntax import call_arg, has_star_args, is_false
from ..analysis.tf_api import BATCH_NORM_TRAINING, RUNS_UPDATE_OPS
from ..rule import ERROR, Rule, per_mode

MESSAGE = ("`{code}` puts its moving mean/variance updates in UPDATE_OPS, and the train op this module builds "
           "never runs them: inference normalises with the initial statistics; build the train op under "
           "`tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))` or with "
           "`runtime_checks.train_op_with_updates(optimizer, loss)`")
MENTIONS = re.compile("|".join(("update_ops", "updates_collections", "get_updates_for", *RUNS_UPDATE_OPS)),
                      re.IGNORECASE).search
# Names of training flags (``is_training``, ``train_phase``, ``mode``; not ``trainable``).
FLAG = re.compile(r"(^|_)(training|train|phase)(_|$)|^mode$", re.IGNORECASE).search
# Names that show a run in inference mode, or a model kept for one (checkpoint, SavedModel).
INFERENCE_NAMES = {"ModeKeys", "Saver", "saved_model", "export_savedmodel", "export_saved_model"}
TRAIN_METHODS = ("minimize", "apply_gradients")


class BatchNormUpdatesNotRun(Rule):
    """Batch norm whose UPDATE_OPS no train op runs: moving statistics never update."""

    CODE = "TFE602"
    MESSAGE = "batch-norm moving averages are in UPDATE_OPS, which the train op never runs"
    SEVERITY = per_mode(None, G=ERROR)
    NEEDS = ("batch_norm",)  # every batch norm it reads spells it
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        training = tf.placeholder_with_default(True, [])  # fed False at inference
        h = tf.layers.batch_normalization(x, training=training)
        loss = tf.reduce_mean(tf.square(h - y), axis=None)
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    """
    GOOD = """
        training = tf.placeholder_with_default(True, [])  # fed False at inference
        h = tf.layers.batch_normalization(x, training=training)
        loss = tf.reduce_mean(tf.square(h - y), axis=None)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    """

    def setup(self) -> None:
        self.norms = []  # [(node, is contrib/slim)]: batch norms that train
        # infers: a batch norm reads the moving statistics (its flag is False or a mode); flexible: a
        # flag is a value of unknown origin; evidence: the module shows an inference run elsewhere
        self.trains = self.handled = self.arg_scope = self.infers = self.flexible = self.evidence = False
        self.silent_names = set()  # names that mention no update ops
        self.inference_fetches = []  # (what, function or class where) runs that feed a training flag False fetch
        self.run_feeds = set()  # ids of those runs' feed dicts: evidence only for what they fetch

    @classmethod
    def may_report_in(cls, source: str) -> bool:
        """A batch norm, and a train op built in the module (``.minimize(`` / ``.apply_gradients(``)."""
        return super().may_report_in(source) and any(method in source for method in TRAIN_METHODS)

    def visit_Call(self, node: cst.Call) -> None:
        func, context = node.func, self.context
        name = context.tf_call(node)  # kept from the rule before: every rule asks it of every call
        known = self._batch_norm(func, name)
        if known is not None and not has_star_args(node):
            position, keyword, default = known
            contrib = keyword == "is_training"  # contrib/slim: updates_collections=None updates in place
            training = call_arg(node, position, keyword)
            self._note_mode(default if training is None else training.value)
            if (default if training is None else not self._false(training.value)) and not (
                    contrib and call_arg(node, 8, "updates_collections")):
                self._add(node, contrib, training is None or self._true(training.value))
        normalizer = call_arg(node, None, "normalizer_fn")
        if normalizer is not None and self._batch_norm(normalizer.value, context.tf_name(normalizer.value)) is not None:
            params = call_arg(node, None, "normalizer_params")
            if params is None:
                self._add(normalizer.value, True, True)
            elif isinstance(params.value, (cst.Dict, cst.Name)):
                self._normalizer_params(normalizer.value, params.value)
        kind = type(func)
        if kind is cst.Attribute and func.attr.value in TRAIN_METHODS and node.args:
            qualname = context.qualname(func)
            self.trains = self.trains or qualname is None or qualname.startswith("tensorflow.")
        if name is not None and node.args and not self.handled:
            self.handled = self._unknown_dependencies(name.leaf, node)
        if name is not None and name.leaf == "arg_scope" or kind is cst.Name and func.value == "arg_scope":
            self.arg_scope = True
        if not self.evidence:
            self.evidence = self._passes_false(node) or name is not None and self._flag_default(name.leaf, node)
        if kind is cst.Attribute and func.attr.value in ("run", "eval"):
            self._inference_run(node, func)

    def _inference_run(self, call, func) -> None:
        """``sess.run(fetches, {flag: False})``, ``t.eval(feed_dict={flag: False})``: what it fetches."""
        run = func.attr.value == "run"
        feed = call_arg(call, 1 if run else 0, "feed_dict")
        fetched = call_arg(call, 0, "fetches") if run else None
        if feed is not None and type(feed.value) is cst.Dict and not has_star_args(call) and any(
                type(e) is cst.DictElement and self._feeds_false(e) for e in feed.value.elements):
            self.run_feeds.add(id(feed.value))
            scope = next((n for n in reversed(self.context.ancestors) if type(n) in DEFS), None)
            self.inference_fetches.append((func.value if fetched is None else fetched.value, scope))  # ``op.run()``

    def _passes_false(self, call: cst.Call) -> bool:
        """False for a training flag: by keyword (``net(x, is_training=False)``), or by position to a
        function of the module whose parameter there is one (``generator(z, False)``)."""
        if any(arg.keyword is not None and FLAG(arg.keyword.value) and self._false(arg.value) for arg in call.args):
            return True
        positional = [arg.value for arg in call.args if arg.keyword is None]
        return not has_star_args(call) and any(
            self._false(value) and FLAG(self.context.positional_parameter(call, index) or "")
            for index, value in enumerate(positional))

    @staticmethod
    def _flag_default(op, call) -> bool:
        """``placeholder_with_default(True, [])``: a flag meant to be fed the other value."""
        return op == "placeholder_with_default" and bool(call.args) and type(call.args[0].value) is cst.Name \
            and call.args[0].value.value in ("True", "False")

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """A feed of False for a training flag outside a run's arguments: ``feed = {is_training: False}``."""
        if not self.evidence and id(self.context.parent) not in self.run_feeds and self._feeds_false(node):
            self.evidence = True

    def _feeds_false(self, element: cst.DictElement) -> bool:
        key = element.key.attr if type(element.key) is cst.Attribute else element.key
        return type(key) is cst.Name and FLAG(key.value) is not None and self._false(element.value)

    @staticmethod
    def _unknown_dependencies(op, call) -> bool:
        """A collection whose key, or a dependency whose ops, this module does not show:
        ``get_collection(key)``, ``control_dependencies(deps)``, ``group(*ops)``."""
        first = call.args[0].value
        if op in ("get_collection", "get_collection_ref"):
            return not (isinstance(first, cst.SimpleString) or _graph_key(first))
        if op == "control_dependencies":
            return not isinstance(first, (cst.List, cst.Tuple))
        return op == "group" and any(arg.star for arg in call.args)

    def _add(self, node, contrib, trains_always=False) -> None:
        self.context.mode_thunk(node)  # remember the mode here; reported at the end
        builders = {n.name.value for n in self.context.ancestors if type(n) in DEFS}
        self.norms.append((node, contrib, trains_always, builders))

    def _normalizer_params(self, normalizer, params) -> None:
        value = self.context.assigned_value(params) if isinstance(params, cst.Name) else params
        if not isinstance(value, cst.Dict) or any(not isinstance(e, cst.DictElement) for e in value.elements):
            return  # unknown parameters, or ``**more``
        keys = {e.key.raw_value: e.value for e in value.elements if isinstance(e.key, cst.SimpleString)}
        self._note_mode(keys.get("is_training", True))
        training = keys.get("is_training", cst.Name("True"))
        if "updates_collections" not in keys and not self._false(training):
            self._add(normalizer, True, self._true(training))

    def _batch_norm(self, func, name):
        """(position, keyword, default) of the training parameter of a batch norm that uses UPDATE_OPS
        (``name``: the TensorFlow name of ``func``)."""
        if name is not None:
            if name.path.startswith("contrib.") and name.leaf == "batch_norm":
                return BATCH_NORM_TRAINING["batch_norm"]
            return BATCH_NORM_TRAINING.get(name.path) if name.path.startswith("layers.") else None
        kind = type(func)
        if kind is not cst.Name and (kind is not cst.Attribute or func.attr.value != "batch_norm"):
            return None  # the qualified name of an attribute ends with it; anything else has none
        qualname = self.context.qualname(func) or ""
        return BATCH_NORM_TRAINING["batch_norm"] if (
            qualname.startswith("tf_slim.") and qualname.endswith(".batch_norm")) else None

    def _note_mode(self, training) -> None:
        """A batch norm whose training flag is False, or which a mode decides (``mode == TRAIN``),
        reads the moving statistics; one whose flag is any other value but True may."""
        if training is True or training is False:
            self.infers = self.infers or not training
            return
        value = self.context.assigned_value(training) if type(training) is cst.Name else None
        value = training if value is None else value
        if self._false(value) or type(value) is cst.Comparison:
            self.infers = True
        elif not self._true(value):
            self.flexible = True

    def _false(self, value) -> bool:
        if isinstance(value, cst.Name) and value.value != "False":
            value = self.context.assigned_value(value) or value
        return is_false(value) or isinstance(value, cst.Integer) and value.value == "0"

    def _true(self, value) -> bool:
        if isinstance(value, cst.Name) and value.value != "True":
            value = self.context.assigned_value(value) or value
        scope = None
        for _ in range(4):  # a flag handed down through a few functions' parameters
            agreed = self.context.agreed_argument(value, scope) if type(value) is cst.Name else None
            if agreed is None:
                break
            value, scope = agreed
            if scope is None:  # read where calls of a model object's ``__call__`` are: no further
                break
        return type(value) is cst.Name and value.value == "True" or type(value) is cst.Integer and value.value == "1"

    def _mentions(self, text: str) -> None:
        if not self.handled and MENTIONS(text):
            self.handled = True

    def visit_Name(self, node: cst.Name) -> None:
        text = node.value  # _mentions, inlined and memoized per name: every name passes here
        if text in INFERENCE_NAMES:
            self.evidence = True
        if self.handled or text in self.silent_names:
            return
        if MENTIONS(text):
            self.handled = True
        else:
            self.silent_names.add(text)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if type(self.context.parent) is not cst.Expr:  # docstrings say nothing
            self._mentions(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.handled = self.handled or node.attr.value == "updates"

    def leave_Module(self, node: cst.Module) -> None:
        if not self.trains or self.handled or not (self.infers or self.flexible and (
                self.evidence or self.inference_fetches)):
            return  # no train op, updates run some other way, or the moving statistics are never read
        # runs in inference mode that are the only evidence of one: a batch norm that none of their
        # fetches may depend on always trains
        built = None if self.evidence or not self.inference_fetches else reached(node, self.inference_fetches)
        norms = [(norm, contrib, trains_always or built is not None and not built.includes(norm, builders))
                 for norm, contrib, trains_always, builders in self.norms]
        for norm, contrib, trains_always in norms:
            # a norm that always trains feeds only a sibling that certainly infers (``reuse=True``)
            if not (contrib and self.arg_scope or trains_always and not self.infers):
                code = self.context.module.code_for_node(norm.func if isinstance(norm, cst.Call) else norm)
                self.report(norm, MESSAGE.format(code=code))


def _graph_key(expr) -> bool:
    """``tf.GraphKeys.X`` (or ``GraphKeys.X`` however imported)."""
    owner = expr.value if isinstance(expr, cst.Attribute) else None
    return (isinstance(owner, cst.Attribute) and owner.attr.value == "GraphKeys"
            or isinstance(owner, cst.Name) and owner.value == "GraphKeys")
