"""Random base games (tessera.play.simulate.play_one, fixed seeds, 2-5 players).

After every move of every game: each player's followers are all accounted for
(supply + followers on the board == 7: BASE-COMP-2, BASE-FOLLOW-3, BASE-SCORE-2)
and no score ever goes down (BASE-SCORE-1, BASE-END-2, BASE-FIELD-3).  Each
game's record (tessera.play.simulate.record_turn output) replays through
tessera.replay.tiles.replay to the same answer, and the same seed plays the same game.
"""
from __future__ import annotations

import pytest

from tessera.replay.tiles import answer_of, engine_for, replay
from tessera.play.simulate import play_one

FOLLOWERS = 7  # BASE-COMP-2: 8 per colour, one marks the score
GAMES_PER_COUNT = 80  # x 4 player counts = 320 games (about 10 s)


@pytest.fixture(scope="module")
def eng():
    return engine_for(["base"], [])


def _by_turn(events):
    return sorted(events, key=lambda ev: (ev["turn"], repr(sorted(ev.items()))))


class Checked:
    """Looks like an engine to play_one; every game it makes checks itself after each move."""

    def __init__(self, eng):
        self.rules = eng.rules
        self._eng = eng
        self.moves = 0

    def new_game(self, players, seed):
        g = self._eng.new_game(players, seed)
        apply = g.apply_action
        last = list(g.scores)

        def checked(action):
            apply(action)
            self.moves += 1
            on_board = {name: 0 for name in g.names}
            for f in g.features():
                for owner, figure in f["figures"]:
                    assert figure == "follower"
                    on_board[owner] += 1
            for p, name in enumerate(g.names):
                assert g.supply.left[p][0] >= 0, (seed, name, "negative supply")
                assert g.supply.left[p][0] + on_board[name] == FOLLOWERS, (seed, g.turn, name, g.supply.left[p][0], on_board[name])
                assert g.scores[p] >= last[p], (seed, g.turn, name, last[p], g.scores[p])
            last[:] = g.scores

        g.apply_action = checked  # the instance attribute shadows the method play_one calls
        return g


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_followers_scores_and_replay(eng, players):
    """BASE-COMP-2/BASE-SCORE-2: 7 followers per player always; scores never drop; records replay exactly."""
    checked = Checked(eng)
    for i in range(GAMES_PER_COUNT):
        seed = 1000 * players + i
        g, turns = play_one(checked, players, seed)
        assert g.ended, seed  # BASE-END-1: the bag ran out
        assert len(g.board.tiles) + g.discards == 72, seed
        rec = {"format": "tessera-game/1", "rules": ["base"], "players": list(g.names), "turns": turns, "end": "final"}
        res = replay(rec)
        assert res.error is None, (seed, res.error)
        want = answer_of(g)
        # events of one turn are simultaneous; their order follows internal segment ids, which
        # differ when the record's tile letter is replayed with the other (garden) copy of it
        assert _by_turn(res.answer.pop("events")) == _by_turn(want.pop("events")), seed
        assert res.answer == want, seed
        assert res.answer["scores"] == {g.names[p]: g.scores[p] for p in range(players)}, seed
    assert checked.moves >= GAMES_PER_COUNT * 71


@pytest.mark.parametrize("players,seed", [(2, 7), (3, 123), (5, 99999)])
def test_same_seed_same_game(eng, players, seed):
    """Two simulations with the same seed give identical games (moves, events, scores)."""
    g1, t1 = play_one(eng, players, seed)
    g2, t2 = play_one(eng, players, seed)
    assert t1 == t2
    assert g1.events == g2.events
    assert g1.scores == g2.scores
    g3, t3 = play_one(eng, players, seed + 1)
    assert t3 != t1  # a different seed is a different game
