#!/bin/bash
# Call 31 (session 10): tree on e1227fe (batch concurrency 1 by default; block-sum scratch): CUDA
# tests; the 256 product-peak 3-D sweep with the default concurrency.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c31; mkdir -p $O
nvidia-smi -L > $O/device.txt
timeout 150 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
for r in 0 1 2 3; do timeout 60 $B/parity-cuda cubature --integrand product_peak --dim 3 --a 6 --rel-tol 1e-6 --sweep u:0.1:0.9:256 --json $O/pp3-$r.json > $O/pp3-$r.log 2>&1; done
python3 -c "
import json, statistics
t = [json.load(open(f'/tmp/c31/pp3-{r}.json'))['timing']['phases']['parity::cubature::batch']['seconds'] for r in (1, 2, 3)]
d = json.load(open('/tmp/c31/pp3-1.json')); print('pp3 default concurrency', d['parameters']['concurrency'], 'median %.3f s' % statistics.median(t), t, d['parity']['commit'])" | tee $O/pp3-summary.txt
cat $O/pp3-1.log | tail -1
rm $O/pp3-0.json $O/pp3-2.json $O/pp3-3.json
tar czf $OUT/c31.tgz -C /tmp c31; echo "total $(el) s"
