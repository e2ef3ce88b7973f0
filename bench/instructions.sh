#!/usr/bin/env bash
# Instructions a game, counted by valgrind (cachegrind): the difference of a run of N2 games and one of
# N1 games over N2 - N1, so the start-up (loading the rules, importing the engine) cancels out.  A count
# does not move with the machine's load, unlike a time: use it to compare the two kernels, or two
# checkouts (each with its own .venv), on a shared machine.  The games are played in one process by the
# engine `load_engine` gives (the toolchain's kernel that TESSERA_KERNEL chooses: build the native one
# first, `tessera kernel build`), seats chosen as `simulate --agents` names them, a random player's
# moves drawn as bench_games.py draws them.
#
#   bench/instructions.sh [TREE] [KERNEL] [RULES] [AGENT] [N1] [N2]
#   bench/instructions.sh . native base random 10 60
#   bench/instructions.sh /tmp/old python base,tower greedy 2 6     # another checkout
set -euo pipefail
TREE=${1:-.}; KERNEL=${2:-python}; RULES=${3:-base}; AGENT=${4:-random}; N1=${5:-10}; N2=${6:-60}
cd "$TREE"
count() {
  TESSERA_KERNEL=$KERNEL PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    .venv/bin/python - "$RULES" "$1" "$AGENT" 2>&1 <<'PY' | awk '/I *refs/ {gsub(",", "", $NF); print $NF}'
import random
import sys

from tessera.compiler.build import load_engine
from tessera.dsl.loader import require_rule_set

rules, n, who = sys.argv[1], int(sys.argv[2]), sys.argv[3]
eng = load_engine(require_rule_set(rules.split(",")))
eng.play_random(2, 0)
for i in range(n):
    g = eng.new_game(2, i + 1)
    rng = random.Random(i + 1)
    agent = None
    if who != "random":
        from tessera.play.agents import make_agent
        agent = make_agent(who, i + 1)
    while not g.is_terminal():
        acts = g.legal_actions()
        if not acts:
            g.finish()
            break
        g.apply_action(acts[rng.randrange(len(acts))] if agent is None else agent.choose(g, acts))
PY
}
a=$(count "$N1"); b=$(count "$N2")
echo "$TREE $KERNEL $RULES $AGENT: $(( (b - a) / (N2 - N1) )) instructions a game"
