#!/usr/bin/env bash
# Instructions a game, counted by valgrind (cachegrind), between two runs of bench_games.py: the
# difference of N2 and N1 games over N2 - N1, so the start-up (compiling the rules, importing the
# engine, a native build already cached) cancels out.  A count does not move with the machine's
# load, unlike a time: use it to compare two kernels or two commits on a shared machine.
#
#   bench/instructions.sh [TREE] [KERNEL|-] [RULES] [AGENT] [N1] [N2]
#   bench/instructions.sh . native base random 10 60      # this checkout's native kernel
#   bench/instructions.sh /tmp/old - base random 10 60    # another checkout (its own .venv), no --kernel
set -euo pipefail
TREE=${1:-.}; KERNEL=${2:--}; RULES=${3:-base}; AGENT=${4:-random}; N1=${5:-10}; N2=${6:-60}
cd "$TREE"
KOPT=()
[ "$KERNEL" != "-" ] && KOPT=(--kernel "$KERNEL")
count() {
  PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    .venv/bin/python bench/bench_games.py --games "$1" --rules "$RULES" --agent "$AGENT" "${KOPT[@]}" 2>&1 \
    | awk '/I *refs/ {gsub(",", "", $NF); print $NF}'
}
a=$(count "$N1"); b=$(count "$N2")
echo "$TREE $KERNEL $RULES $AGENT: $(( (b - a) / (N2 - N1) )) instructions a game"
