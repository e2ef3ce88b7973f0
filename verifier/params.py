"""The invariants over a parameter's whole range (`tessera verify --param NAME`, issue 40).

A thin layer over the invariant check (verifier/invariants.py, run as the registered check
`invariants`): nothing here proves anything itself.

* **Symbolically.** The rule set is loaded with the parameter kept as a name
  (`tessera.dsl.params.settings(symbolic=...)`); the z3 encoder (`encode.Env.name`) asks
  its `param_symbol` (verifier/encode.py, within `symbols(ranges)`) for it, which gives one z3
  integer for the whole game, constrained to the range being proved (a domain fact, `NAME in
  LO..HI`).  When the invariant check passes, every value of that range is proved by one proof.
* **Bisection.** When it does not, the range is split in two and each half tried the same way,
  down to single values; a single value is then verified as the rules with that value
  (`--set NAME=V`), whose failure comes with the invariant check's own verdict: *refuted* with
  a game of the compiled engine that breaks it (a record written under `--record DIR/NAME=V`,
  replayed with `tessera replay RECORD --set NAME=V`), *not proved* (no game tried reaches the
  state z3 found) or *inconclusive*.
* Where the parameter cannot be kept a name (it is read where a number must be known when the
  rules load: a figure count), every value is verified on its own (the per-value verdicts).

`proved_values` is what `tessera tune` asks: only proved values are its candidates.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..dsl.family import CARDS

from .encode import param_symbol, symbols  # noqa: F401  (the encoder's, verifier/encode.py; named here too)


@dataclass
class Part:
    """A verdict on a sub-range: `proved` (symbolically when `symbolic`), `refuted`, `not proved`,
    `inconclusive`, or `error` (the rules do not load with that value)."""
    low: int
    high: int
    verdict: str
    symbolic: bool = False
    details: list[str] = field(default_factory=list)  # the invariant check's errors, one per line group

    @property
    def span(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}..{self.high}"


@dataclass
class RangeResult:
    rules: list[str]
    name: str
    low: int
    high: int
    value: int
    where: str
    parts: list[Part] = field(default_factory=list)
    symbolic: bool = True  # the parameter could be kept a name (else: per-value verdicts only)
    runs: int = 0  # invariant checks run

    def proved(self) -> list[int]:
        return [v for p in self.parts if p.verdict == "proved" for v in range(p.low, p.high + 1)]

    def to_dict(self) -> dict:
        return {"rules": self.rules, "param": self.name, "range": [self.low, self.high], "value": self.value,
                "declared": self.where, "symbolic": self.symbolic, "invariant_checks": self.runs,
                "proved": _runs(self.proved()),
                "parts": [{"range": [p.low, p.high], "verdict": p.verdict, "symbolic": p.symbolic,
                           "details": p.details} for p in self.parts]}


def _runs(values: list[int]) -> list[list[int]]:
    """[1, 2, 3, 5] -> [[1, 3], [5, 5]]."""
    out: list[list[int]] = []
    for v in sorted(values):
        if out and out[-1][1] == v - 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return out


def _verdict(result) -> tuple[str, list[str]]:
    """The invariant check's CheckResult as one verdict and its error texts."""
    if result.passed:
        return "proved", []
    texts = [d.message for d in result.diagnostics if d.severity == "error"] + list(result.messages)
    heads = " ".join(t.split("\n", 1)[0] for t in texts)
    verdict = ("refuted" if " is refuted " in heads else "not proved" if " is not proved " in heads
               else "inconclusive" if " is inconclusive " in heads else "error")
    return verdict, texts


def _load(specs: list[str], sets: dict[str, int], symbolic: set[str] = frozenset()):
    from ..dsl.loader import load_rule_set
    from ..dsl.params import settings

    with settings(sets, symbolic):
        rs, diags, _ = load_rule_set(list(specs))
    return rs, [d for d in diags if d.severity == "error"]


class _Merged:
    """The checks run on one rule set, as one result: passed when every one ran and passed."""

    def __init__(self, results):
        ran = [r for r in results if not r.skipped]
        self.passed = bool(ran) and all(r.passed for r in ran)
        self.diagnostics = [d for r in ran for d in r.diagnostics]
        self.messages = [m for r in ran for m in r.messages] + ([] if ran else ["no invariant check applies here"])


def _names(rs) -> list[str]:
    """The invariant checks of the rule set's family: the tile game's `invariants` (z3 induction), or the card
    game's z3 proofs (its deal, card conservation, no negative scoring: verifier/cards.py, not its engine check)."""
    from .checks import load_checks

    return [n for n in load_checks() if n in rs.family.invariants]


def _check(rs):
    from .checks import run_checks

    return _Merged(run_checks(rs, _names(rs)))


def verify_range(specs: list[str], name: str, sets: dict[str, int] | None = None,
                 record: Path | None = None, low: int | None = None, high: int | None = None) -> RangeResult:
    """Every value of parameter `name`'s range (or `low..high` within it) verified: symbolic proofs of
    sub-ranges by bisection, single values with the invariant check's own verdict and witness game.
    ValueError when the rules do not load or do not declare `name`."""
    from . import witness as wit

    sets = {k: v for k, v in (sets or {}).items() if k != name}
    rs, errors = _load(specs, sets)
    if rs is None:
        raise ValueError("the rules do not load: " + "; ".join(d.header() for d in errors[:3]))
    if name not in rs.params:
        known = ", ".join(sorted(rs.params)) or "none"
        raise ValueError(f"these rules declare no parameter `{name}` (their parameters: {known})")
    d = rs.params[name]
    lo = d.low if low is None else max(low, d.low)
    hi = d.high if high is None else min(high, d.high)
    out = RangeResult(list(specs), name, lo, hi, d.value, str(d.span))
    sym, sym_errors = _load(specs, sets, {name})
    if sym is not None and sym.family is CARDS:
        sym = None  # the card game's proofs (verifier/cards.py) take numbers, not z3 names: value by value
    out.symbolic = sym is not None
    saved = wit.RECORD_DIR

    def single(v: int) -> Part:
        rs_v, errs = _load(specs, {**sets, name: v})
        if rs_v is None:
            return Part(v, v, "error", details=[e.header() for e in errs[:3]])
        # `--record DIR`, else the user's own private witness folder (witness_dir.py), as every witness
        base = record or wit.RECORD_DIR or wit._record_folder(None)
        wit.RECORD_DIR = Path(base) / f"{name}={v}"  # each value's witness games apart
        try:
            out.runs += 1
            verdict, texts = _verdict(_check(rs_v))
        finally:
            wit.RECORD_DIR = saved
        return Part(v, v, verdict, details=texts)

    def symbolic(a: int, b: int) -> bool:
        out.runs += 1
        games = wit.WITNESS_GAMES
        wit.WITNESS_GAMES = 0  # a failed symbolic proof is split, not searched for games: the values are
        try:
            with symbols({name: (a, b)}):
                if not _check(sym).passed:
                    return False
        finally:
            wit.WITNESS_GAMES = games
        return model_is_engine(a) and (a == b or model_is_engine(b))

    def model_is_engine(v: int) -> bool:
        """A proof with the parameter kept a name has no engine to hold its model to: it counts only
        where the rules at the range's two ends pass their own check (a house rule's holds the model
        to a few games of that value's engine); otherwise the range is split down to values."""
        rs_v, _ = _load(specs, {**sets, name: v})
        return rs_v is not None and _check(rs_v).passed

    def walk(a: int, b: int) -> None:
        if a == b:
            if sym is not None and symbolic(a, a):
                out.parts.append(Part(a, a, "proved", symbolic=True))
            else:
                out.parts.append(single(a))
            return
        if sym is not None and symbolic(a, b):
            out.parts.append(Part(a, b, "proved", symbolic=True))
            return
        m = (a + b) // 2
        walk(a, m)
        walk(m + 1, b)

    if sym is not None:
        walk(lo, hi)
    else:
        out.parts = [single(v) for v in range(lo, hi + 1)]
    out.parts = _merge(out.parts)
    return out


def _merge(parts: list[Part]) -> list[Part]:
    """Neighbouring proved parts as one (a range proved in pieces is proved)."""
    out: list[Part] = []
    for p in parts:
        if out and p.verdict == "proved" == out[-1].verdict and out[-1].high == p.low - 1:
            out[-1] = Part(out[-1].low, p.high, "proved", out[-1].symbolic and p.symbolic)
        else:
            out.append(p)
    return out


def proved_values(specs: list[str], name: str, sets: dict[str, int] | None = None) -> tuple[list[int], RangeResult]:
    res = verify_range(specs, name, sets)
    return res.proved(), res


def describe(res: RangeResult) -> list[str]:
    """The report's lines: one per part, then the proved sub-range."""
    lines = [f"{' + '.join(res.rules)}: param {res.name} in {res.low}..{res.high} (declared at {res.where}, "
             f"value {res.value})" + ("" if res.symbolic else
                                      "; it cannot be kept a name here: each value verified on its own")]
    for p in res.parts:
        how = ("one z3 proof for the whole sub-range" if p.symbolic and p.low != p.high else
               "z3, the value kept a name" if p.symbolic else "the rules with this value")
        lines.append(f"  {p.verdict:<13} {p.span:<9} ({how})" if p.verdict == "proved" else
                     f"  {p.verdict:<13} {p.span:<9} (tessera verify --set {res.name}={p.low}):")
        for t in p.details:
            lines.extend("      " + ln for ln in t.split("\n"))
        if p.verdict == "refuted":
            lines.append(f"      replay a game above with: tessera replay RECORD --set {res.name}={p.low}")
    proved = res.proved()
    runs = _runs(proved)
    said = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in runs) or "none"
    lines.append(f"  proved for {len(proved)} of {res.high - res.low + 1} values: {said} "
                 f"({res.runs} invariant check{'s' if res.runs != 1 else ''} run)")
    return lines
