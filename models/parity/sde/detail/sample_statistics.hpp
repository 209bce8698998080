#pragma once
// The statistics an ensemble (ensemble.hpp) adds at each sample beside its means and variances:
// the state covariance with the standard errors of the means, the system's observables
// (observables.hpp), and copies of the states of the first paths of each sweep point. Sums are
// reduced in the fixed order of observables.hpp; across ranks the chunk sums are gathered in chunk
// order and the kept states added in rank order (every entry is nonzero on one rank only), so the
// results are the bits of a one-rank run.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "parity/run/communicator.hpp"
#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/observables.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde::detail {

template <class ExecSpace, class System>
class SampleStatistics {
 public:
  using Mem = typename ExecSpace::memory_space;
  static constexpr int dim = System::dim, M = observed_of<System>();
  using Terms = SampleTerms<dim, M>;
  static constexpr int K = Terms::count;
  using Rows = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;

  // covariance: state covariances and standard errors; terminal, trajectories: paths per sweep
  // point whose final state, or state at every sample, is kept.
  SampleStatistics(ExecSpace const& space, EnsembleLayout const& layout, int params, int paths, int samples,
                   bool covariance, int terminal, int trajectories, run::Communicator const& ranks)
      : space_(space), layout_(layout), params_(params), paths_(paths), samples_(samples), ranks_(ranks) {
    on_ = covariance || M > 0;
    long const mine = on_ ? layout.u1 - layout.u0 : 0;
    lanes_ = Rows(Kokkos::view_alloc(space, "parity::sde::observable_lanes"), mine * sum_lanes, K);
    partial_ = Rows(Kokkos::view_alloc(space, "parity::sde::observable_partials"), mine, K);
    partial_all_ = partial_;
    if (on_ && ranks.several()) {
      partial_all_ = Rows(Kokkos::view_alloc(space, "parity::sde::observable_partials_all"), layout.units, K);
      partial_host_ = HostRows("parity::sde::observable_partials_host", mine, K);
      partial_all_host_ = HostRows("parity::sde::observable_partials_all_host", layout.units, K);
    }
    point_lanes_ =
        Rows(Kokkos::view_alloc(space, "parity::sde::observable_point_lanes"), on_ ? params * sum_lanes : 0, K);
    sums_ = Kokkos::View<double***, Mem>(Kokkos::view_alloc(space, "parity::sde::observable_sums"), on_ ? samples : 0,
                                         params, K);
    terminal_ = Kept(Kokkos::view_alloc(space, "parity::sde::terminal_states"), params, std::min(terminal, paths), dim);
    trajectories_ =
        Kokkos::View<double****, Mem>(Kokkos::view_alloc(space, "parity::sde::trajectories"),
                                      trajectories > 0 ? samples : 0, params, std::min(trajectories, paths), dim);
  }

  // At sample s (after `step` steps): the sums of every sweep point, and the kept trajectories.
  template <class Value, class States, class Sweep>
  void sample(int s, long step, Value const& value, States const& x, System const& base, Sweep const& sweep) {
    int const g0 = int(layout_.first_path), local = int(layout_.local_paths);
    if (on_) {
      SampleTermsOf<System, Value, States, Sweep> const terms{value, x, base, sweep, tick_at(base, step), paths_, g0};
      fixed_order_partials<K>(space_, terms, paths_, layout_.u0, g0, lanes_, partial_);
      if (ranks_.several()) {
        Kokkos::deep_copy(space_, partial_host_, partial_);
        space_.fence("parity::sde::observable_partials_to_host");
        ranks_.all_gather(std::span<double const>(partial_host_.data(), partial_host_.size()),
                          std::span<double>(partial_all_host_.data(), partial_all_host_.size()));
        Kokkos::deep_copy(space_, partial_all_, partial_all_host_);
      }
      fixed_order_totals<K>(space_, params_, paths_, partial_all_, point_lanes_,
                            Kokkos::subview(sums_, s, Kokkos::ALL, Kokkos::ALL));
    }
    if (trajectories_.extent(0) > 0)
      keep_states<dim>(space_, value, paths_, g0, local,
                       Kokkos::subview(trajectories_, s, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL));
  }

  // Fills r's covariances, observables and kept states (r.params and r.samples set) from the sums
  // and, for the terminal states, the paths' final values.
  template <class Value>
  void finish(Value const& value, EnsembleResult& r) {
    int const P = params_, S = samples_;
    double const n = paths_;
    r.observed = M;
    if (on_) {
      auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums_);
      r.mean_error.assign(std::size_t(S) * P * dim, 0.0);
      r.covariance.assign(std::size_t(S) * P * dim * dim, 0.0);
      r.observable_mean.assign(std::size_t(S) * P * M, 0.0);
      r.observable_variance.assign(r.observable_mean.size(), 0.0);
      r.observable_error.assign(r.observable_mean.size(), 0.0);
      r.observable_covariance.assign(std::size_t(S) * P * M * M, 0.0);
      for (int s = 0; s < S; ++s)
        for (int p = 0; p < P; ++p) {
          std::size_t const sp = std::size_t(s) * P + p;
          moments(h, s, p, 0, dim, n, &r.mean_error[sp * dim], &r.covariance[sp * dim * dim], nullptr, nullptr);
          if constexpr (M > 0)
            moments(h, s, p, Terms::observed_offset, M, n, &r.observable_error[sp * M],
                    &r.observable_covariance[sp * M * M], &r.observable_mean[sp * M], &r.observable_variance[sp * M]);
        }
    }
    r.terminal_paths = int(terminal_.extent(1));
    if (r.terminal_paths > 0) {
      keep_states<dim>(space_, value, paths_, int(layout_.first_path), int(layout_.local_paths), terminal_);
      r.terminal_states = gathered(terminal_);
    }
    r.trajectory_paths = int(trajectories_.extent(2));
    if (trajectories_.extent(0) > 0) r.trajectories = gathered(trajectories_);
  }

 private:
  using HostRows = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Kept = Kokkos::View<double***, Kokkos::LayoutRight, Mem>;

  // Means, covariance (over the paths, divided by n as the variances are) and standard errors
  // sqrt(variance / (n - 1)) of `count` sums from `offset` (SampleTerms' order).
  template <class Host>
  static void moments(Host const& h, int s, int p, int offset, int count, double n, double* error, double* cov,
                      double* mean_out, double* var_out) {
    std::vector<double> m(count);
    for (int i = 0; i < count; ++i) m[i] = h(s, p, offset + i) / n;
    int o = offset + count;
    for (int i = 0; i < count; ++i)
      for (int j = i; j < count; ++j, ++o) cov[i * count + j] = cov[j * count + i] = h(s, p, o) / n - m[i] * m[j];
    for (int i = 0; i < count; ++i) {
      double const var = std::max(0.0, cov[i * count + i]);
      error[i] = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
      if (mean_out) mean_out[i] = m[i];
      if (var_out) var_out[i] = var;
    }
  }

  // A device array of kept states on the host in C order, other ranks' entries added.
  template <class View>
  std::vector<double> gathered(View const& v) {
    auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::vector<double> out(v.size());
    std::size_t i = 0;
    if constexpr (View::rank == 3) {
      for (std::size_t a = 0; a < h.extent(0); ++a)
        for (std::size_t b = 0; b < h.extent(1); ++b)
          for (std::size_t c = 0; c < h.extent(2); ++c) out[i++] = h(a, b, c);
    } else {
      for (std::size_t a = 0; a < h.extent(0); ++a)
        for (std::size_t b = 0; b < h.extent(1); ++b)
          for (std::size_t c = 0; c < h.extent(2); ++c)
            for (std::size_t d = 0; d < h.extent(3); ++d) out[i++] = h(a, b, c, d);
    }
    ranks_.sum_in_rank_order(out);
    return out;
  }

  ExecSpace space_;
  EnsembleLayout layout_;
  int params_, paths_, samples_;
  run::Communicator ranks_;
  bool on_ = false;
  Rows lanes_, partial_, partial_all_, point_lanes_;
  HostRows partial_host_, partial_all_host_;
  Kokkos::View<double***, Mem> sums_;
  Kept terminal_;
  Kokkos::View<double****, Mem> trajectories_;
};

}  // namespace parity::sde::detail
