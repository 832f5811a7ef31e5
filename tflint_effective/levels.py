"""Severities, fix safety levels and the parse-error code: plain strings that the
reporting side (CLI, output formats, configuration) needs without loading libcst."""

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {INFO: 0, WARNING: 1, ERROR: 2}

# Fix safety levels (ruff's vocabulary).
SAFE, UNSAFE, DISPLAY_ONLY = "safe", "unsafe", "display-only"

PARSE_ERROR = "TFE000"  # a file that cannot be read, parsed or analysed
