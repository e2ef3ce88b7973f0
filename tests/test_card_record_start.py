"""A card record no game starts from is a problem found (exit 1, with its clause) in every command
that reads it (issue 38, round 5): `replay` (and `--json`), `view` and `draw` say the same thing.
Before, a deck of cards the rules do not print, or a player count with no deal, was exit 1 from
`replay` but a usage error (exit 2) from `view` and `draw`.  Nothing is written: there is no table."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tessera.engine_cmds  # noqa: F401  (registers replay)
import tessera.picture_cmds  # noqa: F401  (registers draw, view)
from tessera.cli import app

RECORD = Path(__file__).resolve().parent.parent / "rules" / "records" / "card" / "two_sheep.json"


def _bad(tmp_path: Path, how: str) -> Path:
    doc = json.loads(RECORD.read_text(encoding="utf-8"))
    if how == "unprinted-card":
        doc["deck"][0] = "purple.unicorn"
    elif how == "too-many-copies":
        doc["deck"] = doc["deck"][:3] * 40  # 120 yellow animals; the rules print 9 [CARD-COMP-1]
    else:  # six players: the card game is for 2 to 5 [CARD-DEAL-1]
        doc["players"] = ["a", "b", "c", "d", "e", "f"]
    path = tmp_path / f"{how}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.stdout + res.stderr
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("how, clause, words", [
    ("unprinted-card", "CARD-COMP-1", "the deck names 'purple.unicorn', which is not a card of these rules"),
    ("too-many-copies", "CARD-COMP-1", "the deck names more yellow.animal cards than the rules print (9)"),
    ("six-players", "CARD-DEAL-1", "these rules are for 2 to 5 players, not 6"),
])
def test_replay_view_and_draw_agree_that_no_game_starts(tmp_path, how, clause, words):
    path = _bad(tmp_path, how)
    code, stdout, _ = _run(tmp_path, "replay", "--json", path.name)
    answer = json.loads(stdout)["error"]
    assert code == 1 and answer["clause"] == clause and words in answer["message"], answer
    said = f"{answer['message']} [{clause}]"
    code, stdout, _ = _run(tmp_path, "replay", path.name)
    assert code == 1 and said in stdout
    for command, out in (("view", "page.html"), ("draw", "table.svg")):
        code, stdout, stderr = _run(tmp_path, command, path.name, "-o", out)
        assert code == 1, (command, stdout, stderr)
        assert said in stdout, (command, stdout)  # the same diagnostic as replay's
        assert "no game starts from this record, so nothing was written" in stderr
        assert not (tmp_path / out).exists()
