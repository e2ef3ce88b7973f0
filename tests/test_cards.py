"""The card game (rulebook 001): the rule file, the compiled engine, records and house rules.

Each record under rules/records/card/ was worked out by hand from the rulebook's own
examples (CARD-SCORE-1, p. 5-6) or from a rule it breaks; the expected answers below
are those hand computations, not the engine's output copied back.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.compiler.build import load_engine
from tessera.replay.records import load_record
from tessera.replay.tiles import replay
from tessera.dsl.loader import check_text, load_rule_set, require_rule_set

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "rules" / "records" / "card"  # the rulebook's examples, also replayed by `tessera verify`


@pytest.fixture(scope="module")
def eng():
    return load_engine(require_rule_set(["card"]))


def _replay(name: str):
    return replay(load_record(RECORDS / f"{name}.json"), RECORDS)


def _total(loc: dict) -> int:
    return loc["deck"] + loc["removed"] + sum(v for k in ("rows", "hands", "piles", "chests") for v in loc[k].values())


# -- the rulebook's worked examples, as records ---------------------------------------------
@pytest.mark.parametrize("name, feature, points, clause", [
    # EX-CARD-SCORE-1a: "три карты «Людей», общим номиналом 5 ... 15 очков" (1 + 1 + 3, three cards)
    ("people_three_worth_five", "people", [15], "CARD-SCORE-1"),
    # EX-CARD-SCORE-1b: "2 карты овец ... 6 очков"
    ("two_sheep", "animals", [6], "CARD-SCORE-1"),
    # EX-CARD-SCORE-1c: 2 sheep in round 1 (6), then 2 new + the 2 kept + an animal joker: 14 for all 5
    ("four_sheep_and_joker", "animals", [6, 14], "CARD-SCORE-1"),
    # EX-CARD-SCORE-1d: "Джокера «Животные», но не имеет карт «Животных» ... сразу же получает 3 очка"
    ("animal_joker_alone", "animals", [3], "CARD-SCORE-1"),
    # "Карты «Дракон» и «Фея» приносят игроку сразу 10 очков и немедленно удаляются из игры"
    ("dragon", "dragons", [10], "CARD-SCORE-1"),
])
def test_worked_examples(name, feature, points, clause):
    res = _replay(name)
    assert res.error is None, res.error
    evs = [e for e in res.answer["events"] if e["feature"] == feature]
    assert [e["points"]["red"] for e in evs] == points
    assert all(e["clause"] == clause for e in evs)
    assert res.answer["scores"]["red"] == sum(points)
    assert _total(res.answer["locations"]) == 140  # CARD-COMP-1: every card somewhere, once


def test_dragon_is_removed_and_people_are_kept():
    """CARD-SCORE-1: the dragon leaves the game; people cards stay with their taker (CARD-ROUND-1)."""
    d = _replay("dragon").answer["locations"]
    p = _replay("people_three_worth_five").answer["locations"]
    assert d["piles"]["red"] == 0 and p["piles"]["red"] == 3


def test_misplaced_cards():
    """CARD-SCORE-1: red's face-down yellow people card, taken from the red row, scores 10 and is
    discarded; blue keeps the misplaced blue city from the yellow row: it goes to the chest and
    blue scores only its 3 yellow animals (table: 9); the one city is worth 0 at the end."""
    res = _replay("misplaced")
    assert res.error is None, res.error
    ans = res.answer
    got = [(e["feature"], e["points"]) for e in ans["events"]]
    assert got == [("misplaced", {"red": 10}), ("animals", {"blue": 9})]
    assert ans["locations"]["chests"] == {"red": 0, "blue": 1}
    assert ans["scores"] == {"red": 10, "blue": 9} and ans["winners"] == ["red"]
    assert _total(ans["locations"]) == 140


@pytest.mark.parametrize("name, clause, words", [
    ("refused_between_cards", "CARD-TURN-1", "never between cards"),
    ("refused_wrong_colour_face_up", "CARD-TURN-1", "face up it goes only into the yellow row"),
    ("refused_second_feudal", "CARD-TURN-1", "big_feudal this round already"),
])
def test_refusals_name_their_clause(name, clause, words):
    res = _replay(name)
    assert res.error is not None and res.error["turn"] == 2
    assert res.error["clause"] == clause
    assert words in res.error["message"]


def test_a_deck_naming_too_many_copies_is_refused():
    """CARD-COMP-1: 3 dragon/fairy cards where the rules print 2."""
    doc = {"format": "tessera-cards/1", "rules": ["card"], "players": ["a", "b"], "deck": ["dragon"] * 3}
    res = replay(doc, None)
    assert res.error["clause"] == "CARD-COMP-1" and "more dragon cards" in res.error["message"]


def test_record_schema_refuses_unknown_keys():
    from tessera.replay.records import RecordError, validate

    with pytest.raises(RecordError):
        validate({"format": "tessera-cards/1", "players": ["a"], "turns": [{"play": "dragon"}]})
    with pytest.raises(RecordError):
        validate({"format": "tessera-cards/1", "players": ["a"], "turns": [{"claim": "red", "exec": 1}]})


# -- the engine -------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_conserve_every_card(eng, players):
    """CARD-COMP-1, CARD-DEAL-1: after every move, the 140 cards lie once each in a location."""
    import random

    printed = sorted(n for n, spec in eng.rules.CARDS for _ in range(spec[3]))
    for seed in range(3):
        g = eng.new_game(players, seed)
        rng = random.Random(seed)
        while not g.ended:
            a = rng.choice(g.legal_actions())
            g.apply_action(a)
            assert sorted(c for cards in g.all_cards().values() for c in cards) == printed
        assert g.winners and g.round >= 1


def test_deal_table_by_player_count(eng):
    """CARD-DEAL-1: 2 players get 6 cards, 3: 5, 4: 5, 5: 4; 10 cards lie in the rows first."""
    for players, hand in ((2, 6), (3, 5), (4, 5), (5, 4)):
        g = eng.new_game(players, 7)
        while g.phase == "layout":
            g.apply_action(g.legal_actions()[0])
        assert [len(h) for h in g.hands] == [hand] * players
        assert sum(len(v) for v in g.rows.values()) == 10
        assert len(g.deck) == 120 - hand * players


def test_first_card_of_each_row_goes_face_down(eng):
    """CARD-TURN-1: the first card played into a row in a round may be of any colour (face down);
    the next one must match the row."""
    g = eng.new_game(2, 3)
    while g.phase == "layout":
        g.apply_action(g.legal_actions()[0])
    card = next(c for c in g.hands[g.current] if eng.rules.CARD[c][1] not in (None, "red"))
    mover = g.current
    g.apply_action(("play", card, "red"))
    assert g.rows["red"][-1] == [card, True, mover, 1]  # face down, played by the mover in round 1
    colour = eng.rules.CARD[card][1]
    plays = [a for a in g.legal_actions() if a[0] == "play" and a[2] == "red"]
    assert all(eng.rules.CARD[a[1]][1] in (None, "red") for a in plays)
    assert colour != "red"


def test_view_hides_other_hands(eng):
    g = eng.new_game(3, 1)
    while g.phase == "layout":
        g.apply_action(g.legal_actions()[0])
    v = g.view(0)
    assert isinstance(v["hands"][g.names[0]], list) and v["hands"][g.names[1]] == len(g.hands[1])


def test_simulated_records_replay_to_the_same_scores(eng, tmp_path):
    from tessera.play.simulate import play_one, write_card_record

    for i, seed in enumerate((11, 12)):
        g, turns = play_one(eng, 3, seed, ["greedy", "random", "random"], record=True)
        write_card_record(tmp_path, i, ["card"], g, turns)
        res = replay(load_record(tmp_path / f"game-{i:06d}.json"), tmp_path)
        assert res.error is None
        assert list(res.answer["scores"].values()) == g.returns()
        assert res.answer["winners"] == [g.names[p] for p in g.winners]


# -- house rules as one-line overrides ------------------------------------------------------
def _house(tmp_path, line: str):
    f = tmp_path / "house.tess"
    f.write_text(f'module house "a house rule"\nrequires card\n{line}\n', encoding="utf-8")
    rs, diags, _ = load_rule_set([str(f)])
    assert rs is not None, [d.message for d in diags]
    return load_engine(rs)


def test_house_rule_people_plus_one(tmp_path):
    eng = _house(tmp_path, "override score people on take = values(people) * taken(people) + 1")
    doc = json.loads((RECORDS / "people_three_worth_five.json").read_text())
    doc["rules"] = ["house.tess"]  # beside the record: a record names its rule files relative to itself
    res = replay(doc, tmp_path)
    assert res.answer["scores"]["red"] == 16  # 5 x 3 + 1
    assert eng.rules.FACEDOWN == "first"


def test_house_rule_no_face_down_first_card(tmp_path):
    eng = _house(tmp_path, "override facedown none")
    g = eng.new_game(2, 3)
    while g.phase == "layout":
        g.apply_action(g.legal_actions()[0])
    for a in g.legal_actions():
        if a[0] == "play":
            assert eng.rules.CARD[a[1]][1] in (None, a[2])  # face up: its own colour's row, or a joker


def test_override_of_nothing_is_an_error():
    diags, _ = check_text('module m\nrequires card\noverride table lost = 1\n', "m.tess")
    assert [d.code for d in diags if d.severity == "error"] == ["override-missing"]


def test_card_expression_mistakes_are_diagnostics():
    text = ('module m\nrequires card\n'
            'override score people on take = taken(persons) + best\n'
            'override tie = taken(city)\n')
    diags, _ = check_text(text, "m.tess")
    msgs = [d.message for d in diags if d.severity == "error"]
    assert any("`taken` takes a card kind, and `persons` is not one" in m for m in msgs)
    assert any("`best`" in m and "has no meaning" in m for m in msgs)
    assert any("`taken(...)` has no meaning in `tie`" in m for m in msgs)


# -- the verifier (verifier/cards.py) ---------------------------------------------------------
def _verify(rs, name):
    from tessera.verifier.checks import load_checks, run_check

    return run_check(load_checks()[name], rs)


@pytest.mark.parametrize("check", ["card-deal", "card-conservation", "card-scores", "card-examples", "card-engine"])
def test_the_rules_verify(check):
    """CARD-DEAL-1, CARD-COMP-1, CARD-SCORE-1: every card check proves the bundled rules."""
    res = _verify(require_rule_set(["card"]), check)
    assert res.passed and not res.skipped, res.messages


def test_verifier_refutes_a_bad_house_rule(tmp_path):
    """A negative people score and a deal that leaves cards over are refuted, each with its game."""
    f = tmp_path / "h.tess"
    f.write_text("module h\nrequires card\n"
                 "override score people on take = values(people) * taken(people) - 3\n"
                 "override deal 2 players 6 cards 9 rounds, 3 players 5 cards 8 rounds, "
                 "4 players 5 cards 6 rounds, 5 players 4 cards 6 rounds\n", encoding="utf-8")
    rs = require_rule_set([str(f)])
    deal = _verify(rs, "card-deal")
    assert not deal.passed and "with 2 players the deal uses 108 cards, but the deck holds 120" in deal.messages[0]
    scores = _verify(rs, "card-scores")
    assert not scores.passed and "gives -3 points when taken(people) = 0" in scores.messages[0]


def test_verifier_refutes_an_example_the_rules_break(tmp_path):
    """EX-CARD-SCORE-1c: with another animal table the 14 of the rulebook no longer comes out."""
    f = tmp_path / "h.tess"
    f.write_text("module h\nrequires card\noverride table animal_points = 0, 3, 6, 9, 12, 15\n", encoding="utf-8")
    res = _verify(require_rule_set([str(f)]), "card-examples")
    assert not res.passed
    assert any("four_sheep_and_joker" in m and "gives 15, the rulebook prints 14" in m for m in res.messages)


def test_recount_of_claims_is_the_rulebook_s():
    """CARD-TURN-1: a feudal takes the cards to its left up to the field or the previous feudal."""
    from tessera.verifier.cards import recount_claims

    rows = {"red": [["red.city", False], ("F", 0), ["red.animal", True], ["dragon", False], ("F", 1), ["red.city", False]]}
    assert recount_claims(rows) == {0: [("red.city", "red")], 1: [("red.animal", "red"), ("dragon", "red")]}


def test_the_rulebook_s_examples_are_all_in_the_rule_file():
    """EX-CARD-SCORE-1a-d (docs/rulebook-examples.md) are `example`s of rules/card.tess, so the
    card-examples check holds the rules to them."""
    rs = require_rule_set(["card"])
    refs = {ex.get("ref") for ex in rs.examples}
    assert {"EX-CARD-SCORE-1a", "EX-CARD-SCORE-1b", "EX-CARD-SCORE-1c", "EX-CARD-SCORE-1d"} <= refs
    assert sum(1 for ex in rs.examples if ex.get("expect") == 120) == 4  # CARD-DEAL-1, each player count


def test_docs_publish_the_card_record_schema():
    from tessera.replay.cards import CARD_SCHEMA

    doc = (REPO / "docs" / "records.md").read_text(encoding="utf-8")
    part = doc.split("The schema (`tessera.replay.cards.CARD_SCHEMA`):", 1)[1]
    block = part.split("```json", 1)[1].split("```", 1)[0]
    assert json.loads(block) == json.loads(json.dumps(CARD_SCHEMA))


def test_simulate_counts_a_tie_broken_by_the_rules_as_a_win(eng):
    """CARD-END-1: equal points, the most city cards wins: simulate's wins follow the engine's winners."""
    from tessera.play.simulate import Summary

    s = Summary(["card"], 2, 0, ["random", "random"], [{"game": 0, "scores": [50, 50], "winners": [1]}])
    assert s.won(1) == [1] and s.won(0) == [0] and s.tied(0) == [0]


def test_draw_a_card_table_and_refuse_an_unknown_seat(tmp_path):
    from typer.testing import CliRunner

    from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
    from tessera.cli import app

    runner = CliRunner()
    rec = str(RECORDS / "people_three_worth_five.json")
    res = runner.invoke(app, ["draw", rec, "--turn", "7", "--seat", "red", "-o", str(tmp_path / "t.svg")])
    assert res.exit_code == 0, res.output
    svg = (tmp_path / "t.svg").read_text()
    assert 'data-row="red"' in svg and 'class="feudal"' in svg and 'class="hand"' in svg
    res = runner.invoke(app, ["draw", rec, "--seat", "mallory", "-o", str(tmp_path / "u.svg")])
    assert res.exit_code == 2 and "the players are red, blue" in res.output


def test_a_house_rule_that_changes_an_example_is_a_note_not_a_failure(tmp_path):
    f = tmp_path / "h.tess"
    f.write_text("module h\nrequires card\n"
                 "override score people on take = values(people) * taken(people) + 1 [CARD-SCORE-1]\n", encoding="utf-8")
    res = _verify(require_rule_set([str(f)]), "card-examples")
    assert res.passed
    [note] = res.diagnostics
    assert note.severity == "note" and "gives 16, the rulebook prints 15" in note.message


def test_card_counts_are_bounded():
    """Untrusted rule files: a million feudals a round or cards beyond the limit are `limit` errors."""
    diags, _ = check_text("module m\nrequires card\noverride feudal big_feudal 1000000 per player\n", "m.tess")
    assert any(d.code == "limit" and "the limit is 100" in d.message for d in diags)
    diags, _ = check_text("module m\nrequires card\noverride card animal x501 per colour\n", "m.tess")
    assert any(d.code == "limit" and "501 copies" in d.message for d in diags)


def _house_record(tmp_path, name: str, line: str) -> dict:
    folder = tmp_path / str(abs(hash(line)))  # one folder per house rule (replay keeps engines by rule path)
    folder.mkdir()
    (folder / "house.tess").write_text(f"module house\nrequires card\n{line}\n", encoding="utf-8")
    doc = json.loads((RECORDS / f"{name}.json").read_text())
    doc["rules"] = ["house.tess"]
    return replay(doc, folder).answer


def test_a_tie_goes_to_the_most_city_cards(tmp_path):
    """CARD-END-1: "В случае ничьи, побеждает тот, у кого больше карт в сундуке": with a misplaced
    card worth 9, red (9, no city) and blue (9 for three animals, one city kept) tie on points and
    blue wins."""
    ans = _house_record(tmp_path, "misplaced", "override misplaced = 9 keep animal, city")
    assert ans["scores"] == {"red": 9, "blue": 9}
    assert ans["winners"] == ["blue"]


def test_the_game_ends_after_the_round_in_which_a_player_reaches_the_end_of_the_track(tmp_path):
    """CARD-END-1, `end when best >= N` (the variant rules/variants/card_track_end.tess, at 100): with
    the end at 15, red's 15 people points in round 1 end the game there (final scoring, no second
    deal); at 16 it goes on."""
    ended = _house_record(tmp_path, "people_three_worth_five", "end when best >= 15")
    assert ended["rounds"] == 1 and ended["winners"] == ["red"]
    assert ended["locations"]["hands"] == {"red": 0, "blue": 0}
    going = _house_record(tmp_path, "people_three_worth_five", "end when best >= 16")
    assert going["rounds"] == 2  # the second round was dealt; the record's "end": "final" scored it


def test_a_tile_game_statement_in_the_card_game_is_reported_not_left_out():
    # a card house rule with the tile game's `owners`, `state`, `end after` and an `invariant`: the card
    # game has none of them, and its verifier proves no invariant, so each is an error where it stands
    text = ('module m\nrequires card\nclause HOUSE-Z-1 "z"\nowners all\nstate s = 0\nend after 2 rounds\n'
            'invariant never_low: players >= 2 [HOUSE-Z-1]\nwith card { state t = 1 }\n')
    diags, _ = check_text(text, "m.tess")
    errs = [(d.span.line, d.code, d.message.split(" is ")[0].split(" in ")[0]) for d in diags if d.severity == "error"]
    assert errs == [(4, "family", "`owners all`"), (5, "family", "`state s`"), (6, "family", "`end after`"),
                    (7, "family", "`invariant never_low`"), (8, "family", "`state t`")], errs
