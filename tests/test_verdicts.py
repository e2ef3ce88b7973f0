"""Verdicts a designer can trust (issue 10): each test is built from a house rule that
once got a wrong or misleading verdict.

- a `state` named like a built-in quantity or keyword is an error, not a silent rename;
- the river theorem assumes the rule set's player range and seat facts (RIVER-PLACE-2);
- `completed(KIND)` and every other quantity have their domain facts (verifier/domain.py),
  the geometric ones derived from the tile set;
- several `on` rules for one event are normal; a house rule declares and cites its own clauses;
- a blocked river draw shows the tile, its turns, the rule that refuses and the board,
  at the designer's file;
- the start tile or a boxed tile from nowhere, and a tile boxed twice, are errors;
- degenerate rule sets (no followers, an unlayable river) get a warning in words.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set, require_rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.domain import Domain
from tessera.verifier.invariants import check_invariants
from tessera.verifier.river import check_river

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / f"{name}.tess"
    p.write_text(text, encoding="utf-8")
    return str(p)


def errors(path: str) -> list[str]:
    _, diags, _ = load_rule_set([path])
    return [f"{d.span.line}: {d.message}  [{d.code}]" for d in diags if d.severity == "error"]


# ------------------------------------------------------------ 1. reserved names
@pytest.mark.parametrize("name, what", [
    ("tiles", "a built-in quantity (number of distinct tiles the feature covers)"),
    ("completed", "a built-in function"),
    ("end", "a keyword of the rules language"),
])
def test_a_state_cannot_shadow_a_builtin_or_a_keyword(tmp_path, name, what):
    """`state tiles = 100` once made every road and city score 100 tiles, and `check` said Success."""
    p = write(tmp_path, "shadow", f"module shadow\nextends base\nstate {name} = 100\n")
    [err] = errors(p)
    assert err.startswith(f"3: `state {name}`: `{name}` is {what}")
    assert err.endswith(f"a state cannot shadow it: give the state another name, e.g. `house_{name}`  [reserved]")


# ------------------------------------------------------------ 2. river facts
@pytest.mark.slow
def test_the_river_theorem_assumes_the_player_range(tmp_path):
    """RIVER-PLACE-2 with `require players <= 5` (base allows 2..5) was refuted as
    "after [] tile 1 cannot be laid"; the invariant checker proves players <= 5."""
    p = write(tmp_path, "river5", """module river5
requires river
override on place of river where turn(river) != 0  [RIVER-PLACE-2] {
  require players <= 5
  require current < players
  require turn(river) != river_turn "the river may not turn twice in the same direction"
  set river_turn = turn(river)
}
""")
    rep = check_river(require_rule_set([p]))
    assert rep.ok, rep.lines()


@pytest.mark.slow
def test_a_river_rule_that_does_refuse_five_players_is_blocked_with_every_input(tmp_path, monkeypatch):
    """A designer's second `on place of river` rule (not a duplicate: several `on` rules are
    normal) that refuses 5 players: the report shows the players, the tile that cannot be laid,
    each turn the rule refuses and the board, and is reported at the designer's file."""
    monkeypatch.chdir(tmp_path)
    p = write(tmp_path, "river6", """module river6
requires river
on place of river [RIVER-PLACE-2] {
  require players <= 4 "not with five players"
}
""")
    rs = require_rule_set([p])
    res = run_check(load_checks()["river"], rs)
    assert not res.passed
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.span.file == p and d.span.line == 3  # the designer's rule, not rules/river.tess:98
    text = d.message
    assert "never blocked: REFUTED" in text
    assert "after [] tile 1 cannot be laid: the drawn tile is river.straight, at (1, 0)" in text
    assert "players=5; the rule remembers river_turn=0" in text
    assert "laid straight: refused by river6.tess:3: on place of river [RIVER-PLACE-2] {" in text
    assert text.rstrip().endswith("S ?")


@pytest.mark.slow
def test_a_river_with_more_curves_is_decided_by_the_resource_limit(tmp_path):
    """Four copies of the curve: inconclusive at the old 5 s timeout; the rlimit alone decides it
    (proved), and the report points at the designer's file (the tiles changed), not river.tess."""
    p = write(tmp_path, "curves4", """module curves4 "Four copies of the river curve"
requires river
override tile river.curve x4 [RIVER-COMP-1] {
  edges F F I I
  river S W
  field Wn Nw Ne En Es Se
  field Sw Ws
}
""")
    res = run_check(load_checks()["river"], require_rule_set([p]))
    assert res.passed, [d.message for d in res.diagnostics]
    [note] = res.diagnostics
    assert note.span.file == p and note.span.line == 3
    assert "6 straights + 6 curves" in note.message and "never runs into itself: proved" in note.message


@pytest.mark.slow
def test_a_river_counterexample_shows_what_the_rule_remembers_and_the_players(tmp_path):
    """RIVER-PLACE-2 read as "no two same-way curves in a row" (rules/variants/river_no_uturn.tess)
    flows back after left, straight, left: the table shows `river_turn` after every tile; a rule
    that reads the number of players shows it too."""
    rep = check_river(require_rule_set([str(ROOT / "rules" / "variants" / "river_no_uturn.tess")]))
    lines = rep.counterexamples["never flows back"].lines()
    assert lines[1].endswith("heading  the rule remembers")
    assert [l.split()[-1] for l in lines[2:6]] == ["river_turn=0", "river_turn=-1", "river_turn=0", "river_turn=-1"]
    p = write(tmp_path, "uturn5", """module uturn5
requires river
override on place of river [RIVER-PLACE-2] {
  require players >= 2 and (turn(river) == 0 or turn(river) != river_turn) "two curves in a row may not turn the same way"
  set river_turn = turn(river)
}
""")
    lines = check_river(require_rule_set([p])).counterexamples["never flows back"].lines()
    assert lines[1] == "  players=2"


# ------------------------------------------------------------ 3. / 4. domain facts
def test_completed_kind_has_its_domain(tmp_path):
    """`completed(city) >= 0` was refuted "for the initial state" with no value shown."""
    p = write(tmp_path, "compl", "module compl\nextends base\ninvariant cc: completed(city) >= 0 [BASE-CITY-1]\n")
    checks = [c for c in check_invariants(require_rule_set([p])) if c.invariant.id == "cc"]
    assert checks and all(c.result.proved for c in checks)


@pytest.mark.slow
def test_a_counterexample_shows_completed_values(tmp_path):
    p = write(tmp_path, "compl2", """module compl2
extends base
state seen = 0
on complete of road [BASE-ROAD-1] {
  set seen = completed(city) - 1
}
invariant seen_ok: seen >= 0 [BASE-CITY-1]
""")
    [c] = [c for c in check_invariants(require_rule_set([p])) if not c.result.proved]
    assert c.result.refuted and c.result.model["completed(city)"] == 0


def test_no_impossible_counterexample_a_completed_city_spans_two_tiles(tmp_path):
    """`biggest == 0 or biggest >= 2` was refuted with a completed city of 1 tile."""
    p = write(tmp_path, "biggest", """module biggest
extends base
state biggest = 0
on complete of city [BASE-CITY-1] {
  set biggest = max(biggest, tiles)
}
invariant big: biggest == 0 or biggest >= 2 [BASE-CITY-1]
""")
    checks = [c for c in check_invariants(require_rule_set([p])) if c.invariant.id == "big"]
    assert checks and all(c.result.proved for c in checks)


def test_geometric_facts_come_from_the_tile_set(tmp_path):
    """The base tile set: every city and road reaches an edge (a closed one spans 2 tiles),
    a city tile has at most 1 shield, roads and cloisters have none; a cloister lies at the
    centre, so the tile set does not bound a closed cloister's tiles from below."""
    kinds = Domain(require_rule_set(["base"])).kinds
    assert (kinds["city"].min_closed_tiles, kinds["city"].max_shields) == (2, 1)
    assert (kinds["road"].min_closed_tiles, kinds["road"].max_shields) == (2, 0)
    assert kinds["cloister"].min_closed_tiles == 1
    # a tile set of its own: two shields on one tile, and a pond that reaches no edge
    text = """module shields
placement matching
edge C = city
edge F = field
feature city
feature pond centre
feature field halves
tile A x2 {
  edges C C C C
  city N E S W shields 2
}
tile B x1 {
  edges F F F F
  field Nw Ne En Es Se Sw Ws Wn
  pond C
}
"""
    dom = Domain(require_rule_set([write(tmp_path, "shields", text)]))
    assert (dom.kinds["city"].max_shields, dom.kinds["city"].min_closed_tiles) == (2, 2)
    assert (dom.kinds["pond"].max_shields, dom.kinds["pond"].min_closed_tiles) == (0, 1)
    assert dom.most_neighbours[0] == 2  # three tiles: a tile has at most two neighbours
    # without `placement matching` a city edge may face a tile that does not continue it
    loose = Domain(require_rule_set([write(tmp_path, "loose", text.replace("placement matching\n", ""))]))
    assert loose.kinds["city"].min_closed_tiles == 1


# ------------------------------------------------------------ 6. degenerate rule sets
def test_no_followers_is_a_warning_in_words(tmp_path):
    p = write(tmp_path, "nofollow", "module nofollow\nextends base\n"
                                    "override figure follower 0 per player on road, city, cloister, field [BASE-COMP-2]\n")
    res = run_check(load_checks()["invariants"], require_rule_set([p]))
    [w] = [d for d in res.diagnostics if d.severity == "warning"]
    assert w.span.file == p and w.code == "degenerate"
    assert w.message.startswith("no player ever has a follower (0 per player)")


def test_a_river_no_order_can_lay_is_a_warning_in_words(tmp_path):
    p = write(tmp_path, "deadriver", """module deadriver
requires river
override on place of river where turn(river) != 0  [RIVER-PLACE-2] {
  require false "no curve ever"
}
""")
    res = run_check(load_checks()["river"], require_rule_set([p]))
    [w] = [d for d in res.diagnostics if d.severity == "warning"]
    assert w.message.startswith("no order of the 10 river tiles can be laid under these rules")


# ------------------------------------------------------------ 7. house-rule clauses
HOUSE = """module house "Big cities and a stricter river, with their own clauses"
requires {base}
clause HOUSE-1 "A completed city scores 3 points per tile and 2 per shield"
clause HOUSE-2 "The river never turns right"
override score city complete = 3 * tiles + 2 * shields [HOUSE-1]
on complete of city {{ set seen = seen + 1 }}
on complete of city {{ set seen = seen + 1 }}
state seen = 0
"""


def replay_json(tmp_path: Path, rules: str, turns: list) -> dict:
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps({"format": "tessera-game/1", "rules": [rules], "players": ["red", "blue"],
                               "turns": turns, "end": "none"}), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tessera", "replay", str(rec), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_a_house_rule_cites_its_own_clauses_and_events_name_them(tmp_path):
    """Two uncited `on complete of city` rules are not duplicates; the city's score event
    cites HOUSE-1 (the rulebook's 3-tile, 1-shield city of rules/records/base: 3 * 3 + 2 = 11)."""
    p = write(tmp_path, "house", HOUSE.format(base="base"))
    assert errors(p) == []
    out = replay_json(tmp_path, p, [
        {"tile": "M", "at": [0, -1], "rotation": 180, "place": {"figure": "follower", "on": "S"}},
        {"tile": "E", "at": [1, -1], "rotation": 270}])
    [ev] = [e for e in out["events"] if e.get("kind") == "score"]
    assert (ev["clause"], ev["points"]) == ("HOUSE-1", {"red": 11})


@pytest.mark.slow
def test_a_refusal_under_a_house_rule_names_its_clause(tmp_path):
    p = write(tmp_path, "house", HOUSE.format(base="river") + """on place of river [HOUSE-2] {
  require turn(river) != 1 "the river never turns right"
}
""")
    out = replay_json(tmp_path, p, [{"tile": "river.curve", "at": [1, 0], "rotation": 0}])
    assert out["error"]["clause"] == "HOUSE-2"
    assert out["error"]["message"].endswith("the river never turns right")


@pytest.mark.parametrize("text, message", [
    ('clause BASE-CITY-2 "mine"', "clause `BASE-CITY-2` is the rulebook's"),
    ('clause HOUSE-1 "a"\nclause HOUSE-1 "b"', "clause `HOUSE-1` is already declared at"),
    ("feature city [HOUSE-9]", "unknown clause `HOUSE-9`; a house rule declares its own with `clause HOUSE-9"),
])
def test_clause_declarations_are_checked(tmp_path, text, message):
    p = write(tmp_path, "cl", f"module cl\n{text}\n")
    [err] = errors(p)
    assert message in err


# ------------------------------------------------------------ 9. copies from nowhere
def test_the_start_tile_needs_a_copy(tmp_path):
    """`override tile D x0` left the start tile appearing from nowhere with only a warning."""
    p = write(tmp_path, "d0", """module d0
extends base
override tile D x0 [BASE-COMP-1] {
  edges C R F R
  city N
  road W E
  field Wn En -> N
  field Es Se Sw Ws
}
""")
    [err] = errors(p)
    assert err.startswith("3: tile `D` has 0 plain copies, but the start tile (at ")
    assert err.endswith("takes 1 out of its count: it would come from nowhere; give it at least x1  [count]")


def test_a_tile_boxed_twice_is_an_error(tmp_path):
    p = write(tmp_path, "box2", "module box2\nrequires river\nbox D\n")
    [err] = errors(p)
    assert err.startswith("3: tile `D` is already boxed at ")
    assert err.endswith("a `box` takes its tile out of the game once: write it once  [duplicate]")
