#!/bin/bash
# Call 16 (session 8): tree on cbc60e3 with the Krusell-Smith scratch step's league set to one wave
# by run::resident_teams (static split, as before), the approximate_root cell guess, and cubature's
# phase-2 heaps sized to what the memory limit leaves beside the list: CUDA tests; KS panel and
# solves at 10^7 agents, 500x50; cubature f2/f3 5-D with a 100 GB limit; f1 7-D toward 1e-9.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c16; mkdir -p $O/ks $O/cub
nvidia-smi -L > $O/device.txt
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
ks() { name=$1; shift; for r in 1 2; do timeout 40 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/ks/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
ks scratch-double-auto --panel-locate scratch
ks scratch-float-auto --panel-locate scratch --precision float
ks power-double --panel-locate power
solve() { name=$1; shift; timeout 60 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --quiet --json $O/ks/solve-$name.json "$@" > $O/ks/solve-$name.log 2>&1; echo "solve $name rc=$? at $(el) s"; }
solve double-scratch --panel-locate scratch
tight() { name=$1; t=$2; shift 2; timeout $t $B/parity-cuda cubature "$@" --quiet --json $O/cub/$name.json > $O/cub/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
tight f3-5d-1e-9-1e11 60 --integrand f3 --dim 5 --rel-tol 1e-9 --max-evals 1e11 --max-memory-mb 100000
tight f2-5d-1e-9-1e11 60 --integrand f2 --dim 5 --rel-tol 1e-9 --max-evals 1e11 --max-memory-mb 100000
tight f3-5d-1e-2-1e9 30 --integrand f3 --dim 5 --rel-tol 1e-2 --max-evals 1e9 --max-memory-mb 4096
tight f1-7d-2e-7-park 260 --integrand f1 --dim 7 --rel-tol 2e-7 --max-evals 1e13 --max-memory-mb 110000 --max-host-memory-mb 80000
tar czf $OUT/c16.tgz -C /tmp c16; echo "total $(el) s"
