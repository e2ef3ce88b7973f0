"""dsl/clauses.py lists exactly the clause IDs of ../shared/rulebooks/CLAUSES.md.

Every clause is defined there as a list item `- **ID** text`; rule files,
tests and verifier reports cite these IDs, and the checker rejects any other.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tessera.dsl.clauses import CLAUSES

REPO = Path(__file__).resolve().parent.parent
CLAUSES_MD = REPO / ".." / "shared" / "rulebooks" / "CLAUSES.md"
DEFINITION = re.compile(r"^- \*\*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\*\*", re.M)
CLAUSE_ID = re.compile(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+")


@pytest.fixture(scope="module")
def md_ids() -> list[str]:
    if not CLAUSES_MD.is_file():
        pytest.skip(f"{CLAUSES_MD} is absent")
    return DEFINITION.findall(CLAUSES_MD.read_text(encoding="utf-8"))


def test_clause_ids_match_clauses_md(md_ids: list[str]) -> None:
    assert md_ids, "no clause definitions found in CLAUSES.md"
    assert len(md_ids) == len(set(md_ids)), "an ID is defined twice in CLAUSES.md"
    missing = sorted(set(md_ids) - set(CLAUSES))
    extra = sorted(set(CLAUSES) - set(md_ids))
    assert not missing and not extra, f"missing from dsl/clauses.py: {missing}; not in CLAUSES.md: {extra}"


def test_clause_ids_are_citable() -> None:
    """Every ID can be written in a citation `[ID]` (the grammar's CLAUSE token) and has a summary."""
    for cid, summary in CLAUSES.items():
        assert CLAUSE_ID.fullmatch(cid), cid
        assert summary.strip(), cid


def test_summaries_come_from_clauses_md(md_ids: list[str]) -> None:
    """Each summary is the start of that clause's text in CLAUSES.md (clauses.py is generated from it)."""
    text = CLAUSES_MD.read_text(encoding="utf-8")
    for cid, summary in CLAUSES.items():
        line = re.search(rf"^- \*\*{re.escape(cid)}\*\* (.*)$", text, re.M)
        assert line is not None, cid
        assert line.group(1).startswith(summary.rstrip(". ")[:40]), cid


def test_coverage_map_shows_every_clause_done() -> None:
    """docs/language.md section 6 lists every clause of CLAUSES.md, the card game's six (CARD-COMP-1 ...
    CARD-END-1) included, as done; a clause marked plainly `done` is cited by a bundled rule file."""
    doc = (REPO / "docs" / "language.md").read_text(encoding="utf-8")
    table = doc.split("## 6. Coverage map", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and CLAUSE_ID.fullmatch(cells[0]):
            rows[cells[0]] = cells[-1]
    assert set(rows) == set(CLAUSES), sorted(set(CLAUSES) ^ set(rows))
    cited = " ".join(p.read_text(encoding="utf-8") for p in (REPO / "rules").rglob("*.tess"))
    for cid, status in rows.items():
        assert status.startswith("done"), (cid, status)
        if status == "done":
            assert re.search(rf"\[[^\]]*\b{re.escape(cid)}\b", cited), f"{cid} is marked done but no rule file cites it"
    for cid in ("CARD-COMP-1", "CARD-DEAL-1", "CARD-TURN-1", "CARD-ROUND-1", "CARD-SCORE-1", "CARD-END-1"):
        assert rows[cid] == "done"
