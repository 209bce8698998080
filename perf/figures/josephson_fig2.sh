#!/bin/bash
# Figure 2 of Januszewski & Kostur (2010) at its parameters (a 4.2, gamma 0.9, omega 4.9, D 0.001,
# f 0.1, 100 steps per period), in each precision: the density of the unwrapped position per
# potential period over time under sample trajectories, and the density at the end; beside it the
# <<v>>(a) curve, 100 values of a in [0, 8] in one launch.
#   perf/figures/josephson_fig2.sh EXECUTABLE OUT_DIR [PATHS=8192] [PERIODS=2000] [PRECISIONS="float double"]
# Writes OUT_DIR/PRECISION/ (Figure 2) and OUT_DIR/PRECISION-sweep/ (<<v>>(a)): report.json, the
# arrays (.npy) and josephson.png (scripts/plot_sde.py). DENSITY_RANGE (default -200,100 periods:
# the ensemble drifts by about -40 and spreads by about +-30 periods in 2000), TRAJECTORIES
# (default 10) and SWEEP_PATHS (default PATHS: the paths per value of a in the sweep) set the
# density's range, the paths drawn and the sweep's size. 100 x 2^13 paths x 2000 periods x 100
# steps = 1.6e11 steps: about a second on an H100/H200 in float; use PATHS=512 PERIODS=200 on a CPU.
set -euo pipefail
exe=$1 out=$2 paths=${3:-8192} periods=${4:-2000} precisions=${5:-float double}
range=${DENSITY_RANGE:--200,100} trajectories=${TRAJECTORIES:-10} sweep_paths=${SWEEP_PATHS:-$paths}
plot=${PLOT_SDE:-$(dirname "$0")/../../scripts/plot_sde.py}
for precision in $precisions; do
  fig=$out/$precision sweep=$out/$precision-sweep
  mkdir -p "$fig" "$sweep"
  "$exe" josephson --paths "$paths" --periods "$periods" --transient $((periods / 10)) --precision "$precision" \
    --density-range="$range" --trajectories "$trajectories" --output "$fig" --json "$fig/report.json"
  "$exe" josephson --sweep a:0:8:100 --paths "$sweep_paths" --periods "$periods" --transient $((periods / 10)) \
    --precision "$precision" --output "$sweep" --json "$sweep/report.json"
  for dir in "$fig" "$sweep"; do
    python3 "$plot" josephson "$dir" "$dir/josephson.png" || \
      echo "plot skipped (matplotlib missing?); the arrays are in $dir"
  done
done
