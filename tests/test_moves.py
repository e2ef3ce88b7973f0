"""The move vocabulary (compiler/runtime/moves.py, docs/engine.md section 2): one type per kind,
equal to its written form, read back from it by one decoder, refused with a clause when it is
no move at all."""
from __future__ import annotations

import json
import pickle
import sys

import pytest

from tessera.compiler.runtime import moves as M
from conftest import engine

WRITTEN = [
    (M.Place((1, 0), 90), ((1, 0), 90, None)),
    (M.Place((1, 0), 90, M.Put(0, 2)), ((1, 0), 90, (0, 2))),
    (M.Place((1, 0), 0, M.PutCorner(1, 3, "NE")), ((1, 0), 0, (1, 3, "NE"))),
    (M.Place((1, 0), 0, M.Recall(2, (0, 0), 5)), ((1, 0), 0, ("recall", 2, (0, 0), 5))),
    (M.Place((1, 0), 0, M.PutAt(1, (0, 0), 5)), ((1, 0), 0, ("at", 1, (0, 0), 5))),
    (M.Discard(), ("discard",)),
    (M.Pass(), ("pass",)),
    (M.Capture(1, 0, 7, None), ("capture", 1, 0, 7, None)),
    (M.Ransom(1, 0), ("ransom", 1, 0)),
    (M.Catapult(2), ("catapult", 2)),
    (M.Remove(0, 0, 9), ("remove", 0, 0, 9)),
    (M.Outpost(1, "pool"), ("outpost", 1, "pool")),
]


@pytest.mark.parametrize("move,written", WRITTEN, ids=[type(m).__name__ + (f"-{m.figure.KIND}" if type(m) is M.Place and
                                                                             m.figure is not None else "")
                                                        for m, _ in WRITTEN])
def test_a_move_is_its_written_form_and_is_read_back_from_it(move, written):
    assert move == written and hash(move) == hash(written)
    back = M.as_move(written)
    assert back == move and type(back) is type(move)
    if type(move) is M.Place and move.figure is not None:
        assert type(back.figure) is type(move.figure)
    via_json = M.as_move(json.loads(json.dumps(move)))  # lists, as records and state files hold them
    assert via_json == move and type(via_json) is type(move)
    assert pickle.loads(pickle.dumps(move)) == move and type(pickle.loads(pickle.dumps(move))) is type(move)
    assert M.written(move) == written


def test_kinds_with_the_same_items_are_told_apart():
    assert M.Pass() != M.Discard() and M.Recall(0, (0, 0), 1) != M.PutAt(0, (0, 0), 1)
    assert {type(m).KIND for m, _ in WRITTEN} == {"place", "discard", "pass", "capture", "ransom", "catapult",
                                                 "remove", "outpost"}
    assert {m.figure.KIND for m, _ in WRITTEN if type(m) is M.Place and m.figure is not None} == \
        {"put", "corner", "recall", "at"}


@pytest.mark.parametrize("bad", [(), ("fly", 1), ("capture", 1, 2), ((0, 0), 90), ((0, 0, 1), 90, None),
                                 ((0, 0), 90, (1,)), ((0, 0), 90, ("recall", 1, 2)), 5, "discard", None])
def test_what_has_the_shape_of_no_move_is_not_a_move(bad):
    with pytest.raises(M.NotAMove):
        M.as_move(bad)


def test_the_engine_refuses_a_shapeless_move_with_a_clause():
    """BASE-FOLLOW-1 names the refusal: not a traceback (the engine's IllegalAction)."""
    eng = engine("base")
    g = eng.new_game(2, 1)
    with pytest.raises(eng.IllegalAction) as exc:
        g.apply_action(("fly", 1))
    assert exc.value.clause == g.R.CLAUSE_FOLLOW and "no move is called 'fly'" in exc.value.message
    with pytest.raises(eng.IllegalAction) as exc:
        g.apply_action(((0, -1), 45, None))
    assert exc.value.clause == g.R.CLAUSE_MATCHING


@pytest.mark.parametrize("rules", [("base",), ("base", "barn"), ("base", "tower"), ("base", "siege")],
                         ids=lambda r: "+".join(r))
def test_legal_actions_are_typed_and_every_clause_table_exists(rules):
    """Every listed move is of a move type (its figure too), and every type's CLAUSE names a table
    the generated rules have."""
    eng = engine(*rules)
    g = eng.new_game(2, 3)
    E = sys.modules[type(g).__module__.rsplit(".", 1)[0] + ".moves"]  # the engine's own copy of moves.py
    seen = set()
    for _ in range(40):
        acts = g.legal_actions()
        if not acts:
            break
        for a in acts:
            assert type(a) in E.MOVES, a
            if type(a) is E.Place and a.figure is not None:
                assert type(a.figure) in E.WITH_TILE, a
                seen.add(type(a.figure))
            seen.add(type(a))
        g.apply_action(acts[len(acts) // 2])
    for t in seen:
        assert hasattr(g.R, t.CLAUSE), (t.__name__, t.CLAUSE)


# ------------------------------------------------------------------ what each type declares
def test_every_move_type_names_the_game_methods_that_apply_and_list_it():
    from tessera.compiler.runtime.game import Game
    from tessera.compiler.runtime.moments import _method
    assert set(M.ORDER) | set(M.CHANCE) == M.MOVES and M.ORDER[0] is M.Place and M.ORDER[-1] is M.Discard
    # chance's move (the tile drawn) is no player's: never listed (no OPTIONS), never numbered (not in ORDER)
    assert M.CHANCE == (M.Draw,) and M.Draw.OPTIONS is None and not set(M.CHANCE) & set(M.ORDER)
    for T in M.ORDER + M.CHANCE:
        assert T.WHEN and set(T.WHEN) <= set(M.MOMENTS) and M.OVER not in T.WHEN, (T.KIND, T.WHEN)
        for m in T.WHEN:  # one APPLY and OPTIONS for all its moments, or one per moment
            for attr in ("APPLY", "OPTIONS"):
                name = getattr(T, attr)
                name = name[m] if isinstance(name, dict) else name
                if name is not None:  # Place and Discard: listed by listing.py and legal_actions themselves
                    assert callable(name) or callable(getattr(Game, name, None)) or callable(_method(Game, name)), \
                        (T.KIND, m, attr, name)  # a Game method, or "module.function" of a component's module
            assert T.APPLY is not None and (not isinstance(T.APPLY, dict) or m in T.APPLY), (T.KIND, m)
        assert T.DOMAINS is None or all(d in ("seat", "figure", "track") or (isinstance(d, tuple) and d)
                                        for d in T.DOMAINS), T.KIND
        assert T.DOMAINS is None or len(T.DOMAINS) == len(T._fields) - 1, T.KIND  # one domain per field
    assert M.Place.APPLY == "_apply_place" and M.Ransom.OPTIONS == "prisoners.ransom_options"
    assert M.Pass.APPLY[M.CLOSING] == "_pass_on" and M.Pass.APPLY[M.CAPTURE] == "prisoners.no_capture"
    from tessera.compiler.runtime import prisoners
    assert _method(Game, M.Capture.APPLY) is prisoners.apply_capture


def test_each_moment_offers_its_types_in_a_fixed_order():
    """The moments of a turn and the types each offers (their WHEN), in the order legal_actions lists them."""
    assert M.OFFERED == {
        M.TURN: (M.Place, M.Discard, M.Ransom),
        M.CATAPULT: (M.Catapult,),
        M.REMOVE: (M.Remove,),
        M.OUTPOST: (M.Outpost, M.Pass),
        M.CAPTURE: (M.Capture, M.Ransom, M.Pass),
        M.CLOSING: (M.Ransom, M.Pass),
        M.OVER: (),
    }


def test_a_rule_set_has_a_move_where_a_table_its_type_names_is_there():
    base, tower = engine("base").rules, engine("base", "tower").rules
    assert M.in_rules(M.Place, base) and M.in_rules(M.Discard, base)
    assert not M.in_rules(M.Ransom, base) and M.in_rules(M.Ransom, tower)
    assert not M.in_rules(M.Pass, base) and M.in_rules(M.Pass, tower)
    assert not M.in_rules(M.Catapult, tower)


def test_the_codec_blocks_follow_the_types_order_and_only_where_the_rules_have_the_move():
    from tessera.replay.actions import ActionCodec
    for mods in (("base",), ("base", "tower"), ("base", "siege")):
        e = engine(*mods)
        c = ActionCodec(e)
        kinds = [k for k, _, _, _ in c.blocks]
        assert kinds == [T.KIND for T in M.ORDER[1:] if M.in_rules(T, e.rules)], mods
        ends = [c.placements] + [b + n for _, b, n, _ in c.blocks]
        assert [b for _, b, _, _ in c.blocks] == ends[:-1]  # each block starts where the one before ends
        assert c.discard == c.size - 1
        if "tower" in mods:  # a ransom's number is its fields in mixed radix: holder, then figure
            assert c.encode(None, M.Ransom(1, 1)) == c.ransom_base + 1 * len(c.figures) + 1
            assert c.describe(c.ransom_base + len(c.figures) + 1) == f"ransom own {c.figures[1]} from seat 1"


def _declare(monkeypatch, EM, EG, T):
    """Add move type T to a compiled engine's copy of moves.py, just before Discard in ORDER, and give
    its game.py the tables it builds from moves.py at import (OFFERED, then what applies each type at
    each moment): what a type written into moves.py gets, with no change to game.py."""
    order = EM.ORDER[:-1] + (T, EM.Discard)
    monkeypatch.setattr(EM, "ORDER", order)
    monkeypatch.setattr(EM, "MOVES", frozenset(order))
    monkeypatch.setitem(EM.TAGGED, T.KIND, T)
    offered = EM.offered(order)
    applying = sys.modules[EG.__name__.rsplit(".", 1)[0] + ".moments"].applying(EG.Game, offered)
    monkeypatch.setattr(EG, "_OFFERED", offered)
    monkeypatch.setattr(EG, "_APPLY", applying)
    monkeypatch.setattr(EG, "_APPLY_TURN", applying[EM.TURN])


def _runtime(e):
    pkg = type(e.new_game(2, 0)).__module__.rsplit(".", 1)[0]
    return sys.modules[pkg + ".moves"], sys.modules[pkg + ".game"]


def test_a_move_declared_in_the_turn_is_offered_applied_numbered_and_refused_generically(monkeypatch):
    """The generic path (no move of today's rule sets uses it): a move type made here as moves.py
    would declare it, put into the compiled engine's copy of the tables that moves.py builds from
    ORDER, is listed after the placements, applied by its APPLY, numbered by the codec from its
    DOMAINS and refused where the rules lack it -- with no change to game.py or actions.py."""
    from tessera.replay.actions import ActionCodec
    from tessera.replay.tiles import engine_for

    e = engine_for(["base"], [])
    EM, EG = _runtime(e)

    def apply(g, move):
        g.history.append((None, move))
        g.finish()

    Concede = EM._tagged("concede", ("seat",), "End the game now (a test's move).", "CONCEDE", apply,
                         lambda g: [Concede(g.current)], rules=("CONCEDE",), domains=("seat",), when=(EM.TURN,))
    _declare(monkeypatch, EM, EG, Concede)

    g = e.new_game(2, 3)
    assert all(a.KIND != "concede" for a in g.legal_actions())  # these rules have no CONCEDE
    with pytest.raises(e.IllegalAction):
        g.apply_action(Concede(0))
    plain = ActionCodec(e)

    monkeypatch.setattr(e.rules, "CONCEDE", "BASE-TURN-1", raising=False)
    c = ActionCodec(e)
    assert (c.base["concede"], c.discard, c.size) == (plain.discard, plain.discard + c.seats, plain.size + c.seats)
    assert c.describe(c.base["concede"] + 1) == "concede seat 1"  # one number per seat
    g = e.new_game(2, 3)
    acts = list(g.legal_actions())
    assert acts[-1] == Concede(0) and sum(a.KIND == "concede" for a in acts) == 1
    assert c.legal(g)[c.base["concede"]] == Concede(0) and c.encode(g, Concede(1)) == c.base["concede"] + 1
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(Concede(1))  # not offered: the other seat's
    assert exc.value.clause == "BASE-TURN-1" and exc.value.message == "no concede (1,) may be played now"
    g.apply_action(Concede(0))
    assert g.is_terminal() and g.history[-1] == (None, ("concede", 0))
    back = type(g).from_json(e.rules, g.to_json())  # tessera-state/1 reads it back through as_move
    assert back.history == g.history and back.scores == g.scores and back.ended


def _to_moment(e, moment, games=40):
    """A game of e (random moves, seeds 0, 1, ...) brought to the first state at `moment`."""
    import random
    for seed in range(games):
        g, rng = e.new_game(2, seed), random.Random(seed)
        while not g.is_terminal():
            if g.moment() == moment:
                return g
            acts = g.legal_actions()
            g.apply_action(acts[rng.randrange(len(acts))])
    raise AssertionError(f"no game of {games} reached the moment {moment!r}")


def test_a_move_declared_at_another_moment_is_offered_applied_numbered_and_refused_there_only(monkeypatch):
    """A move type made here, declared at the capture moment only (WHEN), with its own APPLY and
    OPTIONS and no change to game.py: listed at that moment between the ransoms and the pass,
    applied there (the capture declined, one point to its player, the turn scored), refused at the
    tile turn with its own clause and at the closing moment as that moment refuses any other move,
    numbered by the codec from its DOMAINS, and read back from tessera-state/1."""
    from tessera.replay.actions import ActionCodec
    from tessera.replay.tiles import engine_for

    e = engine_for(["base", "tower"], [])
    EM, EG = _runtime(e)

    def options(g):
        return [Forgo(g.current)]

    def apply(g, move):  # forgo the capture in range: a point instead of a capture, then the turn is scored
        g.history.append((None, move))
        g.scores[move.seat] += 1
        g.events.append({"turn": g.turn, "kind": "forgo", "player": g.names[move.seat], "clause": g.R.FORGO})
        g._end_turn()

    Forgo = EM._tagged("forgo", ("seat",), "Capture nothing, for a point (a test's move).", "FORGO", apply,
                       options, rules=("FORGO",), domains=("seat",), when=(EM.CAPTURE,))
    _declare(monkeypatch, EM, EG, Forgo)
    offered = EM.offered(EM.ORDER)[EM.CAPTURE]  # after the capture and the ransom, before the pass
    assert offered[:2] == (EM.Capture, EM.Ransom) and offered[-2:] == (Forgo, EM.Pass)

    g = _to_moment(e, EM.CAPTURE)  # these rules have no FORGO: the moment lists it not, and refuses it
    assert all(a.KIND != "forgo" for a in g.legal_actions())
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(Forgo(g.current))
    assert exc.value.clause == e.rules.CLAUSE_FOLLOW

    monkeypatch.setattr(e.rules, "FORGO", "TOWER-CAPTURE-1", raising=False)
    c = ActionCodec(e)
    assert c.describe(c.base["forgo"] + 1) == "forgo seat 1" and c.discard == c.base["forgo"] + c.seats
    g = _to_moment(e, EM.CAPTURE)
    acts = g.legal_actions()
    p = g.current
    assert acts[-2:] == [Forgo(p), EM.Pass()] and sum(a.KIND == "forgo" for a in acts) == 1
    assert c.legal(g)[c.base["forgo"] + p] == Forgo(p) and c.encode(g, Forgo(p)) == c.base["forgo"] + p
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(Forgo(1 - p))  # offered now, but not that one: its own clause
    assert (exc.value.message, exc.value.clause) == (f"no forgo ({1 - p},) may be played now", "TOWER-CAPTURE-1")
    declined = g.clone()
    declined.apply_action(EM.Pass())
    n, turn = len(g.events), g.turn
    g.apply_action(Forgo(p))
    assert g.history[-1] == (None, ("forgo", p)) and g.moment() == declined.moment() != EM.CAPTURE
    assert g.scores == [s + (q == p) for q, s in enumerate(declined.scores)]
    assert g.events[n] == {"turn": turn, "kind": "forgo", "player": g.names[p], "clause": "TOWER-CAPTURE-1"}
    assert g.events[:n] + g.events[n + 1:] == declined.events  # the same scoring as the pass's, after it
    back = type(g).from_json(e.rules, g.to_json())  # tessera-state/1 reads it back through as_move
    assert back.history == g.history and back.scores == g.scores and back.events == g.events

    while g.moment() != EM.TURN:  # the tile turn: not offered, refused with its own clause
        g.apply_action(g.legal_actions()[-1])
    assert all(a.KIND != "forgo" for a in g.legal_actions())
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(Forgo(g.current))
    assert (exc.value.message, exc.value.clause) == (f"no forgo ({g.current},) may be played now", "TOWER-CAPTURE-1")

    g = _to_moment(e, EM.CLOSING, games=200)  # after the scoring: refused as that moment refuses any other move
    assert all(a.KIND != "forgo" for a in g.legal_actions())
    with pytest.raises(e.IllegalAction) as exc:
        g.apply_action(Forgo(g.current))
    assert exc.value.clause == e.rules.RANSOM[3] and exc.value.message.startswith("the turn is scored")
