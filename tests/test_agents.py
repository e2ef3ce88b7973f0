"""Players for `simulate --agents`: random, greedy and mcts:N, on every rule set.

Agents only use the engine's public game API, so what they play must be legal
under any rules: every game they play is replayed from its record (the replay
checks each move against the rules) to the same scores.
"""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tessera.play.agents import (LADDER, AgentSpecError, GreedyAgent, RandomAgent, make_agent, parse_agents, strength,
                                     stronger)
from tessera.replay.tiles import engine_for, replay
from tessera.play.simulate import compare, play_one, seating, simulate

BIG_CITIES = str(Path(__file__).resolve().parent.parent / "rules" / "variants" / "big_cities.tess")
COMBOS = [["base"], ["base", "river", "abbot", "king_robber"], ["base", "barn"], [BIG_CITIES]]


def test_greedy_beats_random_clearly():
    """The greedy player takes points whenever a move gives them; over 8 games (4 in each seat) it
    scores far more than a random player."""
    eng = engine_for(["base"], [])
    first = simulate(eng, 4, 2, 11, ["base"], agents=["greedy", "random"])
    second = simulate(eng, 4, 2, 12, ["base"], agents=["random", "greedy"])
    greedy = sum(first.scores(0)) + sum(second.scores(1))
    rand = sum(first.scores(1)) + sum(second.scores(0))
    assert greedy / 8 > 1.5 * rand / 8, (greedy / 8, rand / 8)


@pytest.mark.slow
@pytest.mark.parametrize("rules", COMBOS, ids=["base", "river+abbot+king_robber", "barn", "big_cities"])
def test_agents_play_legal_games_under_every_rule_set(rules):
    eng = engine_for(rules, [])
    g, turns = play_one(eng, 2, 5, ["greedy", "mcts:2"])
    assert g.ended
    res = replay({"format": "tessera-game/1", "rules": rules, "players": list(g.names), "seed": g.seed,
                  "turns": turns, "end": "final"})
    assert res.error is None, res.error
    assert res.answer["scores"] == {g.names[p]: g.scores[p] for p in range(2)}


def test_same_seed_same_moves_for_search_players():
    eng = engine_for(["base"], [])
    assert play_one(eng, 2, 9, ["mcts:3", "greedy"])[1] == play_one(eng, 2, 9, ["mcts:3", "greedy"])[1]


def test_greedy_takes_the_points_on_offer():
    """Whenever some action scores for the greedy player, the one it picks scores at least as much."""
    eng = engine_for(["base"], [])
    g = eng.new_game(2, 3)
    rng = random.Random(3)
    greedy = GreedyAgent()
    seen = 0
    while not g.ended:
        acts = g.legal_actions()
        if not acts:
            break
        me = g.current_player()
        gains = []
        for a in acts:
            h = g.clone()
            h.apply_action(a)
            gains.append(h.returns()[me] - g.returns()[me] - (h.returns()[1 - me] - g.returns()[1 - me]))
        pick = greedy.choose(g, acts)
        assert gains[acts.index(pick)] == max(gains)
        seen += max(gains) > 0
        g.apply_action(acts[rng.randrange(len(acts))])
    assert seen > 0  # the game offered points at least once


def test_shuffle_bag_keeps_the_tiles_and_the_last_tile_last():
    """Determinization reorders only what a player cannot see: the same tiles, the river's lake still last
    (RIVER-SETUP-1), the drawn tile and the original game untouched."""
    eng = engine_for(["base", "river"], [])
    g = eng.new_game(2, 4)
    before = [list(d) for d in g.bag.decks]
    drawn = g.bag.drawn
    h = g.clone()
    h.shuffle_bag(random.Random(1))
    assert [list(d) for d in g.bag.decks] == before and h.bag.drawn == drawn
    assert [Counter(d) for d in h.bag.decks] == [Counter(d) for d in before]
    assert h.bag.decks != before  # a different order
    lake = eng.rules.TILE_IDS["river.lake"]
    river = next(d for d in h.bag.decks if any(t in lake for t in d))
    assert river[0] in lake  # drawn from the end: the lake comes out last


def test_a_clone_keeps_a_bag_of_its_own():
    """Game.bag is a component (runtime/bag.py) with its own clone: the tiles a clone draws, and a tile
    chance deals it by name (runtime/moves.py's Draw; the one drawn before goes back to its deck,
    BASE-SETUP-1's bag), leave the original's decks and drawn tile as they were."""
    eng = engine_for(["base"], [])
    g = eng.new_game(2, 4)
    before, drawn, advanced = [list(d) for d in g.bag.decks], g.bag.drawn, g.bag.advanced
    c = g.clone()
    assert c.bag is not g.bag and c.bag.decks[0] is not g.bag.decks[0]
    for _ in range(3):
        c.apply_action(c.legal_actions()[0])
    assert c.tiles_left() == g.tiles_left() - 3
    other = next(t for t in c.bag.decks[0] if t != c.bag.drawn)
    c.apply_action(("draw", other))
    assert c.bag.drawn == other
    assert [list(d) for d in g.bag.decks] == before and (g.bag.drawn, g.bag.advanced) == (drawn, advanced)

def test_a_clone_keeps_a_supply_of_its_own():
    """Game.supply is a component (runtime/figures.py) with its own clone: figures a clone puts from
    supply, and an abbot it may recall (ABBOT-RECALL-1: `recallable`), leave the original's supply as it was."""
    eng = engine_for(["base", "abbot"], [])
    g = eng.new_game(2, 4)
    before = [list(s) for s in g.supply.left]
    c = g.clone()
    assert c.supply is not g.supply and c.supply.left[0] is not g.supply.left[0]
    abbot = g.figure_index("abbot")
    while not c.supply.recallable:
        acts = c.legal_actions()
        puts = [a for a in acts if type(a[2]).__name__ in ("Put", "PutAt") and a[2][0] == abbot]
        c.apply_action(puts[0] if puts else acts[0])
    assert c.supply.left != before and sum(map(sum, c.supply.left)) < sum(map(sum, before))
    assert g.supply.left == before and g.supply.recallable == {}

_BOARD_LISTS = ("fkeys", "fcodes", "parent", "seg_kind", "seg_cell", "cells", "shields", "open", "figs", "borders", "done",
                "completed_count", "anywhere_segs")


def _board_of(g):
    """Everything the board component holds that a move changes, as plain values (each set of cells
    copied, so that a set changed in place would show)."""
    b = g.board
    return (dict(b.tiles), dict(b.frontier), dict(b.corner_at), b.on_corners,
            [[frozenset(v) if isinstance(v, set) else v for v in getattr(b, k)] for k in _BOARD_LISTS])


def test_a_game_and_its_clones_play_on_without_touching_each_others_features():
    """BASE-SCORE-1: a feature's tiles are those of the pieces merged into it.  A union makes a new set
    of cells (clones share the old ones, runtime/board.py): after two clones, each of the three games
    plays its own moves in turn and the others' features stay as they were."""
    eng = engine_for(["base"], [])
    g = eng.new_game(2, 7)
    rng = random.Random(7)
    for _ in range(25):
        acts = g.legal_actions()
        g.apply_action(acts[rng.randrange(len(acts))])
    c1 = g.clone()
    c2 = g.clone()
    games = [c2, g, c1]
    for game in games:  # the second clone plays on, then the original, then the first clone
        others = [o for o in games if o is not game]
        then = [_board_of(o) for o in others]
        merged = 0
        for _ in range(20):
            acts = game.legal_actions()
            if not acts:
                break
            before = sum(1 for v in game.board.cells if v is None)
            game.apply_action(acts[rng.randrange(len(acts))])
            merged += sum(1 for v in game.board.cells if v is None) - before
        assert merged > 0 and [_board_of(o) for o in others] == then


def test_a_clone_keeps_a_board_of_its_own():
    """Game.board is a component (runtime/board.py) with its own clone: the tiles a clone places
    (BASE-PLACE-1), the features they merge and complete (BASE-SCORE-2: followers go home) and a barn
    it puts where four tiles meet (BARN-PLACE-1: where the corner figures stand is the board's too,
    runtime/corners.py) leave the original's board as it was; and a game and its clone, given the same
    moves in turn to the end, stay equal (nothing mutable is shared between them)."""
    eng = engine_for(["base", "barn"], [])
    g = eng.new_game(2, 4)
    for _ in range(20):
        g.apply_action(g.legal_actions()[0])
    before = _board_of(g)
    c = g.clone()
    assert c.board is not g.board
    assert not any(getattr(c.board, k) is getattr(g.board, k) for k in ("tiles", "frontier", "corner_at", *_BOARD_LISTS))
    done = sum(g.board.completed_count)
    while not (c.board.corner_at and sum(c.board.completed_count) > done + 1):
        acts = c.legal_actions()
        barns = [a for a in acts if type(a[2]).__name__ == "PutCorner"]
        c.apply_action(barns[0] if barns else acts[0])
    assert c.board.on_corners == len(c.board.corner_at) >= 1 and len(c.board.tiles) > len(g.board.tiles)
    assert _board_of(g) == before and not g.board.corner_at
    h = c.clone()
    rng = random.Random(4)
    while not c.is_terminal():
        acts = c.legal_actions()
        i = rng.randrange(len(acts))
        c.apply_action(acts[i])
        h.apply_action(h.legal_actions()[i])
    assert h.is_terminal() and _board_of(h) == _board_of(c) and h.returns() == c.returns()
    assert _board_of(g) == before


def test_agent_names():
    assert parse_agents(None, 3) == ["random"] * 3
    assert parse_agents("greedy", 2) == ["greedy", "greedy"]
    assert parse_agents("mcts:50,random", 2) == ["mcts:50", "random"]
    assert make_agent("mcts:7", 1).name == "mcts:7"
    for bad in ("chess", "mcts:x", "mcts:0", "random:3"):
        with pytest.raises(AgentSpecError):
            parse_agents(bad, 2)
    with pytest.raises(AgentSpecError):
        parse_agents("greedy,random", 3)


def test_the_ladder_names():
    """`ladder:K` is the K-th rung (docs/simulate.md), played under its own name; rungs climb in strength."""
    assert parse_agents("ladder:0,ladder:3", 2) == [LADDER[0], LADDER[3]]
    assert make_agent("ladder:2", 1).name == LADDER[2]
    assert [strength(s) for s in LADDER] == sorted(strength(s) for s in LADDER)
    assert len({strength(s) for s in LADDER}) == len(LADDER)
    for bad in ("ladder", "ladder:-1", f"ladder:{len(LADDER)}", "ladder:x"):
        with pytest.raises(AgentSpecError):
            parse_agents(bad, 2)
    assert stronger(["greedy", "random", "random"]) == "greedy"
    assert stronger(["mcts:8", "mcts:32"]) == "mcts:32"
    assert stronger(["greedy", "greedy"]) is None and stronger(["greedy", "greedy", "random"]) is None


def test_search_looks_further_with_a_larger_budget():
    """mcts:N plays DEPTH rounds of greedy a simulation below DEEP_FROM simulations and DEEP_DEPTH from
    there on (what makes the ladder's top rung stronger than the one below, docs/simulate.md)."""
    from tessera.play.mcts import MCTSAgent

    assert MCTSAgent.DEEP_DEPTH > MCTSAgent.DEPTH
    assert make_agent(f"mcts:{MCTSAgent.DEEP_FROM - 1}", 1).depth == MCTSAgent.DEPTH
    assert make_agent(f"mcts:{MCTSAgent.DEEP_FROM}", 1).depth == MCTSAgent.DEEP_DEPTH


def test_search_rewards_the_change_of_the_lead_and_plays_the_best_mean():
    """mcts:N rewards a simulation by how the mover's lead changed from the position searched (a lead
    kept is worth 0.5, whatever the lead), and plays the move of best mean reward among those simulated
    (docs/simulate.md's ladder: rewards of the lead itself saturated and visits spread evenly)."""
    from tessera.play.mcts import lead, position_value

    eng = engine_for(["base"], [])
    g = eng.new_game(2, 4)
    seats = [GreedyAgent(), RandomAgent(4)]
    checked = differs = 0
    while not g.ended and checked < 6:
        acts = g.legal_actions()
        me = g.current_player()
        if me == 0 and len(acts) > 3 and lead(position_value(g), me) != 0:
            agent = make_agent("mcts:24", 7)
            chosen = acts.index(agent.choose(g, acts))
            assert agent.base == lead(position_value(g), me)
            assert agent._reward(position_value(g), me) == 0.5
            st = agent.last
            means = [r / v for r, v in zip(st["reward"], st["visits"])]
            assert st["sims"][chosen] > 0 and sum(st["sims"]) == 24
            assert means[chosen] == max(m for m, s in zip(means, st["sims"]) if s > 0)
            most = max(range(len(acts)), key=lambda i: (st["sims"][i], st["prior"][i], -i))
            differs += most != chosen  # the most simulated move is not always the one played
            checked += 1
        g.apply_action(seats[me].choose(g, acts))
    assert checked == 6 and differs >= 1


def test_search_player_outscores_random_players():
    """mcts:N values positions by the rules (the scores were the game to end now): with a handful of
    simulations it already scores more than a random player in each seat."""
    eng = engine_for(["base"], [])
    for seats, me in ((["mcts:4", "random"], 0), (["random", "mcts:4"], 1)):
        g, _ = play_one(eng, 2, 21, seats, record=False)
        assert g.returns()[me] > g.returns()[1 - me], (seats, g.returns())


def test_rotated_seats_and_the_stronger_players_edge():
    """--rotate-seats moves the players one seat on a game; the stronger player's edge is read from the
    seat it sat in, per game, and compared between two rule sets game by game."""
    assert [seating(["a", "b", "c"], i, True) for i in range(4)] == [
        ["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"], ["a", "b", "c"]]
    assert seating(["a", "b"], 1, False) == ["a", "b"]
    base, big = engine_for(["base"], []), engine_for([BIG_CITIES], [])
    ours = simulate(big, 4, 2, 5, [BIG_CITIES], agents=["greedy", "random"], rotate=True)
    ref = simulate(base, 4, 2, 5, ["base"], agents=["greedy", "random"], rotate=True)
    for s in (ours, ref):
        assert [r["agents"] for r in s.rows] == [["greedy", "random"], ["random", "greedy"]] * 2
        seats = [r["agents"].index("greedy") for r in s.rows]
        leads = [r["scores"][p] - r["scores"][1 - p] for r, p in zip(s.rows, seats)]
        assert s.edge_lead() == leads
        assert s.edge_won() == [int(x > 0) for x in leads]
        e = s.to_dict()["edge"]
        assert e["player"] == "greedy" and e["seats"] == "rotated" and e["wins"]["count"] == sum(x > 0 for x in leads)
        assert e["lead"]["mean"] > 0  # greedy outscores a random player, whichever seat it sits in
        assert [b["agent"] for b in s.to_dict()["by_seat"]] == ["rotated", "rotated"]
    rows = {r["measure"]: r for r in compare(ours, ref)}
    lead = rows["edge: lead of the stronger player (greedy) over the best other"]
    assert lead["diff"] == pytest.approx(sum(ours.edge_lead()) / 4 - sum(ref.edge_lead()) / 4, abs=1e-3)
    assert "edge: win rate of the stronger player (greedy)" in rows
    same = simulate(base, 2, 2, 5, ["base"], agents=["greedy", "greedy"])
    assert same.to_dict()["edge"] is None
    assert not any(r["measure"].startswith("edge") for r in compare(same, same))


@pytest.mark.parametrize("variant", [None, "card_track_end.tess", "card_deal_passes_left.tess"])
def test_the_card_games_quiet_moves_leave_the_projected_scores(variant):
    """CARD-ROUND-1 (a feudal takes the cards to its left): the card engine's `score_classes` says
    None only for a move that leaves `projected_returns()` as it is (a card played that does not end
    the round goes right of every feudal; a set-up joker), which the greedy player then need not try;
    each such move is tried here in full on a clone, at every position of random 3- and 5-player games."""
    rules = ["card"] + ([str(Path(__file__).resolve().parent.parent / "rules" / "variants" / variant)] if variant else [])
    eng = engine_for(rules, [])
    quiet = tried = 0
    for players, seed in ((3, 1), (5, 2)):
        g = eng.new_game(players, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            acts = g.legal_actions()
            keys = g.score_classes(acts)
            assert len(keys) == len(acts)
            now = g.projected_returns()
            for a, k in zip(acts, keys):
                tried += 1
                if k is None:
                    quiet += 1
                    h = g.clone()
                    h.apply_action(a)
                    assert h.projected_returns() == now, (players, g.turn, a)
            g.apply_action(acts[rng.randrange(len(acts))])
    assert quiet > tried // 3  # most plays are quiet: the shortcut is worth having


def _frontier_expected(b):
    """Every empty cell beside a placed tile, with the edge code its neighbours show it (geometry.edge_base:
    the neighbour on side s showing edge e adds (e + 1) * base ** s), worked out from the tiles alone."""
    from tessera.compiler.runtime.geometry import DX, DY, OPP

    tiles, out = b.tiles, {}
    for x, y in tiles:
        for d in range(4):
            c = (x + DX[d], y + DY[d])
            if c not in tiles and c not in out:
                out[c] = sum((tiles[(c[0] + DX[s], c[1] + DY[s])][0].edges[OPP[s]] + 1) * b.edge_base ** s
                             for s in range(4) if (c[0] + DX[s], c[1] + DY[s]) in tiles)
    return out


@pytest.mark.parametrize("agent,modules", [("random", ["base", "barn"]), ("greedy", ["base", "tower"])])
def test_the_frontier_lists_hold_each_empty_cell_beside_a_tile_once_with_its_edge_code(agent, modules):
    """BASE-PLACE-1 (a tile goes beside a placed one, its edges matching the neighbours'): the listing walks
    the frontier as two lists in the order its cells came (Board.fkeys, fcodes; a filled cell's code is 0,
    and the lists are compacted as filled cells pile up).  After every move of a game -- the greedy
    player with a tower's capture range tries placements on the board itself and takes each back
    (Lookahead._with_tile) -- the live entries are exactly
    the empty cells beside a tile, each once, in `frontier`'s order, each with the code its neighbours
    show it, and `frontier` gives each cell's place."""
    eng = engine_for(modules, [])
    g = eng.new_game(2, 3)
    rng = random.Random(3)
    player = make_agent(agent, 3) if agent == "greedy" else None
    compacted = False
    for _ in range(40 if agent == "greedy" else 120):
        acts = g.legal_actions()
        if not acts:
            break
        g.apply_action(player.choose(g, acts) if player else acts[rng.randrange(len(acts))])
        b = g.board
        live = [(k, code) for k, code in zip(b.fkeys, b.fcodes) if code]
        assert [k for k, _ in live] == list(b.frontier) and len(b.fkeys) == len(b.fcodes)
        assert all(b.fkeys[i] == k for k, i in b.frontier.items())
        assert {b.cell_of[k]: code for k, code in live} == _frontier_expected(b)
        assert b.code_of(next(iter(b.at))) is None  # a filled cell is on no frontier
        compacted |= len(b.fkeys) < len(b.tiles) + len(b.frontier) - 1
    assert compacted
