#!/bin/bash
# Call 22 (session 9): tree on d00644d (a list cut at its share goes on to the next parked chunk): cubature with parked chunks holding shares of the evaluation
# budget (and lists past their share deferred to the bottom of the stack): f3 5-D and f1 7-D under
# binding budgets with parking, against session 8's runs without the shares.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c22; mkdir -p $O/cub
nvidia-smi -L > $O/device.txt
timeout 200 $B/parity-tests-cuda > $O/tests-cuda.log 2>&1; echo "tests rc=$? at $(el) s"; tail -1 $O/tests-cuda.log; grep -E "^\[  FAILED" $O/tests-cuda.log | head
export CUDA_MODULE_LOADING=EAGER
tight() { name=$1; t=$2; shift 2; timeout $t $B/parity-cuda cubature "$@" --quiet --json $O/cub/$name.json > $O/cub/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
tight f3-5d-1e-7-1e11-park 90 --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 1e11 --max-memory-mb 16000 --max-host-memory-mb 64000
tight f3-5d-1e-7-4e11-park 250 --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 4e11 --max-memory-mb 16000 --max-host-memory-mb 64000
tight f1-7d-1e-9-3e11-park 170 --integrand f1 --dim 7 --rel-tol 1e-9 --max-evals 3e11 --max-memory-mb 16000 --max-host-memory-mb 80000
tar czf $OUT/c22.tgz -C /tmp c22; echo "total $(el) s"
