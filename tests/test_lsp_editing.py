"""Issue 25, through a real LSP client (pygls's, over stdio, as an editor): diagnostics on the
misspelt word, one error per mistake, completion that knows where it is, hover from the
language reference, references, rename across a rule set, the outline, semantic tokens,
quick fixes, and a server that answers every request.

The rule files are the bundled Tower (rules/tower.tess, rulebook 003) and broken copies of it."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types as T

from lsp_client import TESSERA, apply_edits, run, session, uri
from lsp_raw import Raw

pytestmark = pytest.mark.slow  # each test starts `tessera lsp` (or node, npm, Neovim) in a subprocess

ROOT = Path(__file__).resolve().parent.parent
TOWER = (ROOT / "rules" / "tower.tess").read_text(encoding="utf-8")
LANGUAGE = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


def _line_of(text: str, start: str) -> int:
    return next(n for n, ln in enumerate(text.split("\n")) if ln.startswith(start))


def _word(text: str, r: T.Range) -> str:
    assert r.start.line == r.end.line, r
    return text.split("\n")[r.start.line][r.start.character:r.end.character]


def _check(path: Path) -> tuple[int, str]:
    out = subprocess.run([str(TESSERA), "check", str(path)], capture_output=True, text=True, cwd="/")
    return out.returncode, out.stdout


def test_the_range_of_a_misspelt_name_is_that_name(tmp_path):
    # `abot` for `abbot` in the Tower's capture list (TOWER-FIGURES-1), a statement of three lines;
    # `towr` for `tower` where the floor may stand (TOWER-TURN-1)
    cap = _line_of(TOWER, "capture 1 of")
    fl = _line_of(TOWER, "    on tower anywhere")
    lines = TOWER.split("\n")
    lines[cap] = lines[cap].replace("abbot", "abot")
    lines[fl] = lines[fl].replace("tower", "towr")
    broken = "\n".join(lines)
    path = tmp_path / "tower.tess"

    async def script(s):
        return await s.open(path, broken)

    diags = run(session(script))
    got = sorted((d.range.start.line, _word(broken, d.range), d.code) for d in diags)
    assert got == sorted([(cap, "abot", "unknown-name"), (fl, "towr", "unknown-name")])
    assert all("did you mean" in d.message for d in diags)


def test_one_misspelt_place_is_one_error(tmp_path):
    # `city Q` for `city N` on tower.A (TOWER-COMP-1): it was 4 errors (edge terrain, a city on
    # no place, an unknown kind `Q`, a border to N)
    start = _line_of(TOWER, "tile tower.A ")
    n = start + next(i for i, ln in enumerate(TOWER.split("\n")[start:]) if ln.strip() == "city N")
    lines = TOWER.split("\n")
    lines[n] = lines[n].replace("city N", "city Q")
    broken = "\n".join(lines)
    path = tmp_path / "tower.tess"

    async def script(s):
        return await s.open(path, broken)

    (d,) = run(session(script))
    assert (d.range.start.line, _word(broken, d.range), d.code) == (n, "Q", "bad-place")
    path.write_text(broken, encoding="utf-8")
    code, out = _check(path)  # the command line says the same, with the caret under Q
    assert code == 1 and f"{path}:{n + 1}:8: error: `Q` is not a place" in out and "Found 1 error" in out


def test_completion_knows_where_it_is(tmp_path):
    # each case: a house rule being typed, the cursor at the end of its last line
    head = 'module house "A house rule"\nextends base\n'
    cases = {
        "extends": 'module house "A house rule"\nextends ',
        "on": head + "figure monk 1 per player on ",
        "expr": head + "score city complete = 2 * ",
        "count": head + "score road end = count(",
        "clause": head + "feature lake [BASE-CI",
        "tile": head + "tile LK x1 {\n  edges F F F F\n  ",
        "start": head + "score road complete = tiles\n",
        "allow": head + "allow ",
        "box": head + "box ",
        "broken_before": head + "score road end = 2 *\n\n# a statement left unfinished above\nfigure monk 1 per player on ",
    }

    async def script(s):
        out = {}
        for key, text in cases.items():
            path = tmp_path / f"{key}.tess"
            await s.open(path, text)
            lines = text.split("\n")
            res = await s.client.text_document_completion_async(T.CompletionParams(
                s.doc(path), T.Position(len(lines) - 1, len(lines[-1]))))
            out[key] = sorted(res.items, key=lambda i: i.sort_text or i.label)
        return out

    res = run(session(script))
    modules = sorted(p.stem for p in (ROOT / "rules").glob("*.tess"))
    # after `extends `: module names first (every bundled one), documented by their titles
    labels = [i.label for i in res["extends"]]
    n_modules = len([i for i in res["extends"] if i.kind == T.CompletionItemKind.Module])
    assert set(modules) <= set(labels[:n_modules]) and labels[0] in modules
    assert all(i.kind != T.CompletionItemKind.Module for i in res["extends"][n_modules:])
    base = next(i for i in res["extends"] if i.label == "base")
    assert base.documentation and "Carcassonne" in str(base.documentation)
    # where a feature kind goes: the kinds base declares, nothing else
    assert [i.label for i in res["on"]] == ["city", "cloister", "field", "garden", "road"]
    # a feature line of a tile: the kinds first, then what else may come (`symbols`, `variant`)
    assert [i.label for i in res["tile"]][:5] == ["city", "cloister", "field", "garden", "road"]
    # in an expression: quantities and functions, each with its row of language.md 3.3
    shields = next(i for i in res["expr"] if i.label == "shields")
    assert "number of shields printed on the feature's tiles" in shields.documentation.value
    assert {"tiles", "count", "completed"} <= {i.label for i in res["expr"]}
    assert not {"city", "figure", "follower"} & {i.label for i in res["expr"]}
    # `count(` takes a figure
    assert [i.label for i in res["count"]][0] == "follower"
    # inside [ ]: the clause IDs that begin so, with their text
    assert [i.label for i in res["clause"]] == ["BASE-CITY-1", "BASE-CITY-2"]
    assert all(i.documentation for i in res["clause"])
    # figures after `allow`, tiles after `box`; and kinds where one goes even with an unfinished statement above
    assert [i.label for i in res["allow"]] == ["follower"]
    assert {"A", "D", "X"} <= {i.label for i in res["box"]} and "city" not in {i.label for i in res["box"]}
    assert [i.label for i in res["broken_before"]] == ["city", "cloister", "field", "garden", "road"]
    # where a statement starts: the statements' keywords, documented from language.md; no names
    start = {i.label: i for i in res["start"]}
    assert {"tile", "figure", "score", "override"} <= set(start) and "when" not in start and "city" not in start
    assert "figure NAME COUNT per player" in start["figure"].documentation.value


def test_hover_on_keywords_quantities_functions_from_the_language_reference(tmp_path):
    path = tmp_path / "tower.tess"
    lines = TOWER.split("\n")
    within = _line_of(TOWER, "    in line within")
    count_at = lines[within].index("count")
    shields_text = "score city complete = 2 * tiles + 2 * shields [BASE-CITY-2]"
    text = "module h\nextends base\noverride " + shields_text + "\n"

    async def script(s):
        await s.open(path, TOWER)
        await s.open(tmp_path / "h.tess", text)
        ask = s.client.text_document_hover_async
        return {
            "within": await ask(T.HoverParams(s.doc(path), T.Position(within, lines[within].index("within") + 1))),
            "count": await ask(T.HoverParams(s.doc(path), T.Position(within, count_at + 1))),
            "floor": await ask(T.HoverParams(s.doc(path), T.Position(within, lines[within].index("floor") + 1))),
            "place": await ask(T.HoverParams(s.doc(path), T.Position(_line_of(TOWER, "  tower C"), 8))),
            "shields": await ask(T.HoverParams(s.doc(tmp_path / "h.tess"), T.Position(2, len("override ") + shields_text.index("shields") + 1))),
        }

    res = run(session(script))
    # `within` in a capture: the capture section's syntax line, as docs/language.md prints it
    syntax = next(ln for ln in LANGUAGE.split("\n") if ln.startswith("capture 1 of FIGURE"))
    assert syntax in res["within"].contents.value
    # `count`: its row of the function table; `shields`: its row of the quantity table
    row = next(ln for ln in LANGUAGE.split("\n") if ln.startswith("| `count(FIGURE)`"))
    assert row.split("|")[2].strip() in res["count"].contents.value
    row = next(ln for ln in LANGUAGE.split("\n") if ln.startswith("| `shields`"))
    assert row.split("|")[2].strip() in res["shields"].contents.value
    # a place (`C`, also a tile of base): its row of chapter 4, not the tile
    assert "**C**: centre" in res["place"].contents.value and "tile `C`" not in res["place"].contents.value
    # a name: its declaration and its file
    assert "figure `floor`" in res["floor"].contents.value and "tower.tess" in res["floor"].contents.value


RULE_SET = {
    # a module that declares a feature kind, one that builds on it, one that builds on that,
    # and a stranger beside them with a kind of the same name of its own
    "lakes.tess": 'module lakes "Lakes"\nextends base\nfeature lake centre\n'
                  'edge L = lake\ncomplete lake when open == 0\nscore lake complete = tiles\n',
    "lake_tiles.tess": 'module lake_tiles "Lake tiles"\nrequires lakes\n'
                       'tile LK x1 {\n  edges F F F F\n  field Nw Ne En Es Se Sw Ws Wn\n  lake C\n}\n'
                       'figure fisher 1 per player on lake\n',
    "lake_bonus.tess": 'module lake_bonus "More for lakes"\nextends lake_tiles\n'
                       'override score lake complete = 2 * tiles + completed(lake)\n',
    "stranger.tess": 'module stranger "Its own lake"\nextends base\nfeature lake centre\n',
}


def test_rename_of_a_feature_kind_edits_every_file_of_the_rule_set(tmp_path):
    for name, text in RULE_SET.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    bonus = tmp_path / "lake_bonus.tess"
    line = RULE_SET["lake_bonus.tess"].split("\n")[2]

    async def script(s):
        await s.open(bonus, RULE_SET["lake_bonus.tess"])
        pos = T.Position(2, line.index("lake") + 1)
        prep = await s.client.text_document_prepare_rename_async(T.PrepareRenameParams(s.doc(bonus), pos))
        edit = await s.client.text_document_rename_async(T.RenameParams(s.doc(bonus), pos, "pond"))
        refs = await s.client.text_document_references_async(T.ReferenceParams(
            text_document=s.doc(bonus), position=pos, context=T.ReferenceContext(include_declaration=True)))
        return prep, edit, refs

    prep, edit, refs = run(session(script))
    assert _word(RULE_SET["lake_bonus.tess"], prep) == "lake"
    changed = {Path(u.removeprefix("file://")).name: e for u, e in edit.changes.items()}
    assert set(changed) == {"lakes.tess", "lake_tiles.tess", "lake_bonus.tess"}  # not the stranger's own lake
    counts = {name: len(e) for name, e in changed.items()}
    assert counts == {"lakes.tess": 4, "lake_tiles.tess": 2, "lake_bonus.tess": 2}
    assert len(refs) == sum(counts.values())
    for name, edits in changed.items():
        text = RULE_SET[name]
        assert all(_word(text, e.range) == "lake" for e in edits)
        (tmp_path / name).write_text(apply_edits(text, edits), encoding="utf-8")
    code, out = _check(tmp_path)  # the renamed rule set is as clean as before
    assert code == 0, out
    assert not re.search(r"\blake\b", (tmp_path / "lake_tiles.tess").read_text())
    assert re.search(r"\blake\b", (tmp_path / "stranger.tess").read_text())


def test_quick_fixes_apply(tmp_path):
    path = tmp_path / "house.tess"
    text = ('module house "Abbots count"\nextends abbot\n'
            'state monks = 0 [HOUSE-1]\n'
            'on complete of cloister { set monks = monks + count(abot) }\n')

    async def script(s):
        diags = await s.open(path, text)
        acts = await s.client.text_document_code_action_async(T.CodeActionParams(
            s.doc(path), T.Range(T.Position(2, 0), T.Position(4, 0)), T.CodeActionContext(diagnostics=diags)))
        fixed = apply_edits(text, [e for a in acts for e in a.edit.changes[uri(path)]])  # both at once
        after = await s.change(path, fixed, 2)
        return diags, acts, fixed, after

    diags, acts, fixed, after = run(session(script))
    assert sorted(d.code for d in diags) == ["unknown-clause", "unknown-name"]
    titles = sorted(a.title for a in acts)
    assert titles == ["Change `abot` to `abbot`", "Declare clause HOUSE-1 (a house rule's own clause)"]
    assert all(a.kind == T.CodeActionKind.QuickFix and a.diagnostics for a in acts)
    assert "count(abbot)" in fixed and fixed.split("\n")[2].startswith('clause HOUSE-1 "')
    assert after == []  # both fixes applied: the file is clean


def test_outline_and_semantic_tokens(tmp_path):
    path = tmp_path / "tower.tess"

    async def script(s):
        await s.open(path, TOWER)
        syms = await s.client.text_document_document_symbol_async(T.DocumentSymbolParams(s.doc(path)))
        toks = await s.client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(s.doc(path)))
        return syms, toks, s.server_capabilities

    syms, toks, caps = run(session(script))
    names = {(s.name, s.kind) for s in syms}
    tiles = {s.name for s in syms if s.kind == T.SymbolKind.Class}
    assert tiles == set(re.findall(r"^tile (\S+)", TOWER, flags=re.M))
    assert ("tower", T.SymbolKind.Enum) in names and ("floor", T.SymbolKind.Struct) in names
    assert any(s.name.startswith("capture 1 of follower, abbot") for s in syms)  # a rule, by its first line
    floor = next(s for s in syms if s.name == "floor")
    assert _word(TOWER, floor.selection_range) == "floor"
    # semantic tokens: decode, then the kind `tower` where it is declared is a `type` with `declaration`
    legend = caps.semantic_tokens_provider.legend
    line = col = 0
    decoded = []
    data = toks.data
    for i in range(0, len(data), 5):
        dl, dc, length, typ, mods = data[i:i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        decoded.append((line, col, length, legend.token_types[typ], mods))
    decl_line = _line_of(TOWER, "feature tower")
    assert (decl_line, 8, 5, "type", 1) in decoded
    assert any(legend.token_types[t] == "macro" for t in data[3::5])  # clause IDs


def test_the_server_answers_every_request(tmp_path):
    """Only opened documents (and their rule sets' files) are read; every request gets an answer,
    even one whose position no typed client would send (a negative line: raw JSON-RPC)."""
    opened, other = tmp_path / "tower.tess", tmp_path / "not_opened.tess"
    other.write_text(TOWER, encoding="utf-8")
    raw = Raw([str(TESSERA), "lsp"])
    try:
        raw.answer(raw.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}))
        raw.send("initialized", {}, request=False)
        raw.send("textDocument/didOpen", {"textDocument": {"uri": uri(opened), "languageId": "tessera", "version": 1,
                                                           "text": TOWER}}, request=False)
        floor = _line_of(TOWER, "figure floor")

        def ask(method, path, line, char, **more):
            return raw.answer(raw.send(method, {"textDocument": {"uri": uri(path)},
                                                "position": {"line": line, "character": char}, **more}))

        assert "floor" in ask("textDocument/hover", opened, floor, 8)["result"]["contents"]["value"]
        for method in ("textDocument/hover", "textDocument/completion", "textDocument/definition"):
            assert ask(method, opened, -1, -5)["error"]["code"] == -32602  # Invalid Params, not silence
            assert ask(method, opened, 2**31, 0)["error"]["code"] == -32602
            past = ask(method, opened, 10**6, 10**6)  # past the end: the end (completion) or nothing there
            assert "error" not in past and (past["result"] is None or method == "textDocument/completion")
            assert ask(method, other, floor, 8)["result"] in (None, {"isIncomplete": False, "items": []})
        refs = ask("textDocument/references", other, floor, 8, context={"includeDeclaration": True})
        assert refs["result"] is None
    finally:
        assert raw.close() == 0


def test_a_misspelt_declaration_is_one_error_and_one_fix(tmp_path):
    # `feature towers` for `feature tower` (TOWER-COMP-1): the kind is unknown at all 19 uses;
    # one error at the first, and the preferred fix renames the declaration back
    decl = _line_of(TOWER, "feature tower ")
    lines = TOWER.split("\n")
    lines[decl] = lines[decl].replace("feature tower", "feature towers")
    broken = "\n".join(lines)
    path = tmp_path / "tower.tess"
    from tessera.dsl.names import occurrences, raw_tree

    uses = sum(1 for o in occurrences(raw_tree(TOWER)) if (o.name, o.role, o.decl) == ("tower", "kind", False))

    async def script(s):
        diags = await s.open(path, broken)
        acts = await s.client.text_document_code_action_async(T.CodeActionParams(
            s.doc(path), diags[0].range, T.CodeActionContext(diagnostics=diags)))
        (best,) = [a for a in acts if a.is_preferred]
        fixed = apply_edits(broken, best.edit.changes[uri(path)])
        return diags, acts, best, await s.change(path, fixed, 2), fixed

    diags, acts, best, after, fixed = run(session(script))
    (d,) = diags
    assert d.code == "unknown-name" and _word(broken, d.range) == "tower" and "did you mean `towers`?" in d.message
    assert len(d.related_information) == uses - 1  # the other uses, as related places
    assert all(_word(broken, r.location.range) == "tower" for r in d.related_information)
    assert best.title == f"Rename `towers` (line {decl + 1}) to `tower`"
    assert f"Change all {uses} uses of `tower` to `towers`" in {a.title for a in acts}
    assert after == [] and fixed == TOWER


def test_columns_are_utf16_code_units(tmp_path):
    # an emoji (one code point, two UTF-16 code units) in a title before a misspelt clause ID:
    # the editor counts columns in UTF-16 units, as LSP says unless another encoding was agreed
    path = tmp_path / "house.tess"
    text = 'module house "\U0001F3F0 towers" [TOWER-COMP-9]\nextends base\n'
    start = text.index("TOWER-COMP-9") + 1  # in UTF-16 units: one more than in code points

    async def script(s):
        (d,) = await s.open(path, text)
        acts = await s.client.text_document_code_action_async(T.CodeActionParams(
            s.doc(path), d.range, T.CodeActionContext(diagnostics=[d])))
        return d, acts

    d, acts = run(session(script))
    assert d.code == "unknown-clause"
    assert (d.range.start.character, d.range.end.character) == (start, start + len("TOWER-COMP-9"))
    fix = next(a for a in acts if a.title.startswith("Change"))
    (edit,) = fix.edit.changes[uri(path)]
    assert edit.range == d.range and edit.new_text == "TOWER-COMP-1"


def test_the_card_game_in_the_editor(tmp_path):
    # rules/card.tess (rulebook 001, language.md 7): its names are known, completed and explained
    card = (ROOT / "rules" / "card.tess").read_text(encoding="utf-8")
    lines = card.split("\n")
    score = _line_of(card, "score people on take")
    path = tmp_path / "house.tess"
    house = 'module house "House rule"\nrequires card\ntake '

    async def script(s):
        cpath = ROOT / "rules" / "card.tess"
        diags = await s.open(cpath, card)
        ask = s.client
        taken = await ask.text_document_hover_async(T.HoverParams(s.doc(cpath), T.Position(score, lines[score].index("taken") + 1)))
        refs = await ask.text_document_references_async(T.ReferenceParams(
            text_document=s.doc(cpath), position=T.Position(score, lines[score].index("people", 20) + 1),
            context=T.ReferenceContext(include_declaration=True)))
        await s.open(path, house)
        comp = await ask.text_document_completion_async(T.CompletionParams(s.doc(path), T.Position(2, 5)))
        broken = await s.open(tmp_path / "card.tess", typos)
        return diags, taken, refs, comp, broken

    # misspelt card names, a destination and a function (CARD-SCORE-1's lines): each error on its word
    typos = card.replace("take city, city_joker to chest", "take city, city_jokr to chst").replace(
        "values(people) * taken(people)", "values(peeple) * takn(people)")
    diags, taken, refs, comp, broken = run(session(script))
    assert diags == []
    assert sorted(_word(typos, d.range) for d in broken) == ["chst", "city_jokr", "peeple", "takn"]
    row = next(ln for ln in LANGUAGE.split("\n") if ln.startswith("| `taken(K)`"))
    assert row.split("|")[3].strip() in taken.contents.value
    # `people`: its `card` line and every use as a kind in this file
    people = {(r.range.start.line, _word(card, r.range)) for r in refs}
    assert (_line_of(card, "card people"), "people") in people and len(people) >= 3
    assert all(w == "people" for _, w in people)
    kinds = [i.label for i in sorted(comp.items, key=lambda i: i.sort_text)]
    assert {"people", "city", "dragon"} <= set(kinds) and kinds.index("people") < len(kinds)
    assert all(i.kind != T.CompletionItemKind.Keyword for i in comp.items)
