"""tflint-effective: lint TensorFlow code for the mistakes "Effective TensorFlow" warns about.

Public API: ``lint_source``, ``fix_source``, ``lint_paths``.  They are loaded on
first use, so ``import tflint_effective`` stays cheap (no libcst, no TensorFlow)
and ``tflint_effective.runtime_checks`` users do not pay for the linter.

Layers, each importing only from those below it: ``levels``, ``rule`` and
``registry``; ``analysis`` (one parsed file); ``engine`` (parse, traverse, lint,
fix); ``frontends`` (CLI, flake8, files, output).  ``runtime_checks`` stands apart.
"""
__version__ = "0.1.0"
__all__ = ["lint_source", "fix_source", "lint_paths", "__version__"]

_API = {"lint_source": "engine.lint", "fix_source": "engine.fix", "lint_paths": "frontends.files"}


def __getattr__(name):
    if name in _API:
        import importlib

        return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'tflint_effective' has no attribute {name!r}")
