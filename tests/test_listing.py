"""The lazy listing of a turn's moves (runtime/listing.py) reads as the list it stands for.

`legal_actions` keeps a turn's placements as blocks and builds a move only when it is read: its
length, each index, iteration, membership and equality must agree with one another at every
state of real games (base, and every module with its figures on corners, towers, recalls and
ransoms), so a player choosing by index picks the move it always picked.
"""
from __future__ import annotations

import random

import pytest

from compiler.replay import engine_for

ALL = ["base", "river", "abbot", "king_robber", "barn", "tower", "siege"]


@pytest.mark.parametrize("rules", [["base"], ALL], ids=["base", "all"])
def test_every_index_iteration_and_membership_agree(rules):
    eng = engine_for(rules, [])
    listings = 0
    for seed in (1, 2):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            whole = list(acts)
            n = len(acts)
            assert len(whole) == n
            assert [acts[i] for i in range(n)] == whole
            assert [acts[i - n] for i in range(n)] == whole  # negative indices
            assert acts[1:4] == whole[1:4] and acts == whole and whole == acts
            assert all(a in acts for a in whole)
            assert len(set(whole)) == n  # each move listed once
            for bad in (n, -n - 1):
                with pytest.raises(IndexError):
                    acts[bad]
            listings += 1
            g.apply_action(acts[rng.randrange(n)])
    assert listings > 100


def test_a_move_not_listed_is_not_in_the_listing():
    """BASE-PLACE-1: a tile never goes on a taken cell, so such a move is not among them."""
    eng = engine_for(["base"], [])
    g = eng.new_game(2, 3)
    acts = g.legal_actions()
    taken = next(iter(g.board))
    first = acts[0]
    assert (taken, first.rotation, None) not in acts
    assert (first.cell, first.rotation, (0, 99)) not in acts  # no feature 99 on any tile
    assert ("discard",) not in acts
