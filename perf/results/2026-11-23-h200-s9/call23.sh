#!/bin/bash
# Call 23 (session 9): tree on d00644d: f1 7-D toward 1e-9 with parking and budget shares, 1e12 evaluations.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c23; mkdir -p $O/cub
nvidia-smi -L > $O/device.txt; free -g > $O/host-memory.txt
export CUDA_MODULE_LOADING=EAGER
tight() { name=$1; t=$2; shift 2; timeout $t $B/parity-cuda cubature "$@" --json $O/cub/$name.json > $O/cub/$name.log 2>&1; echo "$name rc=$? at $(el) s"; }
tight f1-7d-1e-9-1e12-park 540 --integrand f1 --dim 7 --rel-tol 1e-9 --max-evals 1e12 --max-memory-mb 16000 --max-host-memory-mb 90000
tar czf $OUT/c23.tgz -C /tmp c23; echo "total $(el) s"
