"""Ground truth for the designer trial: find a game of the compiled engine that breaks a house rule.

The verifier's own witness search is what is under test, so this is a separate, deliberately
simple searcher: games of the compiled engine with a policy that prefers the moves a house rule
is about, a predicate on the engine's own numbers after every move, and the game written as a
`tessera-game/1` record (through the same Recorder that `simulate --record` uses), which
`tessera replay` then shows.  Used to check the designer's own intent (a rule meant as unsound
must have a game) and to keep the games under tests/designer/games/.

    python tests/designer/find_game.py RULE [--games N] [--out DIR]
    python tests/designer/find_game.py --trial 2 RULE      # the second trial's rules2/, games into games2/
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES = HERE / "rules"
TRIALS = {1: (HERE / "rules", HERE / "games"), 2: (HERE / "rules2", HERE / "games2")}


def _kind_of(g, a):
    """The feature kind a placement's figure goes on (None for no figure)."""
    fig = a.figure
    if fig is None or fig.KIND in ("recall", "at", "corner"):
        return None
    o = g.orientation(a.rotation)
    return g.R.KINDS[o.kinds[fig.feature]][0]


def _score_events(g, since):
    return [e for e in g.events[since:] if e.get("kind") == "score"]


# --- what each unsound rule's game must show, and which moves to prefer ----------------------
def pred_tie_on_road(g, since, state):
    """A completed road scored for two tied owners with different points (abbot vs follower)."""
    evs = [e for e in _score_events(g, since) if e["feature"] == "road" and e["when"] == "complete"]
    by_turn = {}
    for e in evs:
        by_turn.setdefault((e["turn"], e["tiles"]), []).append(e)
    for (turn, tiles), group in by_turn.items():
        pts = {}
        for e in group:
            pts.update(e["points"])
        if len(pts) >= 2 and len(set(pts.values())) >= 2 and any(e["clause"] == "HOUSE-PILGRIM-1" for e in group):
            return f"turn {turn}: road of {tiles} tiles scored {pts} for its tied owners"
    return None


def pred_negative(g, since, state):
    for p, s in enumerate(g.scores):
        if s < 0:
            return f"p{p}'s score is {s}"
    return None


def pred_score_drop(g, since, state):
    prev = state.get("scores")
    state["scores"] = list(g.scores)
    if prev is not None:
        for p, (a, b) in enumerate(zip(prev, g.scores)):
            if b < a and not any(e.get("kind") == "ransom" for e in g.events[since:]):
                return f"p{p}'s score goes {a} -> {b}"
    return None


def st(g, name):
    """A `state`'s value in the engine (per seat for `of each player`)."""
    for i, (n, _) in enumerate(g.R.STATES):
        if n == name:
            return g.st[i]
    raise KeyError(name)


def completed(g, kind):
    for i, k in enumerate(g.R.KINDS):
        if k[0] == kind:
            return g.board.completed_count[i]
    raise KeyError(kind)


def pred_holds(text, ok):
    """A declared invariant, evaluated on the engine's numbers: the game is found when it fails."""
    def pred(g, since, state):
        return None if ok(g) else f"{text} fails: states {dict((n, g.st[i]) for i, (n, _) in enumerate(g.R.STATES))}"
    return pred


def pred_discard(kind):
    def pred(g, since, state):
        for e in g.events[since:]:
            if e.get("kind") == "discard" and kind in str(e.get("tile", kind)):
                return f"turn {e.get('turn')}: a tile is discarded: {e}"
        return None
    return pred


def prefer_fig_kind(fig, kinds):
    def want(g, a):
        if a.KIND != "place" or a.figure is None:
            return False
        if a.figure.KIND in ("recall",) and fig == "recall":
            return True
        if a.figure.KIND != "put":
            return False
        return g.figure_name(a.figure.figure) == fig and _kind_of(g, a) in kinds
    return want


def prefer_any_fig_kind(kinds):
    def want(g, a):
        return a.KIND == "place" and a.figure is not None and a.figure.KIND == "put" and _kind_of(g, a) in kinds
    return want


def prefer_kinds(kinds):
    def want(g, a):
        if a.KIND in kinds:
            return True
        return False
    return want


def play(eng, players, seed, want, pred, lean=False, p_want=0.8, max_turns=None):
    from tessera.replay.turns import Recorder

    g = eng.new_game(players, seed)
    rng = random.Random(seed * 31 + 7)
    turns: list = []
    rec = Recorder(turns)
    state: dict = {}
    since = 0
    while not g.ended:
        acts = list(g.legal_actions())
        if not acts:
            g.finish()
            break
        focus = [a for a in acts if want(g, a)]
        if focus and rng.random() < p_want:
            a = focus[rng.randrange(len(focus))]
        elif lean:
            plain = [a for a in acts if a.KIND == "place" and a.figure is None] or acts
            a = plain[rng.randrange(len(plain))]
        else:
            a = acts[rng.randrange(len(acts))]
        rec(g, a)
        g.apply_action(a)
        if g.prisoners.pending is not None or g.outposts.decision is not None:
            continue
        found = pred(g, since, state)
        since = len(g.events)
        if found:
            return g, turns, found
    found = pred(g, since, state)
    return g, turns, found


def write(rule_file: Path, rules, players, seed, turns, ended, out: Path, name: str) -> Path:
    from tessera.replay.records import write_record
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.witness import record_rules

    rs = require_rule_set([str(rule_file)])
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    doc = {"format": "tessera-game/1", "rules": record_rules(rs, out), "players": [f"p{i}" for i in range(players)],
           "seed": seed, "turns": turns, "end": "final" if ended else "none"}
    write_record(path, doc)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("rule")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--trial", type=int, default=1, choices=sorted(TRIALS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--lean", action="store_true", help="prefer bare tiles when not steering")
    ns = ap.parse_args(argv)
    rules_dir, games_dir = TRIALS[ns.trial]
    out = Path(ns.out) if ns.out else games_dir / ns.rule
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    spec = SEARCHES[ns.rule]
    f = rules_dir / f"{ns.rule}.tess"
    rs = require_rule_set([str(f)])
    eng = load_engine(rs)
    for k in range(ns.games):
        g, turns, found = play(eng, ns.players, k, spec["want"], spec["pred"], lean=spec.get("lean", ns.lean))
        if found:
            path = write(f, rs, ns.players, k, turns, g.ended, out, ns.rule)
            print(json.dumps({"rule": ns.rule, "seed": k, "found": found, "record": str(path), "turns": len(turns)}))
            return 0
    print(json.dumps({"rule": ns.rule, "found": None, "games": ns.games}))
    return 1


def prefer_recall(g, a):
    return a.KIND == "place" and a.figure is not None and a.figure.KIND == "recall"


def prefer_put(fig):
    def want(g, a):
        return (a.KIND == "place" and a.figure is not None and a.figure.KIND in ("put", "corner", "at")
                and g.figure_name(a.figure.figure) == fig)
    return want


def either(*wants):
    return lambda g, a: any(w(g, a) for w in wants)


def nothing(g, a):
    return False


def tower_ransom_want(g, a):
    """Seat 0 builds floors and captures; seat 1 puts followers on roads (to be captured, and to
    score a little) and pays every ransom it may; both otherwise lay bare tiles (lean)."""
    if a.KIND == "ransom":
        return True
    if g.current_player() == 0:
        return a.KIND == "capture" or prefer_put("floor")(g, a)
    return prefer_fig_kind("follower", {"road"})(g, a) and g.scores[1] < 3


def siege_fill_want(g, a):
    """Seat 0 fills the travellers' row (followers on roads, each with one more on the row) before
    two catapults come; seat 1 keeps off the outposts."""
    if g.current_player() != 0:
        return a.KIND == "pass"
    if a.KIND == "outpost":
        return a.slot == "row"
    return prefer_fig_kind("follower", {"road"})(g, a)


SEARCHES = {
    "abbot_on_roads": {"want": prefer_any_fig_kind({"road"}), "pred": pred_tie_on_road},
    "big_cities_counted": {"want": nothing, "pred": pred_holds(
        "every_city_counted", lambda g: st(g, "big_cities") == completed(g, "city"))},
    "lonely_cloister": {"want": prefer_any_fig_kind({"cloister"}), "pred": pred_negative, "lean": True},
    "abbot_recall_minus_two": {"want": either(prefer_put("abbot"), prefer_recall), "pred": pred_negative},
    "robber_inner_tiles": {"want": nothing, "pred": pred_holds(
        "robber_held", lambda g: (st(g, "robber") == -1) == (st(g, "robber_road") == 0))},
    "barn_join_toll": {"want": either(prefer_put("barn"), prefer_any_fig_kind({"field"})), "pred": pred_negative},
    "tower_ransom_at_two": {"want": tower_ransom_want, "pred": pred_negative, "lean": True},
    "siege_entry_fee": {"want": siege_fill_want,
                        "pred": pred_score_drop},
    "refcard_goods_trade": {"want": nothing, "pred": pred_holds(
        "goods_never_negative", lambda g: all(v >= 0 for v in st(g, "wine")))},
    "river_no_double_straight": {"want": nothing, "pred": pred_discard("river")},
}

# the second trial (rules2/): the unsound rules of the tile game (card_overgrazing's game is a
# `tessera simulate --rules card,... --record` game, as the first trial's card games)
SEARCHES.update({
    "base_upkeep": {"want": prefer_any_fig_kind({"field"}), "pred": pred_negative, "lean": True},
    "river_pond": {"want": nothing, "pred": pred_discard("pond")},
    "abbot_tended_gardens": {"want": prefer_put("abbot"), "pred": pred_holds(
        "gardener_held", lambda g: (st(g, "first_gardener") == -1) == (completed(g, "garden") == 0))},
    "barn_crowded": {"want": either(prefer_put("barn")), "pred": pred_negative},
    "king_start_two": {"want": nothing, "pred": pred_holds(
        "king_held", lambda g: (st(g, "king") == -1) == (st(g, "king_city") == 0))},
    "tower_duel_ransom": {"want": tower_ransom_want, "pred": pred_negative, "lean": True},
    "siege_attack_fine": {"want": nothing, "pred": pred_negative, "lean": True},
})

if __name__ == "__main__":
    sys.exit(main())
