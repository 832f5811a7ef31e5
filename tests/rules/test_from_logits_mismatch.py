import warnings

import pytest

from tfe_testing import FIXTURES, dedent, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "from_logits_mismatch"
TFE407 = ["TFE407"]
TF = "import tensorflow as tf\n"
LAYERS = TF + "L = tf.keras.layers\n"
SEQ = LAYERS + "model = tf.keras.Sequential([L.Dense(8, activation='relu'), {last}])\n"


FIT = "model.fit(x, y)\n"  # a model compiled and never trained or evaluated is not reported (below)


def lint(source):
    """The findings on ``source`` whose ``model`` is then trained."""
    return findings(source + FIT, select=TFE407)


@pytest.mark.parametrize("last, loss", [
    # a linear last layer into a probability loss
    ("L.Dense(4)", "'sparse_categorical_crossentropy'"),
    ("L.Dense(4, activation=None)", "'categorical_crossentropy'"),
    ("L.Dense(4, 'linear')", "'CategoricalCrossentropy'"),
    ("L.Dense(1, activation=tf.keras.activations.linear)", "'binary_crossentropy'"),
    ("L.Dense(4)", "tf.keras.losses.SparseCategoricalCrossentropy()"),
    ("L.Dense(4)", "tf.keras.losses.CategoricalCrossentropy(from_logits=False)"),
    ("L.Dense(4)", "tf.keras.losses.CategoricalCrossentropy(False, label_smoothing=0.1)"),
    ("L.Dense(1)", "tf.keras.losses.BinaryCrossentropy()"),
    ("L.Dense(4)", "tf.keras.losses.categorical_crossentropy"),
    ("L.Dense(4)", "tf.keras.losses.sparse_categorical_crossentropy"),
    ("L.Conv2D(1, 1)", "'binary_crossentropy'"),
    ("L.Conv1D(4, 3, 1, 'same', None, 1, 1, None)", "'categorical_crossentropy'"),
    # a softmax / sigmoid last layer into a loss told it gets logits
    ("L.Dense(4, activation='softmax')", "tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)"),
    ("L.Dense(4, activation=tf.nn.softmax)", "tf.keras.losses.CategoricalCrossentropy(True)"),
    ("L.Dense(4, activation=tf.math.softmax)", "tf.keras.losses.CategoricalCrossentropy(True)"),
    ("L.Dense(4, activation=tf.keras.activations.softmax)", "tf.keras.losses.CategoricalCrossentropy(True)"),
    ("L.Dense(1, activation='sigmoid')", "tf.keras.losses.BinaryCrossentropy(from_logits=True)"),
    ("L.Dense(1, activation=tf.sigmoid)", "tf.keras.losses.BinaryCrossentropy(from_logits=True)"),
    ("L.Dense(1, activation=tf.nn.sigmoid)", "tf.keras.losses.BinaryCrossentropy(from_logits=True)"),
    ("L.Activation('softmax')", "tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)"),
    ("L.Activation(activation=tf.nn.softmax)", "tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)"),
    ("L.Softmax()", "tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)"),
    ("L.Conv3D(1, 1, activation='sigmoid')", "tf.keras.losses.BinaryCrossentropy(from_logits=True)"),
])
def test_sequential_list_positional_and_keyword_loss(last, loss):
    positional = SEQ.format(last=last) + f"model.compile('adam', {loss})\n"
    assert lint(positional) == [(4, 23, "TFE407")]
    keyword = SEQ.format(last=last) + f"model.compile(optimizer='adam', loss={loss}, metrics=['accuracy'])\n"
    assert lint(keyword) == [(4, 38, "TFE407")]


def test_messages_name_the_loss_and_both_corrections():
    [logits] = lint_source(SEQ.format(last="L.Dense(4)") + "model.compile('adam', 'categorical_crossentropy')\n" + FIT,
                           select=TFE407)
    assert "outputs logits" in logits.message and "`'categorical_crossentropy'` expects probabilities" in logits.message
    assert "`from_logits=True`" in logits.message and "softmax/sigmoid activation" in logits.message
    assert logits.severity == "warning" and logits.fix is None
    [probabilities] = lint_source(SEQ.format(last="L.Dense(1, activation='sigmoid')")
                                  + "model.compile('adam', tf.keras.losses.BinaryCrossentropy(from_logits=True))\n"
                                  + FIT,
                                  select=TFE407)
    assert "applies sigmoid" in probabilities.message and "use `from_logits=False`" in probabilities.message
    assert "drop the activation" in probabilities.message


HELPERS = dedent("""\
    import tensorflow as tf
    from tensorflow import keras
    def build():
        model = keras.models.Sequential()
        model.add(keras.layers.Conv2D(8, 3, activation="relu"))
        model.add(keras.layers.Dense(10))
        return model
    def build_softmax():
        model = keras.Sequential([keras.layers.Dense(10, activation="softmax")])
        return model
    def build_either(flag):
        model = keras.Sequential([keras.layers.Dense(10)])
        if flag:
            return keras.Sequential([keras.layers.Dense(10, activation="softmax")])
        return model
    def build_changed():
        model = keras.Sequential([keras.layers.Dense(10)])
        model.layers[-1].activation = keras.activations.softmax
        return model
    def build_conditionally(flag):
        model = keras.Sequential([keras.layers.Dense(10)])
        if flag:
            model.add(keras.layers.Softmax())
        return model
""")


@pytest.mark.parametrize("use, expected", [
    ("with tf.distribute.MirroredStrategy().scope():\n    m = build()\n"
     "    m.compile(loss='categorical_crossentropy', optimizer='adam')\nm.fit(x, y)\n", [(27, 20)]),
    ("m = build_softmax()\nm.compile(loss=keras.losses.CategoricalCrossentropy(from_logits=True))\nm.fit(x, y)\n",
     [(26, 16)]),
    # near misses: the helper's model is not what the caller compiles, or it is not known
    ("m = build_softmax()\nm.compile(loss='categorical_crossentropy')\n", []),
    ("m = build_either(True)\nm.compile(loss='categorical_crossentropy')\n", []),  # two returns
    ("m = build_changed()\nm.compile(loss='categorical_crossentropy')\n", []),  # its layers changed
    ("m = build_conditionally(True)\nm.compile(loss='categorical_crossentropy')\n", []),
    ("m = build()\nm.add(keras.layers.Softmax())\nm.compile(loss='categorical_crossentropy')\n", []),
    ("m = build(*args)\nm.compile(loss='categorical_crossentropy')\n", []),
    # a name rebound in straight-line code (a notebook's cells): the model compiled and then used
    ("m = build()\nm.compile(loss='categorical_crossentropy')\nm = build()\n"
     "m.compile(loss='categorical_crossentropy')\nm.fit(x, y)\n", [(28, 16)]),
    ("m = build()\nm.compile(loss='categorical_crossentropy')\nm = load_model(path)\nm.fit(x, y)\n", []),
    ("m = build()\nif c:\n    m = build_softmax()\nm.compile(loss='categorical_crossentropy')\nm.fit(x, y)\n",
     []),
    ("def build():\n    return keras.Sequential([keras.layers.Dense(10, activation='softmax')])\n"
     "m = build()\nm.compile(loss='categorical_crossentropy')\n", []),  # defined twice
])
def test_a_model_built_and_returned_by_a_module_function(use, expected):
    trained = use + "m.fit(x, y)\n"  # the near misses for their own reason
    assert [(line, column) for line, column, _ in lint(HELPERS + trained)] == expected


@pytest.mark.parametrize("after, expected", [
    ("model.fit(x, y)\n", [(4, 23)]),
    ("model.evaluate(x, y)\n", [(4, 23)]),
    ("history = model.fit_generator(batches)\n", [(4, 23)]),
    ("def train(data):\n    model.train_on_batch(*data)\n", [(4, 23)]),
    ("train(model, data)\n", [(4, 23)]),  # handed on: trained elsewhere, maybe
    # compiled and never trained or evaluated here: a lesson's compile variants, a script that stops early
    ("", []),
    ("model.summary()\nmodel.save('m.h5')\nprint(model.predict(x))\n", []),
    ("model = other\nmodel.fit(x, y)\n", []),  # another model
    ("model.summary()\nmodel.custom_loop(data)\n", []),  # a method that may change it
])
def test_reported_only_when_the_compiled_model_is_used(after, expected):
    source = SEQ.format(last="L.Dense(4)") + "model.compile('adam', 'categorical_crossentropy')\n" + after
    assert findings(source, select=TFE407) == [(line, column, "TFE407") for line, column in expected]


def test_add_sequences_on_a_name_bound_to_sequential():
    source = dedent("""\
        import tensorflow as tf
        from tensorflow.keras.layers import Dense, Dropout
        model = tf.keras.models.Sequential()
        model.add(tf.keras.Input((4,)))
        model.add(Dense(16, activation="relu"))
        model.add(Dropout(0.5))
        model.add(Dense(3))
        model.summary()
        model.compile(loss="categorical_crossentropy", optimizer="sgd")
        model.fit(x, y)
    """)
    assert lint(source) == [(9, 20, "TFE407")]
    # the last add decides: a softmax after the logits
    with_softmax = source.replace('model.add(Dense(3))\n', 'model.add(Dense(3))\nmodel.add(Dense(3, "softmax"))\n')
    assert lint(with_softmax) == []


def test_standalone_keras_tf_keras_and_compat_v1_spellings():
    keras3 = dedent("""\
        import tensorflow as tf
        import keras
        from keras import layers
        model = keras.Sequential([layers.Dense(1)])
        model.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy())
    """)
    assert lint(keras3) == [(5, 40, "TFE407")]
    legacy = dedent("""\
        import tensorflow as tf
        import tf_keras
        model = tf_keras.models.Sequential([tf_keras.layers.Dense(10, activation="softmax")])
        model.compile("adam", loss=tf_keras.losses.CategoricalCrossentropy(from_logits=True))
    """)
    assert lint(legacy) == [(4, 28, "TFE407")]
    tf1 = dedent("""\
        import tensorflow.compat.v1 as tf
        x = tf.placeholder(tf.float32, [None, 4])
        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        model.compile(tf.train.AdamOptimizer(), "sparse_categorical_crossentropy")
    """)
    [diagnostic] = lint_source(tf1 + FIT, select=TFE407)
    assert (diagnostic.line, diagnostic.col + 1, diagnostic.severity) == (4, 41, "warning")
    from_import = dedent("""\
        from tensorflow.keras import Sequential, losses
        from tensorflow.keras.layers import Dense, Softmax
        model = Sequential(layers=[Dense(10), Softmax()])
        model.compile("adam", losses.SparseCategoricalCrossentropy(from_logits=True))
    """)
    assert lint(from_import) == [(4, 23, "TFE407")]


def test_functional_models_followed_through_names_bound_once():
    source = dedent("""\
        import tensorflow as tf
        inputs = tf.keras.Input((4,))
        hidden = tf.keras.layers.Dense(16, activation="relu")(inputs)
        head = tf.keras.layers.Dense(3)
        logits = head(hidden)
        model = tf.keras.Model(inputs=inputs, outputs=logits)
        loss = tf.keras.losses.CategoricalCrossentropy()
        model.compile(optimizer="adam", loss=loss)
    """)
    assert lint(source) == [(8, 38, "TFE407")]
    positional = source.replace("Model(inputs=inputs, outputs=logits)", "models.Model(inputs, logits)")
    assert lint(positional) == [(8, 38, "TFE407")]
    activation = source.replace("logits = head(hidden)\n", "scores = head(hidden)\n"
                                "logits = tf.keras.layers.Activation('softmax')(scores)\n")
    assert lint(activation) == []
    assert lint(activation.replace("CategoricalCrossentropy()", "CategoricalCrossentropy(from_logits=True)")) == [
        (9, 38, "TFE407")]


KERAS = "import keras\nfrom keras import layers\n"
INPUTS = KERAS + "inputs = keras.Input((4,))\nx = layers.Dense(64, activation='relu')(inputs)\n"
SPARSE = "model.compile(optimizer='adam', loss='sparse_categorical_crossentropy')\n"
LOGITS_LOSS = "model.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n"


@pytest.mark.parametrize("body, compile_, expected", [
    # the output name rebound layer after layer: the last assignment before Model(...) decides
    ("x = layers.Dense(10)(x)\n", SPARSE, [(7, 38)]),
    ("x = layers.Dense(10)(x)\nx = layers.Activation('softmax')(x)\n", LOGITS_LOSS, [(8, 23)]),
    ("x = layers.Dense(10)(x)\nx = layers.Softmax()(x)\n", LOGITS_LOSS, [(8, 23)]),
    ("x = layers.Dense(10, activation='softmax', name='out')(x)\n", LOGITS_LOSS, [(7, 23)]),
    # layers that keep the question are looked through, in a chain of rebindings too
    ("x = layers.Dense(10)(x)\nx = layers.Dropout(0.5)(x)\nx = layers.Flatten()(x)\n", SPARSE, [(9, 38)]),
    ("x = layers.Dense(10)(x)\ndrop = layers.GaussianNoise(0.1)\nx = drop(x)\n", SPARSE, [(9, 38)]),
    # the value when it was assigned: h keeps the logits though x is rebound after it
    ("x = layers.Dense(10)(x)\nh = layers.Dropout(0.5)(x)\nx = layers.Dense(10, activation='softmax')(x)\n"
     "x = h\n", SPARSE, [(10, 38)]),
    # an earlier branch or loop does not matter when the last assignment follows it
    ("if deep:\n    x = layers.Dense(64, activation='relu')(x)\nx = layers.Dense(10)(x)\n", SPARSE, [(9, 38)]),
    ("for units in (32, 16):\n    x = layers.Dense(units, activation='relu')(x)\nx = layers.Dense(10)(x)\n",
     SPARSE, [(9, 38)]),
    # consistent pairs
    ("x = layers.Dense(10)(x)\n", LOGITS_LOSS, []),
    ("x = layers.Dense(10)(x)\nx = layers.Activation('softmax')(x)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx = layers.Dropout(0.5)(x)\n", LOGITS_LOSS, []),
    # near misses: the reaching assignment is not certain, or the last layer is not known
    ("x = layers.Dense(10)(x)\nif deep:\n    x = layers.Softmax()(x)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nfor _ in range(n):\n    x = layers.Dense(10, activation='softmax')(x)\n",
     SPARSE, []),
    ("x = layers.Dense(10)(x)\nwith scope():\n    x = layers.Softmax()(x)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\ntry:\n    x = layers.Softmax()(x)\nexcept ValueError:\n    pass\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx += 0\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx, y = layers.Softmax()(x), None\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nprint(x := layers.Softmax()(x))\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx = layers.Dropout(0.5)(x)\nx = MyLayer()(x)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx = layers.BatchNormalization()(x)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx = layers.Dropout(0.5)(x, training=True)\n", SPARSE, []),
    ("x = layers.Dense(10)(x)\nx = scale(x)\n", SPARSE, []),
])
def test_functional_output_name_rebound_in_straight_line_code(body, compile_, expected):
    source = INPUTS + body + "model = keras.Model(inputs, x)\n" + compile_
    assert lint(source) == [(*position, "TFE407") for position in expected]


def test_rebound_output_name_in_a_function_and_in_nested_scopes():
    source = dedent("""\
        import tensorflow as tf
        from tensorflow.keras import layers
        def build(classes):
            inputs = tf.keras.Input((4,))
            x = layers.Dense(64, activation="relu")(inputs)
            x = layers.Dropout(0.2)(x)
            x = layers.Dense(classes)(x)
            model = tf.keras.Model(inputs=inputs, outputs=x)
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
            return model
    """)
    assert lint(source) == [(9, 42, "TFE407")]
    # the Model(...) call in another block than the last assignment: not followed
    in_with = source.replace("    model = tf.keras.Model(inputs=inputs, outputs=x)\n",
                             "    with strategy.scope():\n        model = tf.keras.Model(inputs=inputs, outputs=x)\n")
    assert lint(in_with) == []
    # a parameter named like the output, or a name of the enclosing scope: not followed
    assert lint(source.replace("def build(classes):", "def build(classes, x):")) == []
    nested = dedent("""\
        import keras
        inputs = keras.Input((4,))
        x = keras.layers.Dense(8)(inputs)
        x = keras.layers.Dense(3)(x)
        def build():
            model = keras.Model(inputs, x)
            model.compile("adam", "categorical_crossentropy")
    """)
    assert lint(nested) == []
    assert lint(nested.replace("def build():\n    ", "").replace("\n    model.compile", "\nmodel.compile")) == [
        (6, 23, "TFE407")]
    # a name assigned in another function under `global`
    assert lint(nested.replace("def build():\n", "def reset():\n    global x\n    x = None\ndef build():\n")) == []


@pytest.mark.parametrize("last, expected", [
    ("L.Dense(4), L.Dropout(0.5)", [(4, 23)]),
    ("L.Dense(4), L.Flatten(), L.Reshape((2, 2)), L.GaussianNoise(0.1), L.ActivityRegularization()", [(4, 23)]),
    ("L.Dense(4, 'softmax'), L.Dropout(0.5), L.Dropout(0.1)", []),  # probabilities with a probability loss
    ("L.Dense(4), L.Dropout(0.5), MyLayer()", []),  # an unknown layer after the Dropout
    ("L.Dense(4), L.BatchNormalization()", []),
    ("L.Dense(4), *more, L.Dropout(0.5)", []),
])
def test_sequential_looks_through_layers_that_keep_the_activation(last, expected):
    source = SEQ.format(last=last) + "model.compile('adam', 'categorical_crossentropy')\n"
    assert lint(source) == [(*position, "TFE407") for position in expected]
    added = dedent("""\
        import tensorflow as tf
        model = tf.keras.Sequential()
        model.add(tf.keras.layers.Dense(4))
        model.add(tf.keras.layers.Dropout(0.5))
        model.compile('adam', 'categorical_crossentropy')
    """)
    assert lint(added) == [(5, 23, "TFE407")]
    assert lint(added.replace("Dropout(0.5)", "Dense(4, 'softmax')")) == []


MULTI = dedent("""\
    import tensorflow as tf
    inputs = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(16, activation="relu")(inputs)
    classes = tf.keras.layers.Dense(3, name="classes")(hidden)
    flag = tf.keras.layers.Dense(1, activation="sigmoid", name="flag")(hidden)
    model = tf.keras.Model(inputs, [classes, flag])
""")


@pytest.mark.parametrize("loss, expected", [
    ('{"classes": "sparse_categorical_crossentropy", "flag": "binary_crossentropy"}', [(7, 32)]),
    ('{"flag": tf.keras.losses.BinaryCrossentropy(from_logits=True), "classes": "mse"}', [(7, 29)]),
    ('["sparse_categorical_crossentropy", tf.keras.losses.BinaryCrossentropy(from_logits=True)]', [(7, 21), (7, 56)]),
    ('"binary_crossentropy"', [(7, 20)]),  # one loss for every output: the linear one gets probabilities
    ('{"classes": tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), "flag": "binary_crossentropy"}',
     []),
    ('["mse", "binary_crossentropy"]', []),
    ('{"other": "binary_crossentropy"}', []),  # no output of that name
    ('["sparse_categorical_crossentropy"]', []),  # one loss for two outputs: which is unclear
    ('[*losses]', []),
])
def test_per_output_losses_when_the_outputs_are_known(loss, expected):
    source = MULTI + f"model.compile(loss={loss}, optimizer='adam')\n"
    assert lint(source) == [(*position, "TFE407") for position in expected]


def test_in_a_function_and_in_every_mode():
    source = dedent("""\
        import tensorflow as tf
        def build(classes):
            model = tf.keras.Sequential([tf.keras.layers.Dense(classes)])
            model.compile("adam", "sparse_categorical_crossentropy")
            return model
        @tf.function
        def step(x):
            return x
    """)
    [diagnostic] = lint_source(source, select=TFE407)
    assert (diagnostic.line, diagnostic.col + 1, diagnostic.severity) == (4, 27, "warning")


@pytest.mark.parametrize("source", [
    # consistent pairs, and losses that take no probabilities
    SEQ.format(last="L.Dense(4)") + "model.compile('adam', tf.keras.losses.SparseCategoricalCrossentropy(True))\n",
    SEQ.format(last="L.Dense(4, activation='softmax')") + "model.compile('adam', 'sparse_categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(1, activation='sigmoid')")
    + "model.compile('adam', tf.keras.losses.BinaryCrossentropy())\n",
    SEQ.format(last="L.Dense(1)") + "model.compile('adam', 'mse')\n",
    SEQ.format(last="L.Dense(1)") + "model.compile('adam', tf.keras.losses.Hinge())\n",
    SEQ.format(last="L.Dense(4)") + "model.compile('adam', loss=lambda y, p: tf.keras.losses.mse(y, p))\n",
    SEQ.format(last="L.Dense(4, activation='relu')") + "model.compile('adam', 'sparse_categorical_crossentropy')\n",
    # from_logits or the activation not known
    SEQ.format(last="L.Dense(4)") + "model.compile('adam', tf.keras.losses.CategoricalCrossentropy(from_logits=f))\n",
    SEQ.format(last="L.Dense(4, activation=act)") + "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4, **options)") + "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4)") + "model.compile('adam', 'categorical_crossentropy', **options)\n",
    SEQ.format(last="L.Dense(4)") + "model.compile(*args)\n",
    # the last layer is not known: a custom layer, a pass-through, a starred list, no layer
    SEQ.format(last="MyHead(4)") + "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dropout(0.5)") + "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Conv2D(4, 3, 1, 'same', None, 1, 1, 'softmax')")
    + "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Conv2DTranspose(1, 3)") + "model.compile('adam', 'binary_crossentropy')\n",
    SEQ.format(last="*heads") + "model.compile('adam', 'categorical_crossentropy')\n",
    TF + "model = tf.keras.Sequential(make_layers())\nmodel.compile('adam', 'categorical_crossentropy')\n",
    TF + "model = tf.keras.Sequential()\nmodel.compile('adam', 'categorical_crossentropy')\n",
    # the model name is bound twice, or built elsewhere
    SEQ.format(last="L.Dense(4)") + "model = load()\nmodel.compile('adam', 'categorical_crossentropy')\n",
    TF + "model = build_model()\nmodel.compile('adam', 'categorical_crossentropy')\n",
    TF + "from models import model\nmodel.compile('adam', 'categorical_crossentropy')\n",
    # the layers may change before compile: an add in a branch or a loop, the model handed to a helper,
    # its layers edited; or an add after compile
    SEQ.format(last="L.Dense(4)") + "if big:\n    model.add(L.Dense(4, 'softmax'))\n"
    "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4)") + "add_head(model)\nmodel.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4)") + "model.layers[-1].activation = tf.nn.softmax\n"
    "model.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4)") + "model.pop()\nmodel.compile('adam', 'categorical_crossentropy')\n",
    SEQ.format(last="L.Dense(4)") + "model.compile('adam', 'categorical_crossentropy')\n"
    "model.add(L.Softmax())\n",
    # compiled in another scope than the one that binds it
    SEQ.format(last="L.Dense(4)") + "def train():\n    model.compile('adam', 'categorical_crossentropy')\n",
    # functional models whose outputs are not known
    TF + "inputs = tf.keras.Input((4,))\nmodel = tf.keras.Model(inputs, tf.nn.softmax(inputs))\n"
    "model.compile('adam', tf.keras.losses.CategoricalCrossentropy(from_logits=True))\n",
    TF + "inputs = tf.keras.Input((4,))\nout = tf.keras.layers.Dense(3)(inputs)\nout = tf.keras.layers.Softmax()(out)\n"
    "model = tf.keras.Model(inputs, out)\nmodel.compile('adam', 'categorical_crossentropy')\n",
    TF + "inputs = tf.keras.Input((4,))\nout = {'a': tf.keras.layers.Dense(3)(inputs)}\n"
    "model = tf.keras.Model(inputs, out)\nmodel.compile('adam', {'a': 'categorical_crossentropy'})\n",
    # subclassed models are not followed
    TF + "class Net(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
    "        self.out = tf.keras.layers.Dense(3)\n    def call(self, x):\n        return self.out(x)\n"
    "model = Net()\nmodel.compile('adam', 'categorical_crossentropy')\n",
    # not Keras
    "import tensorflow as tf\nimport mylib as keras\nmodel = keras.Sequential([keras.layers.Dense(3)])\n"
    "model.compile('adam', 'categorical_crossentropy')\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_a_file_that_imports_only_keras_is_linted():
    source = "import keras\nmodel = keras.Sequential([keras.layers.Dense(3)])\n" \
             "model.compile('adam', 'categorical_crossentropy')\n"
    assert lint(source) == [(3, 23, "TFE407")]
    assert lint("import tensorflow as tf\n" + source) == [(4, 23, "TFE407")]
    assert lint(source.replace("import keras\n", "import tf_keras as keras\n")) == [(3, 23, "TFE407")]
    from_imports = dedent("""\
        from keras.layers import Dense, Dropout, Input
        from keras.models import Model
        from keras.losses import BinaryCrossentropy
        inputs = Input((4,))
        x = Dense(8, activation="relu")(inputs)
        x = Dense(1, activation="sigmoid")(x)
        x = Dropout(0.1)(x)
        model = Model(inputs, x)
        model.compile(optimizer="adam", loss=BinaryCrossentropy(from_logits=True))
    """)
    assert lint(from_imports) == [(9, 38, "TFE407")]
    legacy = from_imports.replace("from keras", "from tf_keras")
    assert lint(legacy) == [(9, 38, "TFE407")]
    assert lint(from_imports.replace("(from_logits=True)", "()")) == []
    # no compile, or a name that is not Keras: nothing
    assert lint("import keras\nmodel = keras.Sequential([keras.layers.Dense(3)])\nmodel.summary()\n") == []
    assert lint(source.replace("import keras\n", "import keras_core_lookalike as keras\n")) == []


def test_no_fix_is_offered():
    source = SEQ.format(last="L.Dense(4)") + "model.compile('adam', 'categorical_crossentropy')\n"
    assert fixed(source, TFE407, unsafe_fixes=True) == source


def test_keras_clips_logits_and_repairs_a_recognised_softmax(tf):
    """The mechanism: a probability loss clips logits; with from_logits=True Keras takes a Softmax op's input."""
    labels = tf.constant([0, 1])
    logits = tf.constant([[-2.0, 3.0, 0.5], [1.0, -1.0, 4.0]])
    clipped = tf.keras.losses.sparse_categorical_crossentropy(labels, logits)
    assert clipped.numpy()[0] > 15.0  # -log(1e-7): the negative logit of the true class is clipped
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.reduce_sum(tf.keras.losses.sparse_categorical_crossentropy(labels, logits), axis=None)
    assert tape.gradient(loss, logits).numpy()[0, 0] == 0.0  # no gradient through the clip
    right = tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    @tf.function
    def twice(x):
        return tf.keras.losses.sparse_categorical_crossentropy(labels, tf.nn.softmax(x), from_logits=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        repaired = twice(logits)
    assert any("received `from_logits=True`" in str(w.message) for w in caught)
    assert abs(repaired.numpy() - right.numpy()).max() < 1e-5


def test_fixture_training_stalls_on_clipped_logits(tf):
    bad = load_module(FOLDER / "bad.py").main()
    good = load_module(FOLDER / "good.py").main()
    assert bad["loss"] > 1.3 and bad["accuracy"] < 0.6  # ln 4 = 1.386: chance level
    assert good["loss"] < 0.2 and good["accuracy"] > 0.9
    # the softmax model: Keras 3 recognises the Softmax op, warns, and trains on its input
    assert bad["warned"] and not good["warned"]
    assert abs(bad["softmax_loss"] - good["softmax_loss"]) < 1e-3
    assert good["softmax_accuracy"] > 0.9
    # the functional model whose output name is rebound, a Dropout last: the same stall
    assert abs(bad["functional_loss"] - 1.3863) < 1e-3 and bad["functional_accuracy"] < 0.6
    assert good["functional_loss"] < 0.2 and good["functional_accuracy"] > 0.9


COMPILED = SEQ.format(last="L.Dense(4)") + "model.compile('adam', loss='sparse_categorical_crossentropy')\n" + FIT


@pytest.mark.parametrize("path, header", [
    ("tests/test_io.py", "import pytest\n"),
    ("pkg/saving_test.py", "import unittest\n"),
    ("pkg/tests/conftest.py", "from absl.testing import parameterized\n"),
    ("model_test.py", "def test_save():\n    pass\n"),
    ("testing/models.py", "class T(tf.test.TestCase):\n    pass\n"),
])
def test_in_a_test_suite_it_is_info(path, header):
    found = [(d.line, d.code, d.severity) for d in lint_source(COMPILED + header, path, select=TFE407)]
    assert found == [(4, "TFE407", "info")]


@pytest.mark.parametrize("path, header", [
    ("mnist_test.py", ""),  # a study script named like a test
    ("test_cnn.py", "import numpy as np\n"),
    ("train.py", "import pytest\n"),  # not named like a test
])
def test_scripts_named_like_tests_keep_the_warning(path, header):
    found = [(d.line, d.code, d.severity) for d in lint_source(COMPILED + header, path, select=TFE407)]
    assert found == [(4, "TFE407", "warning")]


@pytest.mark.parametrize("walk, expected", [
    # printing each layer's output shape (the Dive into DL book's habit) leaves the layers as they are
    ("X = tf.zeros((1, 4))\nfor layer in model.layers:\n    X = layer(X)\n    print(layer.name, X.shape)\n", [(8, 23)]),
    # near misses: a layer changed, or handed on, before the compile
    ("for layer in model.layers:\n    layer.activation = tf.nn.softmax\n", []),
    ("for layer in model.layers:\n    freeze(layer)\n", []),
    ("layers = model.layers\n", []),
])
def test_walking_the_layers_before_the_compile(walk, expected):
    source = SEQ.format(last="L.Dense(10)") + walk + "model.compile('adam', 'categorical_crossentropy')\n" + FIT
    assert [(line, column) for line, column, _ in lint(source)] == expected
