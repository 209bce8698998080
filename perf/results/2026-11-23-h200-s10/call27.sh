#!/bin/bash
# Call 27 (session 10): tree on d089fa4, same binaries as calls 25-26: how f3 5-D's true error falls
# with the evaluation budget (rel-tol 1e-10 so that the budget binds; 16 GB list, no parking).
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c27; mkdir -p $O/cub
nvidia-smi -L > $O/device.txt
export CUDA_MODULE_LOADING=EAGER
for e in 1e8 1e9 4e9 1.6e10 6.4e10; do
  timeout 120 $B/parity-cuda cubature --integrand f3 --dim 5 --rel-tol 1e-10 --max-evals $e --max-memory-mb 16000 --quiet --json $O/cub/f3-5d-$e.json > $O/cub/f3-5d-$e.log 2>&1; echo "f3 $e rc=$? at $(el) s"
done
python3 - <<'PY' | tee $O/cub/summary.txt
import json
for e in ['1e8', '1e9', '4e9', '1.6e10', '6.4e10']:
    r = json.load(open(f'/tmp/c27/cub/f3-5d-{e}.json'))['results']
    print(e, r['evaluations'], 'rel true error %.3g' % r['relative_true_error'], 'estimate %.3g' % r['error_estimate'], r['status'], 'phase2', r['phase2_regions'])
PY
tar czf $OUT/c27.tgz -C /tmp c27; echo "total $(el) s"
