#!/bin/bash
# Call 32 (session 10): tree on ede3437 (binaries of e1227fe; no kernel changed since): Nsight
# Compute on the Kuramoto kernels that miss their targets: all pairs 2^16 float (what bounds the
# inner loop: shared-memory pipe or issue?) and the mean-field SRK2 passes at 2^24 float.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c32; mkdir -p $O
nvidia-smi -L > $O/device.txt
NCU=/usr/local/cuda/bin/ncu; S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis"
timeout 150 $NCU $S --kernel-name-base demangled -k regex:all_pairs_drift --launch-skip 2 --launch-count 1 $B/parity-cuda kuramoto -N 65536 --coupling all-pairs --steps 4 --sample-every 2 --precision float -q > $O/ncu-all-pairs-float.txt 2>&1; echo "all pairs rc=$? at $(el) s"
timeout 150 $NCU $S --kernel-name-base demangled -k regex:mean_field_step --launch-skip 4 --launch-count 2 $B/parity-cuda kuramoto -N 16777216 --coupling mean-field --steps 8 --sample-every 4 --precision float -q > $O/ncu-mean-field-srk2-float.txt 2>&1; echo "mean field rc=$? at $(el) s"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Issued Ipc|Achieved Occupancy|Registers Per|Stall|Pipe|LSU|MIO|Shared" $O/ncu-*.txt | head -80
tar czf $OUT/c32.tgz -C /tmp c32; echo "total $(el) s"
