"""Replay as translation (issue 36, docs/architecture.md "Replay as translation"): a record turn is
translated into moves by `turns.turn_moves(turn, view, i)`, which reads the game only through its
read-only view (runtime/view.py's TurnView), and the engine applies each move.  Nothing in the
translation changes the game: between two moves the game is exactly as the last `apply_action` left
it (and as the engine's own lazy play of the drawn tile's siege symbols leaves it, which any question
about the turn causes).  Checked on the rulebooks' worked games and the tests' records of the
expansions with decisions in a turn: the Siege (catapults, attacks and their removals, an outpost's
extra figure), the Tower (captures, ransoms before and after the scoring), the barn."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tessera.compiler.runtime.core import fields_of
from tessera.replay import turns
from tessera.replay.tiles import replay

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "rules" / "records" / m for m in ("siege", "tower", "barn")] + \
          [ROOT / "tests" / "records" / m for m in ("siege", "tower", "barn")]


def _records() -> list[Path]:
    out = []
    for folder in FOLDERS:
        for p in sorted(folder.glob("*.json")):
            if p.name != "expected.json" and json.loads(p.read_text()).get("format", "tessera-game/1") == "tessera-game/1":
                out.append(p)
    return out


def _state(g) -> dict:
    """Everything the game holds, by attribute (a component by its slots), as text."""
    out = {}
    for k, v in sorted(fields_of(g).items()):
        if k in ("R", "Rd") or callable(v):  # the rules, and their tables (vars(R))
            continue
        if isinstance(v, random.Random):
            v = v.getstate()
        slots = getattr(type(v), "__slots__", None)
        if slots and not isinstance(v, tuple):
            v = {s: getattr(v, s, None) for s in slots}
        out[k] = repr(v)
    return out


def _changed(before: dict, after: dict) -> list[str]:
    return [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]


@pytest.mark.slow
def test_the_translation_of_a_record_changes_nothing_in_the_game(monkeypatch):
    real = turns.turn_moves
    moves = {"n": 0, "siege": 0}

    def checked(t, v, i=0):
        g = v._g  # the test's own look behind the view, to compare the whole game
        it = real(t, v, i)
        drawn = False
        while True:
            if drawn:
                g.deciding()  # the engine's own lazy play of the drawn tile's symbols (any question about the turn)
            before = _state(g)
            try:
                move = next(it)
            except StopIteration:
                return
            finally:
                after = _state(g)
                assert not _changed(before, after), (f"turn {i}: the translation changed "
                                                     f"{', '.join(_changed(before, after))}")
            drawn = drawn or move.KIND == "draw"
            moves["n"] += 1
            moves["siege"] += move.KIND in ("catapult", "remove", "outpost")
            yield move

    monkeypatch.setattr(turns, "turn_moves", checked)
    paths = _records()
    assert len(paths) > 30
    for p in paths:
        record = json.loads(p.read_text())
        res = replay(record, p.parent)
        expected = p.parent / "expected.json"
        if expected.exists():  # the rulebook's folders: the replay still answers what it did
            want = json.loads(expected.read_text()).get(p.name)
            if isinstance(want, dict) and "scores" in want and res.error is None:
                assert res.answer["scores"] == want["scores"], p
    # the records exercised the moves a turn's decisions bring, not only tiles
    assert moves["n"] > 300 and moves["siege"] > 10, moves


def test_the_view_answers_values_the_game_does_not_keep():
    """A TurnView's answers are values: the bag's decks and the options are tuples, copied, so the
    translation holds no list of the game's."""
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    g = load_engine(require_rule_set(["base"])).new_game(2, 3)
    v = turns.view_of(g)
    decks = v.decks()
    assert isinstance(decks, tuple) and all(isinstance(d, tuple) for d in decks)
    assert sum(map(len, decks)) == sum(map(len, g.bag.decks))
    assert decks[v.deck_index(g.bag.drawn)] == tuple(g.bag.decks[v.deck_index(g.bag.drawn)])
    assert v.names == tuple(g.names) and v.drawn == g.bag.drawn
    assert v.capture() is None and v.outpost_decision() is None and not v.closing()
    assert isinstance(v.recall_options(), tuple) and isinstance(v.figure_options(v.orientation(0), (1, 0)), tuple)
    assert not hasattr(v, "__dict__")  # slots only: nothing can be hung on it
