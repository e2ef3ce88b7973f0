"""The card game, round 2 (issue 37): the end the rulebook gives, the layout's jokers laid as they
are drawn, records that use or refuse every key, and the messages, each with its clause.

The records are small hand-made games on the deck of rules/records/card/people_three_worth_five.json
(EX-CARD-SCORE-1a): red holds red.people.1 x2, red.people.3 and three yellow people, blue six
green people; the layout fills the yellow, green and blue rows and leaves the red row empty.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tessera.compiler.build import load_engine
from tessera.replay.records import RecordError, validate
from tessera.replay.tiles import replay
from tessera.dsl.loader import require_rule_set

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "rules" / "records" / "card"


def _doc(name: str = "people_three_worth_five") -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))


def _with_turns(turns: list, doc: dict | None = None) -> dict:
    d = copy.deepcopy(doc or _doc())
    d["turns"] = turns
    return d


@pytest.fixture(scope="module")
def eng():
    return load_engine(require_rule_set(["card"]))


# -- 1. the end: «Конец игры» -------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_default_game_runs_to_the_deck_s_end(eng, players):
    """CARD-END-1 «Игра прекращается, когда заканчиваются карты и Раздающий не может больше сдавать»
    with the deal table of CARD-DEAL-1: every game plays all its rounds (2p 10, 3p 8, 4p 6, 5p 6) and
    deals the 120 cards left after the layout exactly, whatever the scores (they pass 100)."""
    rounds = {2: 10, 3: 8, 4: 6, 5: 6}[players]
    for seed in range(3):
        g = eng.runtime.play_random(eng.rules, players, seed)
        [end] = [e for e in g.events if e["kind"] == "end"]
        assert g.round == rounds and len(g.deck) == 0
        assert end["clause"] == "CARD-END-1" and end["why"].startswith("the deck's end: 0 cards are left")


def test_the_track_end_is_a_bundled_variant():
    """The other reading of CARD-END-1 («или один из «Феодалов» дошел до конце»), as
    rules/variants/card_track_end.tess: the game ends after the round in which the best score
    reaches 100, and the end says so."""
    eng = load_engine(require_rule_set(["card", "card_track_end"]))
    for seed in range(3):
        g = eng.runtime.play_random(eng.rules, 2, seed)
        [end] = [e for e in g.events if e["kind"] == "end"]
        assert max(g.scores) >= 100 and g.round < 10 and len(g.deck) > 0
        assert "`end when best >= 100` held after round" in end["why"] and end["clause"] == "CARD-END-1"


def test_a_move_after_the_end_names_the_condition_that_fired(eng, tmp_path):
    """A record going on after the deck's end: the refusal names the deck's end (0 cards left), not
    "the deck cannot deal another round or the end condition held"."""
    from tessera.play.simulate import play_one, write_card_record

    g, turns = play_one(eng, 2, 5, ["random", "random"], record=True)
    write_card_record(tmp_path, 0, ["card"], g, turns)
    doc = json.loads((tmp_path / "game-000000.json").read_text())
    doc["turns"].append({"claim": "red"})
    res = replay(doc, tmp_path)
    assert res.error["turn"] == len(doc["turns"]) - 1 and res.error["clause"] == "CARD-END-1"
    assert "the game is over after round 10: the deck's end: 0 cards are left" in res.error["message"]


def test_a_move_after_the_track_end_names_it(tmp_path):
    (tmp_path / "house.tess").write_text("module house\nrequires card\nend when best >= 15 [CARD-END-1]\n",
                                         encoding="utf-8")
    doc = _doc()
    doc["rules"] = ["house.tess"]
    doc["turns"].append({"claim": "red"})  # red's 15 points ended the game after round 1
    res = replay(doc, tmp_path)
    assert res.error["clause"] == "CARD-END-1"
    assert "`end when best >= 15` held after round 1 (best score 15" in res.error["message"]


# -- 2. the layout: a joker is laid as it is drawn ------------------------------------------------
def _layout_doc(deck_head: list, turns: list) -> dict:
    d = _doc()
    d["deck"] = deck_head + d["deck"][len(deck_head):]
    d["turns"] = turns
    d["end"] = "none"
    return d


def test_a_layout_joker_is_laid_when_it_is_drawn():
    """CARD-DEAL-1: «по очереди берет 10 карт ... Если раздающий вытянет из колоды Джокера, то он может
    положить его в любой цветовой ряд»: the dragon drawn second goes into the red row before the
    third card, red.animal, is drawn, so it lies between the two red animals (laid after all 10, it
    would lie at the row's end).  The dealer is the last seat (blue), who lays it."""
    head = ["red.animal", "dragon", "red.animal", "green.animal", "green.animal", "green.animal",
            "blue.animal", "blue.animal", "blue.animal", "blue.animal"]
    res = replay(_layout_doc(head, [{"player": "blue", "lay": "dragon", "row": "red", "draw": 2, "at": 1}]), None)
    assert res.error is None
    rows = res.game.view(None)["rows"]
    assert rows["red"] == ["red.animal", "dragon", "red.animal"]
    assert res.game.phase == "play" and res.game.round == 1


@pytest.mark.parametrize("turn, words", [
    ({"lay": "dragon", "row": "red", "draw": 10}, "layout card 2 of 10 in the order drawn, not card 10"),
    ({"lay": "dragon", "row": "red", "at": 0}, "goes to the end of the row as drawn (position 1)"),
    ({"play": "red.people.1", "row": "red"}, "waits for the dealer, blue, to lay it into a row"),
])
def test_a_layout_joker_laid_at_the_wrong_moment_is_refused(turn, words):
    head = ["red.animal", "dragon", "red.animal", "green.animal", "green.animal", "green.animal",
            "blue.animal", "blue.animal", "blue.animal", "blue.animal"]
    res = replay(_layout_doc(head, [turn]), None)
    assert res.error["clause"] == "CARD-DEAL-1" and words in res.error["message"]


def test_a_lay_with_no_joker_waiting_is_refused():
    res = replay(_with_turns([{"lay": "dragon", "row": "red"}]), None)
    assert res.error["clause"] == "CARD-DEAL-1" and "no set-up joker dragon waits" in res.error["message"]
    assert "the layout is over" in res.error["message"]


# -- 3. strict records ---------------------------------------------------------------------------
@pytest.mark.parametrize("turn, path", [
    ({"claim": "yellow", "row": "blue"}, "turns[0].row"),
    ({"play": "red.people.1", "row": "red", "draw": 1}, "turns[0].draw"),
    ({"keep": "blue.city", "row": "red"}, "turns[0].row"),
    ({"deal": {"red": 6, "blue": 6}, "player": "red"}, "turns[0].player"),
])
def test_a_key_that_kind_of_turn_does_not_use_is_refused_at_its_path(turn, path):
    import re

    with pytest.raises(RecordError, match=re.escape(path) + r": a `\w+` turn has no key"):
        validate(_with_turns([turn]))


def test_a_feudal_between_cards_is_refused():
    """CARD-TURN-1: the big feudal «помещается в конце ряда карт»: at the red row's position 1, with
    three cards there, it would stand between cards; at position 3, the end, it is red's claim."""
    turns = _doc()["turns"]
    assert turns[6] == {"claim": "red"}
    bad = _with_turns(turns[:6] + [{"claim": "red", "at": 1}] + turns[7:])
    res = replay(bad, RECORDS)
    assert res.error == {"turn": 6, "clause": "CARD-TURN-1",
                         "message": "turn 6: a big_feudal at position 1 of the red row: it goes to the end of the "
                                    "row (position 3), never between cards"}
    good = replay(_with_turns(turns[:6] + [{"claim": "red", "at": 3}] + turns[7:]), RECORDS)
    assert good.error is None and good.answer["scores"] == {"red": 15, "blue": 0}


def test_a_record_says_face_up_or_face_down():
    """CARD-TURN-1 «Каждый новый раунд первая карта ряда должна быть перевернута рубашкой вверх»: red's
    first red card goes face down, its second face up; a record saying otherwise is refused."""
    turns = _doc()["turns"]
    ok = [dict(turns[0], face="down"), dict(turns[1], face="down"), dict(turns[2], face="up")] + turns[3:]
    assert replay(_with_turns(ok), RECORDS).answer["scores"] == {"red": 15, "blue": 0}
    res = replay(_with_turns([dict(turns[0], face="up")] + turns[1:]), RECORDS)
    assert res.error["turn"] == 0 and res.error["clause"] == "CARD-TURN-1"
    assert "goes face down into the red row, not face up: it is the row's first card this round" in res.error["message"]
    res = replay(_with_turns(turns[:2] + [dict(turns[2], face="down")] + turns[3:]), RECORDS)
    assert res.error["turn"] == 2 and "only the first card of a row each round goes face down" in res.error["message"]


def test_simulated_records_say_each_card_s_face(eng, tmp_path):
    from tessera.play.simulate import play_one, write_card_record

    g, turns = play_one(eng, 2, 3, ["random", "random"], record=True)
    write_card_record(tmp_path, 0, ["card"], g, turns)
    doc = json.loads((tmp_path / "game-000000.json").read_text())
    faces = [t["face"] for t in doc["turns"] if "play" in t]
    assert faces.count("down") >= 10 and "up" in faces  # round 1 alone opens four rows face down
    assert replay(doc, tmp_path).answer["scores"] == dict(zip(g.names, g.scores))


@pytest.mark.parametrize("deal, words", [
    ({"red": 6, "blue": 6}, None),
    ({"red": ["red.people.1", "red.people.1", "red.people.3", "yellow.people.1", "yellow.people.1",
              "yellow.people.1"], "blue": 6}, None),
    ({"red": 5, "blue": 6}, "red is dealt 6 cards, not 5: with 2 players each receives 6 cards a round"),
    ({"red": ["red.people.1"] * 6, "blue": 6}, "the deck gives red red.people.1, red.people.1, red.people.3"),
    ({"red": 6}, "blue is missing"),
    ({"red": 6, "blue": 6, "mallory": 6}, "'mallory' is not a player"),
])
def test_a_deal_entry_is_checked_against_the_deal_table(deal, words):
    """CARD-DEAL-1 «2 игрока 6 карт»: a `deal` entry before the round's first move says what each
    player was dealt (a count or the cards); a wrong one is refused."""
    res = replay(_with_turns([{"deal": deal, "round": 1, "dealer": "blue"}] + _doc()["turns"]), RECORDS)
    if words is None:
        assert res.error is None and res.answer["scores"] == {"red": 15, "blue": 0}
    else:
        assert res.error["turn"] == 0 and res.error["clause"] == "CARD-DEAL-1" and words in res.error["message"]


def test_a_deal_entry_after_the_round_s_first_move_is_refused():
    turns = _doc()["turns"]
    res = replay(_with_turns(turns[:1] + [{"deal": {"red": 6, "blue": 6}}] + turns[1:]), RECORDS)
    assert res.error["turn"] == 1 and res.error["clause"] == "CARD-DEAL-1"
    assert "before its first move (round 1 has had 1 moves)" in res.error["message"]


def _game_with_decisions(eng, tmp_path):
    """A simulated 3-player record with a round whose misplaced cards wait for decisions of two seats."""
    from tessera.play.simulate import play_one, write_card_record

    for seed in range(60):
        g, turns = play_one(eng, 3, seed, ["random"] * 3, record=True)
        write_card_record(tmp_path, seed, ["card"], g, turns)
        doc = json.loads((tmp_path / f"game-{seed:06d}.json").read_text())
        t = doc["turns"]
        for i in range(len(t) - 1):
            a, b = t[i], t[i + 1]
            if ("keep" in a or "discard" in a) and ("keep" in b or "discard" in b) and a["player"] != b["player"]:
                return doc, i, dict(zip(g.names, g.scores))
    raise AssertionError("no game of 60 had two seats deciding in a row")


def test_decisions_on_misplaced_cards_come_in_any_order(eng, tmp_path):
    """CARD-SCORE-1: the decisions do not interact (a discard scores `misplaced`, kept cards are scored
    after the last decision), so two seats' decisions swapped replay to the same scores; naming the
    wrong seat for a card is refused."""
    doc, i, scores = _game_with_decisions(eng, tmp_path)
    swapped = copy.deepcopy(doc)
    swapped["turns"][i], swapped["turns"][i + 1] = swapped["turns"][i + 1], swapped["turns"][i]
    res = replay(swapped, tmp_path)
    assert res.error is None and res.answer["scores"] == scores
    wrong = copy.deepcopy(doc)
    kind = "keep" if "keep" in wrong["turns"][i] else "discard"
    wrong["turns"][i]["player"] = wrong["turns"][i + 1]["player"]
    card = wrong["turns"][i][kind]
    if wrong["turns"][i + 1].get("keep", wrong["turns"][i + 1].get("discard")) != card:
        res = replay(wrong, tmp_path)
        assert res.error["turn"] == i and res.error["clause"] == "CARD-SCORE-1"
        assert f"no decision on {card} is open for {wrong['turns'][i]['player']}" in res.error["message"]


# -- 4. the messages -----------------------------------------------------------------------------
def test_playing_from_an_empty_hand_says_the_feudal_must_go_out():
    """CARD-TURN-1: a turn is a card or the big feudal; with no card left, the feudal."""
    turns = [t for t in _doc()["turns"] if "play" in t]  # both hands played out, no feudal put
    res = replay(_with_turns(turns + [{"play": "yellow.people.1", "row": "yellow"}]), RECORDS)
    assert res.error == {"turn": 12, "clause": "CARD-TURN-1",
                         "message": "turn 12: red's hand is empty: the only move left to red this round is to "
                                    "put the big_feudal at the end of a row"}


def test_keep_with_no_decision_open_is_refused_with_its_clause():
    res = replay(_with_turns([{"keep": "blue.city"}]), RECORDS)
    assert res.error["turn"] == 0 and res.error["clause"] == "CARD-SCORE-1"
    assert "no misplaced card waits for a decision to keep or discard it" in res.error["message"]


@pytest.mark.parametrize("players", [["solo"], ["a", "b", "c", "d", "e", "f"]])
def test_a_wrong_player_count_cites_the_deal_table(players):
    """`players 2..5 [CARD-DEAL-1]`: the refusal cites it (and `tessera replay` exits 1, not 2)."""
    d = _doc()
    d["players"] = players
    res = replay(d, RECORDS)
    assert res.error["clause"] == "CARD-DEAL-1"
    assert f"these rules are for 2 to 5 players, not {len(players)}" in res.error["message"]


def test_replay_of_a_wrong_player_count_exits_1(tmp_path):
    from typer.testing import CliRunner

    from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
    from tessera.cli import app

    d = _doc()
    d["players"] = ["solo"]
    (tmp_path / "r.json").write_text(json.dumps(d), encoding="utf-8")
    res = CliRunner().invoke(app, ["replay", str(tmp_path / "r.json")])
    assert res.exit_code == 1 and "CARD-DEAL-1" in res.output


# -- 7. the seat question: who deals next ------------------------------------------------------
def _dealers_and_last_feudals(eng, players, seed):
    g = eng.new_game(players, seed)
    rng = __import__("random").Random(seed)
    last = {}
    while not g.ended:
        a = rng.choice(g.legal_actions())
        if a[0] == "claim":
            last[g.round] = g.names[g.current]
        g.apply_action(a)
    return [e["dealer"] for e in g.events if e["kind"] == "deal"], last


def test_the_last_to_put_a_feudal_deals_next(eng):
    """CARD-ROUND-1 «Игрок, поставивший свою большую фигуру человечка последним в раунде, становится
    дилером»: the dealer of every round after the first is the last claimer of the round before."""
    for players, seed in ((2, 1), (3, 2), (5, 3)):
        dealers, last = _dealers_and_last_feudals(eng, players, seed)
        assert dealers[0] == eng.new_game(players, seed).names[-1]  # assume first_dealer
        assert dealers[1:] == [last[r] for r in range(1, len(dealers))]


def test_house_rule_the_deal_passes_left():
    """rules/variants/card_deal_passes_left.tess (`dealer left`): the deal goes round the table,
    whoever claimed last."""
    eng = load_engine(require_rule_set(["card", "card_deal_passes_left"]))
    for players, seed in ((2, 1), (3, 2)):
        dealers, _ = _dealers_and_last_feudals(eng, players, seed)
        names = eng.new_game(players, seed).names
        assert dealers == [names[(players - 1 + r) % players] for r in range(len(dealers))]


def test_an_unknown_dealer_mode_is_a_diagnostic():
    from tessera.dsl.loader import check_text

    diags, _ = check_text("module m\nrequires card\ndealer lastfeudal\n", "m.tess")
    [d] = [d for d in diags if d.severity == "error"]
    assert d.code == "unknown-name" and "`dealer lastfeudal`" in d.message and "last_feudal" in d.message


def test_house_rule_the_first_to_claim_deals_next(tmp_path):
    """`dealer first_feudal`: the dealer of every round after the first is the first claimer of the
    round before (so that player begins last)."""
    (tmp_path / "h.tess").write_text("module h\nrequires card\ndealer first_feudal\n", encoding="utf-8")
    from tessera.dsl.loader import load_rule_set

    rs, diags, _ = load_rule_set([str(tmp_path / "h.tess")])
    assert rs is not None, [d.message for d in diags]
    eng = load_engine(rs)
    g = eng.new_game(3, 4)
    rng = __import__("random").Random(4)
    first = {}
    while not g.ended:
        a = rng.choice(g.legal_actions())
        if a[0] == "claim":
            first.setdefault(g.round, g.names[g.current])
        g.apply_action(a)
    dealers = [e["dealer"] for e in g.events if e["kind"] == "deal"]
    assert len(dealers) == 8 and dealers[1:] == [first[r] for r in range(1, 8)]
