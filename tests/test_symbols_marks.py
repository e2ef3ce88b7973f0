"""Printed symbols and marks on tiles (language.md 2.6, X11): `symbols NAME ...` on a tile
(SIEGE-COMP-1, SIEGE-ADVANCE-1's siege symbols, left to right; `any` is the "?") and
`marks NAME [N]` on a feature, read by `marks(NAME)` (REF-SCORE-1's inns, cathedrals, goods)."""
from __future__ import annotations

from pathlib import Path

from tessera.dsl.fmt import format_module
from tessera.dsl.loader import load_rule_set
from tessera.dsl.parser import parse

TILES = """module printed requires base
tile p.inn x1 [BASE-COMP-1] {
  edges F R F R
  road W E marks inn
  field Wn Nw Ne En
  field Es Se Sw Ws
  symbols travellers knights
}
tile p.goods x1 [BASE-COMP-1] {
  edges C F F F
  city N marks wine 2 marks cloth
  field En Es Se Sw Ws Wn -> N
  symbols any
}
"""


def _load(tmp_path: Path, text: str):
    p = tmp_path / "printed.tess"
    p.write_text(text, encoding="utf-8")
    return load_rule_set([str(p)])


def _errors(diags):
    return [(d.span.line, d.code, d.message) for d in diags if d.severity == "error"]


def test_symbols_and_marks_parse_check_and_format_back(tmp_path):
    """SIEGE-ADVANCE-1: symbols are kept left to right; marks keep their counts; fmt round-trips."""
    rs, diags, _ = _load(tmp_path, TILES)
    assert rs is not None and not _errors(diags)
    inn = rs.tile_types("p.inn")[0]
    goods = rs.tile_types("p.goods")[0]
    assert inn.symbols == ("travellers", "knights")
    assert goods.symbols == ("any",)
    assert inn.features[0].marks_of("inn") == 1 and inn.features[0].marks_of("wine") == 0
    assert goods.features[0].marks_of("wine") == 2 and goods.features[0].marks_of("cloth") == 1
    assert rs.mark_names() == ["cloth", "inn", "wine"]
    assert set(rs.symbol_names()) >= {"any", "travellers", "knights"}
    mod = parse(TILES, "printed.tess")
    text = format_module(mod, TILES)
    assert "  road W E marks inn\n" in text and "  city N marks wine 2 marks cloth -> " not in text
    assert "  city N marks wine 2 marks cloth\n" in text and "  symbols travellers knights\n" in text
    assert parse(text, "printed.tess") == mod


def test_mistakes_with_symbols_and_marks_are_diagnostics(tmp_path):
    bad = TILES.replace("road W E marks inn", "road W E marks inn marks inn").replace(
        "marks cloth", "marks cloth 0") + "override score road complete = if marks(inm) > 0 then 2 else 1\n"
    rs, diags, _ = _load(tmp_path, bad)
    errs = _errors(diags)
    assert (4, "duplicate") in [(ln, c) for ln, c, _ in errs]
    assert (11, "range") in [(ln, c) for ln, c, _ in errs]
    unknown = [m for ln, c, m in errs if c == "unknown-name" and ln == 15]
    assert unknown and "no tile prints `inm`; did you mean `inn`?" in unknown[0]
    # symbols come after the feature lines: a syntax error that says so
    # (the words after `symbols` would be read as symbols, to the end of the tile)
    _, diags, _ = _load(tmp_path, TILES.replace("  symbols travellers knights\n", "").replace(
        "edges F R F R\n", "edges F R F R\n  symbols travellers\n"))
    assert [(ln, c) for ln, c, m in _errors(diags) if "comes last, after the feature lines" in m] == [(4, "syntax")]
    _, diags, _ = _load(tmp_path, TILES.replace("symbols any", "symbols any city"))
    assert [(ln, c) for ln, c, m in _errors(diags) if "comes last, after the feature lines" in m] == [(13, "syntax")]


def test_the_engine_tables_carry_symbols_and_marks(tmp_path):
    """The compiled engine: a tile type's symbols in order (what the Siege's draw event reads)
    and per feature its marks, one count per MARKS entry."""
    from tessera.compiler.build import load_engine

    rs, diags, _ = _load(tmp_path, TILES)
    eng = load_engine(rs)
    R = eng.rules
    assert R.MARKS == ("cloth", "inn", "wine")
    inn = R.TILES[R.TILE_IDS["p.inn"][0]]
    goods = R.TILES[R.TILE_IDS["p.goods"][0]]
    assert inn.symbols == ("travellers", "knights") and goods.symbols == ("any",)
    assert inn.feats[0].marks == (0, 1, 0) and goods.feats[0].marks == (1, 0, 2)
    assert inn.feats[1].marks == ()  # a feature without marks
    assert R.TILES[R.TILE_IDS["D"][0]].symbols == ()
