#!/bin/bash
# Call 20 (session 9): tree on 438655e (KS scratch step 2 agents ahead + launch bounds, --panel-locate
# auto; SDE moment totals by teams; cubature budget shares for parked chunks): CUDA tests; KS panel
# and solve at 10^7 x 500x50; KS suite (Tables 2-3) on the GPU; SDE suite on the GPU; sweeps.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c20; mkdir -p $O/ks $O/sde
nvidia-smi -L > $O/device.txt; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv >> $O/device.txt
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
ks() { name=$1; shift; for r in 1 2 3; do timeout 40 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/ks/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
ks auto-double
ks auto-float --precision float
ks scratch-float --panel-locate scratch --precision float
ks power-double --panel-locate power
timeout 60 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --quiet --json $O/ks/solve-double-auto.json > $O/ks/solve-double-auto.log 2>&1; echo "solve rc=$? at $(el) s"
timeout 240 python3 perf/runner.py --suite perf/suites/krusell_smith.json --exe cuda=$B/parity-cuda --out $O/ks-suite --warmup 1 --repetitions 3 --timeout 60 > $O/ks-suite.log 2>&1; echo "ks suite rc=$? at $(el) s"
timeout 200 python3 perf/runner.py --suite perf/suites/sde.json --exe cuda=$B/parity-cuda --out $O/sde-suite --warmup 1 --repetitions 3 --timeout 60 > $O/sde-suite.log 2>&1; echo "sde suite rc=$? at $(el) s"
jo() { name=$1; shift; timeout 60 $B/parity-cuda josephson --quiet --json $O/sde/$name.json "$@" > $O/sde/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
jo jd-sweep100x2^16 --paths 65536 --periods 200 --transient 20 --precision double --sweep a:0:8:100
jo jf-sweep100x2^16 --paths 65536 --periods 200 --transient 20 --precision float --sweep a:0:8:100
jo jd-2^19-m1000 --paths 524288 --periods 200 --transient 20 --precision double --sample-every 1000
tar czf $OUT/c20.tgz -C /tmp c20; echo "total $(el) s"
