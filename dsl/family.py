"""Game families, each declared once: the tile game and the card game (rulebook 001).

A family is everything that differs between two kinds of game written in the one language: its
statements and checks, its code generator and runtime, its record format and schema, its replay,
its verifier checks and its viewer.  sqlglot's dialects are the model: a subclass of `Family`
names its parts, and the rest of the toolchain asks the family instead of testing which one it
has.  `RuleSet.family` chooses once, from the collected statements; an engine, a generated source
and a record each name their family too (`of_rules`, `of_source`, `of_record`).

A part is written `Part("module:name")` and imported on first use, so this module imports
nothing of the compiler, the verifier or the pictures (no circle of imports: dsl/ stays the
bottom of the tree).  A part that is None is the family's absence of that thing (the card game
has no tile sheet).

Declaring a family (docs/architecture.md has a worked example, built and run):

    class Dominoes(Family):
        name = "dominoes"
        noun = "domino"
        record_format = "tessera-dominoes/1"
        generate = Part("mypkg.gen:generate")          # RuleSet -> Compiled (compiler/codegen.py)
        runtime = ("dominort",)                         # folders under compiler/ copied into an engine
        ...
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any, ClassVar

from . import ast as A

COMPILER = Path(__file__).resolve().parent.parent / "compiler"  # the runtimes' folders (compiler/runtime ...)


class Part:
    """`module:attribute`, imported when first read (a family's piece from another package)."""

    def __init__(self, path: str):
        self.path = path

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None) -> Any:
        module, _, attr = self.path.partition(":")
        value = importlib.import_module(module)
        for a in attr.split("."):
            value = getattr(value, a)
        return value


# the statements every family reads: its modules, clauses, assumptions, parameters, seats and examples
SHARED_STATEMENTS = (A.Requires, A.Extends, A.ClauseDecl, A.AssumeDecl, A.ParamDecl, A.Players, A.ExampleDecl,
                     A.WithDecl, A.Override)


class Family:
    """A game family: subclass it and name its parts; the subclass registers itself by `name`."""

    REGISTRY: ClassVar[dict[str, "Family"]] = {}
    DEFAULT: ClassVar[str] = "tiles"  # a record, engine or source that names no family is a tile game's

    name: ClassVar[str]
    noun: ClassVar[str]  # "a {noun} game"
    record_format: ClassVar[str]  # the `format` of its game records (docs/records.md)
    # the front end: the statements of its own (AST classes; a tile game's are every other) and the collector
    # that takes them into the rule set (builder, statement, override) (None: dsl/collect.py's own)
    statements: ClassVar[tuple[type, ...]] = ()
    collect: Any = None
    # code generation: RuleSet -> Compiled; the package's __init__.py template; the runtime's folders under
    # compiler/ (the first is the runtime package; a later one lends it only the modules in `shared`)
    generate: Any = None
    init: Any = None
    runtime: ClassVar[tuple[str, ...]] = ()
    shared: ClassVar[tuple[str, ...]] = ()
    # the shipped rule sets whose games a native kernel's build plays to be profiled (compiler/native.py, PGO;
    # none: the plain build)
    training: ClassVar[tuple[tuple[str, ...], ...]] = ()
    # records: the JSON schema, a refined message for a key the schema refuses (doc, error) -> (where, msg) | None,
    # and the replay of a record (record, base, engine) -> ReplayResult (None: replay/tiles.py's own)
    schema: Any = None
    key_refused: Any = None
    replay: Any = None
    # the verifier: its checks are those whose name starts with `check_prefix` ("" for every other check)
    check_prefix: ClassVar[str] = ""
    invariants: ClassVar[tuple[str, ...]] = ()  # the checks `verify --range` runs per value
    # the viewer: a record's timeline (record, base, seat) and its page and drawing (None: pictures/viewer.py's)
    timeline: Any = None
    viewer_html: Any = None
    table_drawing: Any = None
    # play: does a rule of the game break ties (simulate reports its `winners`)?  Does it draw tiles (a tile sheet)?
    breaks_ties: ClassVar[bool] = False
    has_tiles: ClassVar[bool] = True
    # the first words of this family's own statements (not SHARED_STATEMENTS'), which the editor offers
    # and reads a file's family by while it does not parse (`of_text`; a word of two families, `score`
    # and `end`, tells neither)
    heads: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        Family.REGISTRY[cls.name] = cls()

    def __repr__(self) -> str:
        return f"<family {self.name}>"

    # -- choosing a family, once, from what names it -------------------------------------------
    @classmethod
    def named(cls, name: str) -> "Family":
        return cls.REGISTRY[name]

    @classmethod
    def of_rules(cls, R) -> "Family":
        """The family of a compiled engine's rules module (its `FAMILY`, written by the code generator)."""
        return cls.REGISTRY[getattr(R, "FAMILY", cls.DEFAULT)]

    @classmethod
    def of_source(cls, source: str) -> "Family":
        """The family of a generated rules module's source (`engine_from_source`)."""
        m = _FAMILY_LINE.search(source)
        return cls.REGISTRY[m.group(1)] if m and m.group(1) in cls.REGISTRY else cls.REGISTRY[cls.DEFAULT]

    @classmethod
    def of_text(cls, text: str) -> "Family | None":
        """The family of a rule file's text that may not parse (the editor's, as it is typed): the one
        whose own statements' first words (`heads`) start its lines, if exactly one family's do."""
        found = {w for w in re.findall(r"^[ \t]*(?:override[ \t]+)?([a-z]+)\b", text, re.M)}
        fams = [f for f in cls.REGISTRY.values() if any(w in f.heads and not any(w in o.heads for o in cls.REGISTRY.values()
                                                                              if o is not f) for w in found)]
        return fams[0] if len(fams) == 1 else None

    @classmethod
    def of_statement(cls, item) -> "Family":
        """The family a statement of a rule file belongs to (the tile game's unless another claims it)."""
        return next((f for f in cls.REGISTRY.values() if f.statements and isinstance(item, f.statements)),
                    cls.REGISTRY[cls.DEFAULT])

    @classmethod
    def of_record(cls, doc) -> "Family":
        """The family of a game record, by its `format` (an unknown one is the tile game's to refuse)."""
        fmt = doc.get("format") if isinstance(doc, dict) else None
        return next((f for f in cls.REGISTRY.values() if f.record_format == fmt), cls.REGISTRY[cls.DEFAULT])

    # -- what a family answers ----------------------------------------------------------------
    def runtime_sources(self) -> list[Path]:
        """The runtime modules an engine of this family is compiled with (copied verbatim)."""
        first, *lent = self.runtime
        return [*sorted((COMPILER / first).glob("*.py")), *(COMPILER / d / n for d in lent for n in self.shared)]

    def runtime_path(self) -> list[str]:
        """The runtime package's search path (its own folder first, then the folders it borrows from)."""
        return [str(COMPILER / d) for d in self.runtime]

    def owns_check(self, name: str) -> bool:
        """Is verifier check `name` one of this family's (the `records` check is every family's)?"""
        if name in BOTH_FAMILIES:
            return True
        mine = [f.check_prefix for f in self.REGISTRY.values() if f.check_prefix]
        if self.check_prefix:
            return name.startswith(self.check_prefix)
        return not name.startswith(tuple(mine))


_FAMILY_LINE = re.compile(r"^FAMILY = '(\w+)'$", re.M)
BOTH_FAMILIES = ("records",)  # verifier checks of either game: the bundled records of the rule set, replayed


class Tiles(Family):
    """The tile game: Carcassonne and its expansions (rulebooks 000, 002...)."""

    name = "tiles"
    noun = "tile"
    record_format = "tessera-game/1"
    generate = Part("tessera.compiler.codegen:generate_tiles")
    init = Part("tessera.compiler.build:INIT")
    runtime = ("runtime",)
    training = (("base",), ("base", "river", "abbot", "barn", "king_robber", "tower", "siege"))
    schema = Part("tessera.replay.records:SCHEMA")
    invariants = ("invariants",)
    heads = frozenset({"total", "composition", "edge", "feature", "figure", "tile", "start", "deck", "box",
                       "placement", "complete", "owners", "return", "state", "on", "award", "recall", "capture",
                       "exchange", "ransom", "track", "allow", "forbid", "invariant", "score", "end"})


class Cards(Family):
    """The card game (rulebook 001): dsl/cards.py collects and checks its statements."""

    name = "cards"
    noun = "card"
    record_format = "tessera-cards/1"
    statements = A.CARD_STATEMENTS
    collect = Part("tessera.dsl.cards:collect")
    generate = Part("tessera.compiler.cardgen:generate_cards")
    init = Part("tessera.compiler.build:CARD_INIT")
    runtime = ("cardrt", "runtime")
    shared = ("ops.py", "errors.py", "tagged.py")  # the tile runtime's modules a card engine's runtime shares
    schema = Part("tessera.replay.cards:CARD_SCHEMA")
    key_refused = Part("tessera.replay.cards:key_refused")
    replay = Part("tessera.replay.cards:replay_cards")
    check_prefix = "card-"
    invariants = ("card-deal", "card-conservation", "card-scores")
    timeline = Part("tessera.pictures.cards:card_timeline")
    viewer_html = Part("tessera.pictures.cards:card_viewer_html")
    table_drawing = Part("tessera.pictures.cards:table_drawing")
    breaks_ties = True
    has_tiles = False
    heads = frozenset({"colour", "card", "cards", "layout", "deal", "facedown", "dealer", "feudal", "take",
                       "misplaced", "table", "score", "end", "tie"})


TILES = Family.named("tiles")
CARDS = Family.named("cards")
