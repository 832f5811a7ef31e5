"""engine/guard.py: which inputs libcst would take too long or too much memory on.

The pathological inputs are issue 21's; the budgets and the model behind the
messages are measured by ``benchmarks/bench_pathological.py`` (which also parses
the largest accepted input of each shape).  No test here parses with libcst or
times anything: speed is asserted as structure (one pass, no re-scan).
"""
import ast
import io
import pathlib
import subprocess
import sys
import tokenize

import pytest

from tflint_effective.engine import guard, token_scan

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("*/*.py"))


def chain(operator, n, operand="a"):
    return "x = " + f" {operator} ".join([operand] * n) + "\n"


def floats(n):
    return "x = [" + ", ".join("%.17g" % (i * 0.1234567) for i in range(n)) + "]\n"


def full_refusal(source, monkeypatch):
    """refusal() without the fast path for small files."""
    with monkeypatch.context() as patch:
        patch.setattr(guard, "_surely_fine", lambda source, seconds: False)
        return guard.refusal(source)


def logical_lines(source):
    """(first line, last line) of each logical line, as tokenize sees them."""
    lines, begun, last = [], None, None
    for token in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):  # "\r" too
        if token.type == tokenize.NEWLINE:
            if begun is not None:  # a backslash then a blank line: tokenize's NEWLINE ends no statement
                lines.append((begun, token.start[0]))
            begun = None
        elif token.type == tokenize.ENDMARKER and begun is not None:
            lines.append((begun, last))  # ``x;\<newline>#`` at the end: tokenize gives no NEWLINE
        elif begun is None and token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT,
                                                  tokenize.DEDENT, tokenize.ENDMARKER):
            begun = token.start[0]
        last = token.end[0]
    return lines


def scanned_lines(source, monkeypatch):
    monkeypatch.setattr(token_scan, "_MIN_TOKENS", 0)  # record every statement
    statements = token_scan.scan(source).statements
    lines = guard._lines(source, [offset for s in statements for offset in (s.start, s.end)])
    return [(lines[s.start], lines[s.end]) for s in statements]


# -- issue 21's inputs, and the other slow shapes ---------------------------------------

@pytest.mark.parametrize("n, reason", [
    (4_000, "line 1: 3,999 binary operators chained in one expression: "
            "libcst would need about 4.6 s (limit 1 s) to parse it"),
    (10_000, "line 1: 9,999 binary operators chained in one expression: "
             "libcst would need about 40.3 s (limit 1 s) to parse it"),
])
def test_a_flat_plus_chain_is_refused(n, reason):
    assert guard.refusal(chain("+", n)) == reason


def test_a_method_chain_of_2000_links_is_refused():
    source = "x = y" + ".a()" * 2_000 + "\n"
    assert guard.refusal(source) == ("line 1: a chain of 4,000 attribute/call/subscript trailers: "
                                     "libcst would need about 19.6 s (limit 1 s) to parse it")


@pytest.mark.slow
def test_a_5_mb_float_list_is_refused_for_its_size():
    source = floats(300_000)
    assert len(source) > 5_000_000
    assert guard.refusal(source) == (
        "line 1: one statement of 600,003 tokens (a literal of about 300,000 elements): "
        "libcst would need about 9.0 s (limit 1 s) and 1,560 MB (limit 200 MB) to parse it")


@pytest.mark.parametrize("source, counted", [
    (chain("if c else", 2_000), "1,999 right-nested `**`/`if`-`else` operators"),
    (chain("**", 2_000), "1,999 right-nested `**`/`if`-`else` operators"),
    (chain("@", 2_000), "1,999 binary operators chained"),
    (chain("+", 1_000, "f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"), "999 binary operators chained"),
    ("x = y" + "[0]" * 2_000 + "\n", "a chain of 2,000 attribute/call/subscript trailers"),
    ("x = y" + ".a" * 3_000 + "\n", "a chain of 3,000 attribute/call/subscript trailers"),
    ('x = f"{' + " + ".join(["a"] * 4_000) + '}"\n', "3,999 binary operators chained"),
    ("def f():\n    return (\n" + "".join("        a +  # comment\n" for _ in range(4_000))
     + "        a)\n", "4,000 binary operators chained"),
    ("x = " + "a + \\\n" * 3_000 + "a\n", "3,000 binary operators chained"),
])
def test_other_slow_shapes_are_refused(source, counted):
    reason = guard.refusal(source)
    assert reason is not None and counted in reason


def test_operators_are_weighed_and_unary_runs_priced_apart():
    # 2,000 `+`: 0.73 s in libcst, 2,000 `@`: 2.0 s; a run of 3,000 unary `-`: 500 MB
    assert guard.refusal(chain("+", 1_900)) is None
    assert "1,899 binary operators" in guard.refusal(chain("@", 1_900))
    assert guard.refusal("x = f(" + "-" * 1_500 + "y)\n") is None
    assert "long runs of unary operators" in guard.refusal("x = f(" + "-" * 3_000 + "y)\n")
    assert guard.refusal("f(" + ", ".join(["*a, **b"] * 2_000) + ")\n") is None  # not powers


def test_boolean_and_comparison_chains_cost_what_their_tokens_cost():
    # libcst parses them in linear time: 30,000 `and` in 0.6 s
    for operator in ("and", "or", "<", "==", "is not", "not in"):
        assert guard.refusal(chain(operator, 10_000)) is None
    assert "one statement of 200,001 tokens" in guard.refusal(chain("and", 100_000))


def test_the_reason_names_the_line_of_the_statement():
    source = "import numpy\n\n# data\nWEIGHTS = [\n" + floats(60_000)[5:] + "\n"
    assert guard.refusal(source).startswith("line 4: one statement of 120,004 tokens")


def test_many_acceptable_statements_can_exceed_the_file_budget():
    statement = chain("+", 200)
    assert guard.refusal(statement) is None
    reason = guard.refusal(statement * 300)
    assert reason == ("120,600 tokens and long expressions: libcst would need about 4.2 s "
                      "to parse the file (limit 3 s)")
    assert guard.refusal(statement * 300, file_seconds=5) is None
    assert guard.refusal("x = 1\n" * 60_000) == ("240,000 tokens: libcst would need about 3.6 s "
                                                 "to parse the file (limit 3 s)")


def test_a_literal_nested_deep_is_priced_by_depth_as_well_as_size():
    # 20,000 tokens at depth 50: 1.5 s and 680 MB in libcst; at depth 1: 0.2 s and 40 MB
    assert guard.refusal("x = " + "[" * 50 + "1, " * 10_000 + "]" * 50 + "\n") == (
        "line 1: brackets nested 50 deep: libcst would need about 2.5 s (limit 1 s) "
        "and 1,231 MB (limit 200 MB) to parse it")
    assert guard.refusal("x = [" + "1, " * 10_000 + "]\n") is None
    assert guard.refusal("x = " + "f(" * 199 + ")" * 199 + "\n") is None


def test_deep_nests_in_many_statements_are_summed():
    nests = "".join("x = " + "[" * 150 + "1" + "]" * 150 + "\n" for _ in range(20))
    assert guard.refusal(nests) == ("nested brackets and expressions throughout: libcst would need "
                                    "about 600 MB beyond 2-3 KB a token to parse the file (limit 300 MB)")
    patched, offences = guard.salvage(nests)
    assert len(offences) == 11 and patched.count("pass\n") == 11


def test_brackets_deeper_than_python_accepts_are_refused():
    assert guard.refusal("x = " + "(" * 201 + ")" * 201 + "\n") == (
        "line 1: brackets nested more than 200 deep, beyond what Python accepts")
    assert guard.refusal("x = " + "(" * 200 + ")" * 200 + "\n") is None
    assert guard.refusal("x = '" + "(" * 5_000 + "'\n") is None


# -- near misses -------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "x = '" + "+ " * 5_000 + "'\n",
    'x = b"' + "a.b()" * 5_000 + '"\n',
    "x = r'''\n" + "a + \\'''\n" * 2_000 + "'''\n",
    'x = """' + "a if c else " * 3_000 + '"""\n',
    "x = 1  # " + "+ " * 5_000 + "\n",
    "# " + "a + " * 5_000 + "\n" + "x = 1\n",
    'x = f"' + "+ " * 5_000 + '{y}"\n',
    'x = f"{y:' + "+" * 5_000 + '}"\n',
    'x = f"{y!r:>{width}}' + "- " * 3_000 + '"\n',
    "x = Rb'" + "+ " * 5_000 + "' + u'" + "[0]" * 3_000 + "'\n",
])
def test_operators_inside_strings_and_comments_are_not_code(source, monkeypatch):
    assert full_refusal(source, monkeypatch) is None


@pytest.mark.parametrize("source", [
    "x = [\n" + "".join("    %r,\n" % (i * 0.5) for i in range(10_000)) + "]\n",
    "x = {" + ", ".join(f"'k{i}': [{i}, {i + 1}]" for i in range(5_000)) + "}\n",
    "".join(f"x{i} = " + chain("+", 100)[4:] for i in range(100)),
    "y = (" + ", ".join(["a + b * c - d"] * 5_000) + ")\n",
    chain("+", 500),
    "x = y" + ".a()" * 250 + "\n",
    "".join(f"def f{i}(a, b):\n    return a.b(c).d[e] + f(g) * h\n\n" for i in range(5_000)),
])
def test_long_but_ordinary_inputs_are_accepted(source, monkeypatch):
    assert full_refusal(source, monkeypatch) is None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_fixtures_are_accepted_and_split_into_tokenize_s_logical_lines(path, monkeypatch):
    source = path.read_text(encoding="utf-8")
    assert full_refusal(source, monkeypatch) is None
    assert scanned_lines(source, monkeypatch) == logical_lines(source)


TRICKY = '''\
from . import a
x = (1,  # a comment with ( and "
     2) ; y = 3
s = 'it''s' "a" r'\\' b"\\"" rb'x' Br"y" u'z' f'{x}' rf'{y}\\d' F"{x!r:>{w}} {{}}"
t = """one
two ' \\""" three""" + \'\'\'a\'\'\'
u = f"""{
    a +
    b  # in a field
}""" ; v = f"{'a' if x else 'b'}" f'{x:%Y-%m-%d}' f"{d["k"]}" f"{f'{x}'}"
w = 1 + \\
    2
z = [x for x in range(3) if x] ; q = lambda a: a ; r = 1e-5 + .5 - 0x1F + 1_000j
if x:
    pass
elif y:  # comment
    pass
else:
    @decorator
    def f(a, *b, c=1, **d) -> int:
        return a ** 2 if c else ...
'''


@pytest.mark.parametrize("source, expected", [("globalmatch;\\\n#", [(1, 2)]),
                                              ("x = 1\ny = 2 \\\n  # end", [(1, 1), (2, 3)])])
def test_a_continuation_into_a_comment_at_the_end_closes_the_last_line(source, expected, monkeypatch):
    assert scanned_lines(source, monkeypatch) == logical_lines(source) == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_strings_fstrings_comments_and_continuations_keep_the_logical_lines(newline, monkeypatch):
    source = TRICKY.replace("\n", newline)
    assert scanned_lines(source, monkeypatch) == logical_lines(source)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # generated programs such as `"a"()` compile with a warning
def test_generated_programs_split_into_tokenize_s_logical_lines(monkeypatch):
    hypothesmith = pytest.importorskip("hypothesmith", reason="pip install '.[test]'")
    from hypothesis import HealthCheck, example, given, reject, settings

    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    @example("\n\\\n\n")  # a continued blank line: no statement
    def check(source):
        guard.refusal(source)
        try:
            expected = logical_lines(source)
        except tokenize.TokenError:  # tokenize.py fails on a few files compile() accepts
            reject()
        assert scanned_lines(source, monkeypatch) == expected

    check()


@pytest.mark.parametrize("source", [
    "x = 'unterminated\ny = a" + " + a" * 3_000 + "\n",
    "x = f'unterminated {a\ny = a" + " + a" * 3_000 + "\n",
    'x = f"{a:' + "\ny = a" + " + a" * 3_000 + "\n",
])
def test_an_unterminated_string_ends_with_its_line(source):
    assert "3,000 binary operators" in guard.refusal(source)


def test_an_unterminated_triple_quoted_string_runs_to_the_end():
    assert guard.refusal("x = '''" + " + a" * 3_000 + "\n") is None


# -- cost: one pass, a few percent of a parse --------------------------------------------

class CountingPattern:
    """Stands for token_scan._TOKEN and records what each finditer call consumed."""

    def __init__(self, pattern):
        self.pattern, self.calls, self.spans = pattern, 0, []

    def finditer(self, text, *bounds):
        self.calls += 1
        for match in self.pattern.finditer(text, *bounds):
            self.spans.append(match.span())
            yield match

    def __getattr__(self, name):
        return getattr(self.pattern, name)


def ordinary_file(size):
    parts, total = [], 0
    while total < size:
        for path in FIXTURES:
            text = path.read_text(encoding="utf-8")
            parts.append(text)
            total += len(text)
    return "".join(parts)


@pytest.mark.slow
def test_a_1_mb_ordinary_file_is_read_in_one_pass(monkeypatch):
    source = ordinary_file(1_000_000)
    counting = CountingPattern(token_scan._TOKEN)
    monkeypatch.setattr(token_scan, "_TOKEN", counting)
    result = token_scan.scan(source)
    assert result.statements == []  # no statement is slow: only the file's size counts
    spans = counting.spans
    assert len(spans) == result.tokens
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))  # never back
    assert sum(end - start for start, end in spans) > 0.9 * len(source)
    # one finditer, restarted only where an f-string or one of its replacement fields ends
    assert counting.calls <= 1 + source.count('f"') + source.count("f'") + source.count("{")
    assert counting.calls < result.tokens / 100
    # 1 MB of code: about 4 s of parsing (it varies with the fixtures), and as long again to analyse
    assert 3 < result.seconds() < 5
    assert guard.refusal(source) == (f"{result.tokens:,} tokens: libcst would need about "
                                     f"{result.seconds():.1f} s to parse the file (limit 3 s)")
    assert guard.refusal(source, file_seconds=result.seconds() + 0.5) is None


@pytest.mark.parametrize("source, tokens", [
    ("'\\'\n" * 50_000 + '"\\"\n' * 50_000, 200_000),  # unterminated strings
    ("x = '''" + "\\''' " * 50_000 + "\n", 3),  # an unterminated triple-quoted string
    (" " * 100_000 + "\v" + " " * 100_000 + "\u2028x = 1\n" + " " * 100_000, 6),  # odd blanks
])
def test_hostile_input_is_read_in_one_pass(monkeypatch, source, tokens):
    counting = CountingPattern(token_scan._TOKEN)
    monkeypatch.setattr(token_scan, "_TOKEN", counting)
    assert token_scan.scan(source).tokens == len(counting.spans) == tokens
    assert counting.calls == 1 and counting.spans[-1][1] == len(source.rstrip(" "))


def test_small_files_are_judged_from_character_counts(monkeypatch):
    def no_scan(source):
        raise AssertionError("scanned")

    small = [path.read_text(encoding="utf-8") for path in FIXTURES]
    small = [source for source in small if len(source) < 2_000]
    assert small
    monkeypatch.setattr(guard, "scan", no_scan)
    for source in small:
        assert guard.refusal(source) is None


def test_the_fast_path_never_accepts_what_the_scan_refuses(monkeypatch):
    shapes = [lambda n: chain("+", n), lambda n: chain("**", n), lambda n: "x = y" + "[0]" * n + "\n",
              lambda n: "x = y" + ".a" * n + "\n", lambda n: chain("if c else", n),
              lambda n: "x = [" + "1," * n + "]\n", lambda n: chain("-", n // 4, "x.y[0](1)")]
    for shape in shapes:
        for n in range(100, 6_000, 100):
            source = shape(n)
            if guard._surely_fine(source, guard.FILE_SECONDS):
                assert full_refusal(source, monkeypatch) is None, (shape(3), n)


def test_the_guard_imports_only_the_standard_library():
    for module in ("guard.py", "token_scan.py"):
        tree = ast.parse((ROOT / "tflint_effective" / "engine" / module).read_text(encoding="utf-8"))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.level == 0}
        relative = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
        assert imported <= set(sys.stdlib_module_names) and relative <= {"token_scan"}, (module, imported, relative)
    probe = ("import sys; from tflint_effective.engine import guard; guard.refusal('x = 1\\n' * 9999); "
             "print('libcst' in sys.modules, 'tokenize' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    assert done.stdout.split() == ["False", "False"]


# -- leaving the offending statements out ------------------------------------------------

def test_a_module_level_data_literal_is_blanked_out_and_the_rest_kept():
    head = "import tensorflow as tf\n\n"
    data = "TABLE = [\n" + "".join("    %r,\n" % (i * 0.25) for i in range(30_000)) + "]\n"
    tail = "\n\ndef f(x):\n    return tf.reduce_sum(x)\n"
    source = head + data + tail
    offences = guard.offending_spans(source)
    assert offences == [guard.Offence(3, 30_004, guard.refusal(source))]
    patched, same = guard.salvage(source)
    assert same == offences
    assert patched == head + "pass\n" + "\n" * 30_001 + tail
    assert guard.refusal(patched) is None


def test_a_statement_in_a_body_keeps_its_indentation_and_the_file_compiles():
    source = "def f(a):\n    if a:\n        x = " + chain("+", 3_000)[4:] + "        return x\n"
    patched, offences = guard.salvage(source)
    assert [(o.start_line, o.end_line) for o in offences] == [(3, 3)]
    assert patched == "def f(a):\n    if a:\n        pass\n        return x\n"
    compile(patched, "patched", "exec")


def test_a_multi_line_statement_keeps_its_line_count_with_crlf():
    source = "x = 1\r\ny = (\r\n" + " +\r\n".join(["  a"] * 3_000) + ")\r\nz = 2\r\n"
    patched, offences = guard.salvage(source)
    assert [(o.start_line, o.end_line) for o in offences] == [(2, 3_002)]
    assert patched == "x = 1\r\npass\r\n" + "\r\n" * 3_000 + "z = 2\r\n"


@pytest.mark.parametrize("source", [
    "if " + chain("+", 3_000)[4:-1] + ":\n    pass\n",
    "@decorate(" + chain("+", 3_000)[4:-1] + ")\ndef f():\n    pass\n",
    "def f(a=" + chain("+", 3_000)[4:-1] + "):\n    pass\n",
    "x = 1\n" * 60_000,  # too many tokens in all: nothing to leave out
    "x = " + "(" * 300 + ")" * 300 + "\n",
])
def test_what_cannot_be_blanked_out_is_refused(source):
    assert guard.refusal(source) is not None
    assert guard.salvage(source) is None


def test_enough_of_many_chains_are_left_out_to_meet_the_file_budget():
    source = "".join(f"x{i} = " + chain("+", 200 + i)[4:] for i in range(300))
    offences = guard.offending_spans(source)
    assert 0 < len(offences) < 300
    assert [o.start_line for o in offences] == list(range(301 - len(offences), 301))  # the longest
    assert all("left out to keep the file within the parsing budgets" in o.reason for o in offences)
    patched, _ = guard.salvage(source)
    assert guard.refusal(patched) is None


def test_nothing_is_left_out_of_an_acceptable_file():
    assert guard.offending_spans(chain("+", 500)) == []
    assert guard.salvage(chain("+", 500)) is None
