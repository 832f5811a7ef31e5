"""flake8 adapter: ``flake8 --select TFE`` reports what ``tflint-effective check`` does.

flake8 treats a plugin as a tree plugin only if ``__init__`` accepts ``tree``;
the ``ast`` tree serves only the pre-filter (a file that imports neither
TensorFlow nor Keras is skipped before libcst parses anything) and the decoded ``lines`` are
parsed with libcst.  flake8 applies ``# noqa`` itself, so findings are not
filtered here.  flake8 calls no plugin on a file CPython cannot parse (it reports
E999, hence ``--select TFE,E9``), so a TFE000 here is a file libcst cannot parse.

Options (also read from flake8's configuration, without the dashes):
``--tfe-tensorflow-modules`` (the ``tensorflow-modules`` key), ``--tfe-tensorflow-version``
(the ``tensorflow-version`` key; by default the closest requirement files decide, as for the
CLI) and ``--tfe-severity`` (the minimum severity, the ``severity`` key).  They live on the class: with
``--jobs`` each worker parses the options again, so this state is rebuilt from
argv and flake8's configuration.

Results come from the CLI's cache (``cache.py``, same directory, same
``$TFLINT_EFFECTIVE_CACHE_DIR``, same entries) when the text flake8 hands over
was linted before with the same options: the key hashes that text (UTF-8: the
exact input linted), the options (the minimum severity too: findings below it are
never computed, nor their positions) and, through the cache's directory, the tool.  A warm run
never imports libcst.  ``--tfe-no-cache`` (``tfe-no-cache = true``) neither
reads nor writes it; the CLI has no variable that turns its cache off, so
neither does the plugin.

libcst and the rules add some 25,000 long-lived objects to flake8's process, and
each full pass of the cycle collector (flake8 makes dozens) would walk them all:
a second of the plugin's cost on 1,000 files.  So once they are imported, the
objects then alive are frozen (``gc.freeze``): left to reference counting.
"""
from __future__ import annotations

import atexit
import functools
import gc
import os

from .. import __version__
from ..levels import SEVERITY_RANK
from ..engine.lint import diagnostics_of
from ..engine.prefilter import can_skip
from ..registry import all_rules


@functools.lru_cache(maxsize=None)
def _load_engine():
    """Load libcst (from its stored compiled code, ``engine/startup.py``), the engine and the
    rules once, then freeze what is alive."""
    from ..engine.startup import compiled_dataclasses
    from ..engine.threads import on_deep_stack

    with compiled_dataclasses():
        from ..engine import analyse, parse  # noqa: F401

        all_rules()
    gc.freeze()
    return on_deep_stack


class Plugin:
    name = "tflint-effective"
    version = __version__
    tensorflow_modules: tuple = ()
    function_decorators: tuple = ()
    tensorflow_versions = None  # None: what the requirement files declare (``declared``)
    declared = None
    tf1_directories = None
    severity = "warning"

    use_cache = True

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option("--tfe-tensorflow-modules", default="", parse_from_config=True,
                           comma_separated_list=True, metavar="MODULES",
                           help="tflint-effective: comma-separated modules that re-export TensorFlow "
                                "(as tensorflow-modules)")
        manager.add_option("--tfe-function-decorators", default="", parse_from_config=True,
                           comma_separated_list=True, metavar="NAMES",
                           help="tflint-effective: comma-separated wrappers that stand for tf.function "
                                "(as function-decorators)")
        manager.add_option("--tfe-tensorflow-version", default="", parse_from_config=True, metavar="SPEC",
                           help="tflint-effective: TensorFlow versions the code supports, such as \">=1.4,<2\" "
                                "(as tensorflow-version; default: what the closest requirement files declare)")
        manager.add_option("--tfe-severity", default="warning", parse_from_config=True,
                           choices=tuple(SEVERITY_RANK), metavar="LEVEL",
                           help="tflint-effective: minimum severity to report: info, warning or error")
        manager.add_option("--tfe-no-cache", default=False, action="store_true", parse_from_config=True,
                           help="tflint-effective: neither read nor write the cache of results "
                                "(as tflint-effective check --no-cache)")

    @classmethod
    def parse_options(cls, options) -> None:
        from .config import ConfigError, module_names, versions
        from .requirements import Declared
        from .tf1_directories import TF1Directories

        try:
            cls.tensorflow_modules = module_names(list(options.tfe_tensorflow_modules),
                                                  "--tfe-tensorflow-modules")
            cls.function_decorators = module_names(list(options.tfe_function_decorators),
                                                   "--tfe-function-decorators")
            spec = options.tfe_tensorflow_version
            cls.tensorflow_versions = versions(spec, "--tfe-tensorflow-version") if spec else None
        except ConfigError as error:
            raise SystemExit(f"flake8: {error}") from None
        cls.declared = Declared()
        cls.tf1_directories = TF1Directories()
        cls.severity = options.tfe_severity
        cls.use_cache = not options.tfe_no_cache

    def __init__(self, tree, lines, filename="(none)"):
        self.tree = tree
        self.source = "".join(lines)
        self.filename = filename

    def run(self):
        modules = self.tensorflow_modules
        if can_skip(self.source, modules, tree=self.tree):  # nothing can resolve to TensorFlow
            return
        cache = _cache() if self.use_cache else None
        key = found = None
        versions, directory = self.tensorflow_versions, os.path.dirname(os.path.abspath(self.filename))
        if versions is None and self.declared is not None:
            versions = self.declared.at(directory)
        tf1 = self.tf1_directories.at(directory) if self.tf1_directories is not None else ()
        if cache is not None:
            settings = repr(("flake8", modules, self.function_decorators, versions, tf1, self.severity))
            key = cache.key(self.source.encode("utf-8", "surrogatepass"), settings)
            found = cache.load(key, self.filename)
        if found is None:
            found = self._lint(versions, tf1)
            if cache is not None:
                cache.store(key, found, self.filename)
        for f in found.findings:
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)

    def _lint(self, versions, tf1_directory):
        """The diagnostics at or above the minimum severity, as the FileResult a cache entry holds."""
        from .one_file import FileResult
        from .output import Finding

        diagnostics = _load_engine()(diagnostics_of, self.source, self.filename, noqa=False, prefilter=False,
                                     tensorflow_modules=self.tensorflow_modules,
                                     function_decorators=self.function_decorators, tensorflow_versions=versions,
                                     tf1_directory=tf1_directory, severity=self.severity)
        return FileResult(self.filename, findings=[
            Finding(self.filename, d.line, d.col + 1, d.end_line, d.end_col + 1, d.code, d.message, d.severity)
            for d in diagnostics])


def _cache():
    """The cache in the CLI's directory (loaded with the first TensorFlow file)."""
    from .cache import directory

    return _cache_in(directory())


@functools.lru_cache(maxsize=None)
def _cache_in(base):
    """This process's cache in ``base`` (each ``--jobs`` worker has one), marked used when it exits."""
    from .cache import Cache

    cache = Cache(base)
    atexit.register(cache.close)
    return cache
