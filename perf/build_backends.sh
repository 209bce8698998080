#!/usr/bin/env bash
# Builds the executables of a comparison run on the machine that runs it, from this tree, and
# copies them into BIN_DIR (parity-<backend>, parity-tests-<backend>, hcubature-peer,
# parity-linear-sde-<backend>):
#   perf/build_backends.sh BIN_DIR [serial openmp cuda]      (default: all three)
# Environment:
#   KOKKOS_HOST_ROOT  a Kokkos install with Serial and OpenMP (for parity-serial, parity-openmp)
#   KOKKOS_CUDA_ROOT  a Kokkos install with CUDA (for parity-cuda)
#   PARITY_HOST_ARCH  -march for host code (default: native — the CPU the host runs are timed on,
#                     as the CUDA build is for its GPU; the reports name the flags)
#   CUDA_ARCH         CMAKE_CUDA_ARCHITECTURES (default 90: Hopper)
#   PEERS=ON          also build the peers (hcubature-peer; needs libcubature-dev) and, on every
#                     backend, parity-linear-sde-<backend> (the Parity side of suite sde_peers.json)
#   JOBS              parallel build jobs (default: all cores)
#   TESTS=OFF         build only the executables, not parity-tests-<backend> (measurement-only runs)
# Other dependencies are found through CMAKE_PREFIX_PATH as usual. Build trees: build/bench-<backend>.
set -euo pipefail
bin=${1:?usage: perf/build_backends.sh BIN_DIR [serial openmp cuda]}
shift
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(serial openmp cuda)
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

for backend in "${backends[@]}"; do
  args=(-S "$here" -B "$here/build/bench-$backend" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARITY_BACKEND="$backend")
  case $backend in
    serial | openmp)
      root=${KOKKOS_HOST_ROOT:?set KOKKOS_HOST_ROOT to a Kokkos with Serial and OpenMP}
      args+=(-DPARITY_HOST_ARCH="${PARITY_HOST_ARCH-native}")
      [[ $backend == openmp && ${PEERS:-OFF} == ON ]] && args+=(-DPARITY_BUILD_PEERS=ON)
      ;;
    cuda)
      root=${KOKKOS_CUDA_ROOT:?set KOKKOS_CUDA_ROOT to a Kokkos with CUDA}
      args+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DCMAKE_CUDA_FLAGS="-std=c++20 -lineinfo")
      command -v nvcc >/dev/null && args+=(-DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
      ;;
    *) echo "unknown backend '$backend' (serial, openmp or cuda)" >&2; exit 2 ;;
  esac
  echo "== building $backend against $root"
  cmake "${args[@]}" -DKokkos_ROOT="$root" >"$bin/configure-$backend.log" 2>&1 ||
    { tail -n 30 "$bin/configure-$backend.log"; exit 1; }
  targets=(parity-"$backend")
  [[ ${TESTS:-ON} == OFF ]] || targets+=(parity-tests-"$backend")
  [[ $backend == openmp && ${PEERS:-OFF} == ON ]] && targets+=(hcubature-peer)
  [[ ${PEERS:-OFF} == ON ]] && targets+=(parity-linear-sde-"$backend")
  cmake --build "$here/build/bench-$backend" -j "$jobs" --target "${targets[@]}" >"$bin/build-$backend.log" 2>&1 ||
    { tail -n 40 "$bin/build-$backend.log"; exit 1; }
  cp "$here/build/bench-$backend/backends/parity-$backend" "$bin/"
  [[ ${TESTS:-ON} == OFF ]] || cp "$here/build/bench-$backend/tests/parity-tests-$backend" "$bin/"
  [[ $backend == openmp && ${PEERS:-OFF} == ON ]] && cp "$here/build/bench-$backend/perf/peers/hcubature-peer" "$bin/"
  [[ ${PEERS:-OFF} == ON ]] && cp "$here/build/bench-$backend/perf/linear_sde/parity-linear-sde-$backend" "$bin/"
done
echo "== built into $bin: $(ls "$bin" | grep -v '\.log$' | tr '\n' ' ')"
