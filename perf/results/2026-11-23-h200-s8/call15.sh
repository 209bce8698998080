#!/bin/bash
# Call 15 (session 8): uncommitted tree on cbc60e3 (Krusell-Smith scratch step with persistent
# teams taking chunks from a counter, sums in chunk order; cell guess by grid::approximate_root;
# f3 references for n = 4, 5): CUDA tests; KS panel and full solves at 10^7 agents, 500x50;
# cubature f2/f3 5-D against hcubature and at tighter tolerances.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c15; mkdir -p $O/ks $O/cub
nvidia-smi -L > $O/device.txt
g++ -O3 -march=native -std=c++20 -I. -Icore -I/tmp/deps/usr/include perf/peers/hcubature_peer.cpp \
  -L/tmp/deps/usr/lib/x86_64-linux-gnu -lcubature -lm -o $B/hcubature-peer && echo "peer built at $(el) s"
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
ks() { name=$1; shift; for r in 1 2; do timeout 40 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/ks/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
ks power-double --panel-locate power
ks power-float --panel-locate power --precision float
ks scratch-double-auto --panel-locate scratch
ks scratch-float-auto --panel-locate scratch --precision float
for t in 660 2000; do ks scratch-double-$t --panel-locate scratch --panel-teams $t; ks scratch-float-$t --panel-locate scratch --precision float --panel-teams $t; done
solve() { name=$1; shift; timeout 60 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --quiet --json $O/ks/solve-$name.json "$@" > $O/ks/solve-$name.log 2>&1; echo "solve $name rc=$? at $(el) s"; }
solve double-scratch --panel-locate scratch
solve double-power --panel-locate power
solve float-power --panel-locate power --precision float
timeout 150 python3 perf/runner.py --suite perf/suites/cubature-paper.json --exe cuda=$B/parity-cuda --peer hcubature=$B/hcubature-peer \
  --out $O/cub/paper --warmup 1 --repetitions 3 --timeout 40 --only f2-5d-1e-2 --only f3-5d-1e-2 > $O/cub/runner.log 2>&1; echo "cub paper rc=$? at $(el) s"
tight() { name=$1; shift; timeout 60 $B/parity-cuda cubature "$@" --quiet --json $O/cub/$name.json > $O/cub/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
tight f3-5d-1e-4 --integrand f3 --dim 5 --rel-tol 1e-4 --max-evals 1e11 --max-memory-mb 16384
tight f3-5d-1e-6-park --integrand f3 --dim 5 --rel-tol 1e-6 --max-evals 1e11 --max-memory-mb 16384 --max-host-memory-mb 65536
tight f3-5d-1e-9-1e11 --integrand f3 --dim 5 --rel-tol 1e-9 --max-evals 1e11 --max-memory-mb 100000
tight f2-5d-1e-9-1e11 --integrand f2 --dim 5 --rel-tol 1e-9 --max-evals 1e11 --max-memory-mb 100000
tar czf $OUT/c15.tgz -C /tmp c15; echo "total $(el) s"
