#!/usr/bin/env bash
# Runs every backend's tests and then the comparison suites, from built executables:
#   perf/compare.sh BIN_DIR OUT_DIR [perf/runner.py options...]
# BIN_DIR holds parity-<backend> and parity-tests-<backend> for any of serial, openmp, cuda.
# Host runs are pinned (OMP_PROC_BIND=spread OMP_PLACES=threads); serial runs use one thread,
# openmp all cores. Writes OUT_DIR/tests-<backend>.log, OUT_DIR/cli-<backend>.log and the
# runner's results (results.json, results.csv, table.md, plots) in OUT_DIR/comparison.
set -uo pipefail
bin=${1:?usage: perf/compare.sh BIN_DIR OUT_DIR [runner options]}
out=${2:?usage: perf/compare.sh BIN_DIR OUT_DIR [runner options]}
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
status=0
exes=()
for backend in serial openmp cuda; do
  [[ -x "$bin/parity-$backend" ]] || continue
  if [[ -x "$bin/parity-tests-$backend" ]]; then
    threads=()
    [[ $backend == openmp ]] && threads=(--kokkos-num-threads=4)
    OMP_PROC_BIND=false "$bin/parity-tests-$backend" "${threads[@]}" >"$out/tests-$backend.log" 2>&1 \
      || { echo "unit tests FAILED on $backend (see tests-$backend.log)"; status=1; }
    tail -n 3 "$out/tests-$backend.log"
  fi
  for t in "$here"/tests/cli/test_cli.py "$here"/tests/models/*/test_cli_*.py; do
    python3 "$t" "$bin/parity-$backend" >>"$out/cli-$backend.log" 2>&1 \
      || { echo "CLI test $(basename "$t") FAILED on $backend"; status=1; }
  done
  case $backend in
    serial) exes+=(--exe "serial=$bin/parity-serial,threads=1") ;;
    openmp) exes+=(--exe "openmp=$bin/parity-openmp,threads=$(nproc)") ;;
    cuda) exes+=(--exe "cuda=$bin/parity-cuda") ;;
  esac
done
[[ ${#exes[@]} -gt 0 ]] || { echo "no parity-<backend> in $bin"; exit 1; }
python3 "$here/perf/runner.py" "${exes[@]}" --out "$out/comparison" "$@" || status=1
exit $status
