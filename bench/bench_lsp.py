"""`tessera lsp` as an editor meets it: the time from an edit to its diagnostics, and the time
of a completion, a hover and a rename, on a rule file and its rule set (default: the bundled
Tower, rules/tower.tess, with base).  Driven over stdio by pygls's LanguageClient; prints the
median and the largest of each (wall-clock seconds, one line of JSON).

    python bench/bench_lsp.py --edits 20
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent


async def bench(path: Path, edits: int) -> dict:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = next(i for i, ln in enumerate(lines) if ln.startswith("capture 1 of"))
    broken = "\n".join(lines[:n] + [lines[n].replace("abbot", "abot")] + lines[n + 1:])
    uri = from_fs_path(str(path))
    client = LanguageClient("bench", "1")
    got: dict[int, float] = {}
    event = asyncio.Event()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _diags(params):
        got[params.version or 0] = time.perf_counter()
        event.set()

    await client.start_io(str(Path(sys.executable).with_name("tessera")), "lsp")
    out: dict[str, list[float]] = {"open": [], "edit": [], "completion": [], "hover": [], "rename": []}
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(), process_id=os.getpid()))
        client.initialized(T.InitializedParams())
        t = time.perf_counter()
        client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=uri, language_id="tessera", version=1, text=text)))
        while 1 not in got:
            event.clear()
            await event.wait()
        out["open"].append(got[1] - t)
        doc = T.TextDocumentIdentifier(uri)
        for v in range(2, edits + 2):
            t = time.perf_counter()
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                T.VersionedTextDocumentIdentifier(version=v, uri=uri),
                [T.TextDocumentContentChangeWholeDocument(broken if v % 2 else text)]))
            while v not in got:
                event.clear()
                await event.wait()
            out["edit"].append(got[v] - t)
            t = time.perf_counter()
            await client.text_document_completion_async(T.CompletionParams(doc, T.Position(n, len("capture 1 of "))))
            out["completion"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await client.text_document_hover_async(T.HoverParams(doc, T.Position(n + 1, 8)))
            out["hover"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await client.text_document_rename_async(T.RenameParams(doc, T.Position(n, len("capture 1 of ") + 2), "walker"))
            out["rename"].append(time.perf_counter() - t)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return {k: {"median_s": round(statistics.median(v), 4), "max_s": round(max(v), 4), "n": len(v)} for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file", default=str(ROOT / "rules" / "tower.tess"))
    ap.add_argument("--edits", type=int, default=20)
    args = ap.parse_args()
    print(json.dumps({"file": args.file, **asyncio.run(bench(Path(args.file), args.edits))}))


if __name__ == "__main__":
    main()
