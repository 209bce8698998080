#!/bin/bash
# Call 26 (session 10): tree on d089fa4, same binaries as call 25: cubature f1 7-D 1e12 with 90 GB
# of host memory, which fills up (session 9, call 23: 2.0e-8 with every parked chunk abandoned).
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c26; mkdir -p $O/cub
nvidia-smi -L > $O/device.txt; free -g >> $O/device.txt
export CUDA_MODULE_LOADING=EAGER
timeout 540 $B/parity-cuda cubature --integrand f1 --dim 7 --rel-tol 1e-9 --max-evals 1e12 --max-memory-mb 16000 --max-host-memory-mb 90000 --json $O/cub/f1-7d-1e-9-1e12-park.json > $O/cub/f1-7d-1e-9-1e12-park.log 2>&1; echo "f1 rc=$? at $(el) s"; tail -3 $O/cub/f1-7d-1e-9-1e12-park.log
tar czf $OUT/c26.tgz -C /tmp c26; echo "total $(el) s"
