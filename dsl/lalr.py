"""The Lark parser of dsl/grammar.lark: built from the grammar, or loaded from the LALR tables
kept in dsl/parser_tables.json (`python -m tessera.dsl.parser --write-tables`), and the grammar's keywords.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from lark import Lark
from lark.lark import PostLex

GRAMMAR = Path(__file__).with_name("grammar.lark")


class _WholeWords(PostLex):
    """Keywords are whole words.

    The contextual lexer only tries the terminals the parser can take next, so
    where a keyword may come but a name may not, `tileX` was read as `tile X`
    and `placement adjacentmatching` as `placement adjacent matching`.  Letting
    every state read a NAME makes such a glued word one unexpected token (a
    NAME equal to a keyword is still that keyword).
    """

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


TABLES = Path(__file__).with_name("parser_tables.json")
# what may differ between the built parser and the one loaded from its tables (given again when loading)
_GIVEN = ("postlex", "lexer_callbacks", "transformer", "_plugins", "tree_class", "debug", "use_bytes", "regex", "g_regex_flags")
_ITEMS, _TUPLE = "\0items", "\0tuple"  # JSON has neither int keys nor tuples


def _digest(grammar: str) -> str:
    import lark

    return hashlib.sha256(f"{grammar}\0{lark.__version__}".encode("utf-8")).hexdigest()


def _build(grammar: str, **options) -> Lark:
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        postlex=_WholeWords(),
        propagate_positions=True,
        maybe_placeholders=True,
        **options,
    )


def _encode(x):
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _encode(v) for k, v in x.items()}
        return {_ITEMS: [[k, _encode(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {_TUPLE: [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    return x


def _decode(d: dict):
    if len(d) == 1:
        if _ITEMS in d:
            return {k: v for k, v in d[_ITEMS]}
        if _TUPLE in d:
            return tuple(d[_TUPLE])
    return d


def _tables(grammar: str):
    """(DATA, MEMO) of Lark's serialized parser from dsl/parser_tables.json, if they are this grammar's."""
    import json

    try:
        doc = json.loads(TABLES.read_text(encoding="utf-8"), object_hook=_decode)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("grammar_sha256") != _digest(grammar):
        return None
    return doc["data"], doc["memo"]


def make_parser(**options) -> Lark:
    """A Lark parser for the rules language; `options` are extra Lark options
    (`tessera fmt` passes `lexer_callbacks` to collect the comments).

    Building the LALR tables takes most of `tessera check`'s time, so they are
    kept, as Lark's standalone generator keeps them, in `dsl/parser_tables.json`
    (installed with the package: nothing is read from a cache folder, nothing
    is unpickled).  They are used only when their recorded SHA-256 of
    grammar.lark (and Lark's version) is that of the grammar read now;
    otherwise the parser is built from the grammar.
    `python -m tessera.dsl.parser --write-tables` writes them anew."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    if set(options) <= set(_GIVEN):
        tables = _tables(grammar)
        if tables is not None:
            return Lark._load_from_dict(*tables, postlex=_WholeWords(), **options)
    return _build(grammar, **options)


def tables_text() -> str:
    """The text of dsl/parser_tables.json for the grammar as it is now."""
    import json

    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    grammar = GRAMMAR.read_text(encoding="utf-8")
    data, memo = _build(grammar).memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _GIVEN}
    doc = {"about": "LALR tables of dsl/grammar.lark for Lark; written by `python -m tessera.dsl.parser --write-tables`",
           "grammar_sha256": _digest(grammar), "data": _encode(data), "memo": _encode(memo)}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True) + "\n"


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The words of the grammar (`module`, `score`, `end`, `if`, …): reserved, never a name."""
    return frozenset(re.findall(r'"([a-z][a-z_]*)"', GRAMMAR.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return make_parser()
