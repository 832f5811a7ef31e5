"""The engine: selection, noqa, severity by mode, syntax errors and the fix loop."""
import libcst as cst
import pytest



from tflint_effective.engine.fix import FixError, fix_source
from tflint_effective.engine.lint import lint_source
from tflint_effective.engine.threads import DEEP_STACK_THREAD, on_deep_stack
from tflint_effective.frontends.files import lint_paths
from tflint_effective.registry import is_selected
from tflint_effective.rule import ERROR, INFO, UNSAFE, WARNING, Fix, Rule
from tfe_testing import UnparsableFix, dedent, findings, only_rules

SUM = "import tensorflow as tf\ny = tf.reduce_sum(x)"


@pytest.mark.parametrize("comment, reported", [
    ("", True),
    ("  # noqa", False),
    ("  # NOQA", False),
    ("  # noqa: TFE101", False),
    ("  # noqa:TFE102,TFE101", False),
    ("  # noqa: TFE1", False),  # prefixes, as flake8 does
    ("  # noqa: TFE102", True),
    ("  # noqa: E501", True),
])
def test_noqa(comment, reported):
    assert bool(findings(SUM + comment + "\n")) is reported


def test_noqa_can_be_disabled():
    assert findings(SUM + "  # noqa\n", noqa=False) == [(2, 5, "TFE101")]


@pytest.mark.parametrize("code, select, ignore, expected", [
    ("TFE101", None, None, True),
    ("TFE101", ["TFE1"], None, True),
    ("TFE101", ["TFE2"], None, False),
    ("TFE101", None, ["TFE101"], False),
    ("TFE101", None, ["TFE"], False),
    ("TFE101", ["TFE101"], ["TFE1"], True),  # the longer prefix wins
    ("TFE101", ["TFE"], ["TFE10"], False),
    ("TFE101", ["tfe101"], None, True),
])
def test_selection(code, select, ignore, expected):
    assert is_selected(code, select, ignore) is expected


def test_syntax_error_is_one_tfe000_in_pythons_words():
    [d] = lint_source("import tensorflow as tf\nx = (1,\n", "bad.py")
    assert (d.code, d.line, d.col, d.severity) == ("TFE000", 2, 4, "error")
    assert d.message == "syntax error: '(' was never closed"


def test_deeply_nested_input_does_not_crash_the_process():
    """libcst's parser recursed off the 8 MiB main-thread stack (a segfault) here."""
    parens = "import tensorflow as tf\nx = " + "(" * 199 + "tf.squeeze(y)" + ")" * 199 + "\n"
    assert findings(parens) == [(2, 204, "TFE103")]
    unary = "import tensorflow as tf\nx = tf.squeeze(" + "-" * 1500 + "y)\n"
    assert findings(unary) == [(2, 5, "TFE103")]
    chain = "import tensorflow as tf\nx = tf.reduce_sum(" + " + ".join(["a"] * 1500) + ")\n"
    assert findings(chain) == [(2, 5, "TFE101")]


def test_a_crashing_rule_is_an_internal_error_finding(monkeypatch):
    class _Crashes(Rule):
        CODE = "TFE995"

        def visit_Call(self, node):
            raise ValueError("boom")

    only_rules(monkeypatch, [_Crashes])
    [d] = lint_source("f(x)\n", "m.py", prefilter=False)  # no TensorFlow import: skipped otherwise
    assert (d.code, d.message) == (
        "TFE000", "internal error in tflint-effective, please report: ValueError: boom")


class _ModeProbe(Rule):
    """Reports every call, with a different severity per execution mode."""

    CODE = "TFE990"
    SEVERITY = {"G": ERROR, "F": INFO, "F0": ERROR, "E": None}

    def visit_Call(self, node):
        if self.context.tf_call(node) is not None and self.context.tf_call(node).leaf == "relu":
            self.report(node, "probe")


def test_severity_is_settled_for_the_mode_after_the_whole_module(monkeypatch):
    only_rules(monkeypatch, [_ModeProbe])
    source = dedent("""\
        import tensorflow as tf
        a = tf.nn.relu(x)
        @tf.function
        def f(x):
            return tf.nn.relu(x)
        def g(x):
            return tf.nn.relu(x)
        h = tf.function(g, autograph=False)
        sess = tf.compat.v1.Session()
    """)
    got = [(d.line, d.severity) for d in lint_source(source)]
    # The Session at the bottom makes module-level code TF1 graph code.
    assert got == [(2, ERROR), (5, INFO), (7, ERROR)]


def test_eager_module_reports_nothing_for_a_rule_off_in_eager(monkeypatch):
    only_rules(monkeypatch, [_ModeProbe])
    assert lint_source("import tensorflow as tf\na = tf.nn.relu(x)\n") == []


class _WrapOnce(Rule):
    """``tf.abs(x)`` -> ``tf.math.abs(x)``; nested calls need several passes."""

    CODE = "TFE991"
    SEVERITY = WARNING

    def visit_Call(self, node):
        name = self.context.tf_call(node)
        if name is not None and name.path == "abs":
            func = node.func.with_changes(value=cst.Attribute(node.func.value, cst.Name("math")))
            self.report(node, "abs", fix=node.with_changes(func=func))


def test_nested_fixes_converge_over_passes(monkeypatch):
    only_rules(monkeypatch, [_WrapOnce])
    result = fix_source("import tensorflow as tf\ny = tf.abs(tf.abs(tf.abs(x)))\n")
    assert result.source == "import tensorflow as tf\ny = tf.math.abs(tf.math.abs(tf.math.abs(x)))\n"
    assert (result.applied, result.passes, result.converged) == (3, 3, True)
    assert result.diagnostics == []


def test_fix_skips_noqa_findings(monkeypatch):
    only_rules(monkeypatch, [_WrapOnce])
    source = "import tensorflow as tf\ny = tf.abs(x)  # noqa: TFE991\nz = tf.abs(x)\n"
    assert fix_source(source).source == (
        "import tensorflow as tf\ny = tf.abs(x)  # noqa: TFE991\nz = tf.math.abs(x)\n")


def test_fix_refuses_code_that_does_not_parse(monkeypatch):
    only_rules(monkeypatch, [UnparsableFix])
    with pytest.raises(FixError, match="does not parse"):
        fix_source("import tensorflow as tf\ny = tf.abs(x)\n", "m.py")


class _Unsafe(Rule):
    CODE = "TFE993"

    def visit_Call(self, node):
        if self.context.tf_call(node) is not None:
            self.report(node, "unsafe", fix=Fix(cst.Name("y"), safety=UNSAFE))


def test_unsafe_fixes_need_the_flag_and_are_counted(monkeypatch):
    only_rules(monkeypatch, [_Unsafe])
    source = "import tensorflow as tf\nz = tf.abs(x)\n"
    hidden = fix_source(source)
    assert (hidden.source, hidden.hidden_unsafe) == (source, 1)
    assert fix_source(source, unsafe_fixes=True).source == "import tensorflow as tf\nz = y\n"


def test_fix_adds_requested_imports(monkeypatch):
    class _Imports(Rule):
        CODE = "TFE994"

        def visit_Call(self, node):
            if self.context.tf_call(node) is not None:
                self.report(node, "import", fix=Fix(
                    cst.parse_expression("softmax(x, axis=None)"),
                    imports=(("tflint_effective.runtime_checks", "softmax"),)))

    only_rules(monkeypatch, [_Imports])
    assert fix_source("import tensorflow as tf\nz = tf.abs(x)\n").source == (
        "import tensorflow as tf\nfrom tflint_effective.runtime_checks import softmax\n"
        "\nz = softmax(x, axis=None)\n")


def test_line_endings_are_kept_by_fixes():
    source = "import tensorflow.compat.v1 as tf\r\ny = tf.reduce_sum(x, 1, keep_dims=True)\r\n"
    assert fix_source(source).source == source.replace("keep_dims", "keepdims")


def test_lint_paths_reports_findings_and_unreadable_files_like_the_cli(tmp_path):
    (tmp_path / "a.py").write_text("import tensorflow as tf\ny = tf.squeeze(x)\n")
    (tmp_path / "b.py").write_bytes(b"x = '\xff'\n")
    found = [(path.name, [(d.code, d.line, d.message) for d in diagnostics])
             for path, diagnostics in lint_paths([str(tmp_path), str(tmp_path / "gone.py")])]
    assert [name for name, _ in found] == ["a.py", "b.py", "gone.py"]
    assert [code for code, _, _ in found[0][1]] == ["TFE103"]
    assert found[1][1][0][:2] == ("TFE000", 1)
    assert found[1][1][0][2].startswith("cannot decode as Python source: ")
    assert found[2][1] == [("TFE000", 1, "no such file or directory")]


def test_work_runs_on_one_large_stack_thread_even_when_nested():
    import threading

    outer, inner = on_deep_stack(
        lambda: (threading.get_ident(), on_deep_stack(threading.get_ident)))
    assert outer == inner != threading.get_ident()
    assert on_deep_stack(lambda: threading.current_thread().name) == DEEP_STACK_THREAD


def test_the_large_stack_thread_is_kept_for_the_next_call_and_callers_at_once_get_one_each():
    import threading

    assert on_deep_stack(threading.get_ident) == on_deep_stack(threading.get_ident)
    both = threading.Barrier(3, timeout=10)  # broken (an error) if the two calls ran one after the other
    seen = []

    def call():
        seen.append(on_deep_stack(lambda: (both.wait(), threading.get_ident())))

    callers = [threading.Thread(target=call) for _ in range(2)]
    for caller in callers:
        caller.start()
    both.wait()
    for caller in callers:
        caller.join()
    assert len(seen) == 2 and seen[0][1] != seen[1][1]


def test_a_thread_stopped_over_its_cpu_budget_is_not_used_again(monkeypatch):
    import threading

    from tflint_effective.engine import threads

    monkeypatch.setattr(threads, "CPU_BUDGET", 0.2)
    used = []

    def spin():
        used.append(threading.current_thread())
        while True:
            pass

    with pytest.raises(threads.OverBudget):
        on_deep_stack(spin)
    used[0].join(5)
    assert not used[0].is_alive()
    assert on_deep_stack(threading.current_thread) is not used[0]


def test_a_forked_child_does_not_wait_for_its_parents_threads():
    import os
    import threading
    import time

    on_deep_stack(threading.get_ident)  # leaves a thread waiting for work, in this process only
    child = os.fork()
    if child == 0:
        os._exit(0 if on_deep_stack(lambda: 7) == 7 else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(child, 9)
    pytest.fail("the child waited for a thread that only its parent has")


def test_findings_below_the_minimum_severity_are_dropped_before_their_positions(monkeypatch):
    from tflint_effective.engine import analyse
    from tflint_effective.engine.lint import lint_document

    located = []
    positions = analyse.positions
    monkeypatch.setattr(analyse, "positions", lambda module, nodes: located.append(len(nodes)) or positions(
        module, nodes))
    source = "import tensorflow as tf\ny = tf.reduce_sum(x)\nz = tf.reduce_sum(tf.ones([2, 1]) + tf.ones([2]))\n"
    every = [(d.line, d.code, d.severity) for d in lint_document(source, "m.py").diagnostics]
    assert every == [(2, "TFE101", INFO), (3, "TFE101", WARNING)]
    assert [(d.line, d.code) for d in lint_document(source, "m.py", severity=WARNING).diagnostics] == [(3, "TFE101")]
    assert lint_document(source, "m.py", severity=ERROR).diagnostics == []
    assert located == [2, 1]  # nothing to locate at error
    broken = lint_document("import tensorflow as tf\nx = (\n", "m.py", severity=ERROR).diagnostics
    assert [d.code for d in broken] == ["TFE000"]


@pytest.mark.parametrize("source, lines", [
    # after a raise, return, continue or break in the same block: never runs, not reported
    ("def f(x):\n    raise NotImplementedError\n    return tf.reduce_sum(x, keep_dims=True)\n", []),
    ("def f(x):\n    y = 1; return y\n    tf.reduce_sum(x, keep_dims=True)\n", []),
    ("for x in xs:\n    continue\n    tf.reduce_sum(x, keep_dims=True)\n", []),
    # near misses: a jump under an `if`, code after the jumping block, the module's top level
    ("def f(x, c):\n    if c:\n        raise ValueError\n    return tf.reduce_sum(x, keep_dims=True)\n", [4]),
    ("def f(x):\n    for v in x:\n        break\n    return tf.reduce_sum(x, keep_dims=True)\n", [4]),
    ("raise SystemExit\ny = tf.reduce_sum(x, keep_dims=True)\n", [2]),  # a notebook runs cell by cell
])
def test_code_that_never_runs_is_not_reported(source, lines):
    found = lint_source("import tensorflow as tf\n" + source, select=["TFE102"])
    assert [d.line - 1 for d in found] == lines
