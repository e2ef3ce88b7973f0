"""`end after N rounds` (docs/language.md 2.30), the first statement declared in one place
(dsl/ast.py `EndAfterDecl`, issue 36): the house rule rules/variants/short_game.tess (HOUSE-SHORT-1)
ends the game as its 8th round ends, tiles left in the bag or not, with final scoring as at the
bag's end (BASE-END-2).

The record tests/records/house/short_game/eight_rounds_and_a_turn_more.json is the first 17 turns of a
seeded two-player base game (`tessera simulate --rules base --players 2 --seed 3 --record`): 16
turns are 8 rounds; the 17th comes after the game's end.
"""
from __future__ import annotations

import random

import pytest

from conftest import RECORDS, engine, replay_record
from tessera.replay.tiles import load_record, replay
from tessera.dsl.fmt import format_text
from tessera.dsl.loader import load_rule_set

SHORT = "rules/variants/short_game.tess"


def _final_scores(ans):
    return [e for e in ans["events"] if e["kind"] == "score" and e["when"] == "end"]


RECORD = RECORDS / "house/short_game/eight_rounds_and_a_turn_more.json"


def _eight_rounds(rules=None):
    data = load_record(RECORD)
    data["turns"] = data["turns"][:16]
    if rules is not None:
        data["rules"] = rules
    return data


def test_HOUSE_SHORT_1_the_game_ends_as_round_8_ends():
    res = replay(_eight_rounds(), RECORD.parent)
    assert res.error is None, res.error
    g = res.game
    assert g.ended and g.rounds.ended == 8
    assert g.tiles_left() > 0  # the bag still held tiles
    ends = _final_scores(res.answer)
    assert ends and {e["turn"] for e in ends} == {16}  # BASE-END-2's scoring, after the 16th turn
    assert res.answer["scores"] == {"p0": 8, "p1": 7}
    # the same turns under the base game alone: the game goes on, nothing is scored at an end
    base = replay(_eight_rounds(["base"]), RECORD.parent)
    assert base.error is None and not base.game.ended and not _final_scores(base.answer)


def test_HOUSE_SHORT_1_a_turn_after_the_last_round_is_refused_with_its_clause():
    res = replay_record("house/short_game/eight_rounds_and_a_turn_more.json")
    assert res.error == {"turn": 16, "message": "turn 16: round 8, the last, has ended: the game ended after turn 15",
                         "clause": "HOUSE-SHORT-1"}


@pytest.mark.parametrize("players", [2, 3, 5])
def test_HOUSE_SHORT_1_every_player_lays_eight_tiles(players):
    eng = engine(SHORT)
    for seed in range(3):
        g = eng.new_game(players=players, seed=seed)
        rng = random.Random(seed)
        laid = [0] * players
        while not g.is_terminal():
            seat, action = g.current_player(), rng.choice(g.legal_actions())
            g.apply_action(action)
            laid[seat] += isinstance(action[0], tuple)  # a tile laid at (x, y), not a discard
        assert laid == [8] * players and g.rounds.ended == 8 and g.tiles_left() > 0
        assert g.end_reason() == ("round 8, the last, has ended", "HOUSE-SHORT-1")
        with pytest.raises(eng.IllegalAction) as refused:  # the game is over, by the house rule's clause
            g.apply_action(((0, 1), 0, None))
        assert refused.value.clause == "HOUSE-SHORT-1"


def _errors(tmp_path, text, *extra):
    p = tmp_path / "house.tess"
    p.write_text(text, encoding="utf-8")
    _, diags, _ = load_rule_set([*extra, str(p)])
    return [(d.span.line, d.span.column, d.code, d.message) for d in diags if d.severity == "error"]


def test_end_after_mistakes_are_diagnosed_all_at_once(tmp_path):
    errs = _errors(tmp_path, "module house\nextends base\nend after 0 rounds\nend after 5 rounds\n")
    assert (3, 1, "range", "`end after 0 rounds`: a game has at least one round (write `end after 1 rounds` or more)") in errs
    assert any(line == 4 and code == "duplicate" and "end after N rounds is already defined at" in msg
               for line, _, code, msg in errs)
    assert len(errs) == 2
    errs = _errors(tmp_path, "module house\nextends base\noverride end after 3 rounds\n")
    assert [(line, code) for line, _, code, _ in errs] == [(3, "override-missing")]


def test_override_end_after(tmp_path):
    (tmp_path / "shorter.tess").write_text("module shorter\nextends short_game\noverride end after 3 rounds [HOUSE-SHORT-1]\n",
                                           encoding="utf-8")
    assert _errors(tmp_path, "module house\nextends shorter\n", str(tmp_path / "shorter.tess")) == []
    res = replay(_eight_rounds(["shorter.tess"]), tmp_path)
    assert res.error == {"turn": 6, "message": "turn 6: round 3, the last, has ended: the game ended after turn 5",
                         "clause": "HOUSE-SHORT-1"}


def test_fmt_lays_out_end_after():
    text = "module m\nextends base\nclause HOUSE-X-1 \"short\"\nend   after 4\n  rounds[HOUSE-X-1]\n"
    assert format_text(text).splitlines()[-1] == "end after 4 rounds [HOUSE-X-1]"


def test_a_declared_statements_table_is_written_as_plain_data_only():
    # compiler/codegen.py writes what `Declared.table_values()` gives as a literal, or refuses it
    from tessera.compiler.codegen import _constant, _literal

    assert _literal((8, "HOUSE-SHORT-1")) == "(8, 'HOUSE-SHORT-1')"
    assert _literal(("x'); import os; ('",)) == """("x'); import os; ('",)"""  # a string stays a string
    with pytest.raises(TypeError):
        _literal({"a": 1})
    with pytest.raises(ValueError):
        _constant("X = 1; import os; Y")
