"""Fingerprints of what the engine tells: simulated games, replays of every record, viewer pages.

A refactor of the runtime (issue 36, the engine's story as data; issue 41, a compiled kernel) must
leave every output byte-identical.  This script runs the commands a person runs and prints one line
per output, `sha256  name`, so two trees compare with `diff`:

    python bench/golden.py > /tmp/before.txt          # on main
    python bench/golden.py > /tmp/after.txt           # on the branch
    diff /tmp/before.txt /tmp/after.txt && echo identical

What it covers (each through the installed `tessera` command of the interpreter running it):
- `simulate --json --record` for every bundled module set, random and greedy agents, 2 to 5 players;
  the card game with 4 players; every game record written is fingerprinted too;
- `replay --json` of every record under rules/records and tests/records (their answer or their
  refusal, with the exit status);
- `view` of one simulated record per module set (the HTML page).

`--quick` plays fewer games (for a first look); `--keep DIR` keeps the outputs for a diff of the files.
"""
from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESSERA = [sys.executable, "-m", "tessera"]

# (name, --rules, --players, --agents or None)
RUNS = [
    ("base-random", "base", 2, None),
    ("base-greedy", "base", 3, "greedy,random,greedy"),
    ("river", "base,river", 2, None),
    ("abbot", "base,abbot", 4, None),
    ("barn", "base,barn", 3, None),
    ("king", "base,king_robber", 2, "greedy,random"),
    ("tower", "base,tower", 3, None),
    ("siege", "base,siege", 2, None),
    ("all", "base,river,abbot,barn,king_robber,tower", 5, None),
    ("all-greedy", "base,river,abbot,barn,king_robber,tower", 2, "greedy,greedy"),
    ("card", "card", 4, "greedy,random,random,random"),
]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(TESSERA + args, cwd=cwd, capture_output=True, timeout=1800)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer games")
    ap.add_argument("--keep", type=Path, help="keep the outputs in this folder")
    opts = ap.parse_args()
    games = 6 if opts.quick else 40
    work = Path(tempfile.mkdtemp(prefix="tessera-golden-"))
    lines: list[str] = []
    try:
        for name, rules, players, agents in RUNS:
            rec = work / name
            args = ["simulate", "--rules", rules, "--players", str(players), "--games", str(games),
                    "--seed", "7", "--jobs", "1", "--json", "--record", str(rec)]
            if agents:
                args += ["--agents", agents]
            p = run(args, ROOT)
            lines.append(f"{digest(p.stdout)}  simulate {name} exit={p.returncode}")
            for f in sorted(rec.glob("*.json")):
                lines.append(f"{digest(f.read_bytes())}  record {name}/{f.name}")
            first = rec / "game-000000.json"
            if first.exists():
                page = work / f"{name}.html"
                p = run(["view", str(first), "-o", str(page)], ROOT)
                body = page.read_bytes() if page.exists() else b""
                lines.append(f"{digest(body)}  view {name} exit={p.returncode}")
        for folder in (ROOT / "rules" / "records", ROOT / "tests" / "records"):
            for f in sorted(folder.rglob("*.json")):
                if f.name == "expected.json":
                    continue
                p = run(["replay", "--json", str(f)], ROOT)
                rel = f.relative_to(ROOT)
                lines.append(f"{digest(p.stdout)}  replay {rel} exit={p.returncode}")
    finally:
        if opts.keep:
            shutil.copytree(work, opts.keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
