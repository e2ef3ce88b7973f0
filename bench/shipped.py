"""The engine a benchmark times: the rule set compiled to a package in a temporary folder and
imported from there, as a designer would ship it (shared by bench_games.py and bench_cards.py)."""
from __future__ import annotations

import contextlib
import importlib
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.compiler.build import compile_to_dir  # noqa: E402
from tessera.dsl.loader import RuleSetError, require_rule_set  # noqa: E402


@contextlib.contextmanager
def shipped_engine(rules: str, package: str) -> Iterator[ModuleType]:
    """The engine of `rules` (comma-separated rule sets), as package `package`, for the `with`
    block; a rule set that does not load ends the benchmark with its message."""
    try:
        rs = require_rule_set(rules.split(","))
    except RuleSetError as exc:
        sys.exit(str(exc))
    with tempfile.TemporaryDirectory() as tmp:
        compile_to_dir(rs, Path(tmp), package)
        sys.path.insert(0, tmp)
        yield importlib.import_module(package)
