#pragma once
// How an ensemble (ensemble.hpp) lays out its paths and chunk sums on the ranks, and the memory
// that takes: plain host code (no Kokkos), so that the commands check a run against the very sizes
// the integrator allocates, before it allocates anything. All sizes are long: a sweep point holds
// up to 2^31 - 1 paths, and "paths + one chunk" is past int's range there.
#include <algorithm>

namespace parity::sde {

// Paths of a sweep point are summed in chunks of this many (the unit of the split across ranks).
inline constexpr long moment_chunk = 1024;

// Chunks of one sweep point of `paths` paths (the last one may be short).
constexpr long moment_chunks(long paths) { return (paths + moment_chunk - 1) / moment_chunk; }

// Rank `rank` of `ranks` owns the chunks [u0, u1) of the points * chunks ones (sweep point u /
// chunks, its paths from (u % chunks) * moment_chunk), so the global paths
// [first_path, first_path + local_paths).
struct EnsembleLayout {
  long chunks = 0;  // per sweep point
  long units = 0;  // chunks of all sweep points
  long u0 = 0, u1 = 0;
  long first_path = 0, local_paths = 0;
};

constexpr EnsembleLayout ensemble_layout(long points, long paths, int rank = 0, int ranks = 1) {
  EnsembleLayout l;
  l.chunks = moment_chunks(paths);
  l.units = points * l.chunks;
  l.u0 = l.units * rank / ranks;
  l.u1 = l.units * (rank + 1) / ranks;
  auto const first_path = [&](long u) { return (u / l.chunks) * paths + (u % l.chunks) * moment_chunk; };
  l.first_path = first_path(l.u0);
  l.local_paths = first_path(l.u1) - l.first_path;
  return l;
}

// What one ensemble run allocates: sweep points of `paths` paths each, `dim` components of
// real_bytes each, `samples` moment samples, a histogram of `bins` bins per point (0: none; a
// host backend's scatter view keeps `histogram_copies` of it, one per thread).
struct EnsembleShape {
  long points = 1, paths = 1;
  int dim = 1;
  long samples = 1;
  int bins = 0;
  int real_bytes = 8;
  int ranks = 1;
  int histogram_copies = 1;
  int terms = 0;  // sums per path of the sample statistics (observables.hpp); 0: none
  double kept = 0;  // kept state values per point (terminal and trajectory states times dim)
  int density_bins = 0;  // bins of the unwrapped density (detail/unwrapped_density.hpp); 0: none
};

// Bytes integrate() (ensemble.hpp) allocates in the execution space's memory on the rank with the
// most chunks: per path the state (dim reals), the winding count (int) and the time sums (dim
// doubles); the moment samples (samples x points x 2 dim doubles); this rank's chunk sums and, on
// several ranks, all ranks' ones (2 dim doubles a chunk); the time-average sums and the histogram;
// the sample statistics' sums and kept states (detail/sample_statistics.hpp); the density's counts
// (bins, under- and overflow per sample and point).
constexpr double ensemble_device_bytes(EnsembleShape const& s) {
  double most = 0;
  for (int rank = 0; rank < s.ranks; ++rank) {
    EnsembleLayout const l = ensemble_layout(s.points, s.paths, rank, s.ranks);
    double const per_chunk = 2.0 * s.dim * 8;
    double bytes = double(l.local_paths) * (double(s.dim) * s.real_bytes + 4 + double(s.dim) * 8);
    bytes += double(s.samples) * double(s.points) * 2 * s.dim * 8;
    bytes += double(l.u1 - l.u0) * per_chunk + (s.ranks > 1 ? double(l.units) * per_chunk : 0.0);
    bytes += double(s.points) * 2 * s.dim * 8;
    bytes += double(s.points) * s.bins * 4.0 * std::max(s.histogram_copies, 1);
    // Sample statistics: 32 lane sums and one sum per chunk, the gathered chunk sums, 32 lane sums
    // and a sum per point and sample; the kept states.
    double const terms = 8.0 * s.terms;
    bytes += double(l.u1 - l.u0) * 33 * terms + (s.ranks > 1 ? double(l.units) * terms : 0.0);
    bytes += double(s.points) * (32 + double(s.samples)) * terms + double(s.points) * s.kept * 8;
    if (s.density_bins > 0) bytes += double(s.samples) * double(s.points) * (s.density_bins + 2) * 4.0;
    most = std::max(most, bytes);
  }
  return most;
}

}  // namespace parity::sde
