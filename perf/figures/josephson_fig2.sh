#!/bin/bash
# The <<v>>(a) curve at the parameters of Januszewski & Kostur (2010), Fig. 2 (gamma 0.9,
# omega 4.9, D 0.001, f 0.1, 100 steps per period), 100 values of a in [0, 8], all in one launch.
#   perf/figures/josephson_fig2.sh EXECUTABLE OUT_DIR [PATHS=8192] [PERIODS=2000] [PRECISION=float]
# Writes OUT_DIR/report.json, the arrays (.npy) and OUT_DIR/josephson.png (scripts/plot_sde.py).
# 100 x 2^13 paths x 2000 periods x 100 steps = 1.6e11 steps: about a second on an H100/H200 in
# float; use PATHS=512 PERIODS=200 on a CPU.
set -euo pipefail
exe=$1 out=$2 paths=${3:-8192} periods=${4:-2000} precision=${5:-float}
mkdir -p "$out"
"$exe" josephson --sweep a:0:8:100 --paths "$paths" --periods "$periods" --transient $((periods / 10)) \
  --precision "$precision" --output "$out" --json "$out/report.json"
python3 "${PLOT_SDE:-$(dirname "$0")/../../scripts/plot_sde.py}" josephson "$out" "$out/josephson.png" || \
  echo "plot skipped (matplotlib missing?); the arrays are in $out"
