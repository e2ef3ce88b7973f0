"""The compiled engine of the rule set being verified, compiled once for every check that plays it
(the worked examples, the records, the river's witness search): one rule set at a time, as
`tessera verify` checks them set by set."""
from __future__ import annotations

from ..dsl.model import RuleSet

_ENGINES: dict = {}  # id(rule set) -> (the rule set, its engine): the one rule set checked now


def engine_of(rs: RuleSet):
    """The engine compiled from `rs` (compiled on first use; another rule set's is dropped)."""
    from ..compiler.build import load_engine

    hit = _ENGINES.get(id(rs))
    if hit is None or hit[0] is not rs:
        _ENGINES.clear()
        _ENGINES[id(rs)] = hit = (rs, load_engine(rs))
    return hit[1]
