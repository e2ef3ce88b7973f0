"""Decisions as declared, stored values (compiler/runtime/decisions.py), and the worked example of
docs/architecture.md ("The path of a new decision moment"): a moment and an event declared in one
place each, with no line of moments.py, game.py, the replay answer or the viewer changed.

The example is a toy (no rulebook has it): a *toll* moment, open while the game stores a `TollOpen`
value, at which the only move is `PayToll()`: the player pays 1 point, which a declared `toll`
event carries.  The test injects the three declarations into a compiled engine's copy of the
runtime (as tests/test_moves.py injects a move), rebuilding the tables moments.py and game.py
build from them at import.
"""
from __future__ import annotations

import random
import sys
from typing import NamedTuple

import pytest

from conftest import engine
from tessera.compiler.runtime import events as E


def _runtime(e):
    pkg = type(e.new_game(2, 0)).__module__.rsplit(".", 1)[0]
    return (sys.modules[pkg + ".moves"], sys.modules[pkg + ".decisions"], sys.modules[pkg + ".moments"],
            sys.modules[pkg + ".game"])


def _to_capture(e, seed_max=40):
    for seed in range(seed_max):
        g, rng = e.new_game(2, seed), random.Random(seed)
        while not g.is_terminal():
            if g.moment() == "capture":
                return g
            acts = g.legal_actions()
            g.apply_action(acts[rng.randrange(len(acts))])
    raise AssertionError("no game reached a capture")


def test_a_pending_capture_is_a_typed_value_read_by_field():
    e = engine("base", "tower")
    g = _to_capture(e)
    pend = g.prisoners.pending
    assert type(pend).__name__ == "CaptureOpen" and pend.MOMENT == "capture"
    assert pend.player == g.current and pend.clauses[0].startswith("TOWER-CAPTURE")
    assert isinstance(pend.reach, int) and pend.tower in g.board.tiles
    # a pass decides it: the turn is scored (a TurnEnd is never left behind)
    g.apply_action(("pass",))
    assert g.prisoners.pending is None and g.moment() in ("turn", "closing", "over")


def test_an_outpost_decision_is_a_typed_value_and_moment_reads_it():
    e = engine("base", "siege")
    for seed in range(20):
        g, rng = e.new_game(2, seed), random.Random(seed)
        while not g.is_terminal():
            m = g.moment()
            if m in ("catapult", "remove", "outpost"):
                d = g.outposts.decision
                assert d.moment == m == type(d).MOMENT and d.player == g.deciding()
                assert type(d).__name__ == {"catapult": "CatapultOpen", "remove": "RemoveOpen",
                                            "outpost": "OutpostOpen"}[m]
                return
            acts = g.legal_actions()
            g.apply_action(acts[rng.randrange(len(acts))])
    raise AssertionError("no siege game opened an outpost decision")


def test_a_new_moment_and_its_event_are_declared_in_one_place_each(monkeypatch):
    e = engine("base")
    EM, ED, EMo, EG = _runtime(e)

    # 1. the stored value (decisions.py)
    class TollOpen(NamedTuple):
        player: int
        MOMENT = "toll"

    # 2. the move, at its moment (moves.py: `_tagged`, the moment's name in MOMENTS, ORDER)
    def pay(g, move):
        p = g.toll.player
        g.history.append((None, move))
        g.scores[p] -= 1
        g.events.append({"turn": g.turn, "kind": "toll", "player": g.names[p], "points": {g.names[p]: -1},
                         "clause": g.R.TOLL})
        g.toll = None

    PayToll = EM._tagged("paytoll", (), "Pay the toll: 1 point.", "TOLL", pay, lambda g: [PayToll()],
                         rules=("TOLL",), domains=(), when=("toll",), checks=False)
    monkeypatch.setattr(EM, "MOMENTS", EM.MOMENTS + ("toll",))
    order = EM.ORDER[:-1] + (PayToll, EM.Discard)
    monkeypatch.setattr(EM, "ORDER", order)
    monkeypatch.setattr(EM, "MOVES", frozenset(order))
    monkeypatch.setitem(EM.TAGGED, "paytoll", PayToll)

    # 3. the decision (decisions.py: one Decision in DECISIONS)
    toll = ED.Decision("toll", ("toll",), "toll", lambda g, settle: "toll" if g.toll is not None else None,
                       {"toll": lambda g, a: ("the toll is paid first", g.R.TOLL)})
    monkeypatch.setattr(ED, "DECISIONS", ED.DECISIONS + [toll])
    monkeypatch.setattr(EG.Game, "toll", None, raising=False)  # what the opening module's _init_ sets

    # 4. the event (events.py: one _event)
    monkeypatch.setitem(E.REGISTRY[E.TILES], "toll", E.Event(
        "toll", E.TILES, ("turn", "kind", "player", "points", "clause"), "TOLL", "a toll paid",
        answer=True, shown=True, usage=lambda ev: f"toll||{ev['clause']}", points="points",
        sentence=lambda ev: f"{ev['player']} pays the toll"))

    # the tables moments.py and game.py build at import, built again from the declarations
    offered = EM.offered(order)
    monkeypatch.setattr(EG, "_OFFERED", offered)
    monkeypatch.setattr(EG, "_APPLY", EMo.applying(EG.Game, offered))
    monkeypatch.setattr(EG, "_APPLY_TURN", EG._APPLY[EM.TURN])
    monkeypatch.setattr(EMo.Moments, "moment", EMo.moment_of(ED.DECISIONS))
    monkeypatch.setitem(EMo.REFUSE, "toll", toll.refuse["toll"])
    monkeypatch.setattr(EG, "_watched", ED.watching())
    monkeypatch.setattr(e.rules, "TOLL", "HOUSE-TOLL-1", raising=False)

    g = e.new_game(2, 5)
    acts = g.legal_actions()
    g.apply_action(acts[0])
    assert g.moment() == "turn" and all(a.KIND != "paytoll" for a in g.legal_actions())
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(PayToll())  # no toll open: refused as the turn refuses a move not offered
    assert exc.value.clause == "HOUSE-TOLL-1"

    p = g.current
    g.toll = TollOpen(p)  # whatever rule opens it stores the value
    assert g.moment() == "toll" and g.legal_actions() == [PayToll()]
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(("discard",))  # any move but the toll
    assert (exc.value.message, exc.value.clause) == ("the toll is paid first", "HOUSE-TOLL-1")
    before = g.scores[p]
    g.apply_action(PayToll())
    assert g.scores[p] == before - 1 and g.moment() == "turn" and g.legal_actions()

    ev = g.events[-1]
    assert E.answer_events([ev]) == [ev] and E.is_shown(ev)  # in the replay answer and on the page
    assert E.sentence(E.shown_event(ev)) == f"{g.names[p]} pays the toll"
    assert E.usage_key(ev) == "toll||HOUSE-TOLL-1"


def test_the_turn_asks_the_moment_exactly_when_a_declared_watch_is_true(monkeypatch):
    """SIEGE-ADVANCE-1, TOWER-CAPTURE-1, TOWER-RANSOM-1: the tile turn asks `moment()` only when a declared
    decision may be open.  Its reading of the shipped watch as fields (game.py's `_asks`) agrees with the
    declared getters (`decisions.watching()`) at every state of siege and tower games; and whenever the
    outpost decision's watch (`Game.siege_open`) is false, that decision's own test answers None and
    changes nothing, so skipping it is safe."""
    monkeypatch.setenv("TESSERA_KERNEL", "python")  # `_asks` is a C function on the native kernel
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    e = load_engine(require_rule_set(["base", "tower", "siege"]))
    EM, ED, EMo, EG = _runtime(e)
    assert EG._watched is EG._SHIPPED  # the shipped decisions: read as fields
    getter = ED.watching()
    seen = set()
    for seed in range(4):
        g, rng = e.new_game(2, seed), random.Random(seed)
        while not g.is_terminal():
            asks = bool(EG._asks(g))
            assert asks == any(getter(g)[:-1])  # (the getter's last item is `ended`, asked on its own)
            if not g.siege_open:
                before = (g.bag.advanced, g.outposts.decision, list(g.outposts.queue), len(g.events), list(g.scores))
                assert ED._outposts(g, True) is None
                assert (g.bag.advanced, g.outposts.decision, list(g.outposts.queue), len(g.events), list(g.scores)) == before
            seen.add((asks, g.moment()))
            acts = g.legal_actions()
            g.apply_action(acts[rng.randrange(len(acts))])
    assert (False, "turn") in seen and (True, "turn") in seen and any(m != "turn" for _, m in seen)
