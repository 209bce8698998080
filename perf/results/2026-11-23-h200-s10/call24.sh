#!/bin/bash
# Call 24 (session 10): tree on c223e0f (cubature: a full host memory sends the list to phase 2
# alone, parked chunks go on; kuramoto mean field: loads first, corrector 4/2 oscillators per
# thread): CUDA tests; Kuramoto mean field 2^24 against d00644d's binary (parity-cuda-old), same call.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c24; mkdir -p $O/kur
nvidia-smi -L > $O/device.txt; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv >> $O/device.txt
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
kur() { name=$1; shift; for exe in parity-cuda parity-cuda-old; do for r in 0 1 2 3; do timeout 60 $B/$exe kuramoto -N 16777216 --coupling mean-field --steps 200 --sample-every 100 -q --json $O/kur/$name-$exe-$r.json "$@" > /dev/null 2>&1; done; done; echo "$name rc=$? at $(el) s"; }
kur srk2-float --precision float
kur euler-float --precision float --stepper euler
kur srk2-double --precision double
kur euler-double --precision double --stepper euler
python3 - <<'PY' > $O/kur/summary.txt
import json, glob, statistics, os
rows = {}
for f in sorted(glob.glob('/tmp/c24/kur/*.json')):
    name, r = os.path.basename(f)[:-5].rsplit('-', 1)
    if r == '0': continue  # warm-up
    s = json.load(open(f))['timing']['phases']['parity::kuramoto::integrate']['seconds']
    rows.setdefault(name, []).append(s / 200 * 1e6)
for k, v in rows.items(): print(f"{k}: median {statistics.median(v):.1f} us/step over {len(v)} runs {['%.1f' % x for x in v]}")
PY
cat $O/kur/summary.txt
tar czf $OUT/c24.tgz -C /tmp c24; echo "total $(el) s"
