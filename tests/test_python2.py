"""Python 2 source read as Python 3: exact translations, positions mapped back, errors."""
import ast
import inspect
import io
import re
import tokenize

import libcst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tflint_effective.engine import python2, python2_params

EXACT = [
    # print
    ("print\n", "print()\n"),
    ("print x, y\n", "print(x, y)\n"),
    ("print x,\n", 'print(x, end=" ")\n'),
    ("print >>f, x\n", "print(x, file=f)\n"),
    ("print >> sys.stderr, 'a', b,\n", "print('a', b, end=\" \", file=sys.stderr)\n"),
    ("print >>f\n", "print(file=f)\n"),
    ("print >>f, 'a' % \\\n    b\n", "print('a' % \\\n    b, file=f)\n"),
    ("print >>f, \\\n    x\n", "print( \\\n    x, file=f)\n"),
    ("print (a), b\n", "print((a), b)\n"),
    ('print"x"\n', 'print("x")\n'),
    ("print -1, [2]\n", "print(-1, [2])\n"),
    ("print (\n    x,\n    y)  # note\n", "print (\n    x,\n    y)  # note\n"),
    ("print 'a', (\n    b)  # note\n", "print('a', (\n    b))  # note\n"),
    ("if x: print y; print z\n", "if x: print(y); print(z)\n"),
    ("print(x)\n", "print(x)\n"),
    ("from __future__ import (division,\n    print_function)\nprint('a', end='')\n",
     "from __future__ import (division,\n    print_function)\nprint('a', end='')\n"),
    # except, raise
    ("try:\n    pass\nexcept E, e:\n    pass\n", "try:\n    pass\nexcept E as e:\n    pass\n"),
    ("try: pass\nexcept (A, B),e: pass\n", "try: pass\nexcept (A, B) as e: pass\n"),
    ("raise E, msg\n", "raise E(msg)\n"),
    ("raise E, 'a %s' % (b,)\n", "raise E('a %s' % (b,))\n"),
    ("raise E, msg, tb\n", "raise E(msg).with_traceback(tb)\n"),
    ("raise E, (a, b)\n", "raise E(a, b)\n"),
    ("raise E, (a, b), tb\n", "raise E(a, b).with_traceback(tb)\n"),
    ("raise E\n", "raise E\n"),
    ("raise E(a, b)\n", "raise E(a, b)\n"),
    # exec
    ("exec code\n", "exec(code)\n"),
    ("exec code in d\n", "exec(code, d)\n"),
    ("exec 'x = 1' in g, l\n", "exec('x = 1', g, l)\n"),
    ("exec(code)\n", "exec(code)\n"),
    # tokens
    ("x = `y`\n", "x = repr(y)\n"),
    ("x = `a, b` + `(c)`\n", "x = repr(a, b) + repr((c))\n"),
    ("x = `1 + `2`` + ``y``\n", "x = repr(1 + repr(2)) + repr(repr(y))\n"),
    ("x = `None`, `True` + `x[0]`\nreturn `f(y)`\n", "x = repr(None), repr(True) + repr(x[0])\nreturn repr(f(y))\n"),
    ("x = 0777 + 00 + 0 + 0.5 + 07.5\n", "x = 0o777 + 00 + 0 + 0.5 + 07.5\n"),
    ("x = 10L + 0xFFL + 0777L + 1e5 + 2j\n", "x = 10 + 0xFF + 0o777 + 1e5 + 2j\n"),
    ("if a <> b: pass\n", "if a != b: pass\n"),
    ('s = ur"\\d" + UR"x" + u"y" + b"z" + br"w"\n', 's = r"\\d" + R"x" + u"y" + b"z" + br"w"\n'),
    ("s = ur'''a\nb''' + 0777\n", "s = r'''a\nb''' + 0o777\n"),
    # indentation: a tab advances to the next multiple of 8
    ("if 1:\n\tx = 1\n        y = 2\n", "if 1:\n        x = 1\n        y = 2\n"),
    ("if 1:\n  \tx = (1,\n\t\t2)\n        y = 2\n", "if 1:\n        x = (1,\n\t\t2)\n        y = 2\n"),
    ("if 1:\n\tx = 1\n\tif 2:\n\t\ty = 2\n", "if 1:\n\tx = 1\n\tif 2:\n\t\ty = 2\n"),  # tabs only: kept
    # tuple parameters: each becomes one name that the file does not spell
    ("def f(a, (b, c)):\n    return b + c\n", "def f(a, b_c_):\n    return b + c\n"),
    ("g = lambda (k, v): k\n", "g = lambda k_v_: k\n"),
    ("sorted(d.items(), key=lambda (k, v): (v, k))\n", "sorted(d.items(), key=lambda k_v_: (v, k))\n"),
    ("def h(self, (x, (y, z))=default, *args): pass\n", "def h(self, x_y_z_=default, *args): pass\n"),
    ("class A:\n    def m(self, (a, b), c=(1, 2)):\n        return `a`\n",
     "class A:\n    def m(self, a_b_, c=(1, 2)):\n        return repr(a)\n"),
    ("def f((a)): return lambda (k): k\n", "def f(a): return lambda k: k\n"),  # no tuple: the name itself
    ("k_v_ = 1\ng = lambda (k, v), (x, y)=p: k_v_ + 0777\n",
     "k_v_ = 1\ng = lambda k_v_1, x_y_=p: k_v_ + 0o777\n"),
    ("def f(a=lambda x, (y, z): y, (b, c)=d): pass\n", "def f(a=lambda x, y_z_: y, b_c_=d): pass\n"),
    ("f(lambda a={1: 2}, (b, c)=e: b)\n", "f(lambda a={1: 2}, b_c_=e: b)\n"),
    ("f(lambda a=lambda: 1, (b, c)=e: b)\n", "f(lambda a=lambda: 1, b_c_=e: b)\n"),
    ("def f(a, (b,  # note\n          c)):\n    pass\n", "def f(a, b_c_  # note\n          ):\n    pass\n"),
    ("print map(lambda (k, v): k, d)\n", "print(map(lambda k_v_: k, d))\n"),
    ("f = lambda: (a, b)\ng = lambda x: (a, b)\n", "f = lambda: (a, b)\ng = lambda x: (a, b)\n"),
    ("def f(a=(1, 2)): return f((a, b))\nh = lambda a=(1, 2), *b: (a)\n",
     "def f(a=(1, 2)): return f((a, b))\nh = lambda a=(1, 2), *b: (a)\n"),
    # line endings and the rest stay as they are
    ("print x\r\nprint y\r\n", "print(x)\r\nprint(y)\r\n"),
    ("print x", "print(x)"),
    ("s = '<> `x` 0777 print x'  # print y <>\n", "s = '<> `x` 0777 print x'  # print y <>\n"),
]


@pytest.mark.parametrize("source, expected", EXACT)
def test_exact_translation(source, expected):
    assert python2.translate(source).text == expected


SAMPLES = [source for source, _ in EXACT] + [
    "import sys\n\ndef main(argv):\n    if len(argv) <> 2:\n        print >>sys.stderr, 'usage: %s FILE' % argv[0]\n"
    "        raise SystemExit, 2\n    try:\n        data = open(argv[1]).read()\n"
    "    except IOError, error:\n        print 'cannot read', `argv[1]`, error\n        return 0777L\n"
    "    exec data in {}\n    print\n",
    "class Model(object):\n\tdef __init__(self, size=10L):\n\t\tself.size = size\n"
    "        def run(self):\n\t\tprint 'size', self.size,\n\t\tprint >> sys.stdout, ur'\\d', 0x10L\n",
    "x = {'a': 1,\n     'b': `2`}  # comment\nprint x['a'], \\\n      x['b']\n"
    "if x <> None: raise ValueError, \"bad\", None\n",
]


def _tokens(text):
    return [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP)]


def _offsets(text):
    starts, offset = [], 0
    for line in re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text):
        starts.append(offset)
        offset += len(line)
    return starts


# Spelled only in the translation: they map to where they were inserted.
SYNTHETIC = {"(", ")", ",", "file", "=", "end", '" "', "as", ".", "with_traceback", "repr"}


def _spellings(token):
    """How a token of the translation may be spelled in the original."""
    options = [token]
    if re.fullmatch(r"0o[0-7]+", token):
        options.append("0" + token[2:])
    if re.fullmatch(r"\d+|0[xX]\w+|0o[0-7]+", token):
        options += [option + suffix for option in list(options) for suffix in "lL"]
    if token == "!=":
        options.append("<>")
    if token[:1] in "rR" and token[1:2] in "'\"":
        options += ["u" + token, "U" + token]
    return options


def _tuple_parameter(tokens, line, col):
    """The original tokens of the tuple parameter whose "(" is at (line, col), the parentheses excluded."""
    [start] = [i for i, t in enumerate(tokens) if (t.line + 1, t.col) == (line, col)]
    end = next(i for i in range(start + 1, len(tokens)) if tokens[i].depth <= tokens[start].depth)
    return tokens[start + 1:end]


def check_positions(source):
    """Every token of the translation maps back to the same token (or its Python 2 spelling)
    in the original, and every name, number and string of the original is mapped to once,
    but those of a tuple parameter: its new name, one the file does not spell, maps to its "("."""
    translation = python2.translate(source)
    starts, hits, dropped = _offsets(source), [], set()
    original = python2._tokenize(source)[0]
    for token in _tokens(translation.text):
        line, col = translation.original(*token.start)
        rest = source[starts[line - 1] + col:]
        if token.type == tokenize.NAME and rest.startswith("("):
            inside = _tuple_parameter(original, line, col)
            if any(t.text == "," for t in inside):
                assert token.string not in {t.text for t in original}, token
            else:  # (k) is k
                assert [t.text for t in inside if t.kind == "name"] == [token.string], token
            dropped.update((t.line + 1, t.col) for t in inside)
            continue
        spelled = [s for s in _spellings(token.string) if rest.startswith(s) and not (
            s[-1:].isalnum() and rest[len(s):len(s) + 1].isalnum())]
        assert spelled or token.string in SYNTHETIC, (token, (line, col), rest[:20])
        if spelled and token.type != tokenize.OP:
            hits.append((line, col))
    originals = [(t.line + 1, t.col) for t in original if t.kind in ("name", "number", "string")
                 and t.text != "in" and (t.line + 1, t.col) not in dropped]
    assert sorted(hits) == sorted(originals)


@pytest.mark.parametrize("source", SAMPLES)
def test_positions_map_back_to_the_same_tokens(source):
    check_positions(source)


@pytest.mark.parametrize("source", SAMPLES)
def test_translation_parses_and_keeps_every_line(source):
    text = python2.translate(source).text
    ast.parse(text)
    libcst.parse_module(text)
    assert len(_offsets(text)) == len(_offsets(source))
    assert [line[len(line.rstrip("\r\n")):] for line in text.splitlines(True)] == \
        [line[len(line.rstrip("\r\n")):] for line in source.splitlines(True)]


def test_positions_of_moved_print_target_and_expanded_indentation():
    source = "if 1:\n\tprint >>sys.stderr, x,  `y`,\n        pass\n"
    translation = python2.translate(source)
    assert translation.text == 'if 1:\n        print(x,  repr(y), end=" ", file=sys.stderr)\n        pass\n'
    before, after = source.splitlines()[1], translation.text.splitlines()[1]
    trailing_comma = before.rindex(",")
    for new, old in [("print", "print"), ("x,", "x,"), ("sys", "sys"), ("stderr", "stderr"), ("repr(", "`y"),
                     ("y)", "y`"), ("end", trailing_comma), (" file", trailing_comma)]:
        column = before.index(old) if isinstance(old, str) else old
        assert translation.original(2, after.index(new)) == (2, column), new
    assert translation.original(3, 8) == (3, 8)  # an unchanged line
    assert translation.original(1, 3) == (1, 3)


PYTHON3 = [
    "print('a', file=sys.stderr)\nexec(code, {})\nraise ValueError('x') from None\n",
    "try:\n    pass\nexcept (A, B) as e:\n    print(e, end='')\n",
    "x = f'{a!r:>10}' + rb'\\d' + 0o777 + 0x_ff + 1_000\nif (n := 10) != 0:\n    pass\n",
    "def f(a: int, *, b=...) -> None:\n\tif a:\n\t\treturn b @ a\n",
    "print = print\nexec = None\nprint << 2\nprint in x\nx = [print, exec]\n",
    "x\u0301 = '\u00e9'  # an identifier with a combining mark\n\u00e9t\u00e9 = x\u0301\n",
    "f = lambda: (a, b)\ng = lambda x=(1, 2), *a, **k: (x, a)\ndef h(a: (int) = (1), *, b: int = f((2, 3))) -> (int):\n"
    "    return lambda a={1: (2)}, b=lambda: (1): (a, b)\n",
]


@pytest.mark.parametrize("source", PYTHON3 + [inspect.getsource(m)
                                              for m in (ast, tokenize, inspect, python2, python2_params)])
def test_python3_source_is_left_as_it_is(source):
    ast.parse(source)
    assert python2.translate(source).text == source
    assert not python2.looks_like_python2(source)


@pytest.mark.parametrize("source", SAMPLES[:-2])
def test_python2_samples_look_like_python2(source):
    changed = python2.translate(source).text != source
    assert python2.looks_like_python2(source) is changed


@pytest.mark.parametrize("source, message", [
    ("s = 'abc\n", "line 1: unterminated string"),
    ('x = 1\ns = """abc\n', "line 2: unterminated string"),
    ("x = (1,\n     2\n", "line 1: '(' is never closed"),
    ("x = 1)\n", "line 1: unmatched ')'"),
    ("x = [1}\n", "line 1: unmatched '}'"),
    ("x = $y\n", "line 1: unexpected character '$'"),
    ("x = y`\n", "line 1: unmatched '`'"),
    ("x = `y\n", "line 1: '`' is never closed"),
    ("print >>open(\n    name), x\n", "line 1: 'print >>': its file expression must stay on the line"),
    ("print >>f,\n", "line 1: 'print >>' without a file or values"),
])
def test_untranslatable_text_raises_a_clear_error(source, message):
    with pytest.raises(python2.Python2Error, match=re.escape(message)):
        python2.translate(source)
    assert issubclass(python2.Python2Error, ValueError)
    assert not python2.looks_like_python2(source)


# ------------------------------------------------------------ generated mixes

_atoms = st.sampled_from(["x", "y.z", "0777", "10L", "0xffL", "1.5", "'s'", 'ur"\\d"', "`x`", "f(a, b)",
                          "[1, 2]", "{'k': v}", "(a, b)", "-x", "u'''t\nu'''"])
_expressions = st.recursive(_atoms, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from([" + ", " <> ", " % ", " * "]), inner).map("".join),
    inner.map(lambda e: f"`{e}`"), inner.map(lambda e: f"({e})"),
    st.lists(inner, min_size=1, max_size=3).map(lambda es: "g(" + ", ".join(es) + ")")), max_leaves=4)
_lists = st.lists(_expressions, min_size=1, max_size=3).map(", ".join)


@st.composite
def _statement(draw):
    kind = draw(st.sampled_from(["print", "print,", "print>>", "bare", "raise", "raise3", "exec", "execin",
                                 "assign", "try", "def", "lambda"]))
    values, value = draw(_lists), draw(_expressions)
    return {
        "print": f"print {values}", "print,": f"print {values},", "print>>": f"print >>sys.stderr, {values}",
        "bare": "print", "raise": f"raise E, {value}", "raise3": f"raise E, {value}, tb",
        "exec": f"exec {value}", "execin": f"exec {value} in g, l", "assign": f"v = {value}",
        "try": f"try:\n\tv = {value}\nexcept E, e:\n        print e",
        "def": f"def f(a, (b, (c, d))={value}, *r):\n\tprint {values}",
        "lambda": f"v = sorted(d, key=lambda (k, w), (x,)=[{value}]: {value})",
    }[kind]


@st.composite
def _programs(draw):
    lines = []
    for statement in draw(st.lists(_statement(), min_size=1, max_size=6)):
        if draw(st.booleans()):  # inside a block, indented with a tab or with eight spaces
            indent = draw(st.sampled_from(["\t", " " * 8]))
            statement = "if c:\n" + "\n".join(indent + line for line in statement.split("\n"))
        lines.append(statement + draw(st.sampled_from(["", "  # note"])))
    return "\n".join(lines) + "\n"


@settings(derandomize=True, deadline=None, max_examples=100)
@given(_programs())
def test_generated_python2_translates_parses_and_maps_back(source):
    ast.parse(python2.translate(source).text)
    check_positions(source)
