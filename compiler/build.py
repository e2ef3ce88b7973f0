"""Compile a rule set into an engine package, on disk or in memory."""
from __future__ import annotations

import importlib.util
import shutil
import sys
import types
from pathlib import Path

from dsl.model import RuleSet
from .codegen import generate

RUNTIME = Path(__file__).with_name("runtime")  # the runtime package, copied into every engine

INIT = '''"""A Carcassonne engine compiled by tessera from: {modules}.

Runs on the Python standard library alone.

    from {pkg} import new_game
    g = new_game(players=2, seed=1)
    while not g.is_terminal():
        g.apply_action(g.legal_actions()[0])
    print(g.returns())
"""
from . import rules
from .runtime import Game, IllegalAction, play_random as _play_random

MODULES = rules.MODULES


def new_game(players=2, seed=0, names=None, start=None):
    """A new game: 2..{high} players, a seed for the bag."""
    return Game(rules, players, seed, names, start)


def play_random(players=2, seed=0, names=None):
    return _play_random(rules, players, seed, names)
'''


def compile_to_dir(rs: RuleSet, out: Path, package: str = "engine") -> Path:
    """Write an importable package `out/package` (runtime + generated rules)."""
    if not package.isidentifier():
        raise ValueError(f"not a Python package name: {package!r}")
    compiled = generate(rs)
    pkg = out / package
    tmp = out / f".{package}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    high = rs.player_range()[1]
    (tmp / "__init__.py").write_text(INIT.format(modules=", ".join(rs.names), pkg=package, high=high), encoding="utf-8")
    _copy_runtime(tmp / "runtime")
    (tmp / "rules.py").write_text(compiled.source, encoding="utf-8")
    if pkg.exists():
        shutil.rmtree(pkg)
    tmp.rename(pkg)
    return pkg


def _copy_runtime(dest: Path) -> None:
    """The runtime package's modules, verbatim (no caches)."""
    dest.mkdir()
    for src in sorted(RUNTIME.glob("*.py")):
        (dest / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")


_counter = 0


def load_engine(rs: RuleSet) -> types.ModuleType:
    """Compile in memory and import: a package object with `new_game`, `rules`, `Game`."""
    return engine_from_source(generate(rs).source, "+".join(rs.names))


def engine_from_source(source: str, label: str) -> types.ModuleType:
    """Import a generated rules module (`load_engine(rs).source`) with this toolchain's runtime.

    `simulate` compiles once and sends the source to its worker processes (or a
    Dask cluster), which then need neither the rule files nor the loader."""
    global _counter
    _counter += 1
    name = f"_tessera_engine_{_counter}"
    pkg = types.ModuleType(name)
    pkg.__path__ = []  # a package, so `from . import runtime` works
    sys.modules[name] = pkg
    rt_spec = importlib.util.spec_from_file_location(f"{name}.runtime", RUNTIME / "__init__.py",
                                                     submodule_search_locations=[str(RUNTIME)])
    runtime = importlib.util.module_from_spec(rt_spec)
    sys.modules[f"{name}.runtime"] = runtime
    rt_spec.loader.exec_module(runtime)
    rules = types.ModuleType(f"{name}.rules")
    rules.__package__ = name
    sys.modules[f"{name}.rules"] = rules
    code = compile(source, f"<tessera rules: {label}>", "exec")
    exec(code, rules.__dict__)
    pkg.runtime = runtime
    pkg.rules = rules
    pkg.Game = runtime.Game
    pkg.IllegalAction = runtime.IllegalAction
    pkg.source = source
    pkg.new_game = lambda players=2, seed=0, names=None, start=None: runtime.Game(rules, players, seed, names, start)
    pkg.play_random = lambda players=2, seed=0, names=None: runtime.play_random(rules, players, seed, names)
    return pkg
