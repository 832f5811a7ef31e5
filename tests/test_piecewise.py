"""Large files are parsed a few statements at a time into the very tree a whole parse builds."""
import io
import tokenize

import libcst as cst
import pytest

from tflint_effective.engine import piecewise
from tflint_effective.engine.lint import lint_source
from tfe_testing import FIXTURES, ROOT, dedent

# Every kind of text between and around statements that libcst assigns to one
# node or another: comments at each indentation, blank lines, decorators,
# clauses that continue a statement, one-line bodies, continuation lines.
TRICKY = dedent('''\
    #!/usr/bin/env python
    # header comment

    """Module docstring
    with a line at column 0."""
    import tensorflow as tf ; import os
    x = 1 + \\
        2
        # deeper than the next statement, after a simple one
    # at column 0

    @tf.function
    @decorator(
        1)
    def f(a,
          b):
        """Docstring
    at column 0."""
        if a:
            return 1
        elif b:
            return 2
        else:
            pass
            # trailing, deepest

        # trailing, at the body's indentation

    # before the class


    class Big(tf.Module):  # a comment on the class line
        # before the first statement
        CONSTANT = 1

        def method(self):
            try:
                pass
            except ValueError:
                pass
            finally:
                pass
                # deep trailing comment

    # column 0 inside the class
        async def other(self):
            class Inner: pass
            return [
    # inside brackets
            ]

        @property
        def value(self): return 1
        # trailing the class body

    if __name__ == "__main__":
        match x:
            case 1:
                pass
            case _:
                pass
    else:
        class Small: pass
    # the end
''')


def _assert_same_tree(source):
    whole, pieces = cst.parse_module(source), piecewise.parse_module(source)
    assert pieces.code == source
    assert pieces.deep_equals(whole)
    assert (pieces.default_indent, pieces.default_newline, pieces.has_trailing_newline, pieces.encoding) == \
        (whole.default_indent, whole.default_newline, whole.has_trailing_newline, whole.encoding)


def _parsed_lengths(monkeypatch):
    """The length of every text given to libcst's parser from now on."""
    lengths = []
    parse = cst.parse_module

    def recording(source, *args, **kwargs):
        lengths.append(len(source))
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(piecewise.cst, "parse_module", recording)
    return lengths


@pytest.mark.parametrize("piece", [1, 60, 200, 10_000])
@pytest.mark.parametrize("variant", ["plain", "crlf", "tabs", "no final newline"])
def test_pieces_join_into_the_whole_tree(monkeypatch, piece, variant):
    monkeypatch.setattr(piecewise, "PIECE", piece)
    source = {"plain": TRICKY, "crlf": TRICKY.replace("\n", "\r\n"),
              "tabs": TRICKY.replace("    ", "\t"), "no final newline": TRICKY.rstrip("\n")}[variant]
    _assert_same_tree(source)


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")) + sorted((ROOT / "tflint_effective").rglob("*.py")),
                         ids=lambda path: str(path.relative_to(ROOT)))
def test_real_files_one_statement_at_a_time(monkeypatch, path):
    monkeypatch.setattr(piecewise, "PIECE", 1)
    _assert_same_tree(path.read_text(encoding="utf-8"))


MEANINGFUL = {"@", "class", "def", "async", *piecewise._CLAUSES}  # the first tokens the cuts look at


def _tokenize_lines(source):
    """(start, end, depth, column, first token if MEANINGFUL) of each logical line, and the
    first INDENT's text: what ``piecewise._scan`` finds, as tokenize finds it."""
    lines, depth, begun, indent = [], 0, None, None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.INDENT:
            depth, indent = depth + 1, token.string if indent is None else indent
        elif token.type == tokenize.DEDENT:
            depth -= 1
        elif token.type == tokenize.NEWLINE:
            lines.append((begun[0], token.start[0], depth, begun[1], begun[2]))
            begun = None
        elif token.type not in (tokenize.NL, tokenize.ENDMARKER, tokenize.COMMENT) and begun is None:
            begun = (token.start[0] - 1, token.start[1], token.string if token.string in MEANINGFUL else "")
    return lines, "    " if indent is None else indent


STRINGS_AND_CONTINUATIONS = r'''x = """a
#b
"""  # c
if x:
  y = (1,
# (
 2)
else:
	y = "\"" \
  + 'q\
r' + rb"(" + f'{x}['
'''


@pytest.mark.parametrize("source", [
    TRICKY, TRICKY.replace("\n", "\r\n"), TRICKY.replace("    ", "\t"), TRICKY.rstrip("\n"), STRINGS_AND_CONTINUATIONS,
    *[path.read_text(encoding="utf-8") for path in sorted((ROOT / "tflint_effective" / "engine").glob("*.py"))],
], ids=lambda source: source[:20])
def test_logical_lines_are_tokenize_s(source):
    lines, indent = piecewise._scan(source)
    assert ([(line.start, line.end, line.depth, line.col, line.first if line.first in MEANINGFUL else "")
             for line in lines], indent) == _tokenize_lines(source)


@pytest.mark.parametrize("source", ["x = '''open\n", "x = (1,\n", "if x:\n    y\n  z\n", "\\\nx = 1\n", "x = 1)\n"])
def test_text_the_scan_cannot_split(source):
    with pytest.raises(piecewise._Unsplittable):
        piecewise._scan(source)


def test_libcst_never_sees_more_than_a_piece_of_a_splittable_file(monkeypatch):
    monkeypatch.setattr(piecewise, "PIECE", 1_000)
    methods = "".join(f"    def method_{i}(self):\n        return tf.reduce_sum(self.x{i})\n\n" for i in range(200))
    functions = "".join(f"def function_{i}(x):\n    return x + {i}\n\n\n" for i in range(200))
    source = f"import tensorflow as tf\n\n\nclass Big:\n{methods}\n{functions}"
    lengths = _parsed_lengths(monkeypatch)
    module = piecewise.parse_module(source)
    assert max(lengths) <= 1_000 and sum(lengths) > len(source)  # the class line is parsed with each group
    assert module.deep_equals(cst.parse_module(source))
    assert [len(findings) for findings in [lint_source(source, select=["TFE101"])]] == [200]


@pytest.mark.parametrize("source", [
    "x = 1\n" * 100,  # small: one parse
    "# only comments\n" * 100,
    "x = 1\f\n" * 100,  # form feeds: whole
    "x = 1\ry = 2\n" * 100,  # lone carriage returns: whole
])
def test_files_parsed_whole(monkeypatch, source):
    monkeypatch.setattr(piecewise, "PIECE", 1_000 if len(source) > 1_000 else 10_000)
    lengths = _parsed_lengths(monkeypatch)
    piecewise.parse_module(source)
    assert lengths == [len(source)]


def test_a_syntax_error_reads_as_in_a_whole_parse(monkeypatch):
    monkeypatch.setattr(piecewise, "PIECE", 100)
    source = "x = 1\n" * 50 + "def f(:\n    pass\n" + "y = 2\n" * 50
    with pytest.raises(cst.ParserSyntaxError) as whole:
        cst.parse_module(source)
    with pytest.raises(cst.ParserSyntaxError) as pieces:
        piecewise.parse_module(source)
    assert (pieces.value.raw_line, pieces.value.raw_column, pieces.value.message) == \
        (whole.value.raw_line, whole.value.raw_column, whole.value.message)


def test_the_engine_parses_in_pieces(monkeypatch):
    monkeypatch.setattr(piecewise, "PIECE", 100)
    lengths = _parsed_lengths(monkeypatch)
    source = "import tensorflow as tf\n" + "y = tf.reduce_sum(x)\n" * 30
    assert [(d.line, d.code) for d in lint_source(source)] == [(line, "TFE101") for line in range(2, 32)]
    assert max(lengths) <= 100


def test_node_validation_is_off_only_while_parsing(monkeypatch):
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # libcst validates nodes built by hand
    with pytest.raises(cst.ParserSyntaxError):
        piecewise.parse_module("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
    monkeypatch.setattr(piecewise.cst, "parse_module", lambda source: cst.Name(""))
    assert piecewise.parse_module("x\n").value == ""  # not validated: the parser's output is trusted
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")


@pytest.mark.parametrize("source", [
    # a later piece indents by another width than the file's first block (default indent)
    "if x:\n  a = 1\nif y:\n    b = 2\nif z:\n\tc = 3\n",
    # a later piece's first line ending differs from the file's first (default newline)
    "x = 1\ny = 2\r\nz = 3\r\n",
    # a whitespace-only line the closing block keeps as its footer
    "if x:\n  a = 1\nelif y:\n  b = 1\n  \nc = 1\n",
    # a comment deeper than the next statement after a simple statement and a blank line
    "x = 1\n\n # comment\ny = 1\n",
    # a comment at the outer block's indentation after a deeper one: both stay with the blocks
    "if x:\n  if y:\n      z = 1\n\n      # deep\n  # outer\n # shallower\nw = 1\n",
    # a tab-indented block: a comment indented by spaces is not inside it
    "if x:\n\ta = 1\n        # spaces\nb = 1\n",
])
def test_cuts_and_defaults_where_mixed_indentation_once_broke_the_join(monkeypatch, source):
    monkeypatch.setattr(piecewise, "PIECE", 1)
    _assert_same_tree(source)
