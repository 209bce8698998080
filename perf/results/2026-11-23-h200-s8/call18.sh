#!/bin/bash
# Call 18 (session 8): CUDA tests after the review refactor (cubature's finish lambda).
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin
timeout 200 /tmp/bin/parity-tests-cuda > $OUT/tests-cuda.log 2>&1; echo "tests rc=$?"; tail -1 $OUT/tests-cuda.log; grep -E "^\[  FAILED" $OUT/tests-cuda.log | head
