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
from tessera.compiler.native import KernelError, ext_suffix, family_modules  # noqa: E402
from tessera.dsl.loader import RuleSetError, require_rule_set  # noqa: E402


def kernel_of(rs) -> bool:
    """Whether the rule set's family has compiled runtime modules at all (the card game's has none yet)."""
    return bool(family_modules(rs.family))


@contextlib.contextmanager
def shipped_engine(rules: str, package: str, kernel: str = "python") -> Iterator[ModuleType]:
    """The engine of `rules` (comma-separated rule sets), as package `package`, for the `with`
    block; a rule set that does not load ends the benchmark with its message.  `kernel`: python
    (the package as `tessera compile` writes it) or native (`tessera compile --native`: its runtime
    modules compiled with Cython, built once per package name and cached; compiler/native.py)."""
    try:
        rs = require_rule_set(rules.split(","))
    except RuleSetError as exc:
        sys.exit(str(exc))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            compile_to_dir(rs, Path(tmp), package, native=kernel == "native")
        except KernelError as exc:
            sys.exit(f"--kernel native: {exc}")
        sys.path.insert(0, tmp)
        eng = importlib.import_module(package)
        ran = "native" if eng.runtime.game.__file__.endswith(ext_suffix()) else "python"
        if ran != kernel and kernel_of(rs):
            sys.exit(f"--kernel {kernel}: the engine imported runs on the {ran} kernel")
        eng.bench_kernel = ran  # what the benchmark's line names: the card game's runtime has no compiled module yet
        yield eng
