"""``tflint-effective server``: a language server over stdio (pygls; ``pip install 'tflint-effective[lsp]'``).

- Diagnostics on open, change and save: code = rule code, a link to the rule's
  documentation, severity error / warning / information as the finding's (which
  depends on the execution mode of the code).
- Analysis runs on a worker thread, never on the event loop.  Changes are debounced
  (``DEBOUNCE`` seconds); a newer version cancels a run not yet started, and the
  result of a run overtaken by an edit is dropped, never published.
- Code actions: a quick fix per safe fix, "add # noqa", and ``source.fixAll``.  The
  server never writes files: the editor applies the edits it returns.
- Configuration per file as ``check`` resolves it (an unsaved buffer: the workspace
  root's); a buffer that does not parse gets one TFE000 diagnostic.
Only this module and its caller import pygls.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Dict, List, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..registry import rule_by_code
from . import server_analysis as analysis
from .server_analysis import Buffer, Positions

DEBOUNCE = 0.3  # seconds of quiet after a change before it is analysed
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}
SOURCE = "tflint-effective"
FIX_ALL = types.CodeActionKind.SourceFixAll.value + ".tflint-effective"


class Server(LanguageServer):
    def __init__(self):
        super().__init__("tflint-effective", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.analyser = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tfe-analysis")
        self.pending: Dict[str, asyncio.Task] = {}
        self.buffers: Dict[str, tuple] = {}  # uri -> (version, Buffer)

    # -- analysis ---------------------------------------------------------------------
    def _document(self, uri: str):
        return self.workspace.get_text_document(uri)

    def _path(self, uri: str) -> str:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return analysis.configured_path(path, self.workspace.root_path)

    def schedule(self, uri: str, delay: float) -> None:
        """Analyse ``uri`` after ``delay`` seconds, cancelling a run not yet done."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(self._analyse_and_publish(uri, delay))

    async def buffer(self, uri: str) -> Optional[tuple]:
        """(version, Buffer) for the document's current text, analysing it if needed."""
        document = self._document(uri)
        version = document.version
        known = self.buffers.get(uri)
        if known is not None and known[0] == version and known[1].text == document.source:
            return known
        loop = asyncio.get_running_loop()
        buffer = await loop.run_in_executor(self.analyser, analysis.analyse, document.source,
                                            self._path(uri), self.workspace.root_path)
        if self._document(uri).version != version:  # edited meanwhile: stale
            return None
        self.buffers[uri] = (version, buffer)
        return version, buffer

    async def _analyse_and_publish(self, uri: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            known = await self.buffer(uri)
        except asyncio.CancelledError:
            return
        if known is not None and uri in self.workspace.text_documents:
            version, buffer = known
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=self.diagnostics(buffer)))

    def positions(self, buffer: Buffer) -> Positions:
        encoding = self.workspace.position_encoding or "utf-16"
        return Positions(buffer.text, str(getattr(encoding, "value", encoding)))

    def diagnostics(self, buffer: Buffer) -> List[types.Diagnostic]:
        if buffer.problem:
            start = types.Position(0, 0)
            return [types.Diagnostic(types.Range(start, start), buffer.problem,
                                     types.DiagnosticSeverity.Error, source=SOURCE)]
        positions = self.positions(buffer)
        return [self._diagnostic(f, positions) for f in buffer.findings]

    def _diagnostic(self, finding, positions: Positions) -> types.Diagnostic:
        start, end = analysis.finding_range(finding, positions)
        link = _rule_url(finding.code)
        return types.Diagnostic(
            range=types.Range(types.Position(*start), types.Position(*end)),
            message=finding.message, severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
            code=finding.code, source=SOURCE,
            code_description=types.CodeDescription(href=link) if link else None)

    # -- code actions --------------------------------------------------------------------
    async def code_actions(self, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        known = await self.buffer(uri)
        if known is None:
            return []
        _, buffer = known
        positions = self.positions(buffer)
        only = params.context.only
        actions = []
        wanted = lambda kind: not only or any(kind.startswith(str(k)) for k in only)  # noqa: E731
        if wanted(types.CodeActionKind.QuickFix.value):
            for finding in buffer.findings:
                start, end = analysis.finding_range(finding, positions)
                if not _overlaps((start, end), params.range):
                    continue
                diagnostic = self._diagnostic(finding, positions)
                edits = analysis.quick_fix(buffer, finding, positions)
                if edits:
                    actions.append(_action(f"Fix {finding.code}: {finding.message}", types.CodeActionKind.QuickFix,
                                           uri, edits, [diagnostic], preferred=True))
                if finding.code != "TFE000":
                    actions.append(_action(f"Add `# noqa: {finding.code}` to this line",
                                           types.CodeActionKind.QuickFix, uri,
                                           analysis.noqa_edit(buffer, finding, positions), [diagnostic]))
        if wanted(FIX_ALL):
            loop = asyncio.get_running_loop()
            edits = await loop.run_in_executor(self.analyser, analysis.fix_all, buffer, positions)
            if edits and self._document(uri).version == known[0]:
                actions.append(_action("Apply every safe tflint-effective fix", FIX_ALL, uri, edits))
        return actions


def _rule_url(code: str) -> Optional[str]:
    from .docs import rule_url

    return rule_url(rule_by_code(code)) if rule_by_code(code) else None


def _overlaps(span, wanted: types.Range) -> bool:
    """Whether the finding is on a line of the range (the cursor's line, usually)."""
    (start, end) = span
    return start[0] <= wanted.end.line and wanted.start.line <= end[0]


def _action(title: str, kind, uri: str, edits, diagnostics=None, preferred=None) -> types.CodeAction:
    text_edits = [types.TextEdit(types.Range(types.Position(*start), types.Position(*end)), text)
                  for start, end, text in edits]
    return types.CodeAction(title=title, kind=kind, diagnostics=diagnostics, is_preferred=preferred,
                            edit=types.WorkspaceEdit(changes={uri: text_edits}))


def build() -> Server:
    server = Server()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Server, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Server, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Server, params: types.DidSaveTextDocumentParams) -> None:
        ls.buffers.pop(params.text_document.uri, None)  # the configuration may have changed
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.buffers.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    async def code_action(ls: Server, params: types.CodeActionParams):
        return await ls.code_actions(params)

    return server


def serve() -> int:
    logging.basicConfig(level=logging.WARNING)
    build().start_io()
    return 0
