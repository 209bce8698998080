#!/bin/bash
# Call 19 (session 9): tree on 6f5738a + the KS scratch step loading Unroll agents per thread ahead
# (binaries u2/u4/u8; parity-cuda = u4): CUDA tests; KS panel 10^7 x 500x50 per variant, float and
# double; whole solve; SDE: Josephson double by size and as a sweep, sample interval; all pairs at
# larger N.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c19; mkdir -p $O/ks $O/sde
nvidia-smi -L > $O/device.txt
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
ks() { exe=$1; name=$2; shift 2; for r in 1 2; do timeout 40 $B/$exe krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/ks/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
for u in 4 2 8; do
  ks parity-cuda-u$u u$u-scratch-double --panel-locate scratch
  ks parity-cuda-u$u u$u-scratch-float --panel-locate scratch --precision float
done
for teams in 1320 2640; do ks parity-cuda-u4 u4-scratch-double-teams$teams --panel-locate scratch --panel-teams $teams; done
ks parity-cuda-u4 power-double --panel-locate power
ks parity-cuda-u4 power-float --panel-locate power --precision float
timeout 60 $B/parity-cuda-u4 krusell-smith --agents 10000000 --grid 500,50 --quiet --json $O/ks/solve-double-scratch.json --panel-locate scratch > $O/ks/solve-double-scratch.log 2>&1; echo "solve rc=$? at $(el) s"
jo() { name=$1; shift; timeout 60 $B/parity-cuda josephson --quiet --json $O/sde/$name.json "$@" > $O/sde/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
for p in 19 20 21 22; do jo jd-2^$p --paths $((1<<p)) --periods 200 --transient 20 --precision double; done
jo jd-2^19-m1000 --paths 524288 --periods 200 --transient 20 --precision double --sample-every 1000
jo jd-sweep100x2^16 --paths 65536 --periods 200 --transient 20 --precision double --sweep a:0:8:100
jo jf-sweep100x2^16 --paths 65536 --periods 200 --transient 20 --precision float --sweep a:0:8:100
ku() { name=$1; shift; timeout 90 $B/parity-cuda kuramoto --quiet --json $O/sde/$name.json "$@" > $O/sde/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
ku ap-2^16-float -N 65536 --coupling all-pairs --steps 20 --sample-every 10 --precision float
ku ap-2^17-float -N 131072 --coupling all-pairs --steps 20 --sample-every 10 --precision float
ku ap-2^18-float -N 262144 --coupling all-pairs --steps 10 --sample-every 10 --precision float
ku ap-2^18-float-tile256 -N 262144 --coupling all-pairs --steps 10 --sample-every 10 --precision float --tile 256
ku ap-2^20-float -N 1048576 --coupling all-pairs --steps 2 --sample-every 2 --precision float
tar czf $OUT/c19.tgz -C /tmp c19; echo "total $(el) s"
