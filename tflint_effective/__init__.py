"""tflint-effective: lint TensorFlow code for the mistakes "Effective TensorFlow" warns about.

Public API: ``lint_source``, ``fix_source``, ``lint_paths`` (from ``engine``).
They are loaded on first use, so ``import tflint_effective`` stays cheap and
``tflint_effective.runtime_checks`` users do not pay for the linter.
"""
__version__ = "0.1.0"
__all__ = ["lint_source", "fix_source", "lint_paths", "__version__"]


def __getattr__(name):
    if name in ("lint_source", "fix_source", "lint_paths"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'tflint_effective' has no attribute {name!r}")
