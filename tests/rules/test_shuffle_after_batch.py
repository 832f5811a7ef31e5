import pytest

from tfe_testing import FIXTURES, findings, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "shuffle_after_batch"
TFE801 = ["TFE801"]
TF = "import tensorflow as tf\n"
RANGE = "tf.data.Dataset.range(100)"


def lint(source):
    return findings(source, select=TFE801)


@pytest.mark.parametrize("source, expected", [
    # chains from a source, with steps that keep batches whole in between
    (TF + f"ds = {RANGE}.batch(8).shuffle(10)\n", [(2, 42, "TFE801")]),
    # a batch size bound to a number other than 1, or bound more than once
    (TF + f"size = 8\nds = {RANGE}.batch(size).shuffle(10)\n", [(3, 45, "TFE801")]),
    (TF + f"size = 1\nif big:\n    size = 64\nds = {RANGE}.batch(size).shuffle(10)\n", [(5, 45, "TFE801")]),
    (TF + "ds = tf.data.Dataset.from_tensor_slices(x).map(f).batch(8, drop_remainder=True).shuffle(10)\n",
     [(2, 81, "TFE801")]),
    (TF + f"ds = {RANGE}.batch(8).map(f).repeat().prefetch(2).shuffle(10)\n", [(2, 70, "TFE801")]),
    (TF + f"ds = {RANGE}.ragged_batch(8).cache().shuffle(10)\n", [(2, 57, "TFE801")]),
    (TF + "ds = tf.data.TFRecordDataset(files).map(parse).batch(32).shuffle(10)\n", [(2, 58, "TFE801")]),
    (TF + f"ds = ({RANGE}\n      .batch(8)\n      .shuffle(10))\n", [(4, 8, "TFE801")]),
    # batched again, but before the shuffle
    (TF + f"ds = {RANGE}.batch(8).batch(2).shuffle(10)\n", [(2, 51, "TFE801")]),
    (TF + f"ds = {RANGE}.batch(8).shuffle(10)\nother = {RANGE}.shuffle(5).batch(2)\n", [(2, 42, "TFE801")]),
    # a batch or buffer bigger than one, however spelled
    (TF + f"ds = {RANGE}.batch(2).shuffle(1000)\n", [(2, 42, "TFE801")]),
    (TF + f"ds = {RANGE}.batch(batch_size=b).shuffle(buffer_size=n)\n", [(2, 53, "TFE801")]),
    # only the first shuffle after the batch
    (TF + f"ds = {RANGE}.batch(8).shuffle(10).shuffle(5)\n", [(2, 42, "TFE801")]),
    # other spellings: TF1, compat.v1, an imported Dataset
    ("import tensorflow.compat.v1 as tf\nds = tf.data.TextLineDataset(f).batch(8).shuffle(10)\n",
     [(2, 42, "TFE801")]),
    ("from tensorflow.data import Dataset\nds = Dataset.range(9).batch(3).shuffle(3)\n", [(2, 32, "TFE801")]),
    # a name rebound step by step, in a module or a function, used in any statement after
    (TF + f"ds = {RANGE}\nds = ds.map(f)\nds = ds.batch(8)\nprint(1)\nds = ds.shuffle(10)\n",
     [(6, 9, "TFE801")]),
    (TF + f"def make():\n    ds = {RANGE}.batch(8)\n    ds = ds.prefetch(1)\n    return ds.shuffle(10)\n",
     [(5, 15, "TFE801")]),
    (TF + f"def run():\n    ds = {RANGE}.batch(8)\n    for b in ds.shuffle(10):\n        print(b)\n",
     [(4, 17, "TFE801")]),
    (TF + f"batched = {RANGE}.batch(8)\nshuffled = batched.shuffle(10)\n", [(3, 20, "TFE801")]),
    (TF + f"for epoch in range(3):\n    ds = {RANGE}.batch(8)\n    ds = ds.shuffle(10)\n", [(4, 13, "TFE801")]),
    # names that only look like evaluation data
    (TF + f"interval_ds = {RANGE}.batch(8).shuffle(10)\n", [(2, 51, "TFE801")]),
    (TF + f"latest = {RANGE}.batch(8)\ndevice_ds = latest.shuffle(10)\n", [(3, 20, "TFE801")]),
    (TF + f"values = {RANGE}.batch(8)\nevaluated = values.shuffle(10)\n", [(3, 20, "TFE801")]),
])
def test_shuffle_after_batch(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # a shuffle before the batch
    TF + f"ds = {RANGE}.shuffle(100).batch(8).shuffle(10)\n",
    TF + f"ds = {RANGE}.shuffle(100)\nds = ds.batch(8)\nds = ds.shuffle(10)\n",
    # examples shuffled, then batched; repeat before shuffle is a trade-off, not this bug
    TF + f"ds = {RANGE}.shuffle(100).batch(8)\n",
    TF + f"ds = {RANGE}.repeat().shuffle(100).batch(8)\n",
    # batches split again, or of unknown shape between batch and shuffle
    TF + f"ds = {RANGE}.batch(8).unbatch().shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8).flat_map(tf.data.Dataset.from_tensor_slices).shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8).interleave(f).shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8).apply(tf.data.experimental.ignore_errors()).shuffle(10)\n",
    # batched again after the shuffle: the first batch made the elements (windows of a text)
    TF + f"ds = {RANGE}.batch(11, drop_remainder=True).map(split).shuffle(100).batch(8)\n",
    TF + f"seqs = {RANGE}.batch(11)\nds = seqs.map(split)\nds = ds.shuffle(100)\nds = ds.batch(8, drop_remainder=True)\n",
    TF + f"ds = {RANGE}.batch(11).shuffle(100).padded_batch(8)\n",
    # bucketing: batches of similar examples are shuffled on purpose
    TF + f"ds = {RANGE}.padded_batch(8).shuffle(10)\n",
    TF + f"ds = {RANGE}.group_by_window(key, reduce, 8).shuffle(10)\n",
    TF + f"ds = {RANGE}.bucket_by_sequence_length(length, [10], [8, 4]).shuffle(10)\n",
    TF + f"ds = {RANGE}.apply(tf.data.experimental.bucket_by_sequence_length(length, [10], [8, 4])).shuffle(10)\n",
    TF + "ds = tf.data.Dataset.from_tensor_slices(sorted(x, key=len)).batch(8).shuffle(10)\n",
    TF + "order = np.argsort(lengths)\ndata = x[order]\nds = tf.data.Dataset.from_tensor_slices(x_sorted).batch(8).shuffle(5)\n",
    # batches of one element, or a buffer of one: the shuffle moves elements, or nothing
    TF + f"ds = {RANGE}.batch(1).shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(batch_size=1).map(f).shuffle(buffer_size=10)\n",
    TF + f"ds = {RANGE}.batch(8).shuffle(buffer_size=1)\n",
    TF + f"batch_size = 1\nds = {RANGE}.batch(batch_size).shuffle(10)\n",
    TF + f"batch_size, epochs = 1, 10\nds = {RANGE}.batch(batch_size).shuffle(10)\n",
    # sources that may shuffle or are not seen
    TF + "ds = tf.data.Dataset.list_files(pattern).batch(8).shuffle(10)\n",
    TF + "ds = tf.data.Dataset.from_generator(gen, tf.int32).batch(8).shuffle(10)\n",
    TF + "def make(ds):\n    return ds.batch(8).shuffle(10)\n",
    TF + "ds = load().batch(8).shuffle(10)\n",
    # not a dataset
    TF + "import pandas as pd\ndf = pd.read_csv(f).batch(8).shuffle(10)\n",
    TF + "from sklearn.utils import shuffle\nx = shuffle(batches)\n",
    TF + "import random\nitems = [1, 2]\nrandom.shuffle(items)\n",
    # a name rebound elsewhere or in a branch between the two statements
    TF + f"ds = {RANGE}.batch(8)\nif flag:\n    ds = ds.unbatch()\nds = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\nfor ds in others:\n    pass\nds = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\nwhile ds:\n    ds = ds.unbatch()\n    x = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\ndef f():\n    return ds.shuffle(10)\n",
    TF + f"if flag:\n    ds = {RANGE}.batch(8)\nds = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\nds = load()\nds = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8); ds = ds.unbatch(); x = ds.shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\nx = [d.shuffle(10) for d in [ds]]\n",
    # evaluation data: metrics average over every batch, in any order
    TF + f"val_ds = {RANGE}.batch(8)\nval_ds = val_ds.shuffle(10).prefetch(1)\n",
    TF + f"test_dataset = {RANGE}.batch(8).shuffle(10)\n",
    TF + f"ds = {RANGE}.batch(8)\nvalDataset = ds.shuffle(10)\n",
    TF + f"eval2 = {RANGE}.batch(8)\nds = eval2.shuffle(10)\n",
    TF + f"VAL_DS = {RANGE}.batch(8).shuffle(10)\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_message_and_severity():
    [diagnostic] = lint_source(TF + f"ds = {RANGE}.batch(8).shuffle(10)\n", select=TFE801)
    assert diagnostic.severity == "warning" and diagnostic.fix is None
    assert "shuffles whole batches" in diagnostic.message and "`.shuffle(n).batch(b)`" in diagnostic.message


def test_shuffle_after_batch_keeps_consecutive_batches(tf):
    tf.random.set_seed(0)
    batches = [b.numpy().tolist() for b in tf.data.Dataset.range(12).batch(3).shuffle(4, seed=1)]
    assert sorted(batches) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert batches != sorted(batches)  # the batches were shuffled, their elements were not


def test_fixture_batches_are_consecutive_runs_until_the_examples_are_shuffled(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    wrong, right = bad.main(), good.main()
    assert wrong["consecutive"] is True and right["consecutive"] is False
    assert wrong["examples"] == right["examples"] == list(range(24))
    assert wrong["near_misses_consecutive"] is False
    batches = bad.chained()
    assert batches != sorted(batches)  # shuffled, but only as whole batches
    assert sorted(batches) == [list(range(i, i + 4)) for i in range(0, 24, 4)]
