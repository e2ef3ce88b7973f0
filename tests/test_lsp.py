"""`tessera lsp` driven over stdio by pygls's own LSP client, as an editor would:
initialize, didOpen (diagnostics), hover, definition, formatting, completion (the rest of
the editor features: tests/test_lsp_editing.py)."""
from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
TESSERA = Path(sys.executable).with_name("tessera")

BROKEN = """module broken "two mistakes" [BASE-COMP-1]
requires base

figure abbot 1 per player [ABBOT-COMP-1] on cloister, meadow [ABBOT-FOLLOW-1]
score garden complete = 1 + neighbors  [ABBOT-SCORE-1]
"""


SYNTAX = """module syntax "a statement cut short"
requires base
score road complete = 2 *
tile Q x1 { edges C C }
"""


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


async def _session(files: dict[Path, str], script):
    client = LanguageClient("tessera-test", "1")
    published: dict[str, list[T.Diagnostic]] = {}
    got = asyncio.Event()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _diags(params: T.PublishDiagnosticsParams):
        published[params.uri] = params.diagnostics
        got.set()

    await client.start_io(str(TESSERA), "lsp", cwd="/")
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(), process_id=os.getpid()))
        client.initialized(T.InitializedParams())
        for path, text in files.items():
            got.clear()
            client.text_document_did_open(T.DidOpenTextDocumentParams(
                T.TextDocumentItem(uri=from_fs_path(str(path)), language_id="tessera", version=1, text=text)))
            await asyncio.wait_for(got.wait(), 60)
        return await script(client, published)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def _check_cli(path: Path) -> list[tuple[int, int, str]]:
    out = subprocess.run([str(TESSERA), "check", str(path)], capture_output=True, text=True, cwd="/")
    assert out.returncode == 1, out.stdout + out.stderr
    found = []
    for line in out.stdout.splitlines():
        if line.startswith(str(path) + ":"):
            _, ln, col, *_ = line.split(":")
            found.append((int(ln), int(col), line.rsplit("[", 1)[1].rstrip("]")))
    assert found
    return found


@pytest.mark.slow
def test_diagnostics_are_those_of_tessera_check(tmp_path):
    files = {tmp_path / "broken.tess": BROKEN, tmp_path / "syntax.tess": SYNTAX}
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    want = {path: _check_cli(path) for path in files}

    async def script(client, published):
        return {path: published[from_fs_path(str(path))] for path in files}

    got = _run(_session(files, script))
    for path in files:
        diags = got[path]
        assert sorted((d.range.start.line + 1, d.range.start.character + 1, d.code) for d in diags) == sorted(want[path])
        assert all(d.source == "tessera" and d.message for d in diags)


@pytest.mark.slow
def test_a_clean_file_has_no_diagnostics_and_fixing_the_text_clears_them(tmp_path):
    path = tmp_path / "broken.tess"
    fixed = BROKEN.replace("meadow", "garden").replace("neighbors", "neighbours")

    async def script(client, published):
        uri = from_fs_path(str(path))
        before = list(published[uri])
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [T.TextDocumentContentChangeWholeDocument(text=fixed)]))
        for _ in range(200):
            await asyncio.sleep(0.05)
            if not published[uri]:
                break
        return before, published[uri]

    before, after = _run(_session({path: BROKEN}, script))
    assert before and list(after) == []


@pytest.mark.slow
def test_hover_definition_formatting_completion(tmp_path):
    # a house rule in its own folder: `extends base` resolves to the bundled rules/base.tess
    path = tmp_path / "house.tess"
    text = ('module house "Long roads"  [BASE-ROAD-2]\nextends base\n'
            'override score road complete = 2 * tiles [BASE-ROAD-2]\n'
            'figure abbot 1 per player on cloister\n'
            'clause HOUSE-1 "Roads score 2 per tile"\n'
            'override score road end = 2 * tiles [HOUSE-1]\n')
    uri = from_fs_path(str(path))
    base = (ROOT / "rules" / "base.tess").resolve()
    base_lines = base.read_text(encoding="utf-8").splitlines()

    async def script(client, published):
        res = {}
        # line 2 `override score road complete = 2 * tiles [BASE-ROAD-2]`: the clause, then `road`
        col = text.splitlines()[2].index("BASE-ROAD-2") + 3
        res["clause"] = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(2, col)))
        res["road"] = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(2, 16)))
        res["def_road"] = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), T.Position(2, 16)))
        res["def_base"] = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), T.Position(1, 10)))
        res["def_cloister"] = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), T.Position(3, 32)))
        res["fmt"] = await client.text_document_formatting_async(T.DocumentFormattingParams(
            T.TextDocumentIdentifier(uri), T.FormattingOptions(tab_size=4, insert_spaces=True)))
        res["complete"] = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), T.Position(3, 0)))
        res["house"] = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(5, 40)))
        res["def_house"] = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), T.Position(5, 40)))
        res["diags"] = published[uri]
        return res

    res = _run(_session({path: text}, script))
    assert list(res["diags"]) == []
    from tessera.dsl.clauses import CLAUSES

    assert CLAUSES["BASE-ROAD-2"] in res["clause"].contents.value
    assert "feature `road`" in res["road"].contents.value and "base.tess" in res["road"].contents.value
    (loc,) = res["def_road"]
    assert Path(loc.uri.removeprefix("file://")) == base
    assert base_lines[loc.range.start.line].startswith("feature road")
    line = base_lines[loc.range.start.line]
    assert line[loc.range.start.character:loc.range.end.character] == "road"
    (loc,) = res["def_base"]
    assert base_lines[loc.range.start.line].startswith("module base")
    (loc,) = res["def_cloister"]
    assert base_lines[loc.range.start.line].startswith("feature cloister")
    # formatting: the text `tessera fmt` prints
    (edit,) = res["fmt"]
    path.write_text(text, encoding="utf-8")
    want = subprocess.run([str(TESSERA), "fmt", str(path)], capture_output=True, text=True).stdout
    assert edit.new_text == want and want != text
    # a house rule's own clause: hover shows its text, definition its `clause` line
    assert "Roads score 2 per tile" in res["house"].contents.value
    (loc,) = res["def_house"]
    assert loc.range.start.line == 4 and text.splitlines()[4][loc.range.start.character:loc.range.end.character] == "HOUSE-1"
    labels = {i.label for i in res["complete"].items}
    # at the start of a statement: the statements' keywords (what fits there, tests/test_lsp_editing.py
    # covers the other places), not `when` nor names
    assert {"figure", "score", "requires", "override"} <= labels and not {"when", "road", "BASE-ROAD-2"} & labels


@pytest.mark.slow
def test_definition_of_tiles_states_figures_in_bundled_files():
    river = (ROOT / "rules" / "river.tess").resolve()
    abbot = (ROOT / "rules" / "abbot.tess").resolve()
    riverbed = (ROOT / "rules" / "riverbed.tess").resolve()
    texts = {p: p.read_text(encoding="utf-8") for p in (river, abbot, riverbed)}

    def where(path: Path, needle: str, line_start: str) -> T.Position:
        for n, line in enumerate(texts[path].splitlines()):
            if line.startswith(line_start):
                return T.Position(n, line.index(needle, len(line_start) - len(needle)) + 1)
        raise AssertionError(line_start)

    asks = {
        "tile": (riverbed, where(riverbed, "D", "box D")),  # the tile D of base.tess (BASE-COMP-1)
        "state": (river, where(river, "river_turn", "  require turn(river) != river_turn")),
        "figure": (abbot, where(abbot, "abbot", "return abbot")),
        "lake": (river, where(river, "river.lake", "    last river.lake")),
    }

    async def script(client, published):
        out = {}
        for key, (path, pos) in asks.items():
            out[key] = await client.text_document_definition_async(
                T.DefinitionParams(T.TextDocumentIdentifier(from_fs_path(str(path))), pos))
        out["diags"] = {k: list(v) for k, v in published.items()}
        return out

    res = _run(_session(texts, script))
    assert all(v == [] for v in res["diags"].values())  # the bundled rules are clean, as `tessera check rules/` says

    def target(locs):
        (loc,) = locs
        path = Path(loc.uri.removeprefix("file://"))
        line = path.read_text(encoding="utf-8").splitlines()[loc.range.start.line]
        return path.name, line, line[loc.range.start.character:loc.range.end.character]

    name, line, word = target(res["tile"])
    assert name == "base.tess" and line.startswith("tile D ") and word == "D"
    name, line, word = target(res["state"])
    assert name == "river.tess" and line.startswith("state river_turn") and word == "river_turn"
    name, line, word = target(res["figure"])
    assert name == "abbot.tess" and line.startswith("figure abbot") and word == "abbot"
    name, line, word = target(res["lake"])
    assert name == "riverbed.tess" and line.startswith("tile river.lake") and word == "river.lake"
