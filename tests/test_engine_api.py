"""The engine API of docs/engine.md: actions as record turns and stable integers,
and the greedy-vs-random example run as it is printed there."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.replay.actions import PLACES, ActionCodec
from tessera.replay.tiles import engine_for, replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "greedy_vs_random.py"


@pytest.fixture(scope="module", params=[["base"], ["base", "river", "abbot"], ["base", "barn"]], ids=lambda m: "+".join(m))
def eng(request):
    return request.param, engine_for(request.param, [])


def _row_start(radius: int, dy: int) -> int:
    """Cells in the rows above row dy of a diamond of this radius (counted afresh, not by the codec)."""
    return sum(2 * (radius - abs(r)) + 1 for r in range(-radius, dy))


def test_numbering_is_the_documented_formula():
    codec = ActionCodec(engine_for(["base"], []))
    # base: 72 tiles, one is the start tile (BASE-COMP-1, BASE-SETUP-1), so 71 can be placed
    assert codec.radius == 71
    assert codec.slots == 1 + 17 + 7  # no figure, follower on one of 17 places, recall slots (7 followers)
    assert len(codec.cells) == 2 * 71 * 71 + 2 * 71 + 1
    # [0,-1] rotation 90, a follower on Nw: row dy=-1 starts at dx=-70
    cell = _row_start(71, -1) + (0 - -70)
    n = (cell * 4 + 1) * 25 + 1 + PLACES.index("Nw")
    assert codec.describe(n) == "[0,-1] rotation 90, follower on Nw"
    assert codec.describe(codec.size - 1) == "discard"
    assert codec.size == len(codec.cells) * 4 * 25 + 1
    # with the River: 12 river tiles more (RIVER-COMP-1), less the source (the start tile) and
    # the D that goes back in the box (RIVER-SETUP-1); the Abbot adds a figure with 1 per player
    both = ActionCodec(engine_for(["base", "river", "abbot"], []))
    assert both.radius == 72 + 12 - 1 - 1
    assert both.figures == ["follower", "abbot"] and both.slots == 1 + 2 * 17 + 7 + 1


def _random_games(mods, eng, games):
    codec = ActionCodec(eng)
    for seed in range(games):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        record = []
        while not g.is_terminal():
            legal = codec.legal(g)
            if not legal:
                break
            yield codec, g, legal
            n = rng.choice(list(legal))
            record.append(codec.turn(g, legal[n]))
            g.apply_action(codec.decode(g, n))
        doc = {"format": "tessera-game/1", "rules": mods, "players": list(g.names), "turns": record, "end": "final"}
        res = replay(doc)
        assert res.error is None and res.answer["scores"] == dict(zip(g.names, g.scores))


@pytest.mark.slow
def test_every_legal_move_has_its_own_number_and_means_the_same_turn(eng):
    mods, e = eng
    seen: dict[int, dict] = {}
    recalls = 0
    for codec, g, legal in _random_games(mods, e, 2):
        assert len(legal) == len(g.legal_actions())  # one number per action, none shared
        assert list(legal) == sorted(legal) and all(0 <= n < codec.size for n in legal)
        for n, a in legal.items():
            t = codec.turn(g, a)
            assert codec.decode(g, n) == a
            t.pop("tile")
            t.pop("variant", None)  # the drawn copy (a garden copy), like the tile: chance's, not the move's
            if "recall" in t:
                recalls += 1
                continue  # a recall slot counts the player's own figures, so it is per state
            # the same number is the same move in every state (whatever the tile)
            assert seen.setdefault(n, t) == t, (n, seen[n], t)
            d = codec.describe(n)
            assert d.startswith(f"[{t['at'][0]},{t['at'][1]}] rotation {t['rotation']}")
            if "place" in t:  # a barn names its corner (BARN-PLACE-1), every other figure its place
                where = t["place"].get("on", t["place"].get("corner"))
                assert d.endswith(f"{t['place']['figure']} on {where}")
    if "abbot" in mods:
        assert recalls > 0  # ABBOT-RECALL-1 moves were numbered too


def test_an_illegal_number_is_refused():
    e = engine_for(["base"], [])
    codec = ActionCodec(e)
    g = e.new_game(2, 0)
    with pytest.raises(ValueError, match="not legal now"):
        codec.decode(g, codec.size - 1)  # discard while the tile can be placed (BASE-PLACE-3)


@pytest.mark.slow
def test_greedy_vs_random_example_runs_as_printed():
    doc = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in doc  # the page shows the file as it is
    lines = [l for l in EXAMPLE.read_text(encoding="utf-8").splitlines() if l.strip() and not l.startswith('"""')]
    assert len(lines) <= 20  # the issue asks for a 20-line example
    out = subprocess.run([sys.executable, str(EXAMPLE)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    m = re.fullmatch(r"greedy (\d+) random (\d+) over 6 games\n", out.stdout)
    assert m, out.stdout
    assert int(m.group(1)) > int(m.group(2))
