"""A `tf.data` pipeline that shuffles after batching and never before.

Why: ``dataset.batch(b).shuffle(n)`` shuffles whole batches: every batch
holds the same ``b`` consecutive elements in every epoch, only the order of
the batches changes (measured on TF 2.21: ``Dataset.range(12).batch(3)
.shuffle(4)`` yields ``[3, 4, 5], [9, 10, 11], [6, 7, 8], [0, 1, 2]`` for one
seed, and always these four runs).  Data stored in order (by class, time or
file) then trains on batches of correlated examples.  Shuffle the elements
before batching: ``dataset.shuffle(n).batch(b)``.  Applies in TF 1.x and TF 2.

Reported: ``.shuffle(...)`` on a dataset whose pipeline, seen whole from its
source (``Dataset.from_tensor_slices``, ``from_tensors``, ``range``,
``TFRecordDataset``, ``TextLineDataset``, ``FixedLengthRecordDataset``), has a
``batch`` / ``ragged_batch`` before it with only ``map``, ``filter``,
``repeat``, ``prefetch``, ``cache``, ``take``, ``skip``, ``shard`` or
``with_options`` in between, and no shuffle before that batch.  The pipeline is
followed through a chain of calls and through a name rebound step by step
(``ds = ds.batch(32)`` then ``ds = ds.shuffle(100)``) in the same block of the
same scope, with no other binding of the name in between.

Fix safety: none offered; reordering the pipeline changes what it yields.

Known problems: pipelines that start from a parameter, a function's result,
``list_files`` or ``from_generator`` (which may shuffle), that go through
``apply``, ``flat_map``, ``interleave``, ``padded_batch`` or the bucketing
methods (``group_by_window``, ``bucket_by_sequence_length``: batches of sorted
examples are shuffled on purpose), that ``unbatch`` after the batch, or that
batch again after the shuffle (``batch(seq_len + 1)`` then made the elements:
windows of a text, shuffled before the real batching) are not reported, nor are
sources built from data whose code mentions sorting (``sorted(...)``, ``np.argsort``),
nor batches of one element (``batch(1)``, also through a name bound once to 1) or a buffer of one
(``shuffle(1)``), where the order of batches is the order of elements or nothing moves, nor pipelines read from or
assigned to a name of evaluation data (``val_ds``, ``test_dataset``, ``evalData``): a metric
averages over every batch in any order.  A module-level name
rebound by a function through ``global`` between the two statements is not seen.
"""
import re

import libcst as cst

from ..analysis.loops import literal_int
from ..analysis.syntax import bindings_in, call_arg
from ..analysis.tf_api import RECORD_DATASETS
from ..rule import WARNING, Rule

SOURCES = {"data.Dataset.from_tensor_slices", "data.Dataset.from_tensors", "data.Dataset.range", *RECORD_DATASETS}
BATCHES = {"batch", "ragged_batch"}
KEEP_ELEMENTS = {"map", "filter", "repeat", "prefetch", "cache", "take", "skip", "shard", "with_options"}
UPSTREAM = KEEP_ELEMENTS | BATCHES | {"unbatch", "enumerate", "take_while"}
REBATCHES = BATCHES | {"padded_batch", "bucket_by_sequence_length", "group_by_window", "apply"}
# Names of evaluation data (``val_ds``, ``test_dataset``, ``valDataset``): their order changes no metric.
EVALUATION = re.compile(r"(?i:(^|_)(val|valid|validation|test|testing|eval|evaluation|dev)(_|$|\d))"
                        r"|^(val|valid|test|eval)[A-Z]").search
MESSAGE = ("`shuffle` after `{batch}` shuffles whole batches: each batch keeps the same consecutive elements "
           "every epoch; shuffle before batching (`.shuffle(n).{batch}(b)`)")


class ShuffleAfterBatch(Rule):
    """`dataset.batch(b).shuffle(n)` with no shuffle before: batches of consecutive elements."""

    CODE = "TFE801"
    MESSAGE = "`shuffle` after `batch` shuffles whole batches of consecutive elements; shuffle before batching"
    SEVERITY = WARNING
    NEEDS = ("shuffle",)  # the method it reports
    BAD = """
        dataset = tf.data.Dataset.from_tensor_slices(features).batch(32).shuffle(1000)
    """
    GOOD = """
        dataset = tf.data.Dataset.from_tensor_slices(features).shuffle(1000).batch(32)
    """

    def setup(self) -> None:
        # (id(scope), name) -> (suite, index of the statement in it, the pipeline's steps)
        self.records = {}
        self.rebatched = set()  # shuffles batched again later: the first batch made the elements

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        # the method name first: asking whether the receiver is a dataset costs far more
        if not (type(func) is cst.Attribute and (func.attr.value in REBATCHES or func.attr.value == "shuffle")
                and self.context.is_dataset(func.value)):
            return
        if func.attr.value in REBATCHES:
            self.rebatched.update(step for step in self._steps(func.value) or () if _method(step) == "shuffle")
        if func.attr.value != "shuffle":
            return
        calls = self._steps(func.value) or ()
        steps = [_method(step) for step in calls]
        last = max((i for i, step in enumerate(steps) if step in BATCHES | {"padded_batch"}), default=None)
        if (last is None or steps[last] not in BATCHES or not set(steps[last + 1:]) <= KEEP_ELEMENTS
                or not set(steps[:last]) <= UPSTREAM):
            return
        if self._one(call_arg(calls[last], 0, "batch_size")) or self._one(call_arg(node, 0, "buffer_size")):
            return  # batches of one element are the elements; a buffer of one shuffles nothing
        if any(EVALUATION(name) for name in self._names(node)):
            return  # evaluation data: metrics average over every batch in any order
        rebatched = self.rebatched
        self.report(func.attr, MESSAGE.format(batch=steps[last]), when=lambda: node not in rebatched)

    def _one(self, arg) -> bool:
        """``1``, or a name bound once to it (``batch_size = 1``)."""
        return arg is not None and literal_int(self.context, arg.value) == 1

    def leave_Assign(self, node: cst.Assign) -> None:
        """Remember ``name = <pipeline>`` made of a single statement directly in a block."""
        ancestors = self.context.ancestors
        if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name or len(ancestors) < 3:
            return
        line, suite = ancestors[-2], ancestors[-3]
        if not (type(line) is cst.SimpleStatementLine and len(line.body) == 1
                and (type(suite) is cst.IndentedBlock or type(suite) is cst.Module)):
            return
        key = (id(self.context.scope), node.targets[0].target.value)
        steps = self._steps(node.value)
        if steps is None:
            self.records.pop(key, None)
        else:
            index = next(i for i, stmt in enumerate(suite.body) if stmt is line)
            self.records[key] = (suite, index, steps)

    def _steps(self, expr: cst.BaseExpression):
        """The method calls of a pipeline from its source to ``expr``, or None when the source
        is not seen."""
        steps = []
        while True:
            name = self.context.tf_call(expr)
            if name is not None and name.path in SOURCES:
                return None if self._sorted(expr) else steps[::-1]
            kind = type(expr)  # concrete classes
            if kind is cst.Name:
                earlier = self._record(expr.value)
                return None if earlier is None else [*earlier, *steps[::-1]]
            if not (kind is cst.Call and type(expr.func) is cst.Attribute):
                return None
            steps.append(expr)
            expr = expr.func.value

    def _names(self, shuffle: cst.Call):
        """The names the pipeline is read from and the shuffled one is assigned to."""
        expr = shuffle.func.value
        while type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            expr = expr.func.value
        if type(expr) is cst.Name:
            yield expr.value
        for outer in reversed(self.context.ancestors[:-1]):  # ``val_ds = val_ds.shuffle(n).prefetch(1)``
            if type(outer) is cst.Assign and len(outer.targets) == 1 and type(outer.targets[0].target) is cst.Name:
                yield outer.targets[0].target.value
            if type(outer) not in (cst.Attribute, cst.Call):
                return

    def _sorted(self, source: cst.Call) -> bool:
        """The source's data mentions sorting: batches of sorted examples are shuffled on purpose."""
        if not source.args:
            return False
        data = source.args[0].value
        codes = [data]
        if isinstance(data, cst.Name) and self.context.assigned_value(data) is not None:
            codes.append(self.context.assigned_value(data))
        return any("sort" in self.context.module.code_for_node(code) for code in codes)

    def _record(self, name: str):
        """The steps of the pipeline last assigned to ``name`` in a block around here, when no
        other binding of ``name`` can come between that assignment and this point."""
        record = self.records.get((id(self.context.scope), name))
        if record is None or not self.context.is_local(name):
            return None
        suite, index, steps = record
        ancestors = self.context.ancestors
        depth = next((d for d in range(len(ancestors) - 1, -1, -1) if ancestors[d] is suite), None)
        if depth is None or depth + 1 >= len(ancestors):
            return None
        statement = ancestors[depth + 1]
        here = next((i for i, stmt in enumerate(suite.body) if stmt is statement), -1)
        between = list(suite.body[index + 1:here])
        if not isinstance(statement, cst.SimpleStatementLine):
            between.append(statement)  # a loop or block may rebind the name before this point
        if here <= index or any(bound == name for bound, _ in bindings_in(between)):
            return None
        return steps


def _method(call: cst.Call) -> str:
    return call.func.attr.value
