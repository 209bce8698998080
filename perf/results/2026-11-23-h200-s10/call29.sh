#!/bin/bash
# Call 29 (session 10): tree on 5a9aa24, call 28's binaries: batches of 256 small integrals
# (1e5-1e7 evaluations each) at concurrency 1..32 (results must not depend on it).
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c29; mkdir -p $O/batch
nvidia-smi -L > $O/device.txt
export CUDA_MODULE_LOADING=EAGER
sweep() { name=$1; shift; for c in 1 2 4 8 16 32; do for r in 0 1 2 3; do timeout 120 $B/parity-cuda cubature --quiet --concurrency $c --json $O/batch/$name-c$c-$r.json "$@" > /dev/null 2>&1; done; done; echo "$name rc=$? at $(el) s"; }
sweep pp3 --integrand product_peak --dim 3 --a 6 --rel-tol 1e-6 --sweep u:0.1:0.9:256
sweep ga4 --integrand gaussian --dim 4 --rel-tol 1e-6 --sweep a:2:10:256
sweep pp5 --integrand product_peak --dim 5 --a 6 --rel-tol 1e-4 --sweep u:0.1:0.9:256
python3 - <<'PY' | tee $O/batch/summary.txt
import json, glob, statistics
for name in ['pp3', 'ga4', 'pp5']:
    ref = None
    for c in [1, 2, 4, 8, 16, 32]:
        t = []
        same = True
        for r in [1, 2, 3]:
            d = json.load(open(f'/tmp/c29/batch/{name}-c{c}-{r}.json'))
            t.append(d['timing']['phases']['parity::cubature::batch']['seconds'])
            cases = d['results']['cases']
            key = [(x['integral'], x['evaluations'], x['status']) for x in cases]
            if ref is None: ref = key
            same = same and key == ref
        ev = sum(x['evaluations'] for x in cases); conv = sum(x['status'] == 'converged' for x in cases)
        worst = max(x['relative_true_error'] for x in cases)
        print(f"{name} concurrency {c}: median {statistics.median(t):.3f} s {['%.3f' % x for x in t]}, {ev:.3e} evaluations, {conv}/64 converged, worst rel true error {worst:.2g}, identical to concurrency 1: {same}")
PY
tar czf $OUT/c29.tgz -C /tmp c29; echo "total $(el) s"
