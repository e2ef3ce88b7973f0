"""Game records (`tessera-game/1`) as untrusted input: read strictly, validated against a schema.

A record is refused, never coerced: `"at": "01"`, `[0.9, -1.7]`, `[true, false]`,
`"rotation": "180"`, `180.9` or `45`, `"discard": "no"`, a key given twice, `1e400`,
`NaN`/`-Infinity`, JSON nested deeper than any record is, bytes that are not UTF-8,
a file that is not a regular file or is larger than MAX_RECORD_FILE.  The schema is
SCHEMA below (JSON Schema 2020-12, checked with the `jsonschema` library); it is
published in docs/records.md, and `tests/test_untrusted.py` checks that the two agree.

Rule paths in a record are resolved relative to the record's own folder, never the
working folder; a bare name is a bundled module (see tessera.dsl.loader.Workspace.find_module).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from ..dsl.untrusted import MAX_RECORD_FILE, FileReadError, decode, printable, read_bytes

FORMAT = "tessera-game/1"
COORD_LIMIT = 1000  # |x|, |y|: a game lays at most a few hundred tiles from [0, 0]
MAX_TURNS = 10_000
MAX_NAME = 64
MAX_RULES = 32  # rule files and modules a record names
MAX_PLAYERS = 6
# lists and objects a record may hold: the most one turn can (a tile, place, capture, 64 ransoms,
# catapults, 6 removals, an outpost, a recall, with their cells) for every turn, and the rest
MAX_CONTAINERS = 88 * MAX_TURNS + 64

_NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
_CELL = {"type": "array", "minItems": 2, "maxItems": 2,
         "items": {"type": "integer", "minimum": -COORD_LIMIT, "maximum": COORD_LIMIT}}
_ROTATION = {"enum": [0, 90, 180, 270]}

SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tessera-game/1 game record",
    "type": "object",
    "required": ["players"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT},
        "rules": {
            "type": "array", "minItems": 1, "maxItems": MAX_RULES,
            "items": {"anyOf": [
                {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$"},  # a bundled module
                {"type": "string", "maxLength": 1024, "pattern": "^[^\\x00]*\\.tess$"},  # a rule file
            ]},
        },
        "players": {"type": "array", "minItems": 1, "maxItems": MAX_PLAYERS, "uniqueItems": True, "items": _NAME},
        "seed": {"type": "integer"},
        "start": {
            "type": "object", "required": ["tile", "at"], "additionalProperties": False,
            "properties": {"tile": _NAME, "at": _CELL, "rotation": _ROTATION},
        },
        "turns": {"type": "array", "maxItems": MAX_TURNS, "items": {"$ref": "#/$defs/turn"}},
        "end": {"enum": ["final", "none"]},
    },
    "$defs": {
        "turn": {
            "type": "object", "required": ["tile"], "additionalProperties": False,
            "properties": {
                "tile": _NAME,
                "variant": _NAME,  # the drawn copy's variant, where a replay would deal another copy
                "discard": {"type": "boolean"},
                "at": _CELL,
                "rotation": _ROTATION,
                "place": {
                    "type": "object", "required": ["figure"], "additionalProperties": False,
                    "properties": {"figure": _NAME, "on": _NAME, "corner": _NAME, "at": _CELL},
                    "oneOf": [{"required": ["on"]}, {"required": ["corner"]}],
                },
                # the Tower (docs/records.md): a capture after the turn's floor, ransoms before its tile (or `when`)
                "capture": {
                    "type": "object", "required": ["figure", "of", "at", "on"], "additionalProperties": False,
                    "properties": {"figure": _NAME, "of": _NAME, "at": _CELL, "on": _NAME, "back": _NAME},
                },
                "ransom": {"type": "array", "maxItems": 64, "items": {
                    "type": "object", "required": ["figure", "from"], "additionalProperties": False,
                    "properties": {"figure": _NAME, "from": _NAME,
                                   "when": {"enum": ["before tile", "before capture", "after scoring"]}},
                }},
                # Siege and Defense (docs/records.md): the drawn tile's catapults, an attack's removals
                # (both before the tile is placed), the extra figure on an outpost (after the figure)
                "catapult": {"type": "array", "maxItems": 8, "items": _NAME},
                "remove": {"type": "array", "maxItems": 6, "items": {
                    "type": "object", "required": ["player", "figure", "at", "on"], "additionalProperties": False,
                    "properties": {"player": _NAME, "figure": _NAME, "at": _CELL, "on": _NAME},
                }},
                "outpost": {
                    "type": "object", "required": ["name", "slot"], "additionalProperties": False,
                    "properties": {"name": _NAME, "slot": {"enum": ["row", "pool"]}},
                },
                "recall": {"oneOf": [
                    _CELL,
                    {"type": "object", "required": ["at"], "additionalProperties": False,
                     "properties": {"figure": _NAME, "at": _CELL}},
                ]},
            },
            "if": {"properties": {"discard": {"const": True}}, "required": ["discard"]},
            "then": {"not": {"anyOf": [{"required": ["at"]}, {"required": ["place"]}, {"required": ["recall"]}]}},
            "else": {"required": ["at"]},
        },
    },
}

MAX_DEPTH = 32  # a record nests 5 levels; deeper JSON is refused before it is parsed


class RecordError(Exception):
    """The record itself is malformed (not a rules violation): a usage error."""


def _strict_pairs(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise RecordError(f"the key {json.dumps(k)} is given twice in one object")
        obj[k] = v
    return obj


def _no_float(text: str):
    raise RecordError(f"{printable(text, 40)} is not a whole number; every number in a record is an integer")


def _no_constant(text: str):
    raise RecordError(f"{text} is not a number a record may hold")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 20:  # a 64-bit seed (simulate writes them) has at most 20 digits
        raise RecordError(f"the number {printable(text, 20)} is too large for a record")
    return int(text)


_SPECIAL = re.compile(r'["\\\[\]{}]')  # the characters that change the JSON's shape: quotes, escapes, brackets


def _shape(text: str) -> tuple[int, int]:
    """The lists and objects the JSON text holds, and how deep they nest (brackets inside
    strings are not counted): one linear pass over its quotes, backslashes and brackets,
    stopped as soon as either is beyond what a record may hold; no memory beyond the text."""
    depth = best = containers = 0
    in_str = False
    escaped = -1  # the position a backslash in a string escapes
    for m in _SPECIAL.finditer(text):
        i = m.start()
        c = text[i]
        if in_str:
            if i == escaped:
                continue
            if c == "\\":
                escaped = i + 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "[" or c == "{":
            depth += 1
            containers += 1
            if depth > best:
                best = depth
            if containers > MAX_CONTAINERS or best > MAX_DEPTH:
                break
        elif c != "\\":
            depth -= 1
    return containers, best


def parse_record(text: str, name: str = "<record>") -> dict:
    """A record's JSON text, strictly parsed and validated; RecordError otherwise.

    What bounds the work comes first, each in one pass: the number of lists and objects and
    their nesting before the JSON is parsed, the lengths of the lists before the schema walks
    them (a record of 300,000 turns is refused at once, not after the schema's walk)."""
    containers, depth = _shape(text)
    if containers > MAX_CONTAINERS:
        raise RecordError(f"{name}: the JSON holds more than {MAX_CONTAINERS:,} lists and objects, the most "
                          f"a record of at most {MAX_TURNS:,} turns holds")
    if depth > MAX_DEPTH:
        raise RecordError(f"{name}: the JSON is nested more than {MAX_DEPTH} levels deep; no game record is")
    try:
        doc = json.loads(text, object_pairs_hook=_strict_pairs, parse_float=_no_float,
                         parse_constant=_no_constant, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{name}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from None
    except RecursionError:
        raise RecordError(f"{name}: the JSON is nested too deeply; no game record is") from None
    if isinstance(doc, dict):  # the lists' lengths before the schema walks every item
        for key, most in (("turns", MAX_TURNS), ("rules", MAX_RULES), ("players", MAX_PLAYERS)):
            items = doc.get(key)
            if isinstance(items, list) and len(items) > most:
                raise RecordError(f"{name}: {key}: the list has {len(items):,} items (at most {most})")
    validate(doc, name)
    return doc


def load_record(path: Path) -> dict:
    """Read and validate a record file: a regular UTF-8 file of at most MAX_RECORD_FILE bytes."""
    try:
        text = decode(read_bytes(path, MAX_RECORD_FILE))
    except FileReadError as exc:
        raise RecordError(f"{printable(path)}: {exc.message}") from None
    return parse_record(text, printable(path))


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the record"


_VALIDATORS: dict = {}


def validate(doc, name: str = "<record>") -> None:
    """RecordError naming the first place where `doc` breaks SCHEMA (the most specific error);
    a card-game record (`"format": "tessera-cards/1"`) is held to CARD_SCHEMA instead."""
    import jsonschema

    from ..dsl.family import Family

    family = Family.of_record(doc)
    schema = family.schema
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _VALIDATORS[id(schema)] = cls(schema)
    errors = list(validator.iter_errors(doc))
    if not errors:
        return
    # the most specific: a value of the wrong type or range before a missing key, deeper first
    vague = ("required", "if", "then", "else", "not", "oneOf", "anyOf")
    err = jsonschema.exceptions.best_match(
        errors, key=lambda e: (e.validator not in vague, len(e.absolute_path), -len(e.schema_path)))
    where = _where(err.absolute_path)
    msg = _plain(err)
    if family.key_refused is not None:  # e.g. a key that kind of card turn does not hold: named at its own path
        where, msg = family.key_refused(doc, err) or (where, msg)
    raise RecordError(f"{name}: {where}: {msg}")


def _plain(err) -> str:
    """jsonschema's message, in the record's terms and printable (a value is quoted short)."""
    v = err.validator
    if "recall" in err.absolute_path and v not in ("additionalProperties", "minimum", "maximum"):
        return 'a `recall` is [x, y] or {"figure": NAME, "at": [x, y]} with whole numbers x and y'
    inst = printable(json.dumps(err.instance, ensure_ascii=False), 60)
    if v == "type":
        want = err.validator_value
        words = {"integer": "a whole number", "string": "a string", "array": "a list", "object": "an object",
                 "boolean": "true or false"}
        return f"{inst} is not {words.get(want, want)}"
    if v == "enum":
        return f"{inst} is not one of {', '.join(json.dumps(x) for x in err.validator_value)}"
    if v == "const":
        return f"{inst} is not {json.dumps(err.validator_value)}"
    if v == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return f"unknown key {printable(json.dumps(extra[0]) if extra else '?', 60)} (docs/records.md lists the keys)"
    if v == "required":
        missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
        key = missing[0] if missing else "?"
        if key == "at" and "turns" in err.absolute_path:
            return "a turn names where its tile goes (`at`), or says `\"discard\": true`"
        return f"the key `{printable(key, 40)}` is missing"
    if v in ("minimum", "maximum"):
        return f"{inst} is out of range ({'at least' if v == 'minimum' else 'at most'} {err.validator_value})"
    if v in ("minItems", "maxItems"):
        return f"the list has {len(err.instance)} items ({'at least' if v == 'minItems' else 'at most'} {err.validator_value})"
    if v in ("minLength", "maxLength"):
        return f"{inst} is {'empty' if v == 'minLength' else 'longer than ' + str(err.validator_value) + ' characters'}"
    if v == "uniqueItems":
        return "the names must be distinct"
    if v == "anyOf" and err.json_path.endswith("]") and "rules" in err.json_path:
        return f"{inst} is neither a module name nor a rule file (a path ending in .tess)"
    if v == "not" and "then" in err.schema_path:
        return "a discarded tile is not placed: a turn with \"discard\": true has no at, place or recall"
    if v == "oneOf" and "place" in err.absolute_path:
        return "a `place` names its figure and exactly one of `on` (a place) or `corner`"
    return printable(err.message, 200)


def game_record(rules: list[str], players: list[str], seed: int, turns: list[dict], end: str = "final") -> dict:
    """A `tessera-game/1` document: the one place that writes the format (simulate `--record`, the
    verifier's witnesses); its turns come from `turns.Recorder` (docs/records.md)."""
    return {"format": FORMAT, "rules": rules, "players": players, "seed": seed, "turns": turns, "end": end}


def write_record(path: Path, doc: dict) -> None:
    """Write a record atomically (a temp file renamed into place): an interrupted
    `simulate --record` never leaves half a record behind."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=1) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def rule_paths_for(record_dir: Path, specs: list[str], files: list[str] = ()) -> list[str]:
    """How a record written into `record_dir` names each rule: a module name as it is, a rule
    file by its name alone, copied beside the records with every other rule file the rule set
    was read from (`files`, the bundled modules left out).  A record's rule files lie in its
    folder (a replay refuses others), so the records replay from any working folder and move
    with their rules.  RecordError if two different rule files share a name."""
    from ..dsl.loader import is_module_name
    from ..dsl.untrusted import MAX_RULE_FILE

    copies: dict[str, bytes] = {}
    for f in files:
        src = Path(f)
        try:
            data = read_bytes(src, MAX_RULE_FILE)
        except FileReadError as exc:
            raise RecordError(f"{printable(f)}: {exc.message}") from None
        if copies.get(src.name, data) != data:
            raise RecordError(f"two different rule files are named {printable(src.name)}; the records keep their "
                              f"rule files side by side, so give them different names")
        copies[src.name] = data
    for name, data in copies.items():
        dest = record_dir / name
        try:
            if dest.is_file() and dest.read_bytes() == data:
                continue
        except OSError:
            pass
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=record_dir)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return [s if is_module_name(s) else Path(s).name for s in specs]
