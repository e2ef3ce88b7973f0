"""The card viewer's work grows with the moves, not moves x table (issue 38, round 5).  Each step's
picture is drawn from the parts of the step before (pictures/cards.py `TableSvg`): only what a move
changed is drawn anew, and the text is the very SVG `tessera draw --turn N` writes, so the page is
the same page, byte for byte.  Measured on a 2,792-step game of 2,000 cards (`/usr/bin/time -v
tessera view`): 13.35 s user CPU before, 4.29 s after, the same 2.5 MB page (docs/pictures.md)."""
from __future__ import annotations

import pytest

from tessera.compiler.build import load_engine
from tessera.play.simulate import play_one, write_card_record
from tessera.replay.records import load_record
from tessera.dsl.loader import require_rule_set
from tessera.pictures.cards import TableSvg, _parts, card_timeline, table_drawing

pytestmark = pytest.mark.slow  # a card game compiled and played, then drawn step by step (about 4 s CPU)


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cards")
    eng = load_engine(require_rule_set(["card"]))
    g, turns = play_one(eng, 3, 5, ["random", "random", "random"], record=True)
    write_card_record(folder, 0, ["card"], g, turns)
    return folder / "game-000000.json"


@pytest.mark.parametrize("seat", [None, "all"], ids=["open-table", "every-hand"])
def test_each_step_drawn_from_the_one_before_is_the_same_svg(record, seat):
    tl = card_timeline(load_record(record), record.parent, seat)
    svg = TableSvg()
    for i in range(0, len(tl.steps), 3):  # every third step: each is drawn from parts kept across steps
        assert svg(tl, i) == table_drawing(tl, i).as_svg(), i


def test_a_step_draws_only_what_changed(record):
    """The drawing work per step (texts made anew) is a few parts, not the table's ~100."""
    tl = card_timeline(load_record(record), record.parent, "all")
    svg = TableSvg()
    svg(tl, 0)
    first = len(svg.texts)
    for i in range(1, len(tl.steps)):
        svg(tl, i)
    parts = sum(1 + len(p.children) for i in range(1, len(tl.steps)) for p in _parts(tl, i)[1])
    made = len(svg.texts) - first  # nothing dropped: `keep` is far above one game's parts
    assert len(tl.steps) > 100 and first > 30
    assert made < parts / 8, (made, parts, len(tl.steps))  # each step made about 1/8 of its parts or fewer
    assert made / (len(tl.steps) - 1) < 12, made


def test_the_kept_texts_are_bounded():
    keep = 3
    svg = TableSvg(keep=keep)
    for k in range(10):
        svg._text(("k", k), lambda: "x")
    assert len(svg.texts) <= keep
