"""A tile game's record for a player count its rules are not for is a problem found (exit 1, with the
`players` statement's clause) in every command that reads it, as a card record's is
(tests/test_card_record_start.py): `replay` (and `--json`), `view` and `draw` say the same thing, and the
`records` check compares it with a rulebook record the rulebook refuses (rules/records/base/players_*).
Before, it was a malformed record (exit 2, no clause), so no record could say that the rulebook refuses
a one-player game, and `players 2..5` mistyped as `1..5` survived the mutation campaign (issue 35)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_card_record_start import _run  # the command in a folder of its own, in this process

RECORDS = Path(__file__).resolve().parent.parent / "rules" / "records" / "base"


@pytest.mark.parametrize("name, words", [
    ("players_one_refused.json", "players: these rules are for 2 to 5 players, not 1 (red)"),
    ("players_six_refused.json", "players: these rules are for 2 to 5 players, not 6 (red, blue, green, yellow, "
                                 "black, grey)"),
])
def test_BASE_COMP_2_replay_view_and_draw_agree_that_no_game_starts(tmp_path, name, words):
    path = tmp_path / name
    path.write_text((RECORDS / name).read_text(encoding="utf-8"), encoding="utf-8")
    code, stdout, _ = _run(tmp_path, "replay", "--json", name)
    assert code == 1 and json.loads(stdout) == {"error": {"turn": None, "message": words, "clause": "BASE-COMP-2"}}
    said = f"{words} [BASE-COMP-2]"
    code, stdout, _ = _run(tmp_path, "replay", name)
    assert code == 1 and said in stdout
    for command, out in (("view", "page.html"), ("draw", "board.svg")):
        code, stdout, stderr = _run(tmp_path, command, name, "-o", out)
        assert code == 1, (command, stdout, stderr)
        assert said in stdout, (command, stdout)  # the same diagnostic as replay's
        assert "no game starts from this record, so nothing was written" in stderr
        assert not (tmp_path / out).exists()


def test_BASE_COMP_2_a_mistyped_player_range_is_caught_by_the_records(tmp_path):
    """`players 2..5` mistyped as `1..5`: the one-player record plays, where the rulebook starts no game."""
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.records import check_records

    text = (RECORDS.parent.parent / "base.tess").read_text(encoding="utf-8")
    assert "players 2..5  [BASE-COMP-2]" in text
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "base.tess").write_text(text.replace("players 2..5", "players 1..5", 1), encoding="utf-8")
    bad = {p.name: b for p, _, b in check_records(require_rule_set([str(rules / "base.tess")])) if b}
    assert bad == {"players_one_refused.json": ["the rulebook refuses the game from its start (BASE-COMP-2); "
                                                "the rules accept the whole game"]}, bad
