"""Refuted means a game, everywhere (issue 35 item 1): the river theorem's refutations and the card
game's `card-scores` write a record that `tessera replay` shows breaking the rule, and each refutation
of an invariant gets its own witness, labelled with the step it breaks.

Rulebook clauses: RIVER-PLACE-2 (the river never turns twice the same way), BASE-PLACE-3 (a tile that
fits nowhere is discarded), CARD-SCORE-1 (the card game's scorings), TOWER-FIGURES-1 / TOWER-SWAP-1
(a capture's outcomes: own, prisoner, exchange), ABBOT-RECALL-1 (the abbot recalled from a cloister
or a garden).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import tessera.verifier.witness as W

ROOT = Path(__file__).resolve().parent.parent

LITERAL = """module literal "at most one curve each way"
requires river
state lefts = 0    [RIVER-PLACE-2]
state rights = 0   [RIVER-PLACE-2]
override on place of river where turn(river) != 0 [RIVER-PLACE-2] {
  require (turn(river) == -1 and lefts == 0) or (turn(river) == 1 and rights == 0) "one curve each way"
  set lefts = lefts + (if turn(river) == -1 then 1 else 0)
  set rights = rights + (if turn(river) == 1 then 1 else 0)
}
"""


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def replay_line(out: str) -> Path:
    m = re.search(r"replay it: tessera replay (\S+)", out)
    assert m, out
    return Path(m.group(1))


@pytest.mark.slow
def test_a_blocked_river_is_a_game_whose_drawn_tile_is_discarded(tmp_path):
    """RIVER-PLACE-2 read as "one curve each way in all": after a left and a right curve a third
    curve fits nowhere.  The refutation is a record: two curves laid as z3's sequence, then a curve
    drawn and discarded (BASE-PLACE-3), which `tessera replay` prints."""
    rule = tmp_path / "literal.tess"
    rule.write_text(LITERAL, encoding="utf-8")
    proc = run("verify", str(rule), "--no-engine", "--only", "river", "--record", str(tmp_path / "w"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "never blocked: REFUTED" in out
    assert re.search(r"witness: after 2 river tiles laid as z3's sequence, river\.\w+ is drawn and fits nowhere: "
                     r"it is discarded at turn 3 \[BASE-PLACE-3\]", out), out
    rec = replay_line(out)
    doc = json.loads(rec.read_text())
    assert doc["format"] == "tessera-game/1" and doc["turns"][-1].get("discard") is True
    assert [t["tile"] for t in doc["turns"][:2]] == ["river.curve", "river.curve"] or \
        all("curve" in t["tile"] for t in doc["turns"])
    rep = run("replay", str(rec), cwd=tmp_path)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert re.search(r"discarded: turn 2: p0 draws river\.\w*curve\w*, which fits nowhere \[BASE-PLACE-3\]", rep.stdout)


@pytest.mark.slow
def test_a_river_that_flows_back_and_runs_into_itself_is_shown_by_games(tmp_path):
    """river_no_uturn forbids only two same-way curves in a row (RIVER-PLACE-2 weakened): the river that
    flows back is laid in a record; the one that runs into itself ends with a river tile discarded."""
    proc = run("verify", str(ROOT / "rules/variants/river_no_uturn.tess"), "--no-engine", "--only", "river",
               "--record", str(tmp_path))
    out = proc.stdout
    assert "never flows back: REFUTED" in out and "never runs into itself: REFUTED" in out, out
    back = out.split("never flows back: REFUTED", 1)[1]
    assert re.search(r"witness: river tile 3 \(river\.\w+\) at \[1, -2\] leaves by W: the river flows back", back)
    into = out.split("never runs into itself: REFUTED", 1)[1]
    rec = replay_line(into)
    assert rec.name.endswith("--river--runs-into-itself.json") and rec != replay_line(back)
    rep = run("replay", str(rec), cwd=tmp_path)
    assert rep.returncode == 0 and "which fits nowhere [BASE-PLACE-3]" in rep.stdout, rep.stdout + rep.stderr


@pytest.mark.slow
def test_a_card_scoring_that_can_be_negative_is_refuted_with_a_card_record(tmp_path):
    """CARD-SCORE-1 changed so that a take of people costs 2: z3 finds the take, and a game of the
    compiled engine in which a player's score goes down is written as a tessera-cards/1 record that
    `tessera replay` shows below 0."""
    rule = tmp_path / "negpeople.tess"
    rule.write_text('module negpeople "People cost 2 per take"\nextends card\n'
                    'override score people on take = values(people) * taken(people) - 2 [CARD-SCORE-1]\n',
                    encoding="utf-8")
    proc = run("verify", str(rule), "--no-engine", "--only", "card-scores", "--record", str(tmp_path / "w"))
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "refuted: `score people on take` gives -2 points when taken(people) = 0" in out
    m = re.search(r"witness: (\w+)'s score goes (-?\d+) -> (-?\d+) in round \d+ \(people on take, CARD-SCORE-1\)", out)
    assert m and int(m.group(3)) < int(m.group(2)), out
    rec = replay_line(out)
    doc = json.loads(rec.read_text())
    assert doc["format"] == "tessera-cards/1" and doc["deck"] and doc["turns"]
    rep = run("replay", str(rec), cwd=tmp_path)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    if int(m.group(3)) < 0:
        assert f"{m.group(1)} {m.group(3)}" in rep.stdout.split("below 0:", 1)[1]


@pytest.mark.slow
def test_a_sound_card_scoring_is_never_refuted():
    """The bundled card game's scorings are never negative: proved, no witness asked for."""
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.checks import load_checks, run_check

    res = run_check(load_checks()["card-scores"], require_rule_set(["card"]))
    assert res.passed and not res.messages


def test_each_capture_outcome_is_witnessed_by_its_own_capture():
    """TOWER-FIGURES-1 / TOWER-SWAP-1: a capture step is one outcome; a game where another outcome broke
    the invariant is not its witness (four refutations once pointed at one game of an own capture)."""
    inv = SimpleNamespace(id="stays-barn", kind="step")
    rs = SimpleNamespace(figures={"follower": 0, "barn": 0}, states={}, invariants=[])
    own = {"kind": "capture", "figure": "barn", "to": "supply"}
    prisoner = {"kind": "capture", "figure": "barn", "to": "prisoner"}
    swap = [{"kind": "capture", "figure": "barn", "to": "exchange"},
            {"kind": "exchange", "figure": "barn", "back": "follower"}]
    m = W.Monitor(rs, inv, "capture a barn (own)")
    assert m.outcome_ok([own]) and not m.outcome_ok([prisoner]) and not m.outcome_ok(swap)
    m = W.Monitor(rs, inv, "capture a barn (prisoner)")
    assert m.outcome_ok([prisoner]) and not m.outcome_ok([own])
    m = W.Monitor(rs, inv, "capture a barn (exchange for a follower)")
    assert m.outcome_ok(swap) and not m.outcome_ok([prisoner])
    m = W.Monitor(rs, inv, "capture a barn (exchange for a barn)")
    assert not m.outcome_ok(swap)  # the exchange gave a follower back, not a barn
    assert W.Monitor(rs, inv, "score field end").outcome_ok([])  # other steps: any move


def test_each_refutation_writes_its_own_file(tmp_path):
    """Two refutations of one invariant at two steps never share a record, even when the rule's label
    is cut in the file name."""
    rs = SimpleNamespace(names=["base", "tower"], modules=[])
    long = "capture a follower (exchange for a " + "very_long_figure_name" * 4 + ")"
    paths = set()
    for rule in ("capture a barn (own)", "capture a barn (prisoner)", long + "1", long + "2"):
        check = SimpleNamespace(invariant=SimpleNamespace(id="stays-barn"), rule=rule, span=None)
        paths.add(W._write(rs, check, 2, 0, [], False, tmp_path))
    assert len(paths) == 4 and all(p.exists() for p in paths)


def test_a_recall_is_matched_to_its_own_feature():
    """ABBOT-RECALL-1: an abbot recalled from a cloister is not the witness of the garden's recall."""
    cloister = {"kind": "score", "when": "recall", "feature": "cloister"}
    garden = {"kind": "score", "when": "recall", "feature": "garden"}
    assert W._rule_matches("recall abbot from a garden", garden)
    assert not W._rule_matches("recall abbot from a garden", cloister)
    assert W._rule_matches("recall abbot from a cloister", cloister)


TOLL = """module toll "A join costs the farmers a toll"
requires barn
override score field join barn = completed_cities - 1 [BARN-SCORE-2]
"""


@pytest.mark.slow
def test_a_join_toll_below_zero_is_found_by_the_search_toward_z3s_state(tmp_path, monkeypatch):
    """BARN-SCORE-2 made a toll (issue 35 item 3): a join beside no completed city costs the farmers'
    owner 1 point, so a player still at 0 goes to -1.  The random and steered games never reach it (they
    gave up one placement short: "not proved"); the beam search toward z3's state (seat 1 at 0 points,
    a farmer on the field a barn joins) finds the game, and its record replays below 0."""
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.checks import load_checks, run_check

    rule = tmp_path / "toll.tess"
    rule.write_text(TOLL, encoding="utf-8")
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path / "w")
    res = run_check(load_checks()["invariants"], require_rule_set([str(rule)]))
    text = "\n".join(d.message for d in res.diagnostics)
    assert "invariant `score-nonnegative` [BASE-SCORE-3] is refuted for score field join barn" in text, text
    block = text.split("invariant `score-nonnegative`", 1)[1]
    m = re.search(r"witness of `score-nonnegative` at score field join barn: (p\d)'s score goes 0 -> (-\d+) at turn "
                  r"(\d+) \(score field join, BARN-SCORE-2\)", block)
    assert m and "beam search toward z3's state" in block, block
    rep = run("replay", str(replay_line(block)), cwd=tmp_path)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert f"below 0: {m.group(1)} {m.group(2)} after turn {m.group(3)}" in rep.stdout


def test_a_house_rules_start_value_changes_the_examples_as_it_changes_the_records(tmp_path):
    """Issue 35 item 7: `override state river_turn = -1` (RIVER-PLACE-2: the river's memory starts as if it
    had just turned left) makes the rulebook's `alternating_curves` illegal at its first left curve.  The
    worked examples call it a note at the house rule's line, as the records check does; not an error."""
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.checks import load_checks, run_check

    rule = tmp_path / "rt.tess"
    rule.write_text('module rt "the river starts turned"\nrequires river\n'
                    'override state river_turn = -1 [RIVER-PLACE-2]\n', encoding="utf-8")
    rs = require_rule_set([str(rule)])
    checks = load_checks()
    ex = run_check(checks["examples"], rs)
    assert ex.passed, [d.message for d in ex.diagnostics if d.severity == "error"]
    [d] = [d for d in ex.diagnostics if "alternating_curves" in d.message]
    assert d.severity == "note" and d.span.file == str(rule) and d.span.line == 3
    assert "changed: this house rule" in d.message and "(tile 1, left, breaks the rule)" in d.message
    rec = run_check(checks["records"], rs)
    assert rec.passed and any(x.severity == "note" and x.span.file == str(rule) for x in rec.diagnostics)


LONGDEAL = """module longdeal "a long game, its deal table mistyped"
extends card
override deal 2 players 6 cards 9 rounds, 3 players 5 cards 8 rounds,
    4 players 5 cards 6 rounds, 5 players 4 cards 6 rounds [CARD-DEAL-1, CARD-END-1]
"""


@pytest.mark.slow
def test_a_deal_table_that_misses_the_deck_is_refuted_with_a_game_of_more_rounds(tmp_path):
    """CARD-DEAL-1: "2 игрока 6 карт 10 раундов" mistyped as 9 rounds (2 x 6 x 9 = 108, not the 120
    cards after the layout).  A game ends for want of cards (CARD-END-1, «Конец игры»: the deck's end),
    and the engine deals 10 rounds: the record's replay says so.  The rulebook's
    deal example is a note at the house rule (it changes what the example says), not an error."""
    rule = tmp_path / "longdeal.tess"
    rule.write_text(LONGDEAL, encoding="utf-8")
    proc = run("verify", str(rule), "--no-engine", "--only", "card-deal", "--record", str(tmp_path / "w"))
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "refuted: with 2 players the deal uses 108 cards, but the deck holds 120 after the layout" in out
    assert "witness: with 2 players a game that ends for want of cards deals 10 rounds of 6 cards each, where " \
           "the deal table says 9, and leaves 0 cards in the deck" in out
    assert "note: example `deal_2_players`: changed: this house rule's deal gives 2 players 108 cards" in out
    rep = run("replay", str(replay_line(out)), cwd=tmp_path)
    assert rep.returncode == 0 and "rounds: 10; cards left in the deck: 0" in rep.stdout, rep.stdout + rep.stderr


@pytest.mark.slow
def test_the_tie_rule_is_seen_in_one_features_scoring():
    """BASE-SCORE-1 (tied leaders each score in full, the same): a house rule lets the abbot stand on a
    road and pays it 2 per tile (tests/records/witness/abbot_on_roads.tess, the `designer` helper's
    trial).  In its game (seed 13, found by that helper's own search) one road of 4 tiles completes with
    p0's abbot and p1's follower, tied: p0 scores 8, p1 4.  The tie-rule monitor watches each feature's
    scoring (the engine's `_award`) and sees it at that move, and at no move before."""
    from tessera.compiler.build import load_engine
    from tessera.replay.turns import play_turn
    from tessera.dsl.loader import require_rule_set

    here = ROOT / "tests" / "records" / "witness"
    doc = json.loads((here / "abbot_on_roads.json").read_text(encoding="utf-8"))
    rs = require_rule_set([str(here / "abbot_on_roads.tess")])
    g = load_engine(rs).new_game(len(doc["players"]), doc.get("seed", 0))
    mon = W.Monitor(rs, SimpleNamespace(id="tie-rule", kind="feature"), "score road complete")
    assert mon.usable
    seen = []
    apply = g.apply_action

    def watched(a):
        seen.append((len(seen), mon.tie_of(g, a)))
        apply(a)
    g.apply_action = watched
    for i, t in enumerate(doc["turns"]):
        before = len(seen)
        play_turn(g, g.R, t, i)
        hits = [s for _, s in seen[before:] if s]
        if i < 42:
            assert not hits, (i, hits)
        else:
            assert hits == ["one road of 4 tiles scores its tied owners differently at turn 42: "
                            "p0 8 (HOUSE-PILGRIM-1); p1 4 (BASE-ROAD-2)"]


def test_the_beam_search_measures_a_game_by_z3s_feature():
    """BASE-SCORE-1 (issue 35, F1): for a claim about one scored feature, z3's state is the feature's
    figures (`on_feature[p].F`); the beam search's distance is how far the nearest open feature of the
    rule's kind stands from it, any seating of z3's seats.  In the designer's game (seed 13) the roads
    that turn 42 joins and completes hold p0's abbot and p1's follower just before: each is 1 figure short
    of z3's feature (z3's seat 0 as the game's p0, or swapped) with 1 open edge; at the start no road
    holds a figure.  `tie_in` watches the scoring on the game itself and leaves no hook on it."""
    from tessera.compiler.build import load_engine
    from tessera.replay.turns import play_turn
    from tessera.dsl.loader import require_rule_set

    here = ROOT / "tests" / "records" / "witness"
    doc = json.loads((here / "abbot_on_roads.json").read_text(encoding="utf-8"))
    rs = require_rule_set([str(here / "abbot_on_roads.tess")])
    g = load_engine(rs).new_game(len(doc["players"]), doc.get("seed", 0))
    model = {"on_feature[0].abbot": 1, "on_feature[1].follower": 1, "tiles": 2, "open": 0}
    swapped = {"on_feature[1].abbot": 1, "on_feature[0].follower": 1}
    assert W.feature_distance(model, g, {"road"}) == 2.0 * 2 + 1.0  # nothing on any road yet
    for i, t in enumerate(doc["turns"][:42]):
        play_turn(g, g.R, t, i)
    d = W.feature_distance(model, g, {"road"})
    # turn 42's tile joins two roads, one with p0's abbot and one with p1's follower, each 1 edge open:
    # the nearest is 1 figure short (2) with 1 open edge (0.25), whichever seat z3 calls seat 0
    assert d == W.feature_distance(swapped, g, {"road"}) == 2.0 + 0.25, d
    assert W.feature_distance({"score[0]": 3}, g, {"road"}) is None  # no feature in z3's state
    mon = W.Monitor(rs, SimpleNamespace(id="tie-rule", kind="feature"), "score road complete")
    before = len(g.events)
    hits: list = []
    g.apply_action = lambda a: hits.append(mon.tie_in(g, a))  # the move played on g itself, watched
    play_turn(g, g.R, doc["turns"][42], 42)
    del g.apply_action
    assert "_award" not in vars(g) and len(g.events) > before
    assert [h for h in hits if h] == ["one road of 4 tiles scores its tied owners differently at turn 42: "
                                      "p0 8 (HOUSE-PILGRIM-1); p1 4 (BASE-ROAD-2)"]


@pytest.mark.slow
def test_a_barn_exchanged_for_a_barn_is_its_own_game(tmp_path, monkeypatch):
    """BARN-PLACE-1 against TOWER-SWAP-1 (issue 35 item 5): with barns capturable
    (tests/records/witness/barn_capture.tess), `stays-barn` breaks at each capture outcome.  The
    exchange for a barn needs a barn held as a prisoner first -- itself a break by another outcome --
    so the search plays on past it (the monitor remembers every seat's count) and steers toward that
    prisoner.  Its record replays to p1 (or p0) capturing a barn whose owner holds a barn of the
    capturer's, and the exchange giving that barn back, at the turn the witness names."""
    from tessera.dsl.loader import require_rule_set

    rs = require_rule_set([str(ROOT / "tests" / "records" / "witness" / "barn_capture.tess")])
    inv = SimpleNamespace(id="stays-barn", kind="step")
    check = SimpleNamespace(invariant=inv, rule="capture a barn (exchange for a barn)", span=None,
                            text="capture 1 of follower, abbot, barn", result=SimpleNamespace(model={"players": 2}))
    got = W.search(rs, check, games=12, record_dir=tmp_path)
    assert got.witness is not None, got.note
    w = got.witness
    assert w.breaks == "`stays-barn` at capture a barn (exchange for a barn)" and "exchange-for-a-barn" in w.record.name
    m = re.fullmatch(r"(p\d)'s barns on the board go 1 -> 0 at turn (\d+)", w.what)
    assert m, w.what
    rep = run("replay", "--json", str(w.record), cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    evs = [e for e in json.loads(rep.stdout)["events"] if e.get("kind") in ("capture", "exchange")
           and e.get("figure") == "barn" and e.get("turn") == int(m.group(2))]
    assert [(e["kind"], e["victim"], e.get("to"), e.get("back")) for e in evs] == [
        ("capture", m.group(1), "exchange", None), ("exchange", m.group(1), None, "barn")], evs


@pytest.mark.slow
def test_a_lost_card_is_seen_on_the_engines_own_containers():
    """CARD-COMP-1: every card lies in one location.  `card_lost` (the witness search's monitor) finds
    nothing in a game of the bundled card rules, and finds a card taken out of the deck."""
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    eng = load_engine(require_rule_set(["card"]))
    printed = sorted(n for n, spec in eng.rules.CARDS for _ in range(spec[3]))
    g = eng.new_game(3, 0)
    for _ in range(12):
        g.apply_action(g.legal_actions()[0])
    assert W.card_lost(g, printed) is None
    g.deck.pop()
    assert W.card_lost(g, printed) == (f"{len(printed) - 1} cards are found in the deck, rows, hands, piles, chests "
                                       f"and box, not the {len(printed)} printed ones each once")


@pytest.mark.slow
def test_a_card_conservation_refutation_without_a_game_is_not_proved(tmp_path, monkeypatch):
    """CARD-COMP-1, 'refuted means a game': when z3 refutes a move of card-conservation (here made to, for
    the play move), the engine's games are searched for a lost card; none loses one, so the verdict is
    *not proved*, with what was tried, never *refuted*."""
    import tessera.verifier.cards as C
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.solver import prove as real

    def prove(goal, facts, **kw):
        res = real(goal, facts, **kw)
        if any("the engine's play move" in f.text for f in facts):
            return SimpleNamespace(refuted=True, proved=False, model={"players": 2, "hands": 1}, reason="")
        return res
    monkeypatch.setattr(C, "prove", prove)
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    out = C.card_conservation(require_rule_set(["card"]))
    assert len(out) == 1 and out[0].startswith("  not proved: z3: the play move loses or makes cards"), out
    assert "card games of the compiled engine (2 players first, then the others) never lost nor made a card" in out[0]
    assert not list(tmp_path.glob("*.json"))
