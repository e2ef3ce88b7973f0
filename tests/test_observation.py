"""tessera.adapters.observation: the views the Tower's prisoners and Siege's outposts add
(docs/engine.md, "Observations"), and the views of every other rule set kept as they were."""
from __future__ import annotations

import numpy as np
import pytest

from tessera.replay.actions import ActionCodec
from tessera.replay.tiles import engine_for, replay
from tessera.replay.turns import draw  # chance's move: deal the tile a test names
from tessera.adapters.observation import Observer

OLD = ["board", "tile", "supply", "scores", "turn", "bag"]  # the views before the Tower and Siege had their own


def _observer(rules, players=2, view=None):
    engine = engine_for(rules, [])
    return engine, Observer(ActionCodec(engine), players, view)


def _offsets(obs):
    """Where each view starts in the flat tensor, in order."""
    obs.tensor[:] = np.arange(obs.tensor.size)
    out = {name: int(v.flat[0]) for name, v in obs.dict.items()}
    obs.tensor.fill(0)
    return out


@pytest.mark.parametrize("rules", [["base"], ["base", "river", "abbot"], ["base", "king_robber", "barn", "refcard"]],
                         ids=lambda r: "+".join(r))
def test_rule_sets_without_prisoners_or_outposts_keep_their_views(rules):
    _, obs = _observer(rules)
    assert list(obs.dict) == OLD
    assert sum(v.size for v in obs.dict.values()) == obs.tensor.size
    if rules == ["base"]:
        assert obs.tensor.size == 593_052  # docs/engine.md's figure, from before the new views


@pytest.mark.parametrize("rules,new", [(["base", "tower"], ["prisoners"]), (["base", "siege"], ["outposts", "catapults"]),
                                      (["base", "tower", "siege"], ["prisoners", "outposts", "catapults"])],
                         ids=["base+tower", "base+siege", "base+tower+siege"])
def test_the_new_views_come_after_the_old_ones(rules, new):
    _, obs = _observer(rules, players=3, view=4)
    assert list(obs.dict) == OLD + new
    at = _offsets(obs)
    w = 2 * 4 + 1
    nf = len(obs.codec.figures)
    sizes = {"board": obs.planes * w * w, "tile": len(obs.tile_names), "supply": 3 * nf, "scores": 3, "turn": 3, "bag": 1}
    assert [at[k] for k in OLD] == list(np.cumsum([0] + [sizes[k] for k in OLD[:-1]]))
    assert at[new[0]] == sum(sizes.values())
    assert obs.dict["board"].shape == (1 + 5 * len(obs.kinds) + 1 + 3 * nf, w, w)


def _t(tile, x, y, rot=0, **extra):
    return {"tile": tile, "at": [x, y], "rotation": rot, **extra}


def test_TOWER_CAPTURE_1_the_prisoner_is_seen_by_both_players():
    # red puts a monk at [0,1]; blue's first floor at [1,1] reaches it (height 1) and captures it:
    # blue now holds one of red's followers (TOWER-CAPTURE-1)
    res = replay({"format": "tessera-game/1", "rules": ["base", "tower"], "players": ["red", "blue"], "end": "none",
                  "turns": [_t("B", 0, 1, place={"figure": "follower", "on": "C"}),
                            _t("tower.B", 1, 1, place={"figure": "floor", "on": "C"},
                               capture={"figure": "follower", "of": "red", "at": [0, 1], "on": "C"})]})
    assert res.error is None, res.error
    _, obs = _observer(["base", "tower"], view=3)
    fol = obs.codec.figures.index("follower")
    red, blue = 0, 1
    p = obs.dict["prisoners"]  # (holder, owner, figure), the observer's seat first
    obs.set_from(res.game, red)
    assert p[1, 0, fol] == 1 and p.sum() == 1  # blue (the other seat) holds one of mine
    obs.set_from(res.game, blue)
    assert p[0, 1, fol] == 1 and p.sum() == 1  # I hold one of red's
    assert (obs.tensor <= obs.high).all()


def test_SIEGE_outposts_and_catapults_are_seen():
    engine, obs = _observer(["base", "siege"], view=3)
    g = engine.new_game(players=2, seed=0)
    draw(g, "siege.E")  # the knights symbol: a catapult on the knights outpost (SIEGE-ADVANCE-1)
    g.current_player()
    o = g.orientation(0)
    # a knight on E's city, its field side on the fortress's field: one more follower may go on the
    # knights' row (SIEGE-OUTPOST-2)
    g.apply_action(((0, -1), 0, (0, o.feature_at("N"))))
    g.apply_action(("outpost", 0, "row"))
    draw(g, "V")  # no siege symbol: the next turn plays nothing
    knights = obs.tracks.index("knights")
    obs.set_from(g, 0)
    outs, cats = obs.dict["outposts"], obs.dict["catapults"]
    assert outs[knights, 0, 0] == 1 and outs.sum() == 1  # my follower in the knights' row, none in a pool
    # one catapult in the knights' catapult slot; a row of 4 with 2 players (SIEGE-OUTPOST-4), 1 taken
    assert cats.tolist() == [[1, 3] if t == knights else [0, 4] for t in range(3)]
    assert obs.dict["supply"][0, 0] == pytest.approx((9 - 2) / 9)  # 9 followers (SIEGE-COMP-1): one on the city, one on the row
    obs.set_from(g, 1)
    assert outs[knights, 0, 1] == 1 and outs.sum() == 1  # seen by the other player: in the second row
    assert (obs.tensor <= obs.high).all()


def test_an_observation_before_the_draw_plays_no_siege_symbol():
    # at OpenSpiel's chance node the drawn tile is not chosen yet: seeing the game must not put the
    # catapults of the tile the engine happens to hold (SIEGE-ADVANCE-1 plays them once it is drawn)
    engine, obs = _observer(["base", "siege"], view=3)
    g = engine.new_game(players=2, seed=0)
    draw(g, "siege.E")
    obs.set_from(g, 0, drawn=False)
    assert obs.dict["turn"].tolist() == [1, 0] and obs.dict["tile"].sum() == 0
    assert g.outposts_by_name()["knights"]["catapults"] == 0
    draw(g, "V")  # still free to name another tile
    assert g.tile_name() == "V"
