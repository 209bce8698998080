# Shared by scripts/setup, scripts/test and scripts/parity. Decides where Parity builds:
#   native  — a Kokkos >= 4.6 on this machine (Kokkos_ROOT, or found in the usual prefixes);
#   sysroot — Debian sid's Kokkos inside a minimal sid root (PARITY_SYSROOT, default
#             /var/lib/parity/sid), entered with chroot in a private mount namespace.
# shellcheck shell=bash

PARITY_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PARITY_SYSROOT=${PARITY_SYSROOT:-/var/lib/parity/sid}
PARITY_SYSROOT_MARK="$PARITY_SYSROOT/.parity-sysroot"
PARITY_INNER_REPO=/parity

# Packages the build needs, wherever it runs (sid names and bookworm names agree). OpenMPI lets
# the tests run the executables across ranks; a build without it is single-rank.
PARITY_BUILD_PACKAGES=(g++ cmake ninja-build git python3 python3-numpy python3-matplotlib
                       libfmt-dev libcli11-dev nlohmann-json3-dev librandom123-dev libgtest-dev
                       libopenmpi-dev openmpi-bin)

say() { printf '[parity] %s\n' "$*" >&2; }
die() { printf '[parity] error: %s\n' "$*" >&2; exit 1; }

# Prints the path of a KokkosConfigVersion.cmake for Kokkos >= 4.6 on this machine, if any.
find_native_kokkos() {
  local candidates=()
  if [[ -n "${Kokkos_ROOT:-}" ]]; then
    candidates+=("$Kokkos_ROOT"/lib*/cmake/Kokkos/KokkosConfigVersion.cmake "$Kokkos_ROOT"/lib/*/cmake/Kokkos/KokkosConfigVersion.cmake)
  else
    candidates+=(/usr/local/lib*/cmake/Kokkos/KokkosConfigVersion.cmake /usr/lib/*/cmake/Kokkos/KokkosConfigVersion.cmake
                 /usr/lib*/cmake/Kokkos/KokkosConfigVersion.cmake)
  fi
  local f v
  for f in "${candidates[@]}"; do
    [[ -f "$f" ]] || continue
    v=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)").*/\1/p' "$f")
    if [[ -n "$v" ]] && printf '4.6\n%s\n' "$v" | sort -V -C; then
      echo "$f"
      return 0
    fi
  done
  return 1
}

# native | sysroot | none
parity_mode() {
  if [[ -n "${Kokkos_ROOT:-}" ]]; then echo native
  elif [[ -f "$PARITY_SYSROOT_MARK" ]]; then echo sysroot
  elif find_native_kokkos >/dev/null; then echo native
  else echo none
  fi
}

# Runs a command in the build environment with the repository as the working tree.
# In the sysroot the repository is bind-mounted at /parity in a private mount namespace, so the
# mounts vanish with the command and concurrent runs do not interfere.
in_build_env() {
  local mode
  mode=$(parity_mode)
  case "$mode" in
    native) (cd "$PARITY_REPO" && "$@") ;;
    sysroot)
      local inner_cwd=$PARITY_INNER_REPO
      case "$PWD/" in "$PARITY_REPO"/*) inner_cwd="$PARITY_INNER_REPO${PWD#"$PARITY_REPO"}" ;; esac
      local passthrough=()
      local var
      for var in $(compgen -e); do
        case "$var" in OMP_*|OMPI_*|KOKKOS_*|Kokkos_*|CTEST_*|CI|PARITY_*|CMAKE_*) passthrough+=("$var=${!var}") ;; esac
      done
      mkdir -p "$PARITY_SYSROOT$PARITY_INNER_REPO"
      unshare --mount --propagation private -- /bin/bash -c '
        set -e
        root=$1; repo=$2; inner=$3; cwd=$4; shift 4
        mount --bind "$repo" "$root$inner"
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount --bind /sys "$root/sys"   # libgomp reads the CPU topology for OMP_PLACES
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
          /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
      ' parity-sysroot "$PARITY_SYSROOT" "$PARITY_REPO" "$PARITY_INNER_REPO" "$inner_cwd" \
        /usr/bin/env "${passthrough[@]}" "$@"
      ;;
    *) die "no build environment yet: run scripts/setup first" ;;
  esac
}

# Replaces the calling shell by PROGRAM ARGS run as if on the host: the caller's working folder,
# the host's files at their own paths, the standard streams, the environment (less the host's
# search paths), signals (the program takes over this process, so a signal sent to the wrapper
# reaches it) and the exit status. PROGRAM is a path on the host. In the sysroot the host's
# folders outside the system ones (/usr, /etc, /var, ...) and /var/tmp are bind-mounted at their
# own paths, and so are the repository and the working folder wherever they lie.
exec_as_host() {
  local mode
  mode=$(parity_mode)
  case "$mode" in
    native) exec "$@" ;;
    sysroot) ;;
    *) die "no build environment yet: run scripts/setup first" ;;
  esac
  local binds=() entry
  for entry in /*; do
    [[ -d "$entry" && ! -L "$entry" ]] || continue
    case "$entry" in
      /bin|/boot|/dev|/etc|/lib|/lib32|/lib64|/libx32|/lost+found|/proc|/run|/sbin|/sys|/usr|/var) continue ;;
    esac
    binds+=("$entry")
  done
  # /var/tmp holds users' files too; the repository and the caller's folder may lie under a
  # system folder (/var/tmp, /usr/src).
  [[ -d /var/tmp ]] && binds+=(/var/tmp)
  local extra
  for extra in "$PARITY_REPO" "$PWD"; do
    case "$extra/" in
      /bin/*|/boot/*|/etc/*|/lib/*|/lib32/*|/lib64/*|/libx32/*|/run/*|/sbin/*|/usr/*|/var/*) binds+=("$extra") ;;
    esac
  done
  local env_vars=() var
  for var in $(compgen -e); do
    case "$var" in PATH|LD_*|PYTHONHOME|PYTHONPATH|BASH_ENV|ENV|SHLVL|_) continue ;; esac
    env_vars+=("$var=${!var}")
  done
  exec unshare --mount --propagation private -- /bin/bash -c '
    set -e
    root=$1; cwd=$2; n=$3; shift 3
    for ((i = 0; i < n; i++)); do
      mkdir -p "$root$1"
      mount --rbind "$1" "$root$1"
      shift
    done
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --bind /sys "$root/sys"   # libgomp reads the CPU topology for OMP_PLACES
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin "$@"
  ' parity-sysroot "$PARITY_SYSROOT" "$PWD" "${#binds[@]}" "${binds[@]}" \
    "${env_vars[@]}" /bin/bash -c 'cd -- "$0" && exec "$@"' "$PWD" "$@"
}
