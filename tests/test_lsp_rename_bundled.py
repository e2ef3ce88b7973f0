"""Renames that never break a file (issue 39, item 5; issue 38, item 6), through a real LSP client:
a name the bundled base game declares, renamed from a house rule, is refused with the reason (the
installed rules/base.tess is never edited); in the user's own copy of the rule set every file is
edited and the rule set stays clean; references include the declaration; a new name is held to
`tessera check`'s limits, and a bad one is an error message, not a traceback.  Code actions and
formatting never edit an installed rule file either (issue 38, round 5)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lsprotocol import types as T

from lsp_client import TESSERA, apply_edits, run, session

pytestmark = pytest.mark.slow  # each test starts `tessera lsp` in a subprocess

ROOT = Path(__file__).resolve().parent.parent
BASE = (ROOT / "rules" / "base.tess").read_text(encoding="utf-8")
B_LINE = BASE.split("\n").index(next(ln for ln in BASE.split("\n") if ln.startswith("tile B ")))
HOUSE = ('module house "Six cloisters with a road"\nextends {base}\n'
         "override tile B x6 [BASE-COMP-1] {{\n  edges F F F F\n  cloister C\n  field Nw Ne En Es Se Sw Ws Wn\n}}\n")
AT_B = T.Position(2, len("override tile "))


def _rename_and_refs(path: Path, text: str, new: str):
    async def script(s):
        await s.open(path, text)
        refs = await s.client.text_document_references_async(T.ReferenceParams(
            text_document=s.doc(path), position=AT_B, context=T.ReferenceContext(include_declaration=True)))
        try:
            edit = await s.client.text_document_rename_async(T.RenameParams(s.doc(path), AT_B, new))
        except Exception as exc:  # noqa: BLE001 - the error reply is what is checked
            edit = exc
        return refs, edit

    return run(session(script))


def test_renaming_a_bundled_tile_from_a_house_rule_is_refused_with_the_reason(tmp_path):
    house = tmp_path / "house.tess"
    text = HOUSE.format(base="base")
    house.write_text(text, encoding="utf-8")
    before = (ROOT / "rules" / "base.tess").read_bytes()
    refs, edit = _rename_and_refs(house, text, "BB")
    # references include base.tess's declaration of B (BASE-COMP-1), not only the override
    files = {Path(r.uri.removeprefix("file://")).name for r in refs}
    assert files == {"house.tess", "base.tess"}
    assert any(r.range.start.line == B_LINE and r.uri.endswith("/rules/base.tess") for r in refs)
    assert not isinstance(edit, T.WorkspaceEdit)
    message = str(edit)
    assert "cannot be renamed" in message and "base.tess is one of tessera's own rule files" in message
    assert "Traceback" not in message and "File \"" not in message
    assert (ROOT / "rules" / "base.tess").read_bytes() == before


def test_renaming_in_the_users_own_copy_edits_every_file_and_leaves_it_clean(tmp_path):
    (tmp_path / "mybase.tess").write_text(BASE.replace("module base ", "module mybase ", 1), encoding="utf-8")
    house = tmp_path / "house.tess"
    text = HOUSE.format(base="mybase")
    house.write_text(text, encoding="utf-8")
    _, edit = _rename_and_refs(house, text, "CloisterRoad")
    assert isinstance(edit, T.WorkspaceEdit), edit
    changed = {Path(u.removeprefix("file://")).name: e for u, e in edit.changes.items()}
    assert set(changed) == {"mybase.tess", "house.tess"}
    for name, edits in changed.items():
        f = tmp_path / name
        f.write_text(apply_edits(f.read_text(encoding="utf-8"), edits), encoding="utf-8")
    out = subprocess.run([str(TESSERA), "check", str(house)], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "tile CloisterRoad x4" in (tmp_path / "mybase.tess").read_text(encoding="utf-8")


@pytest.mark.parametrize("new, message", [("x" * 65, "at most 64 characters"), ("x" * 1_000_000, "at most 64 characters"),
                                          ("not a name", "not a valid tile name"), ("extends", "keyword")],
                         ids=["65-chars", "a-million-chars", "spaces", "keyword"])
def test_a_bad_new_name_is_a_clear_error_not_a_traceback(tmp_path, new, message):
    (tmp_path / "mybase.tess").write_text(BASE.replace("module base ", "module mybase ", 1), encoding="utf-8")
    house = tmp_path / "house.tess"
    text = HOUSE.format(base="mybase")
    house.write_text(text, encoding="utf-8")
    _, edit = _rename_and_refs(house, text, new)
    assert not isinstance(edit, T.WorkspaceEdit)
    assert message in str(edit) and "Traceback" not in str(edit) and len(str(edit)) < 1000


def _actions_and_format(path: Path, text: str, disabled_support: bool, unformatted: str | None = None):
    """The quick fixes an editor gets for the server's own diagnostics of `path` (opened with `text`),
    and the formatting edits of `unformatted` (the document changed to it)."""
    async def script(s):
        s.client.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=s.doc(path).uri, language_id="tessera", version=1, text=text)))
        diags = await s.diagnostics(s.doc(path).uri, 1)
        acts = await s.client.text_document_code_action_async(T.CodeActionParams(
            s.doc(path), diags[0].range, T.CodeActionContext(diagnostics=diags)))
        if unformatted is not None:
            await s.change(path, unformatted, 2)
        fmt = await s.client.text_document_formatting_async(T.DocumentFormattingParams(
            s.doc(path), T.FormattingOptions(2, True)))
        return diags, acts, fmt

    caps = T.ClientCapabilities(text_document=T.TextDocumentClientCapabilities(
        code_action=T.CodeActionClientCapabilities(disabled_support=disabled_support)))
    return run(session(script, capabilities=caps))


@pytest.mark.parametrize("disabled_support", [True, False], ids=["client-shows-why", "client-without-disabled"])
def test_code_actions_never_edit_an_installed_rule_file(disabled_support):
    """An editor that went to a definition in the installed rules/base.tess, where a slip made a typo,
    is offered no edit of it (issue 38, item 6: as rename refuses): the fix is shown disabled with the
    reason to a client that can show it, left out otherwise.  Formatting it gives no edit either."""
    path = ROOT / "rules" / "base.tess"
    before = path.read_bytes()
    typo = BASE.replace("\nfeature road ", "\nfeautre road ", 1)
    unformatted = BASE.replace("\n  city N\n", "\n      city N\n", 1)  # `tessera fmt` would indent it by 2
    assert unformatted != BASE
    diags, acts, fmt = _actions_and_format(path, typo, disabled_support, unformatted)
    assert "did you mean `feature`?" in diags[0].message  # the fix a user's own file would get
    if disabled_support:
        assert acts and all(a.edit is None and a.disabled is not None for a in acts), acts
        assert "base.tess is one of tessera's own rule files" in acts[0].disabled.reason
    else:
        assert acts is None
    assert fmt is None
    assert path.read_bytes() == before


def test_the_same_typo_in_the_users_own_copy_gets_its_quick_fix(tmp_path):
    path = tmp_path / "mybase.tess"
    typo = BASE.replace("module base ", "module mybase ", 1).replace("\nfeature road ", "\nfeautre road ", 1)
    path.write_text(typo, encoding="utf-8")
    unformatted = typo.replace("feautre road ", "feature road ").replace("\n  city N\n", "\n      city N\n", 1)
    diags, acts, fmt = _actions_and_format(path, typo, True, unformatted)
    [edits] = [a.edit.changes for a in acts if a.title == "Change `feautre` to `feature`"]
    assert list(edits) == [path.as_uri()] and edits[path.as_uri()][0].new_text == "feature"
    assert fmt and "\n  city N\n" in fmt[0].new_text  # formatting the user's own file is offered
