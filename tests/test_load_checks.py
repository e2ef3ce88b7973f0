"""The loader's check registry (dsl/checks/): every check named in its running order exists, a
rule set runs the checks of its own game family only, and a check registered from a new
module runs on every rule set checked, reporting through the Builder like the others."""
from __future__ import annotations

from pathlib import Path

from tessera.dsl import checks
from tessera.dsl.loader import check_text

REPO = Path(__file__).resolve().parent.parent


def test_the_running_order_names_registered_checks_only():
    names = [c.name for c in checks.load_checks()]
    assert set(checks.ORDER) <= set(names), set(checks.ORDER) - set(names)
    assert names[:len(checks.ORDER)] == list(checks.ORDER)
    assert {c.family for c in checks.load_checks()} == set(checks.FAMILIES)


def _with_probe(family: str, run) -> list:
    """Run `run()` with a check `probe` of `family` registered; the Builders it was given."""
    seen = []

    @checks.register("probe", family=family)
    def probe(b):
        seen.append(b)
        b.err(b.rs.modules[-1].span, "probe ran", "probe", severity="note")

    try:
        run()
    finally:
        del checks.REGISTRY["probe"]
    return seen


def test_a_registered_check_runs_and_reports_through_the_builder():
    text = (REPO / "rules" / "variants" / "big_cities.tess").read_text(encoding="utf-8")
    out = {}
    seen = _with_probe("tiles", lambda: out.update(diags=check_text(text, str(REPO / "rules" / "variants" / "x.tess"))[0]))
    assert len(seen) == 1 and seen[0].rs.modules[-1].name == "big_cities"
    assert [d.message for d in out["diags"] if d.code == "probe"] == ["probe ran"]


def test_a_card_game_runs_the_card_checks_only():
    text = (REPO / "rules" / "card.tess").read_text(encoding="utf-8")
    path = str(REPO / "rules" / "x.tess")
    assert _with_probe("tiles", lambda: check_text(text, path)) == []
    assert len(_with_probe("cards", lambda: check_text(text, path))) == 1
