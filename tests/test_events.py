"""The event registry (compiler/runtime/events.py): every event the engine emits is declared, and
every declared event is shown.

Games of every bundled module (and the house rule that releases prisoners at a round's end) and
of the card game are played with a player that takes captures, ransoms, outposts and recalls
when it can, so the expansions' events happen; every event they emit must be of a declared kind
with the declared fields, every declared kind must be emitted by them (so the registry holds no
kind the engine never makes), and every kind must reach a person: the viewer or the answer of
`tessera replay --json` or the rule-usage count, and an event that moves points both the answer
and the viewer (the `Spare` example of docs/architecture.md scored a point that neither showed).
"""
from __future__ import annotations

import random

import pytest

from conftest import engine
from tessera.compiler.runtime import events as E

SETS = [("base",), ("base", "river"), ("base", "abbot"), ("base", "barn"), ("base", "king_robber"),
        ("base", "tower"), ("base", "siege"), ("base", "refcard"),
        ("base", "tower", "rules/variants/prisoners_freed_each_round.tess"), ("card",)]
PREFERRED = ("capture", "ransom", "outpost", "catapult", "remove")


def _events(modules) -> list[dict]:
    eng = engine(*modules)
    out = []
    for seed in range(3):
        g = eng.new_game(players=3, seed=seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            acts = g.legal_actions()
            pref = [a for a in acts if a.KIND in PREFERRED or getattr(getattr(a, "figure", None), "KIND", None) == "recall"]
            g.apply_action(rng.choice(pref) if pref and rng.random() < 0.7 else rng.choice(acts))
        out += g.events
    return out


@pytest.fixture(scope="module")
def emitted() -> dict[str, list[dict]]:
    by_family: dict[str, list[dict]] = {E.TILES: [], E.CARDS: []}
    for modules in SETS:
        by_family[E.CARDS if modules == ("card",) else E.TILES] += _events(modules)
    return by_family


@pytest.mark.slow
@pytest.mark.parametrize("family", [E.TILES, E.CARDS])
def test_every_emitted_event_is_declared_with_its_fields(emitted, family):
    kinds = {}
    for ev in emitted[family]:
        t = E.REGISTRY[family].get(ev["kind"])
        assert t is not None, f"the engine emits an undeclared {family} event {ev['kind']!r}: {ev}"
        missing = set(t.fields) - set(ev)
        extra = set(ev) - set(t.fields) - set(t.optional)
        assert not missing and not extra, (ev, missing, extra)
        kinds[ev["kind"]] = kinds.get(ev["kind"], 0) + 1
    # and the games reached every declared kind: the registry declares nothing the engine never makes
    assert set(kinds) == set(E.REGISTRY[family]), (sorted(kinds), sorted(E.REGISTRY[family]))


@pytest.mark.parametrize("family", [E.TILES, E.CARDS])
def test_every_declared_event_reaches_a_person(family):
    for kind, t in E.REGISTRY[family].items():
        assert t.kind == kind and t.family == family and t.clause and t.doc
        assert t.shown is not None or t.answer is not None or t.usage is not None or kind == "end", kind
        if t.points is not None:  # points that move are in the answer and on the page
            assert t.answer is not None and t.shown is not None, kind
        if family == E.TILES and t.shown is not None:  # the viewer's list of events says it in words
            sample = {f: "x" for f in t.fields} | {"at": [0, 0], "points": {"red": 1}, "when": "end"}
            assert E.sentence(E.shown_event(dict(sample, kind=kind))), kind


@pytest.mark.slow
def test_shown_events_have_sentences_and_answers_keep_their_points(emitted):
    for ev in emitted[E.TILES]:
        if E.is_shown(ev):
            assert E.sentence(E.shown_event(ev))
        t = E.REGISTRY[E.TILES][ev["kind"]]
        if t.points is not None:
            assert E.answer_event(ev)["points"] == ev[t.points]


def test_an_undeclared_event_is_not_silently_dropped():
    # a move added the documented way (docs/architecture.md's `Spare`) with an event nobody declared:
    # the replay answer and the viewer refuse to leave it out silently
    spare = {"turn": 3, "kind": "spare", "player": "red", "points": {"red": 1}, "clause": "SPARE"}
    with pytest.raises(KeyError):
        E.answer_events([spare])
    with pytest.raises(KeyError):
        E.sentence(spare)
    assert not E.is_shown(spare)


def test_points_by_source_come_from_the_declarations():
    events = [{"turn": 1, "kind": "score", "feature": "outpost", "outpost": "north", "when": "full",
               "points": {"red": 4}, "clause": "SIEGE-X"},
              {"turn": 2, "kind": "ransom", "player": "red", "holder": "blue", "figure": "follower",
               "points": {"red": -3, "blue": 3}, "clause": "TOWER-RANSOM-1"},
              {"turn": 3, "kind": "score", "feature": "field", "when": "end", "tiles": 4, "points": {"blue": 6},
               "clause": "BARN-1"}]
    figures = {("field", "end", "BARN-1"): "barn"}
    assert E.point_sources(events, figures) == {"field: barn": 6, "outpost: north": 4, "ransoms paid": -3,
                                                "ransoms received": 3}
    assert E.points_by_feature(events) == {"outpost": 4, "field": 6}
