"""Parameters in the language (issue 40): `param NAME = V in LO..HI`, read by any expression as its value;
`tessera check` types it, `--set NAME=V` gives it another value, the verifier can keep it a z3 name."""
from __future__ import annotations

from pathlib import Path

import pytest
import z3
from typer.testing import CliRunner

from tessera.cli import app
from tessera.dsl import ast as A
from tessera.dsl import names as N
from tessera.dsl.loader import load_rule_set
from tessera.dsl.params import SetError, parse_sets, settings

runner = CliRunner()
RULES = Path(__file__).resolve().parent.parent / "rules"
BIG_CITIES = RULES / "variants" / "big_cities.tess"
CITY = """module city_points "City tiles worth a parameter"
extends base
clause HOUSE-CITY-1 "A completed city scores city_tile points per tile"
param city_tile = 2 in 1..4 [HOUSE-CITY-1]
override score city complete = city_tile * tiles + 2 * shields [BASE-CITY-2]
"""


@pytest.fixture
def city(tmp_path) -> Path:
    p = tmp_path / "city_points.tess"
    p.write_text(CITY)
    return p


def test_a_parameter_reads_as_its_value_where_the_name_is(city):
    """BASE-CITY-2's formula with `city_tile` reads `2 * tiles`, the number at the name's own place."""
    rs, diags, _ = load_rule_set(["base", str(city)])
    assert rs is not None, diags
    score = rs.scores[("city", "complete")].value
    assert score.left.left == A.IntLit(2) and (score.left.left.span.line, score.left.left.span.column) == (5, 32)
    assert rs.params["city_tile"].value == 2 and (rs.params["city_tile"].low, rs.params["city_tile"].high) == (1, 4)
    with settings({"city_tile": 3}):
        rs3, _, _ = load_rule_set(["base", str(city)])
    assert rs3.scores[("city", "complete")].value.left.left == A.IntLit(3)


def test_check_reports_every_mistake_with_its_place(tmp_path):
    bad = tmp_path / "bad.tess"
    bad.write_text("module bad\nextends base\nparam city_tile = 7 in 1..4\nparam tiles = 1 in 0..3\n"
                   "param empty = 1 in 3..1\nstate s = 0\nparam s = 1 in 0..2\n")
    r = runner.invoke(app, ["check", str(bad)])
    assert r.exit_code == 1
    for line, col, text in [(3, 7, "`param city_tile = 7`: the value is outside its range 1..4  [range]"),
                            (4, 7, "`tiles` is a built-in quantity; give the parameter another name  [reserved]"),
                            (5, 7, "the range 3..1 is empty"),
                            (7, 7, "`s` is also a state of these rules")]:
        assert f"{bad}:{line}:{col}: error: " in r.output and text in r.output, (line, r.output)


@pytest.mark.slow
def test_set_gives_the_value_and_the_game_is_the_one_the_number_gives(city):
    """`--set city_tile=3` plays exactly as big_cities.tess's `3 * tiles` (BASE-CITY-2) on the same seeds."""
    from tessera.compiler.build import load_engine
    from tessera.play.simulate import simulate

    with settings({"city_tile": 3}):
        rs, _, _ = load_rule_set(["base", str(city)])
    big, _, _ = load_rule_set([str(BIG_CITIES)])
    a = simulate(load_engine(rs), 4, 2, 7, ["base"])
    b = simulate(load_engine(big), 4, 2, 7, ["base"])
    assert [r["scores"] for r in a.rows] == [r["scores"] for r in b.rows]
    assert any(r["points"].get("city") for r in a.rows)
    plain = simulate(load_engine(load_rule_set(["base", str(city)])[0]), 4, 2, 7, ["base"])
    assert [r["scores"] for r in plain.rows] != [r["scores"] for r in a.rows]


@pytest.mark.parametrize("args,said", [
    (["--set", "city_tile=9"], "--set city_tile=9: outside the range of `param city_tile` (1..4"),
    (["--set", "city_tle=3"], "declare no parameter `city_tle`; did you mean `city_tile`?"),
    (["--set", "city_tile=x"], "a parameter's value is a whole number"),
    (["--set", "city_tile"], "write NAME=VALUE"),
])
def test_set_refuses_a_value_it_cannot_give(city, args, said):
    for cmd in (["simulate", "-n", "1", "-j", "1", "-r", f"base,{city}"], ["compile", "base", str(city), "-o", "x"],
                ["verify", str(city), "--no-engine", "--only", "tile-"]):
        r = runner.invoke(app, [*cmd, *args])
        assert r.exit_code == 2, (cmd, r.output)
        assert said in r.output.replace("\n", " "), (cmd, r.output)


def test_parse_sets():
    assert parse_sets(["a=1", "b = -2"]) == {"a": 1, "b": -2}
    with pytest.raises(SetError):
        parse_sets(["a=1", "a=2"])


def test_the_editor_names_a_parameter_as_it_names_a_state():
    occ = N.occurrences(N.raw_tree(CITY))
    decl = [o for o in occ if o.name == "city_tile" and o.decl]
    used = N.resolve([o for o in occ if o.name == "city_tile" and not o.decl], N.declared([occ]))
    assert [o.line for o in decl] == [4] and [(o.line, o.role) for o in used] == [(5, "state")]


def test_kept_a_name_it_is_a_number_to_the_checker_and_a_bounded_z3_integer(city):
    """The verifier's load (`symbolic`): the name stays, typed as a number; the encoder gives it one z3 integer
    within the range being proved, and knows no such name outside that proof."""
    from tessera.verifier.encode import EncodeError, Env, encode
    from tessera.verifier.params import symbols

    with settings({}, {"city_tile"}):
        rs, diags, _ = load_rule_set(["base", str(city)])
    assert rs is not None, diags
    expr = rs.scores[("city", "complete")].value
    assert expr.left.left == A.Var("city_tile")
    with symbols({"city_tile": (1, 4)}):
        env = Env(kind="city")
        term = encode(expr, env)
    fact = next(f for f in env.facts if f.where == "param")
    s = z3.Solver()
    s.add(fact.term, term == 5 * env.names["tiles"], env.names["tiles"] == 1, env.names["shields"] == 0)
    assert s.check() == z3.unsat  # city_tile would have to be 5, outside 1..4
    s2 = z3.Solver()
    s2.add(fact.term, term == 4, env.names["tiles"] == 1, env.names["shields"] == 0)
    assert s2.check() == z3.sat
    with pytest.raises(EncodeError):
        encode(expr, Env(kind="city"))


def test_replay_takes_the_value_a_witness_game_was_played_with():
    """A game the verifier found for `--set NAME=V` replays with `tessera replay RECORD --set NAME=V`; a parameter
    the record's rules lack is a usage error."""
    rec = str(RULES / "records" / "tower" / "capture_across_a_gap.json")
    ok = runner.invoke(app, ["replay", rec, "--set", "ransom_price=3"])
    assert ok.exit_code == 0 and "scores:" in ok.output
    bad = runner.invoke(app, ["replay", rec, "--set", "ransom_pric=3"])
    assert bad.exit_code == 2 and "did you mean `ransom_price`?" in bad.output
