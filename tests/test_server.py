"""``tflint-effective server`` for real: a subprocess driven with JSON-RPC over stdio."""
import subprocess
import sys

import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.frontends.cli import main
from tflint_effective.registry import rule_by_code

pytest.importorskip("pygls", reason="pip install '.[lsp]' for the language server")
from lsp_client import Client  # noqa: E402

M102 = rule_by_code("TFE102").MESSAGE
M103 = rule_by_code("TFE103").MESSAGE
TEXT = ('import tensorflow as tf\n'
        'x = tf.reduce_mean(a, keep_dims=True, axis=0)\n'
        's = "日本語😀"; m = tf.reduce_mean(b, reduction_indices=[1])\n')
ANCHOR = "docs/rules.md#tfe102-deprecated_reduction_keywords"
LSP_SEVERITY = {"error": 1, "warning": 2, "info": 3}


def diagnostic(start, end, code, message, text=TEXT):
    """As published; the severity is the engine's for ``text`` (the rules' business)."""
    severity = next(d.severity for d in lint_source(text) if d.code == code and d.line == start[0] + 1)
    return {"range": {"start": {"line": start[0], "character": start[1]},
                      "end": {"line": end[0], "character": end[1]}},
            "message": message, "severity": LSP_SEVERITY[severity], "code": code, "source": "tflint-effective"}


def without_links(diagnostics):
    for d in diagnostics:
        href = d.pop("codeDescription", {}).get("href")
        assert href is None or (href.startswith("file://") and href.endswith(
            f"#{d['code'].lower()}-{rule_by_code(d['code']).name()}")), href
    return diagnostics


def edit(start, end, text):
    return {"range": {"start": {"line": start[0], "character": start[1]},
                      "end": {"line": end[0], "character": end[1]}}, "newText": text}


def actions(client, path, line, only=None):
    context = {"diagnostics": [], **({"only": only} if only else {})}
    found = client.request("textDocument/codeAction", {
        "textDocument": {"uri": path.as_uri()}, "context": context,
        "range": {"start": {"line": line, "character": 3}, "end": {"line": line, "character": 3}}})
    return [(a["title"], a["kind"], a["edit"]["changes"][path.as_uri()]) for a in found]


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\nignore = ["TFE101"]\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "setup.cfg").write_text("[tflint-effective]\nselect = TFE103\n")
    (tmp_path / "m.py").write_text(TEXT)
    return tmp_path


@pytest.mark.slow
def test_diagnostics_code_actions_and_utf16_positions(workspace):
    client = Client(workspace)
    try:
        assert client.initialized["capabilities"]["positionEncoding"] == "utf-16"
        assert client.initialized["capabilities"]["codeActionProvider"] == {
            "codeActionKinds": ["quickfix", "source.fixAll.tflint-effective"]}
        path = workspace / "m.py"
        client.open(path, TEXT)
        diagnostics = client.diagnostics(path.as_uri(), 1)
        assert diagnostics[0]["codeDescription"]["href"].endswith(ANCHOR)
        assert without_links(diagnostics) == [
            diagnostic((1, 22), (1, 36), "TFE102", M102.format(old="keep_dims", new="keepdims")),
            # 34 code points before the keyword, 35 UTF-16 units (the emoji is a surrogate pair)
            diagnostic((2, 35), (2, 56), "TFE102", M102.format(old="reduction_indices", new="axis"))]

        assert actions(client, path, 1) == [
            (f"Fix TFE102: {M102.format(old='keep_dims', new='keepdims')}", "quickfix",
             [edit((1, 0), (2, 0), "x = tf.reduce_mean(a, keepdims=True, axis=0)\n")]),
            ("Add `# noqa: TFE102` to this line", "quickfix",
             [edit((1, 0), (2, 0), "x = tf.reduce_mean(a, keep_dims=True, axis=0)  # noqa: TFE102\n")]),
            ("Apply every safe tflint-effective fix", "source.fixAll.tflint-effective",
             [edit((1, 0), (3, 0), 'x = tf.reduce_mean(a, keepdims=True, axis=0)\n'
                                   's = "日本語😀"; m = tf.reduce_mean(b, axis=[1])\n')])]
        assert [title for title, _, _ in actions(client, path, 2, only=["source.fixAll"])] == [
            "Apply every safe tflint-effective fix"]
        assert actions(client, path, 2, only=["quickfix"])[0][2] == [
            edit((2, 0), (3, 0), 's = "日本語😀"; m = tf.reduce_mean(b, axis=[1])\n')]

        client.change(path, "import tensorflow as tf\nx = (1,\n", 2)
        assert [(d["code"], d["message"], d["severity"]) for d in client.diagnostics(path.as_uri(), 2)] == [
            ("TFE000", "syntax error: '(' was never closed", 1)]
        assert actions(client, path, 1) == []

        for version in range(3, 8):  # typing: only the last version is analysed and published
            client.change(path, TEXT.replace("keep_dims", "keep_dims" + " " * version), version)
        assert len(without_links(client.diagnostics(path.as_uri(), 7))) == 2
        client.collect(1.0)
        assert [p["version"] for p in client.published(path.as_uri()) if p.get("version", 0) > 2] == [7]
        client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
        client.collect(1.0)  # saved: analysed again (the configuration may have changed)
        assert [p["version"] for p in client.published(path.as_uri()) if p.get("version", 0) > 2] == [7, 7]
        client.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
        client.collect(0.5)
        assert client.published(path.as_uri())[-1] == {"uri": path.as_uri(), "diagnostics": []}

        sub = workspace / "sub" / "n.py"  # its own configuration: TFE103 only
        client.open(sub, TEXT + "y = tf.squeeze(tf.keras.layers.Dense(1)(x))\n")
        assert without_links(client.diagnostics(sub.as_uri(), 1)) == [
            diagnostic((3, 4), (3, 43), "TFE103", M103, TEXT + "y = tf.squeeze(tf.keras.layers.Dense(1)(x))\n")]

        client.notify("textDocument/didOpen", {"textDocument": {  # unsaved: the workspace root's configuration
            "uri": "untitled:Untitled-1", "languageId": "python", "version": 1,
            "text": "import tensorflow as tf\ny = tf.reduce_sum(x * y)\nz = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"}})
        assert [d["code"] for d in client.diagnostics("untitled:Untitled-1", 1)] == ["TFE103"]
    finally:
        client.close()
    assert client.process.returncode == 0
    assert (workspace / "m.py").read_text() == TEXT  # the server never writes


@pytest.mark.slow
def test_utf8_positions_when_the_client_asks_for_them(workspace):
    client = Client(workspace, encodings=["utf-8", "utf-16"])
    try:
        assert client.initialized["capabilities"]["positionEncoding"] == "utf-8"
        path = workspace / "m.py"
        client.open(path, TEXT)
        ranges = [d["range"] for d in client.diagnostics(path.as_uri(), 1)]
        assert ranges[1] == {"start": {"line": 2, "character": 43}, "end": {"line": 2, "character": 64}}
    finally:
        client.close()


def test_the_cli_never_loads_pygls(tmp_path):
    (tmp_path / "m.py").write_text(TEXT)
    probe = ("import sys; from tflint_effective.frontends.cli import main; "
             "main(['check', '-q', '--isolated', '--no-cache', 'm.py']); print('pygls' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "False", done.stderr


def test_server_without_pygls_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    monkeypatch.delitem(sys.modules, "tflint_effective.frontends.server", raising=False)
    assert main(["server"]) == 2
    assert capsys.readouterr().err.startswith("tflint-effective: the language server needs pygls (")
