#!/bin/bash
# Call 14 (session 8): SASS of the Krusell-Smith panel kernels (instruction mix); scratch team
# counts below one wave in double; cbc60e3 binaries.
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/deps /tmp/bin; for f in .carry/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} CUDA_MODULE_LOADING=EAGER
tar xzf .carry/bin/cuda-bin.tgz -C /tmp/bin; B=/tmp/bin; O=/tmp/c14; mkdir -p $O
ls /usr/local/cuda/bin > $O/cuda-bin.txt
/usr/local/cuda/bin/cuobjdump -sass $B/parity-cuda > /tmp/all.sass 2>$O/cuobjdump.err; echo "sass rc=$? $(wc -l < /tmp/all.sass) lines at $(el) s"
python3 - <<'PY' > $O/ks-kernels.txt
import re
txt=open('/tmp/all.sass').read().split('\n')
out=[];cur=None;keep=False
for line in txt:
    m=re.search(r'Function : (\S+)',line)
    if m:
        keep=('krusell' in m.group(1).lower() or 'PanelStep' in m.group(1))
        if keep: out.append('=== '+m.group(1))
        continue
    if keep: out.append(line)
print('\n'.join(out))
PY
gzip -c /tmp/all.sass > $O/all.sass.gz; ls -la $O
ks() { name=$1; shift; for r in 1 2; do timeout 30 $B/parity-cuda krusell-smith --agents 10000000 --grid 500,50 --max-iter 1 --quiet --json $O/$name-$r.json "$@" > /dev/null 2>&1; done; echo "$name rc=$? at $(el) s"; }
for t in 132 264 396 528 660 792; do ks scratch-double-$t --panel-locate scratch --panel-teams $t; done
tar czf $OUT/c14.tgz -C /tmp c14; echo "total $(el) s"
