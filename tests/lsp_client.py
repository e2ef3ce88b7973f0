"""`tessera lsp` driven over stdio by pygls's own LSP client, as an editor drives it."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TESSERA = Path(sys.executable).with_name("tessera")


def run(coro, timeout: float = 180):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def uri(path: Path | str) -> str:
    return from_fs_path(str(path))


class Session:
    """One server process: open documents, wait for their diagnostics, ask."""

    def __init__(self, client: LanguageClient):
        self.client = client
        self.published: dict[str, tuple[int | None, list[T.Diagnostic]]] = {}
        self._got = asyncio.Event()

    async def open(self, path: Path, text: str) -> list[T.Diagnostic]:
        u = uri(path)
        self.published.pop(u, None)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=u, language_id="tessera", version=1, text=text)))
        return await self.diagnostics(u, 1)

    async def change(self, path: Path, text: str, version: int) -> list[T.Diagnostic]:
        u = uri(path)
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=u, version=version),
            [T.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.diagnostics(u, version)

    async def diagnostics(self, u: str, version: int) -> list[T.Diagnostic]:
        while True:
            got = self.published.get(u)
            if got is not None and (got[0] is None or got[0] >= version):
                return list(got[1])
            self._got.clear()
            await asyncio.wait_for(self._got.wait(), 60)

    def doc(self, path: Path) -> T.TextDocumentIdentifier:
        return T.TextDocumentIdentifier(uri(path))


async def session(script, command: list[str] | None = None, capabilities: T.ClientCapabilities | None = None):
    """Start the server (`tessera lsp`, or `command`), initialize, run `script(session)`, shut down."""
    client = LanguageClient("tessera-test", "1")
    s = Session(client)

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _diags(params: T.PublishDiagnosticsParams):
        s.published[params.uri] = (params.version, params.diagnostics)
        s._got.set()

    cmd = command or [str(TESSERA), "lsp"]
    await client.start_io(cmd[0], *cmd[1:], cwd="/")
    try:
        caps = capabilities or T.ClientCapabilities(text_document=T.TextDocumentClientCapabilities(
            rename=T.RenameClientCapabilities(prepare_support=True)))
        init = await client.initialize_async(T.InitializeParams(capabilities=caps, process_id=os.getpid()))
        s.server_capabilities = init.capabilities
        client.initialized(T.InitializedParams())
        return await script(s)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def apply_edits(text: str, edits: list[T.TextEdit]) -> str:
    """The text after an editor applies `edits` (non-overlapping, any order)."""
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)

    def off(p: T.Position) -> int:
        if p.line >= len(lines):
            return len(text)
        return offsets[p.line] + min(p.character, len(lines[p.line]))

    for e in sorted(edits, key=lambda e: off(e.range.start), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text
