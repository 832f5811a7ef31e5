"""Parse, traverse, lint and fix one source text (``lint.lint_document`` is the one pipeline).

Importing this package loads nothing: ``prefilter`` and ``suppressions`` are
cheap, the modules that need libcst load it when imported themselves.
"""
