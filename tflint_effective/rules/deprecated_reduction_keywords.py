"""Deprecated TF1 keywords `reduction_indices=` / `keep_dims=` (and friends).

Why: TF 1.5 renamed these keywords to ``axis`` and ``keepdims``.  The old
names print deprecation warnings under ``tf.compat.v1`` and are a
``TypeError`` in the TF2 API, so code that still uses them cannot move to
TF2.  The new names mean exactly the same thing in both APIs.

Severity: warning where the call goes through the TF2 API (there it raises);
info where it goes through ``tf.compat.v1`` (it works today, but is deprecated
and removed in TF2), and info without a fix in a module that also uses TF 0.x
calls: functions TF 1.0 removed (``tf.mul``, ``tf.pack``, ``tf.scalar_summary``)
or the argument order it changed (``tf.concat(1, [a, b])``, ``tf.split(0, 2,
x)``).  Such code targets TF 0.x, where the new names may not exist yet
(``keepdims`` came with TF 1.5).  The same holds in the ``except`` handler of a
``try`` that passes the new keyword: a deliberate fallback for old TensorFlow; and
in the body of a ``try`` whose handler catches the ``TypeError`` TF2 raises
(``except TypeError``, ``Exception``, bare) and passes the new keyword: the old
name tried first, on purpose; and in one branch of an ``if`` that tests
TensorFlow's version (``tf.__version__``, ``tf.VERSION``) and passes the new
keyword in the other.
Info too in a project whose requirements cap TensorFlow below 2 (the
``tensorflow-version`` key, else its requirement files: ``tensorflow>=1.10,<2``):
there the old names work.  And info in a module written for TF 1.x (``tf.Session``,
``tf.placeholder``, ``tf.variable_scope``, ... through the root API, or a keyword only TF 1.x
takes: ``tf.nn.conv2d(x, filter=w, ...)``, ``tf.nn.softmax(x, dim=1)``): such code runs only
where the old names work, as code through ``tf.compat.v1`` does, and the TF2 API rejects its other
TF 1.x calls first.  Info as well in a module with no TF2-only name of its own whose directory
holds TF 1.x code (a helper of a TF 1.x project, ``tflib/ops/layernorm.py``: a sibling module
spells ``tf.Session``, ``tf.placeholder``, ... and none ``tf.function`` or ``tf.GradientTape``).
TF 1.x warns about ``keep_dims`` (from 1.5 on), never about
``reduction_indices`` (an alias it looks up silently) nor about the ``keep_dims`` of
``tf.nn.moments`` / ``weighted_moments`` (``keepdims`` is a late alias there).

Fix safety: safe.  Only the keyword is renamed; the value, the other
arguments, comments and formatting are kept.  No fix is offered when the call
already passes the new keyword too (TensorFlow rejects both at once; which one
was meant needs a human), nor for ``tf.nn.moments`` / ``weighted_moments``,
whose ``keepdims`` came in a later TF 1.x release than the reductions', nor in a
project that supports a TensorFlow older than the new name (``keepdims``: 1.5,
``axis``: 1.0; ``tensorflow==1.3`` in its requirements).

Known problems: keywords passed through ``**kwargs`` are not seen.  ``keepdims``
exists only from TF 1.5 on: code pinned to TF 1.0-1.4 where neither the
configuration nor a requirement file says so (a README, a conda file by another
name) is still offered the fix.
"""
import os
import re

import libcst as cst

from ..analysis.tf_api import REDUCTIONS, REMOVED_IN_1_0, REORDERED_IN_1_0, with_math
from ..rule import INFO, SAFE, WARNING, Rule

BOTH = {"reduction_indices": "axis", "keep_dims": "keepdims"}
# The functions (v1 API) that accept the old keywords, and what each renames.
RENAMES = {
    **dict.fromkeys(with_math(*REDUCTIONS), BOTH),
    "reduce_join": BOTH,
    "strings.reduce_join": BOTH,
    "norm": {"keep_dims": "keepdims"},
    "linalg.norm": {"keep_dims": "keepdims"},
    "nn.moments": {"keep_dims": "keepdims"},
    "nn.weighted_moments": {"keep_dims": "keepdims"},
    "sparse.reduce_sum": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "sparse.reduce_max": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "sparse_reduce_sum": {"keep_dims": "keepdims", "reduction_axes": "axis"},
    "sparse_reduce_max": {"keep_dims": "keepdims", "reduction_axes": "axis"},
}
# Reported without a fix: these took ``keepdims`` in a later TF 1.x release than the reductions
# (1.5); which one has not been established here.
LATE_KEEPDIMS = {"nn.moments", "nn.weighted_moments"}
# The first release that accepts each new name (the reductions').
FIRST_RELEASE = {"keepdims": (1, 5), "axis": (1, 0)}


class DeprecatedReductionKeywords(Rule):
    """TF1 keyword names (`reduction_indices`, `keep_dims`) that TF2 rejects."""

    CODE = "TFE102"
    MESSAGE = "`{old}=` is deprecated (a TypeError in TF2); use `{new}=`"
    V1_MESSAGE = "`{old}=` is deprecated, removed in TF2; use `{new}=`"
    SEVERITY = WARNING
    FIX_SAFETY = SAFE
    NEEDS = tuple(sorted({old for renames in RENAMES.values() for old in renames}))  # the keywords it reports
    BAD = """
        mean = tf.reduce_mean(x, reduction_indices=[1], keep_dims=True)
    """
    GOOD = """
        mean = tf.reduce_mean(x, axis=[1], keepdims=True)
    """

    OLD_TF_MESSAGE = ("`{old}=` is deprecated (`{new}=`), but this module also makes calls TF 1.0 "
                      "removed or reordered: written for TF 0.x, which may lack `{new}=`")
    TF1_MOMENTS_MESSAGE = ("`{old}=` is TF 1.x's own keyword for this function (its `{new}=` alias came late and "
                           "nothing deprecates `{old}=` there); only the TF2 API rejects it, like this module's other "
                           "TF 1.x calls")
    TF1_MESSAGE = ("`{old}=` is deprecated, removed in TF2; use `{new}=`: this module is written for TF 1.x, where "
                   "it still works, like its other TF 1.x calls")
    TF1_SILENT_MESSAGE = ("`{old}=` is TF 1.x's old name for `{new}=`, which it accepts without a warning; only the "
                          "TF2 API rejects it, like this module's other TF 1.x calls")
    TF1_DIRECTORY_MESSAGE = ("`{old}=` is deprecated, removed in TF2; use `{new}=`: this directory's modules are "
                             "written for TF 1.x (`{module}` spells `tf.{name}`), where it still works")
    FALLBACK_MESSAGE = ("`{old}=` is deprecated (`{new}=`), but this is the fallback of a `try` that passes "
                        "`{new}=`: kept for TensorFlow versions without it")
    PROBE_MESSAGE = ("`{old}=` is deprecated (`{new}=`), but this `try` falls back to `{new}=` when TensorFlow "
                     "rejects it: kept for TensorFlow versions without `{new}=`")
    VERSION_MESSAGE = ("`{old}=` is deprecated (`{new}=`), but this branch of a test of TensorFlow's version passes "
                       "`{new}=` in the other: kept for TensorFlow versions without it")

    def setup(self) -> None:
        # The TF 0.x calls the module makes (it was written for TF 0.x).  A list the reports'
        # conditions read: a condition that held the rule would make a reference cycle.
        self.removed_calls = []

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None:
            return
        if name.path in REMOVED_IN_1_0 or _tf_0_order(name.path, node):
            self.removed_calls.append(name.path)
        renames = RENAMES.get(name.path)
        if not renames:
            return
        given = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        oldest, below = self.context.settings.tensorflow_versions or (None, None)
        capped = below is not None and below <= (2,)  # the project never runs TF2
        v1 = name.compat == "v1" or capped
        severity = INFO if v1 else WARNING
        removed = self.removed_calls
        # code written for TF 1.x (root ``tf.Session``, ``tf.placeholder``, ...) runs where the old names work, as
        # code through ``tf.compat.v1`` does (settled after the traversal)
        tf1_module = (lambda: False) if v1 else self.context.tf1_api_thunk()
        tf2 = self.context.tf2_thunk(node)
        # a module of this directory (not this one) written for TF 1.x, if no module there spells a TF2-only name
        neighbour = None if v1 else next((pair for pair in self.context.settings.tf1_directory
                                          if pair[0] != os.path.basename(self.context.path)), None)
        for arg in node.args:
            old = arg.keyword.value if arg.keyword is not None else None
            new = renames.get(old)
            if new is None:
                continue
            probe = self._version_probe(new)
            if probe is not None:
                self.report(arg, probe.format(old=old, new=new), severity=INFO)
                continue
            message = (self.V1_MESSAGE if v1 else self.MESSAGE).format(old=old, new=new)
            self.report(arg, self.OLD_TF_MESSAGE.format(old=old, new=new), severity=INFO, when=lambda: bool(removed))
            tf1 = tf1_module
            if new in given:  # TensorFlow rejects both at once, whatever its version
                message, fix, tf1 = message + " (the call passes both; keep one)", None, (lambda: False)
            elif name.path in LATE_KEEPDIMS:
                message, fix = message + " (older TF 1.x releases lack it here: check yours)", None
            elif oldest is not None and oldest < FIRST_RELEASE[new]:
                message, fix = message + f" once the project drops TensorFlow {_dotted(oldest)}, which lacks it", None
            else:
                fix = arg.with_changes(keyword=cst.Name(new))
            if capped and name.compat != "v1":
                message += " (the project's requirements exclude TF2)"
            tf1_message = (self.TF1_MOMENTS_MESSAGE if name.path in LATE_KEEPDIMS else
                           self.TF1_SILENT_MESSAGE if old == "reduction_indices" else self.TF1_MESSAGE)
            self.report(arg, tf1_message.format(old=old, new=new), fix=fix, severity=INFO,
                        when=lambda tf1=tf1: not removed and tf1())
            beside_tf1 = neighbour is not None and new not in given
            if beside_tf1:
                late = " (older TF 1.x releases lack it here: check yours)" if name.path in LATE_KEEPDIMS else ""
                directory_message = self.TF1_DIRECTORY_MESSAGE.format(old=old, new=new, module=neighbour[0],
                                                                      name=neighbour[1])
                self.report(arg, directory_message + late, fix=fix, severity=INFO,
                            when=lambda tf1=tf1: not removed and not tf1() and not tf2())
            self.report(arg, message, fix=fix, severity=severity, when=lambda tf1=tf1, beside=beside_tf1: (
                not removed and not tf1() and not (beside and not tf2())))

    def _version_probe(self, keyword: str):
        """The message for code that tries both spellings, or None: this call is in an ``except``
        handler of a ``try`` whose body passes ``keyword=``, in the body of a ``try`` with a handler
        that catches the ``TypeError`` TF2 raises and passes ``keyword=``, or in one branch of an
        ``if`` that tests ``__version__`` / ``VERSION`` and passes ``keyword=`` in the other."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, 0, -1):
            node, parent = ancestors[index], ancestors[index - 1]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(node, cst.ExceptHandler) and isinstance(parent, cst.Try) and _passes(
                    self.context.module, parent.body, keyword):
                return self.FALLBACK_MESSAGE
            if isinstance(parent, cst.Try) and node is parent.body and any(
                    _catches_type_error(handler) and _passes(self.context.module, handler.body, keyword)
                    for handler in parent.handlers):
                return self.PROBE_MESSAGE
            if isinstance(parent, cst.If) and _VERSION.search(self.context.module.code_for_node(parent.test)):
                other = parent.orelse if node is parent.body else parent.body if node is parent.orelse else None
                if other is not None and _passes(self.context.module, other, keyword):
                    return self.VERSION_MESSAGE
        return None


_VERSION = re.compile(r"__version__|\bVERSION\b")  # tf.__version__, tf.VERSION (TF 1.x), a parsed version of them


def _passes(module: cst.Module, block: cst.CSTNode, keyword: str) -> bool:
    return re.search(rf"\b{keyword}\s*=", module.code_for_node(block)) is not None


def _catches_type_error(handler: cst.ExceptHandler) -> bool:
    """``except:``, ``except TypeError``, ``except (ValueError, TypeError) as e``, ``except Exception``."""
    caught = handler.type
    names = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return caught is None or any(isinstance(name, cst.Name) and name.value in ("TypeError", "Exception",
                                                                               "BaseException") for name in names)


def _dotted(version) -> str:
    return ".".join(map(str, version))


def _tf_0_order(path: str, call: cst.Call) -> bool:
    """``tf.concat(1, [a, b])`` / ``tf.split(0, 2, x)``: an integer where TF 1.0 takes the values."""
    arity = REORDERED_IN_1_0.get(path)
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if arity is None or len(positional) < arity:
        return False
    first = positional[0]
    if isinstance(first, cst.UnaryOperation) and isinstance(first.operator, cst.Minus):
        first = first.expression
    return isinstance(first, cst.Integer)
