#!/bin/bash
# Call 25 (session 10): tree on d089fa4 (kuramoto corrector with launch bounds in float);
# parity-cuda-d4 = the same with PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS=4; parity-cuda-c223 = call
# 24's binary. CUDA tests; Kuramoto mean field 2^24; cubature f3 5-D 4e11 with the host memory
# filling up (session 9, call 22: 1.1e-6 with every parked chunk abandoned).
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c25; mkdir -p $O/kur $O/cub
nvidia-smi -L > $O/device.txt; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv >> $O/device.txt
timeout 100 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
kur() { name=$1; shift; exes=$1; shift; for exe in $exes; do for r in 0 1 2 3; do timeout 60 $B/$exe kuramoto -N 16777216 --coupling mean-field --steps 200 --sample-every 100 -q --json $O/kur/$name-$exe-$r.json "$@" > /dev/null 2>&1; done; done; echo "$name rc=$? at $(el) s"; }
kur srk2-float "parity-cuda parity-cuda-c223" --precision float
kur euler-float "parity-cuda parity-cuda-c223" --precision float --stepper euler
kur srk2-double "parity-cuda parity-cuda-d4" --precision double
kur euler-double "parity-cuda parity-cuda-d4" --precision double --stepper euler
python3 - <<'PY' > $O/kur/summary.txt
import json, glob, statistics, os
rows = {}
for f in sorted(glob.glob('/tmp/c25/kur/*.json')):
    name, r = os.path.basename(f)[:-5].rsplit('-', 1)
    if r == '0': continue  # warm-up
    s = json.load(open(f))['timing']['phases']['parity::kuramoto::integrate']['seconds']
    rows.setdefault(name, []).append(s / 200 * 1e6)
for k, v in rows.items(): print(f"{k}: median {statistics.median(v):.1f} us/step over {len(v)} runs {['%.1f' % x for x in v]}")
PY
cat $O/kur/summary.txt
tar czf $OUT/c25.tgz -C /tmp c25
timeout 450 $B/parity-cuda cubature --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 4e11 --max-memory-mb 16000 --max-host-memory-mb 64000 --json $O/cub/f3-5d-1e-7-4e11-park.json > $O/cub/f3-5d-1e-7-4e11-park.log 2>&1; echo "f3 rc=$? at $(el) s"; tail -3 $O/cub/f3-5d-1e-7-4e11-park.log
tar czf $OUT/c25.tgz -C /tmp c25; echo "total $(el) s"
