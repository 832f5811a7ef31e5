"""One parse and one traversal per file for all selected rules; fixes to a fixed point.

A file that imports no TensorFlow is not parsed by libcst at all (prefilter.py).
The traversal reads the tree without rebuilding it (libcst's visitors rebuild
every node they pass), and positions are computed only for reported nodes.  The
module is never copied: fixes replace nodes by identity in the very tree the
rules saw.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import gc
import importlib
import pkgutil
import sys
import threading
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState  # private: code generation with positions
from libcst.metadata.position_provider import NEWLINE_RE

from . import piecewise, rules as rules_package
from .names import COMPREHENSIONS, FUNCTION_LIKE, Resolver, Scope, ScopeTable, TFName, tf_name
from .levels import PARSE_ERROR
from .nesting import refuse_too_deep
from .prefilter import can_skip, shims
from .rule import SAFE, UNSAFE, Fix, Report, Rule
from .semantics import SemanticModel
from .suppressions import Suppressions

MAX_FIX_PASSES = 8


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int  # 1-based
    col: int  # 0-based, like flake8 and libcst
    code: str
    message: str
    severity: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[Fix] = field(default=None, compare=False, repr=False)

    @property
    def fix_safety(self) -> Optional[str]:
        return None if self.fix is None else self.fix.safety


class FixError(Exception):
    """A fix pass produced code that does not parse; nothing was written."""


# -- rules ---------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def all_rules() -> Tuple[type, ...]:
    """Every Rule subclass, one per module of the ``rules`` package, by code."""
    found = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        found += [obj for obj in vars(module).values()
                  if isinstance(obj, type) and issubclass(obj, Rule) and obj.CODE
                  and obj.__module__ == module.__name__]
    codes = [r.CODE for r in found]
    duplicated = {c for c in codes if codes.count(c) > 1}
    if duplicated:
        raise RuntimeError(f"rule codes defined twice: {sorted(duplicated)}")
    return tuple(sorted(found, key=lambda r: r.CODE))


def rule_by_code(code: str) -> Optional[type]:
    return next((r for r in all_rules() if r.CODE == code.upper()), None)


def _longest_prefix(code: str, prefixes: Iterable[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def is_selected(code: str, select: Optional[Sequence[str]], ignore: Optional[Sequence[str]]) -> bool:
    """flake8's rule: the longest matching prefix of --select and --ignore wins."""
    chosen = _longest_prefix(code, [s.upper() for s in select] if select else ["TFE"])
    dropped = _longest_prefix(code, [i.upper() for i in ignore or ()])
    return chosen >= 0 and chosen > dropped


def selected_rules(select=None, ignore=None) -> List[type]:
    return [r for r in all_rules() if is_selected(r.CODE, select, ignore)]


# -- the traversal -------------------------------------------------------
class Context:
    """What rules may ask about the file being linted, at the current node."""

    def __init__(self, module: cst.Module, path: str, tensorflow_modules: Sequence[str] = ()):
        self.module = module
        self.path = path
        self.table = ScopeTable(module, shims(tensorflow_modules))
        self.resolver = Resolver(self.table)
        self.ancestors: List[cst.CSTNode] = []
        self.scopes: List[Scope] = [self.table.root]
        self.semantics = SemanticModel(self)
        # (id(node), id(scope)) -> (node, its TFName): bindings never change during a traversal,
        # and every rule asks about the same calls; the node is kept so its id is not reused.
        self._tf_names: Dict[Tuple[int, int], Tuple[cst.CSTNode, Optional[TFName]]] = {}

    @property
    def node(self) -> cst.CSTNode:
        return self.ancestors[-1]

    @property
    def parent(self) -> Optional[cst.CSTNode]:
        return self.ancestors[-2] if len(self.ancestors) > 1 else None

    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def qualname(self, node: cst.BaseExpression) -> Optional[str]:
        return self.resolver.qualname(node, self.scope)

    def tf_name(self, node: cst.BaseExpression) -> Optional[TFName]:
        """The TensorFlow API an expression names, when certain."""
        scope = self.scopes[-1]
        key = (id(node), id(scope))
        known = self._tf_names.get(key)
        if known is None:
            known = self._tf_names[key] = (node, tf_name(self.resolver.qualname(node, scope)))
        return known[1]

    def tf_call(self, node: cst.CSTNode) -> Optional[TFName]:
        return self.tf_name(node.func) if type(node) is cst.Call else None

    def assigned_value(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The value of ``name`` if it has exactly one binding, an assignment."""
        bindings = self.resolver.bindings(name.value, self.scope)
        if bindings and len(bindings) == 1 and hasattr(bindings[0], "value"):
            return bindings[0].value
        return None

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.semantics.is_tensor(expr)

    def mode_thunk(self, node: cst.CSTNode):
        return self.semantics.mode_thunk(node)

    # Called by the traversal around every node (parsed nodes have exactly these types).
    def enter(self, node: cst.CSTNode) -> None:
        ancestors = self.ancestors
        parent = ancestors[-1] if ancestors else None
        ancestors.append(node)
        kind = type(node)
        if kind is cst.Parameters and type(parent) in _FUNCTION_TYPES:
            self.scopes.append(self.table.scope_for(parent, self.scopes[-1]))
        elif kind in _COMPREHENSION_TYPES:
            self.scopes.append(self.table.scope_for(node, self.scopes[-1]))
        elif type(parent) is cst.ClassDef and node is parent.body:
            self.scopes.append(self.table.scope_for(parent, self.scopes[-1]))

    def exit(self, node: cst.CSTNode) -> None:
        self.ancestors.pop()
        if self.scopes[-1].node is node:
            self.scopes.pop()


_FUNCTION_TYPES = frozenset(FUNCTION_LIKE)
_COMPREHENSION_TYPES = frozenset(COMPREHENSIONS)
# Whitespace, comments and punctuation: they hold nothing but more of the same.
TRIVIA = (cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline,
          cst.Comment, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.ImportStar,
          cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
          cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Asynchronous, cst.BaseBinaryOp,
          cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)


class _FieldOrder(cst.CSTVisitor):
    """Records the fields libcst visits of one node, in its order (children are not entered)."""

    def __init__(self, node: cst.CSTNode):
        self.node = node
        self.fields: List[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.node

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.node:
            self.fields.append(attribute)


_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def child_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """The fields of ``node`` in the order libcst's visitors see them (learnt once per type);
    fields libcst visits only when set (an f-string's ``format_spec``) come last."""
    kind = type(node)
    order = _CHILD_FIELDS.get(kind)
    if order is None:
        recorder = _FieldOrder(node)
        node.visit(recorder)
        order = tuple(dict.fromkeys([*recorder.fields, *(f.name for f in dataclasses.fields(kind))]))
        _CHILD_FIELDS[kind] = order
    return order


_VISITOR_NAMES: Dict[type, Tuple[str, ...]] = {}


def _visitor_methods(visitor: cst.BatchableCSTVisitor) -> Dict[str, object]:
    kind = type(visitor)
    if kind not in _VISITOR_NAMES:  # libcst introspects the class on every call
        _VISITOR_NAMES[kind] = tuple(visitor.get_visitors())
    return {name: getattr(visitor, name) for name in _VISITOR_NAMES[kind]}


class _Traversal(cst.CSTVisitor):
    """One depth-first walk calling every visitor, in libcst's order, with the context
    kept up to date around each node.

    libcst's own ``visit`` rebuilds every node it passes (and validates it again);
    ``walk`` reads the fields and builds nothing.  It skips whitespace, comments
    and punctuation unless a visitor asks for one of those types.  Given to
    ``node.visit``, the traversal walks that node itself.
    """

    def __init__(self, context: Context, visitors: Sequence[cst.BatchableCSTVisitor]):
        self.context = context
        self.visits: Dict[str, list] = {}
        self.leaves: Dict[str, list] = {}
        for visitor in visitors:
            for name, method in _visitor_methods(visitor).items():
                kind, _, node_type = name.partition("_")  # visit_Call_func would never match
                table = self.visits if kind == "visit" else self.leaves
                table.setdefault(node_type, []).append(method)
        visited = {getattr(cst, name, None) for name in (*self.visits, *self.leaves)}
        self.skip_trivia = not any(isinstance(t, type) and issubclass(t, TRIVIA) for t in visited)
        self.plans: Dict[type, tuple] = {}  # node type -> (fields, visit methods, leave methods)
        self.walked: Dict[type, bool] = {}  # any value's type -> whether to walk it

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.walk(node)
        return False

    def _plan(self, node: cst.CSTNode) -> tuple:
        name = type(node).__name__
        plan = (child_fields(node), tuple(self.visits.get(name, ())), tuple(self.leaves.get(name, ())))
        self.plans[type(node)] = plan
        return plan

    def _walks(self, kind: type) -> bool:
        walks = issubclass(kind, cst.CSTNode) and not (self.skip_trivia and issubclass(kind, TRIVIA))
        self.walked[kind] = walks
        return walks

    def walk(self, node: cst.CSTNode) -> None:
        fields, visits, leaves = self.plans.get(type(node)) or self._plan(node)
        walked = self.walked
        self.context.enter(node)
        for method in visits:
            method(node)
        for name in fields:
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for item in value:
                    walks = walked.get(type(item))
                    if walks or (walks is None and self._walks(type(item))):
                        self.walk(item)
            else:
                walks = walked.get(kind)
                if walks or (walks is None and self._walks(kind)):
                    self.walk(value)
        for method in leaves:
            method(node)
        self.context.exit(node)


def analyse(module: cst.Module, path: str, rule_classes: Sequence[type],
            tensorflow_modules: Sequence[str] = ()) -> List[Tuple[Report, str]]:
    """Run the rules over ``module``; reports with their settled severity."""
    context = Context(module, path, tensorflow_modules)
    reports: List[Report] = []
    rules = [cls(context, reports.append) for cls in rule_classes]
    _Traversal(context, [context.semantics, *rules]).walk(module)
    settled = []
    for report in reports:
        severity = report.severity
        if not isinstance(severity, str):
            severity = severity.get(report.mode())
        if severity:
            settled.append((report, severity))
    return settled


class _Done(Exception):
    """Every wanted range is known: the rest of the module need not be generated."""


class _PositionState(CodegenState):
    """libcst's PositionProvider, computed for a few nodes only.

    Code generation tracks the line and column everywhere (as the provider does)
    but records ranges only inside the wanted nodes, whose ranges may be hoisted
    from their children's, and stops once every wanted node has its range.
    """

    def __init__(self, module: cst.Module, wanted: Iterable[cst.CSTNode]):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line, self.column = 1, 0
        self.wanted = {id(node) for node in wanted}
        self.ranges: Dict[int, Tuple[Tuple[int, int], Tuple[int, int]]] = {}
        self.starts: List[Tuple[int, int]] = []
        self.depth = 0  # > 0 inside a wanted node
        self.remaining = len(self.wanted)

    def _advance(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._advance(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.depth or id(node) in self.wanted:
            self.depth += 1
            self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if not self.depth:
            return
        self.depth -= 1
        start = self.starts.pop()
        key = id(node)
        if key not in self.ranges:  # a syntactic range recorded inside wins
            self.ranges[key] = (start, (self.line, self.column))
        if key in self.wanted:
            self.wanted.discard(key)
            if not self.wanted:
                raise _Done

    @contextlib.contextmanager
    def _syntactic(self, node, start_node, end_node):
        start = (self.line, self.column)
        try:
            yield
        finally:
            end = (self.line, self.column)
            if start_node is not None:
                start = self.ranges[id(start_node)][0]
            if end_node is not None:
                end = self.ranges[id(end_node)][1]
            self.ranges[id(node)] = (start, end)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if not self.depth:
            return _NOTHING
        return self._syntactic(node, start_node, end_node)


_NOTHING = contextlib.nullcontext()


def positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[int, Tuple[Tuple[int, int], Tuple[int, int]]]:
    """``id(node) -> ((line, column), (end line, end column))`` for ``nodes``: what
    libcst's PositionProvider gives them (line 1-based, column 0-based)."""
    state = _PositionState(module, nodes)
    if state.wanted:
        try:
            module._codegen(state)
        except _Done:
            pass
    return state.ranges


def _diagnostics(module, path, settled) -> List[Diagnostic]:
    if not settled:
        return []
    ranges = positions(module, [report.node for report, _ in settled])
    found = set()
    for report, severity in settled:
        (line, col), (end_line, end_col) = ranges[id(report.node)]
        found.add(Diagnostic(path, line, col, report.rule.CODE, report.message, severity,
                             end_line, end_col, report.fix))
    return sorted(found, key=lambda d: (d.line, d.col, d.code))


# SyntaxError and MemoryError: CPython refusing a file nested too deeply (nesting.py).
PARSE_FAILURES = (cst.ParserSyntaxError, SyntaxError, RecursionError, MemoryError)
# libcst's native parser recurses on the C stack: deeply nested input crashes the
# process on a main thread's 8 MiB stack, so parsing and traversal run on a thread
# with a large one (address space is reserved, not used).
DEEP_STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 20_000


DEEP_STACK_THREAD = "tflint-effective"


def on_deep_stack(function, *args, **kwargs):
    """Call ``function`` on a thread with a large stack; re-raise what it raises.

    The cycle collector stays paused until it returns, when the file's tree is gone:
    resumed any earlier, its first pass would walk the whole tree.  Already on such
    a thread (the CLI runs each file on one), call it in place."""
    if threading.current_thread().name == DEEP_STACK_THREAD:
        return function(*args, **kwargs)
    outcome = {}

    def target():
        try:
            with _collector_paused():
                outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # handed back to the caller
            outcome["error"] = error

    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    previous = threading.stack_size(DEEP_STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name=DEEP_STACK_THREAD)
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@contextlib.contextmanager
def _collector_paused():
    """No cyclic garbage collection inside: building and analysing a tree allocates
    hundreds of thousands of objects, and the collections they trigger cost about a
    fifth of the time.  The analysis makes no reference cycles (back-references are
    weak), so the tree is freed as soon as it is dropped, collector or not."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def parse(source: str) -> cst.Module:
    refuse_too_deep(source)
    with _collector_paused():
        return piecewise.parse_module(source)


def syntax_error(path: str, source: str, error: Exception) -> Diagnostic:
    """TFE000 where the file stops parsing, in CPython's words when it has some."""
    if isinstance(error, (RecursionError, MemoryError)):
        return Diagnostic(path, 1, 0, PARSE_ERROR,
                          "cannot analyse this file: expressions nested too deeply", "error", 1, 0)
    try:
        ast.parse(source)
    except SyntaxError as python_error:
        line, col = python_error.lineno or 1, max((python_error.offset or 1) - 1, 0)
        message = f"syntax error: {python_error.msg}"
    except (RecursionError, MemoryError, ValueError):
        line, col, message = 1, 0, "cannot parse this file"
    else:  # valid Python that libcst cannot parse (newer grammar)
        line, col = getattr(error, "raw_line", 1), getattr(error, "raw_column", 0)
        message = "cannot parse this file with libcst: " + getattr(error, "message", str(error))
    return Diagnostic(path, line, col, PARSE_ERROR, message, "error", line, col)


def internal_error(path: str, error: Exception) -> Diagnostic:
    return Diagnostic(path, 1, 0, PARSE_ERROR,
                      f"internal error in tflint-effective, please report: "
                      f"{type(error).__name__}: {error}", "error", 1, 0)


def lint_source(source: str, path: str = "<string>", select=None, ignore=None,
                noqa: bool = True, *, prefilter: bool = True,
                tensorflow_modules: Sequence[str] = ()) -> List[Diagnostic]:
    """Lint Python source text; a parse failure is one TFE000 diagnostic.

    ``prefilter``: valid Python that imports no TensorFlow is not analysed (see
    ``prefilter.py``); ``tensorflow_modules`` are modules that re-export TensorFlow.
    """
    return on_deep_stack(_lint_source, source, path, select, ignore, noqa, prefilter, tensorflow_modules)


def _lint_source(source, path, select, ignore, noqa, prefilter=True, tensorflow_modules=()) -> List[Diagnostic]:
    if prefilter and can_skip(source, tensorflow_modules):
        return []
    try:
        module = parse(source)
    except PARSE_FAILURES as error:
        return [syntax_error(path, source, error)]
    diagnostics = lint_module(module, path, selected_rules(select, ignore), tensorflow_modules)
    if noqa:  # `# noqa` comments and `# tflint-effective: disable=` lines
        diagnostics = Suppressions.parse(source).kept(diagnostics)
    return diagnostics


def lint_module(module: cst.Module, path: str, rule_classes: Sequence[type],
                tensorflow_modules: Sequence[str] = ()) -> List[Diagnostic]:
    """Diagnostics of one parsed module; a crash inside a rule becomes one TFE000."""
    try:
        with _collector_paused():
            return _diagnostics(module, path, analyse(module, path, rule_classes, tensorflow_modules))
    except RecursionError as error:
        return [syntax_error(path, "", error)]
    except Exception as error:  # the run goes on with the other files
        return [internal_error(path, error)]


# -- fixing --------------------------------------------------------------
class _Replace(cst.CSTTransformer):
    """Swap nodes by identity; a fix inside another fix waits for the next pass."""

    def __init__(self, fixes: Dict[cst.CSTNode, Fix]):
        super().__init__()
        self.fixes = fixes
        self.depth = 0
        self.applied: List[Fix] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.fixes:
            self.depth += 1
        return True

    def on_leave(self, original_node, updated_node):
        fix = self.fixes.get(original_node)
        if fix is None:
            return updated_node
        self.depth -= 1
        if self.depth == 0:
            self.applied.append(fix)
        return fix.replacement


@dataclass
class FixResult:
    source: str
    applied: int  # fixes applied over all passes
    passes: int
    diagnostics: List[Diagnostic]  # what remains after fixing
    hidden_unsafe: int = 0  # unsafe fixes not applied (no --unsafe-fixes)
    converged: bool = True


def _apply(module: cst.Module, fixes: Sequence[Fix]) -> Tuple[cst.Module, int]:
    transformer = _Replace({fix.target: fix for fix in fixes})
    module = module.visit(transformer)
    imports = {item for fix in transformer.applied for item in fix.imports}
    if imports:
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext()
        for module_name, obj in sorted(imports):
            AddImportsVisitor.add_needed_import(context, module_name, obj)
        module = AddImportsVisitor(context).transform_module(module)
    return module, len(transformer.applied)


def fix_source(source: str, path: str = "<string>", select=None, ignore=None,
               unsafe_fixes: bool = False, noqa: bool = True, accept=None, *,
               prefilter: bool = True, tensorflow_modules: Sequence[str] = ()) -> FixResult:
    return on_deep_stack(_fix_source, source, path, select, ignore, unsafe_fixes, noqa, accept,
                         prefilter, tensorflow_modules)


def _fix_source(source, path, select, ignore, unsafe_fixes, noqa, accept, prefilter=True,
                tensorflow_modules=()) -> FixResult:
    """Apply fixes until nothing changes (at most 8 passes).

    ``accept(diagnostic)``, when given, vetoes fixes (the CLI uses it for the
    minimum severity and for notebook fixes that would span cells).

    Raises FixError, and returns nothing to write, if a pass yields code that
    does not parse: the caller leaves the file untouched.
    """
    if prefilter and can_skip(source, tensorflow_modules):
        return FixResult(source, 0, 0, [])
    rule_classes = selected_rules(select, ignore)
    allowed = {SAFE, UNSAFE} if unsafe_fixes else {SAFE}
    applied = 0
    try:
        module = parse(source)
    except PARSE_FAILURES as error:
        return FixResult(source, 0, 0, [syntax_error(path, source, error)])
    tail = _dropped_tail(source, module, path)
    passes = 0
    while True:
        diagnostics = lint_module(module, path, rule_classes, tensorflow_modules)
        if noqa:
            diagnostics = Suppressions.parse(source).kept(diagnostics)
        hidden = 0 if unsafe_fixes else sum(d.fix_safety == UNSAFE for d in diagnostics)
        fixes = [d.fix for d in diagnostics if d.fix_safety in allowed and (accept is None or accept(d))]
        if not fixes or passes == MAX_FIX_PASSES:
            return FixResult(source, applied, passes, diagnostics, hidden, converged=not fixes)
        fixed, count = _apply(module, fixes)
        new_source = fixed.code + tail
        if new_source == source:
            return FixResult(source, applied, passes, diagnostics, hidden)
        try:
            module = parse(new_source)
        except PARSE_FAILURES as error:
            raise FixError(f"{path}: fixing produced code that does not parse ({error}); "
                           "file left unchanged") from error
        applied += count
        source = new_source
        passes += 1


def _dropped_tail(source: str, module: cst.Module, path: str) -> str:
    """What libcst fails to reproduce at the end of ``source`` (the last newline
    of a file with classic-Mac ``\\r`` line endings); fixing is refused when the
    round trip differs in any other way."""
    code = module.code
    if code == source:
        return ""
    if source.startswith(code) and not source[len(code):].strip("\r\n"):
        return source[len(code):]
    raise FixError(f"{path}: libcst does not reproduce this file exactly; it was not fixed")


def lint_paths(paths, select=None, ignore=None, exclude=()):
    """Lint files and directories; see ``files.iter_python_files``."""
    from .files import iter_python_files, read_source, reason

    for path in iter_python_files(paths, exclude):
        try:
            text = read_source(path).text
        except OSError as error:  # includes decoding problems, see files.read_source
            yield path, [Diagnostic(str(path), 1, 0, PARSE_ERROR, reason(path, error), "error", 1, 0)]
            continue
        yield path, lint_source(text, str(path), select, ignore)
