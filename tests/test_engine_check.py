"""Engine check (issue: Topology verifier, part 3): the engine's incremental features
against a from-scratch networkx rebuild after every move."""
from __future__ import annotations

import random

import pytest

from tessera.compiler.build import load_engine
from conftest import rule_set
from tessera.verifier.engine_check import check_engine, compare, compile_complete_rules

COMBOS = [["base"], ["base", "river"], ["base", "abbot"], ["base", "king_robber"],
          ["base", "river", "abbot", "king_robber"]]


def _rs(names):
    return rule_set(*names)  # loaded once per session (tests/conftest.py)


@pytest.mark.parametrize("names", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_engine_agrees_with_rebuild(names):
    mismatches, checked = check_engine(_rs(names), games=3, players=3, seed=100)
    assert checked > 150
    assert mismatches == []


def _midgame(names, moves=30, seed=5):
    rs = _rs(names)
    eng = load_engine(rs)
    g = eng.new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        acts = g.legal_actions()
        g.apply_action(acts[rng.randrange(len(acts))])
    return rs, g


def test_a_feature_the_engine_failed_to_merge_is_caught():
    rs, g = _midgame(["base"])
    # find a merged feature and split one of its segments off, as a union-find bug would
    for s in range(len(g.board.parent)):
        r = g.board.find(s)
        if r != s and len(g.board.cells[r]) >= 2:
            g.board.parent[s] = s
            g.board.cells[s] = {g.board.seg_cell[s]}
            g.board.figs[s] = []
            break
    else:
        pytest.fail("no merged feature in this game")
    problems = compare(rs, g, compile_complete_rules(rs))
    assert any("does not hold this feature as one piece" in p for p in problems), problems


def test_a_lost_follower_is_caught():
    rs, g = _midgame(["base"])
    g.supply.left[0][0] -= 1
    problems = compare(rs, g, compile_complete_rules(rs))
    assert any("supply + board" in p for p in problems), problems


def test_a_wrong_open_count_is_caught():
    rs, g = _midgame(["base"])
    roads = [f for f in g.features() if f["kind"] == "road"]
    g.board.open[roads[0]["root"]] += 1
    problems = compare(rs, g, compile_complete_rules(rs))
    assert any("open edges" in p for p in problems), problems


def test_the_comparison_after_a_move_covers_the_features_on_its_tiles():
    """Between moves only the features on the tiles placed since the last comparison are compared (they are
    the ones a move can change); the whole board is compared at the end."""
    from tessera.verifier.engine_check import BoardGraph

    rs, g = _midgame(["base"])
    road = next(f for f in g.features() if f["kind"] == "road")
    g.board.open[road["root"]] += 1
    bg = BoardGraph(rs, {c: (o.tile.index, o.rot) for c, (o, _) in g.board.tiles.items()})
    rules = compile_complete_rules(rs)
    near = compare(rs, g, rules, bg, cells={min(road["cells"])})
    assert any("open edges" in p for p in near), near
    away = next(c for c in g.board.tiles if c not in road["cells"])
    assert not any("open edges" in p for p in compare(rs, g, rules, bg, cells={away}))
    assert any("open edges" in p for p in compare(rs, g, rules, bg))


def test_sampled_check_compares_at_every_completion_and_at_the_end(monkeypatch):
    """`verify --engine` compares after each move that completes a feature or scores, at the end, and one
    move in SAMPLE otherwise; the rebuild graph it grows move by move is the one built from scratch."""
    import tessera.verifier.engine_check as ec

    rs = _rs(["base", "abbot"])
    seen = []
    real = ec.compare

    def spy(rs_, g, rules, bg=None, cells=None):
        scratch = ec.BoardGraph(rs_, {c: (o.tile.index, o.rot) for c, (o, _) in g.board.tiles.items()})
        assert sorted(bg.components(), key=sorted) == sorted(scratch.components(), key=sorted)
        # between the whole-board comparisons at the end: the tiles placed since the last comparison
        assert (cells is None) == g.ended and (g.ended or cells == placed_since(g))
        seen.append((g.seed, len(g.history)))
        return real(rs_, g, rules, bg, cells)

    last: dict = {}

    def placed_since(g):
        now = set(g.board.tiles)
        fresh = now - last.get(g.seed, set())
        last[g.seed] = now
        return fresh

    monkeypatch.setattr(ec, "compare", spy)
    mismatches, checked = ec.check_engine(rs, games=2, players=2, seed=40, sample=ec.SAMPLE)
    assert mismatches == [] and checked == len(seen)
    from tessera.compiler.runtime.play import random_moves

    eng = load_engine(rs)
    for gseed in (40, 41):  # the same games again: which moves completed something
        due = set()
        mark = []

        def before(g, a):
            mark[:] = [sum(g.board.completed_count), len(g.events)]

        def after(g):
            if sum(g.board.completed_count) != mark[0] or any(e["kind"] in ("score", "award") for e in g.events[mark[1]:]):
                due.add(len(g.history))
            return False

        g = random_moves(eng.new_game(2, gseed), gseed, before=before, after=after)
        due.add(len(g.history))  # the end
        mine = {t for s, t in seen if s == gseed}
        assert due <= mine
        assert mine == due | {t for t in range(1, len(g.history) + 1) if t % ec.SAMPLE == 0}  # and one in SAMPLE


@pytest.mark.slow
def test_parallel_check_plays_the_same_games_as_one_process():
    """`verify --engine` splits the seeds over processes; the positions checked are those of one process."""
    from tessera.verifier.engine_check import SAMPLE, check_engine_parallel

    rs = _rs(["base"])
    one = check_engine(rs, 40, 2, 0, sample=SAMPLE)
    two = check_engine_parallel(rs, 40, 2, jobs=2)
    assert one == two and one[0] == []
