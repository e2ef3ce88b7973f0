"""simulate --plot by source and with significance (issue 23, item 5): the barn's points apart from
the farmers' (BARN-SCORE-1, BARN-SCORE-2, BARN-END-1), each outpost's (SIEGE-COUNTER-1,
SIEGE-ATTACK-1), ransoms (TOWER-RANSOM-1); in an --against chart, an asterisk on exactly the
differences tessera.play.simulate.compare calls significant, and a note of the test and threshold."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tessera.compiler.build import load_engine
from tessera.play.simulate import compare, figure_rules, game_seed, play_one, point_sources, simulate
from tessera.play.stats import ALPHA
from tessera.dsl.loader import require_rule_set
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)
from tessera.cli import app


def _clauses_of(rs, figure: str) -> set[str]:
    """The clauses the rule set's own rules for `figure` cite (`score K end by F`, `score K put|join F`)."""
    decls = [d for (_, _, f), d in {**rs.figure_scores, **rs.trigger_scores}.items() if f == figure]
    return {c.clause for d in decls for c in d.cites}


@pytest.mark.slow
def test_the_barns_points_are_a_source_of_their_own_read_from_the_rule_set():
    """Every point a barn rule scores is counted under `field: barn` and nowhere else among the
    sources; `points` still holds it under field (by feature), so field >= field: barn."""
    rs = require_rule_set(["base", "barn"])
    barn = _clauses_of(rs, "barn")
    assert barn == {"BARN-SCORE-1", "BARN-SCORE-2", "BARN-END-1"}
    eng = load_engine(rs)
    figures = figure_rules(eng.rules)
    found = 0
    for i in range(12):
        g, _ = play_one(eng, 2, game_seed(5, i), record=False)
        src = point_sources(g.events, figures)
        want = sum(sum(e["points"].values()) for e in g.events if e["kind"] == "score" and e.get("clause") in barn)
        field = sum(sum(e["points"].values()) for e in g.events if e["kind"] == "score" and e.get("feature") == "field")
        assert src.get("field: barn", 0) == want and set(src) <= {"field: barn"}, (i, src, want)
        assert field >= want
        found += want > 0
    assert found, "no barn scored in 12 seeded games: the test shows nothing"


def test_each_outposts_points_are_a_source_and_sum_to_the_outpost_feature():
    """Siege: outpost: knights / travellers / monks (the tracks the rule set declares) add up to what
    `points` counts under outpost; nothing else is a source there."""
    rs = require_rule_set(["base", "siege"])
    s = simulate(load_engine(rs), 6, 2, 3, ["base", "siege"], rule_set=rs)
    tracks = {f"outpost: {t}" for t in rs.tracks}
    assert set(s.sources()) <= tracks and s.sources(), s.sources()
    for r in s.rows:
        assert sum(r["sources"].values()) == r["points"].get("outpost", 0), r


@pytest.mark.slow
def test_ransoms_received_and_paid_balance():
    """TOWER-RANSOM-1: a ransom moves points from the payer to the holder: received = -paid, per game."""
    rs = require_rule_set(["base", "tower"])
    s = simulate(load_engine(rs), 16, 2, 1, ["base", "tower"], agents=["greedy", "random"], rule_set=rs)
    got = [r["sources"].get("ransoms received", 0) for r in s.rows]
    assert any(got), "no ransom paid in 16 seeded games: the test shows nothing"
    assert got == [-r["sources"].get("ransoms paid", 0) for r in s.rows]
    assert [x > 0 for x in got] == [r["ransoms"] > 0 for r in s.rows]  # points moved in the games with a ransom


@pytest.mark.slow
def test_the_against_chart_plots_sources_and_stars_exactly_the_significant_differences(tmp_path):
    from tessera.pictures.plot import plot_figure, significance_note

    rs_b, rs_base = require_rule_set(["base", "barn"]), require_rule_set(["base"])
    ours = simulate(load_engine(rs_b), 30, 2, 7, ["base", "barn"], rule_set=rs_b)
    ref = simulate(load_engine(rs_base), 30, 2, 7, ["base"], rule_set=rs_base)
    diffs = compare(ours, ref)
    fig = plot_figure(ours, ref, diffs)
    ax = fig.axes[1]
    labels = [t.get_text().strip() for t in ax.get_yticklabels()]
    assert labels == ["city", "cloister", "field", "field: barn", "road"]
    bars = {p.get_gid(): p for p in ax.patches if p.get_gid()}
    barn = bars["points-base+barn-field: barn"]
    assert barn.get_width() == pytest.approx(sum(ours.source_points("field: barn")) / ours.games)
    assert barn.get_width() > 0 and barn.get_hatch() == "///"
    assert bars["points-base-field: barn"].get_width() == 0
    for k in ("city", "field", "road"):  # by feature, as before: the summary's means
        assert bars[f"points-base+barn-{k}"].get_width() == pytest.approx(sum(ours.points(k)) / ours.games)
    # an asterisk on exactly the rows whose difference is significant
    starred = {t.get_gid() for a in fig.axes for t in a.texts if t.get_text() == "*"}
    sig = {d["measure"] for d in diffs if d["significant"]}
    assert "points from field: barn" in sig
    want = {f"significant-points-{k}" for k in labels if f"points from {k}" in sig}
    want |= {f"significant-scores-seat{p + 1}" for p in range(2) if f"score, seat {p + 1} (random)" in sig}
    want |= {f"significant-wins-seat{p + 1}" for p in range(2) if f"win rate, seat {p + 1} (random)" in sig}
    want |= {"significant-balance-tie-rate"} if "tie rate (top score shared)" in sig else set()
    want |= {"significant-balance-decided-at"} if "decided at (share of the game)" in sig else set()
    want |= {"significant-balance-seat-1-wins"} if "win rate, seat 1 (random)" in sig else set()
    assert starred == want
    note = fig.get_supxlabel() if hasattr(fig, "get_supxlabel") else fig._supxlabel.get_text()
    assert note == significance_note(diffs) and f"p < {ALPHA:g}" in note and "Benjamini-Hochberg" in note
    assert f"across the {len(diffs)} measures compared ({len(sig)} significant" in note
    # and the CLI writes it as a PNG when asked
    out = tmp_path / "plot.png"
    r = CliRunner().invoke(app, ["simulate", "-n", "4", "-j", "1", "-r", "base,barn", "--against", "base",
                                 "--plot", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
