"""Property: a file over the piecewise threshold, whatever its indentation, parses in pieces
into exactly the tree (and text, and node positions) a whole libcst parse gives."""
import pathlib
import sys

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tflint_effective.engine import piecewise
from tflint_effective.engine.positions import positions

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Relative indents of a block: spaces of several widths, and tabs where legal (below an
# indentation made of tabs only, so that CPython's tab consistency check holds).
SPACES = ["  ", "    ", "        ", " ", "   "]
TAB = "\t"
# Columns of comment lines, whatever the statements around them.
COMMENT_INDENTS = ["", " ", "  ", "   ", "    ", "     ", "        ", "\t", "\t  ", "  \t"]

SIMPLE = [
    "x = 1",
    "y = f(a, b)  # trailing comment",
    "z = a + \\\n{cont}b",
    "w = [\n{cont}1,\n{odd}2,\n]",
    "pass",
    "a = 1; b = 2",
    "s = '''text\nat column 0\n    and deeper'''",
    "print(x,\n{odd}  y)",
    "import os",
]


class _Text:
    """Lines under construction; each line is (indent, text) and text may hold newlines."""

    def __init__(self):
        self.lines = []

    def add(self, indent, text):
        self.lines.append((indent, text))


@st.composite
def _junk(draw, text):
    """Blank lines, whitespace-only lines and comment lines at any column."""
    for kind in draw(st.lists(st.sampled_from(["blank", "spaces", "comment"]), max_size=3)):
        if kind == "blank":
            text.add("", "")
        elif kind == "spaces":
            text.add(draw(st.sampled_from(COMMENT_INDENTS)), "")
        else:
            text.add(draw(st.sampled_from(COMMENT_INDENTS)), "# comment")
    return text


def _child_indents(indent):
    return SPACES + [TAB] if set(indent) <= {TAB} else SPACES


@st.composite
def _block(draw, text, indent, depth, size):
    """``size`` statements at ``indent`` (at least one), with junk in between."""
    for _ in range(size):
        draw(_junk(text))
        draw(_statement(text, indent, depth))
    return text


@st.composite
def _body(draw, text, indent, depth):
    """The indented body of a compound statement: its relative width is drawn anew."""
    child = indent + draw(st.sampled_from(_child_indents(indent)))
    draw(_block(text, child, depth + 1, draw(st.integers(1, 3))))


@st.composite
def _statement(draw, text, indent, depth):
    kinds = ["simple"] * 3 + (["if", "for", "while", "with", "try", "def", "class", "oneline"] if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "simple":
        line = draw(st.sampled_from(SIMPLE))
        text.add(indent, line.format(cont=draw(st.sampled_from(COMMENT_INDENTS)),
                                     odd=draw(st.sampled_from(COMMENT_INDENTS))))
    elif kind == "oneline":
        text.add(indent, draw(st.sampled_from(["if x: pass", "class C: pass", "def g(): return 1",
                                               "for i in r: x = i; y = i"])))
    elif kind in ("if", "for", "while", "with"):
        header = {"if": "if x:", "for": "for i in range(3):", "while": "while x:",
                  "with": "with open(p) as f, g:"}[kind]
        text.add(indent, header + draw(st.sampled_from(["", "  # on the header"])))
        draw(_body(text, indent, depth))
        clauses = {"if": ["elif y:", "else:"], "for": ["else:"], "while": ["else:"], "with": []}[kind]
        for clause in clauses:
            if draw(st.booleans()):
                draw(_junk(text))
                text.add(indent, clause)
                draw(_body(text, indent, depth))
    elif kind == "try":
        text.add(indent, "try:")
        draw(_body(text, indent, depth))
        handlers = draw(st.integers(0, 2))
        for _ in range(handlers):
            text.add(indent, "except ValueError:")
            draw(_body(text, indent, depth))
        if not handlers or draw(st.booleans()):
            text.add(indent, "finally:")
            draw(_body(text, indent, depth))
    else:
        if draw(st.booleans()):
            text.add(indent, "@decorator")
            if draw(st.booleans()):
                draw(_junk(text))
            text.add(indent, "@other(\n{}1)".format(draw(st.sampled_from(COMMENT_INDENTS))))
        text.add(indent, {"def": "def f(a,\n      b):", "class": "class C(Base):"}[kind])
        if draw(st.booleans()):
            child = indent + draw(st.sampled_from(_child_indents(indent)))
            text.add(child, '"""Docstring\nat column 0."""')
            draw(_block(text, child, depth + 1, draw(st.integers(1, 3))))
        else:
            draw(_body(text, indent, depth))
    return text


@st.composite
def sources(draw, length):
    """A module over ``length`` characters: top-level statements of several
    indentation styles, repeated until long enough; the last one indents differently."""
    units = []
    for _ in range(draw(st.integers(2, 6))):
        text = _Text()
        draw(_block(text, "", 0, draw(st.integers(1, 3))))
        units.append(text.lines)
    last = _Text()
    draw(_junk(last))
    draw(_statement(last, "", 0))
    newline = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    choose = draw(st.randoms(use_true_random=False))

    def render(lines):
        out = []
        for indent, line in lines:
            physical = (indent + line).split("\n")
            for part in physical:
                eol = choose.choice(["\n", "\r\n"]) if newline == "mixed" else newline
                out.append(part + eol)
        return "".join(out)

    body = [render(lines) for lines in units]
    source, i = "", 0
    while len(source) <= length:
        source += body[i % len(body)]
        i += 1
    source += render(last.lines)
    ending = draw(st.sampled_from(["", "trim", "# final comment", "  \n"]))
    if ending == "trim":
        source = source.rstrip("\r\n")
    else:
        source += ending
    return source


def _names(module):
    names = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node):
            names.append(node)

    module.visit(Names())
    return names


def _assert_same(source):
    try:
        compile(source, "<generated>", "exec")
    except SyntaxError:
        hypothesis.reject()
    whole = cst.parse_module(source)
    pieces = piecewise.parse_module(source)
    assert pieces.code == source
    assert pieces.deep_equals(whole)
    assert (pieces.default_indent, pieces.default_newline, pieces.has_trailing_newline) == \
        (whole.default_indent, whole.default_newline, whole.has_trailing_newline)
    expected = MetadataWrapper(whole, unsafe_skip_copy=True).resolve(PositionProvider)
    whole_names, piece_names = _names(whole), _names(pieces)
    sample = list(range(0, len(piece_names), max(1, len(piece_names) // 200)))
    computed = positions(pieces, [piece_names[i] for i in sample])
    for i in sample:
        position = expected[whole_names[i]]
        assert computed[id(piece_names[i])] == \
            ((position.start.line, position.start.column), (position.end.line, position.end.column))


_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.filter_too_much, HealthCheck.large_base_example])


@settings(max_examples=20, **_SETTINGS)
@given(source=sources(400), piece=st.sampled_from([1, 40, 150]))
def test_small_pieces_reproduce_any_indentation(source, piece):
    """Many cuts (one per statement with ``PIECE = 1``) in short files, so that a failure
    shrinks to a few lines."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piecewise, "PIECE", piece)
        _assert_same(source)


@pytest.mark.slow
@settings(max_examples=8, phases=[Phase.explicit, Phase.generate], **_SETTINGS)
@given(source=sources(piecewise.PIECE))
def test_files_over_the_threshold_reproduce_any_indentation(source):
    """Files over the real threshold: no shrinking (a 32 KB example shrinks for minutes;
    the test above finds the same bugs small)."""
    assert len(source) > piecewise.PIECE
    _assert_same(source)


SITE = pathlib.Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def _largest_sources(count):
    """The largest Python files of the installed packages (tensorflow, keras, numpy...)."""
    files = []
    for package in ("tensorflow", "keras", "numpy", "libcst", "hypothesis"):
        folder = SITE / package
        if folder.is_dir():
            files += [(path.stat().st_size, path) for path in folder.rglob("*.py")]
    return [path for _, path in sorted(files, reverse=True)[:count]]


@pytest.mark.slow
@pytest.mark.parametrize("path", _largest_sources(2), ids=lambda path: path.name)
def test_large_installed_files(path):
    source = path.read_bytes().decode("utf-8")
    assert len(source) > piecewise.PIECE
    _assert_same(source)
