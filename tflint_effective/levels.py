"""Severities, fix safety levels and the parse-error code: plain strings that the
reporting side (CLI, output formats, configuration) needs without loading libcst."""

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {INFO: 0, WARNING: 1, ERROR: 2}

# Fix safety levels (ruff's vocabulary).
SAFE, UNSAFE, DISPLAY_ONLY = "safe", "unsafe", "display-only"

PARSE_ERROR = "TFE000"  # a file that cannot be read, parsed or analysed

# Execution modes (see analysis/semantics.py): where a line of TensorFlow code runs.
MODES = ("G", "F", "F0", "E")
MODE_NAMES = {
    "G": "TF1 graph",
    "F": "tf.function",
    "F0": "tf.function(autograph=False)",
    "E": "TF2 eager",
}
