#!/bin/bash
# Call 17 (session 8): f3 5-D toward relative error 1e-9 (commit 3b2f973 binaries): 2e12
# evaluations, 16 GB device list, regions parked on the host.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} CUDA_MODULE_LOADING=EAGER
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c17; mkdir -p $O
timeout 420 $B/parity-cuda cubature --integrand f3 --dim 5 --rel-tol 1e-7 --max-evals 2e12 --max-memory-mb 16384 --max-host-memory-mb 65536 --json $O/f3-5d-1e-7-park-2e12.json > $O/f3-5d-1e-7-park-2e12.log 2>&1; echo "f3 rc=$? at $(el) s"
tail -2 $O/f3-5d-1e-7-park-2e12.log
tar czf $OUT/c17.tgz -C /tmp c17; echo "total $(el) s"
