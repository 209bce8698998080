#!/bin/bash
# Call 21 (session 9): tree on 438655e: cubature with parked chunks holding shares of the evaluation
# budget (and lists past their share deferred to the bottom of the stack): f3 5-D and f1 7-D under
# binding budgets with parking, against session 8's runs without the shares.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c21; mkdir -p $O/cub
nvidia-smi -L > $O/device.txt
export CUDA_MODULE_LOADING=EAGER
tight() { name=$1; t=$2; shift 2; timeout $t $B/parity-cuda cubature "$@" --quiet --json $O/cub/$name.json > $O/cub/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
tight f3-5d-1e-7-1e11-park 90 --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 1e11 --max-memory-mb 16000 --max-host-memory-mb 64000
tight f3-5d-1e-7-4e11-park 200 --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 4e11 --max-memory-mb 16000 --max-host-memory-mb 64000
tight f1-7d-1e-9-3e11-park 150 --integrand f1 --dim 7 --rel-tol 1e-9 --max-evals 3e11 --max-memory-mb 16000 --max-host-memory-mb 80000
tar czf $OUT/c21.tgz -C /tmp c21; echo "total $(el) s"
