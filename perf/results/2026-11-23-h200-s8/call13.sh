#!/bin/bash
# Call 13 (session 8): CUDA binaries at cbc60e3 built on the development machine: full CUDA tests
# (7091e9e and cbc60e3 not yet run on the GPU); the Krusell-Smith panel step's team count
# (--panel-teams) and the exp2/log2 cell guess, 10^7 agents, 500x50, one outer iteration.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c13; mkdir -p $O
nvidia-smi -L > $O/device.txt; nvidia-smi -q -d CLOCK > $O/clocks.txt 2>&1
timeout 240 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
ks() { name=$1; shift; for r in 1 2; do timeout 30 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
ks power-double --panel-locate power
ks scratch-double-auto --panel-locate scratch
for t in 660 1320 1980 2640 3960; do ks scratch-double-$t --panel-locate scratch --panel-teams $t; done
ks power-float --panel-locate power --precision float
ks scratch-float-auto --panel-locate scratch --precision float
for t in 528 1056 1584 2112 3168; do ks scratch-float-$t --panel-locate scratch --precision float --panel-teams $t; done
tar czf $OUT/c13.tgz -C /tmp c13; echo "total $(el) s"
