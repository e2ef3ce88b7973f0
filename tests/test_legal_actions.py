"""legal_actions lists every distinct legal placement exactly once (the fast paths change nothing).

The engine reads each empty cell's edges from one integer code, fits a tile through a table built
when the rules are imported, lists a symmetric tile's equal rotations once, and (for rules whose
figures ask only `figures == 0`) reads whether a feature is free from a mask of occupied parts.
These tests rebuild the listing the slow way, from the rulebook's clauses alone:

- BASE-PLACE-1: the tile goes on an empty cell beside a placed tile;
- BASE-PLACE-2: every side shows the same edge as the neighbour's side it meets;
- the rule set's own placement checks (RIVER-PLACE-1/2 for river tiles);
- BASE-FOLLOW-1/2/3: a follower goes on a feature of the tile just placed, from the supply,
  and only if the features that feature joins hold no figure (ABBOT: the same for the abbot on a
  cloister or garden; TOWER-TURN-1: a floor on the tile's tower foundation, with no condition);
- the Barn: BARN-PLACE-1, a barn goes on a corner of the tile where four tiles meet with field
  there (the geometry: `corner_refusal`), if that field holds no barn; a barn on a field makes
  nobody its owner (a field holding only a barn is free for a farmer) but BARN-FOLLOW-1 keeps
  farmers off a field with a barn;

and compare it with the engine's, placements being equal when they lay the same features on the
same places of the same cell (a tile with rotational symmetry: BASE-COMP-1's B, C, ...).
"""
from __future__ import annotations

import random

import pytest

from tessera.replay.tiles import engine_for
from tessera.compiler.runtime.corners import corner_refusal

DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
OPP = (2, 3, 0, 1)


def _outcome(g, cell, o, fig):
    """What a placement lays down, whatever rotation named it: cell, features by kind and places,
    and the figure with the places of the feature it stands on."""
    layout = frozenset((k, frozenset(ps)) for k, ps in zip(o.kinds, o.places))
    if fig is None:
        return (cell, layout, None)
    return (cell, layout, (fig[0], o.feats[fig[1]].kind, frozenset(o.places[fig[1]])) + tuple(fig[2:]))


def _joined_figures(g, o, cell, fi, only=None, but=()):
    """Figures on the features local feature fi of o at cell would join (of kind `only`, or
    all but the kinds `but`)."""
    x, y = cell
    roots = set()
    for d in range(4):
        nb = g.board.tiles.get((x + DX[d], y + DY[d]))
        if nb is None:
            continue
        no, nbase = nb
        for k, (a, b) in enumerate(zip(o.parts[d], no.parts[OPP[d]])):
            if a == fi and b >= 0:
                roots.add(g.board.find(nbase + b))
    return sum(1 for r in roots for e in g.board.figs[r] if (only is None or e[1] == only) and e[1] not in but)


def _holds(g, o, cell, fi, test, barn):
    """One comparison of a figure's condition, read on the features fi would join: `figures == 0`
    (BASE-FOLLOW-2: no figure that makes an owner, and a barn does not), `count(F) == 0`,
    `count(F) >= 1` (the Tower's TOWER-TOP-1 and TOWER-TURN-1)."""
    if test == "figures == 0":
        return _joined_figures(g, o, cell, fi, but=(barn,)) == 0
    name, op, value = test[len("count("):].replace(")", "").split()
    n = _joined_figures(g, o, cell, fi, only=g.figure_index(name))
    assert op in ("==", ">="), test  # the only conditions this test knows
    return n == int(value) if op == "==" else n >= int(value)


def _slow_listing(g, figures=True):
    """Every legal (cell, rotation, figure) outcome by the clauses above, from nothing but the board."""
    R = g.R
    tid = g.bag.drawn
    sup = g.supply.left[g.current]
    cells = {(x + dx, y + dy) for (x, y) in g.board.tiles for dx, dy in zip(DX, DY)} - set(g.board.tiles)
    out = set()
    for cell in cells:
        for rot in range(4):
            o = R.ORIENT[tid][rot]
            fits = True
            for d in range(4):
                nb = g.board.tiles.get((cell[0] + DX[d], cell[1] + DY[d]))
                if nb is not None and nb[0].edges[OPP[d]] != o.edges[d]:
                    fits = False
            check = R.PLACE_CHECKS[tid]
            if not fits or (check is not None and check(g, o, cell) is not None):
                continue
            out.add(_outcome(g, cell, o, None))
            if not figures:
                continue
            barn = g.figure_index("barn")
            for fi, f in enumerate(o.feats):
                for gi in R.FIG_ON[f.kind]:
                    when = R.FIG_WHEN_SRC[gi]
                    if f.kind not in R.FIGURES[gi].on:  # an `allow` opens this kind, with its own condition
                        (when,) = [w for kinds, w, _ in R.FIG_ALLOWS[gi] if f.kind in kinds]
                    ok = all(_holds(g, o, cell, fi, test, barn) for test in when.split(" and ") if test)
                    if barn is not None and R.KINDS[f.kind].name == "field":  # BARN-FOLLOW-1
                        ok = ok and _joined_figures(g, o, cell, fi, only=barn) == 0
                    if sup[gi] > 0 and ok:
                        out.add(_outcome(g, cell, o, (gi, fi)))
            if barn is not None and sup[barn] > 0:  # BARN-PLACE-1
                for corner in ("NW", "NE", "SE", "SW"):
                    if corner_refusal(g, o, cell, corner, R.FIG_KINDS[barn], "barn") is None:
                        fi = o.corners[corner]
                        if _joined_figures(g, o, cell, fi, only=barn) == 0:
                            out.add(_outcome(g, cell, o, (barn, fi, corner)))
    return out


def _fast_listing(g, figures=True):
    outs = []
    for a in g.legal_actions():
        if len(a) != 3 or not isinstance(a[0], tuple) or (a[2] is not None and a[2][0] in ("at", "recall")):
            continue  # ransoms, figures on other tiles (the Tower), recalls: not rebuilt here
        if a[2] is not None and not figures:
            continue
        outs.append(_outcome(g, a[0], g.orientation(a[1]), a[2]))
    return outs


@pytest.mark.parametrize("modules,figures", [
    (["base"], True),
    (["base", "river", "abbot", "king_robber"], True),
    (["base", "tower"], True),
    (["base", "barn"], True),
])
def test_every_distinct_placement_listed_once(modules, figures):
    eng = engine_for(modules, [])
    for seed in range(4 if "barn" in modules else 3):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        turns = 0
        while not g.is_terminal() and turns < (72 if "barn" in modules else 45):
            # a placement decision (not a capture, nor the ransoms after a turn's scoring: TOWER-RANSOM-1)
            if g.prisoners.pending is None and not g.prisoners.closing and g.bag.drawn is not None:
                fast = _fast_listing(g, figures)
                assert len(fast) == len(set(fast)), "a placement is listed twice"
                assert set(fast) == _slow_listing(g, figures)
            acts = g.legal_actions()
            if not acts:
                break
            g.apply_action(acts[rng.randrange(len(acts))])
            turns += 1


def _game_drawing(eng, tile, seed_range=range(200)):
    """A base game in progress whose drawn tile is `tile`, with a few tiles on the board."""
    for seed in seed_range:
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        for _ in range(30):
            if g.is_terminal():
                break
            if g.tile_name() == tile and len(g.board.tiles) > 3:
                return g
            acts = g.legal_actions()
            g.apply_action(acts[rng.randrange(len(acts))])
    raise AssertionError(f"no game draws {tile}")


def test_a_symmetric_tile_is_listed_once_per_cell_and_any_rotation_replays():
    """BASE-COMP-1: tile B is a cloister in a field, the same at every rotation: each cell where
    it may go is one placement (rotation 0); a record naming rotation 90 or 270 there is the same
    move (BASE-PLACE-2 holds for every rotation of a tile with four equal sides)."""
    eng = engine_for(["base"], [])
    g = _game_drawing(eng, "B")
    plain = [a for a in g.legal_actions() if a[2] is None]
    cells = [a[0] for a in plain]
    assert len(cells) == len(set(cells)) > 0
    assert all(a[1] == 0 for a in plain)
    cell = cells[0]
    outcomes = set()
    for rot in (0, 90, 180, 270):
        h = g.clone()
        h.legal_actions()
        h.apply_action((cell, rot, None))  # named by a record: checked, and accepted
        outcomes.add(frozenset((f["kind"], f["places"]) for f in h.features()))
    assert len(outcomes) == 1


def test_a_half_symmetric_tile_keeps_two_rotations():
    """BASE-COMP-1: tile U (a straight road between two fields) is the same turned by 180 degrees
    but not by 90: its fit table lists rotations 0 and 90 only, and rotation 180 still replays."""
    eng = engine_for(["base"], [])
    R = eng.rules
    tid = R.TILE_IDS["U"][0]
    o = R.ORIENT[tid]
    assert o[0].layout == o[2].layout and o[0].layout != o[1].layout
    assert {x.rot for os in R.FITS[tid].values() for x in os} <= {0, 90}
    g = _game_drawing(eng, "U")
    plain = [a for a in g.legal_actions() if a[2] is None]
    assert {a[1] for a in plain} <= {0, 90}
    cell, rot, _ = plain[0]
    h = g.clone()
    h.apply_action((cell, rot + 180, None))
    g.apply_action((cell, rot, None))
    assert {(f["kind"], f["places"]) for f in h.features()} == {(f["kind"], f["places"]) for f in g.features()}


@pytest.mark.parametrize("when,masks", [
    ("figures == 0", True),
    ("0 == figures or count(follower) >= 1", True),
    ("figures < 2", False),  # a count other than zero: the neighbours' roots are read
    ("tiles > 3", False),
])
def test_masks_only_answer_comparisons_with_zero(tmp_path, when, masks):
    """BASE-FOLLOW-2 rewritten by a house rule: a mask of occupied parts says whether a count is 0,
    nothing more, so only conditions that compare `figures` or `count(F)` with 0 are read from
    masks; either way every listed figure is one that `apply_action` accepts when it checks."""
    house = tmp_path / "crowded.tess"
    house.write_text(f"module crowded extends base\nallow follower on road when {when}  [BASE-FOLLOW-2]\n",
                     encoding="utf-8")
    eng = engine_for([str(house)], [])
    assert eng.rules.FIG_MASKS is masks
    g = eng.new_game(2, 5)
    rng = random.Random(5)
    for _ in range(30):
        acts = g.legal_actions()
        for a in acts:
            if a[2] is not None:
                o = g.orientation(a[1])
                assert g.figure_refusal(o, a[0], *a[2]) is None
        g.apply_action(acts[rng.randrange(len(acts))])
