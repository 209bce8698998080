#pragma once
// Several integrals in one call: integrands fs[0..m-1] (for example one functor per parameter
// value) over the same box, with the same tolerances and options.
//
//   std::vector<Result> r = integrate_batch<ExecutionSpace, Real>(space, fs, lower, upper, tol, opt);
//
// with `opt` a BatchOptions: integrate()'s Options and `concurrency`.
//
// Each functor must provide what integrate() asks of one (integrate.hpp). opt.progress, if set,
// gets one "batch" line per integral finished, under a lock; opt.phases, if set, the phase
// "parity::cubature::batch". The integrals themselves run silent and untimed.
//
// The integrals run one after another by default. On a GPU backend opt.concurrency > 1 runs that
// many at a time, each on its own execution-space instance (a stream) driven by its own host
// thread, so that the small kernels and host round trips of one integral may overlap those of the
// others; host backends always run them in turn (each integral already uses every thread), and
// so does a run across several ranks (Options::ranks).
// Either way result k is exactly what integrate() returns for fs[k] alone: the algorithm does not
// depend on the instance. Measured on an H200 (perf/results/kuramoto-cubature-batches-h200, batch/, 256
// integrals of 1e5-1e7 evaluations each): 2 streams take 0.89x the time for the smallest
// (product peak 3-D), 1.03x for the others, and more streams are slower (16: 1.4-1.6x). Device
// allocations and their release synchronize the whole device (Kokkos 4.6), and every integral
// allocates its lists; integrate_family (family.hpp: the regions of all integrands in one list)
// does not have that limit.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "parity/cubature/integrate.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature {

struct BatchOptions : Options {
  int concurrency = 0;  // integrals at once on a GPU backend (0 or 1: one at a time)
};

template <class ExecutionSpace, class Real, class F>
std::vector<Result> integrate_batch(ExecutionSpace const& space, std::vector<F> const& fs,
                                    std::vector<double> const& lower, std::vector<double> const& upper,
                                    Tolerances const& tol, BatchOptions const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate_batch: the first template argument must be a Kokkos execution space");
  static_assert(detail::check_integrand<F, Real>());
  validate(lower, upper, tol, opt);
  require(opt.concurrency >= 0, "batch concurrency must be >= 0 (0 or 1: one integral at a time)");
  std::size_t const m = fs.size();
  std::vector<Result> out(m);
  if (m == 0) return out;
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::cubature::batch");
  Options one = opt;  // for each integral: silent, untimed (sliced to integrate()'s Options)
  one.progress = nullptr;
  one.phases = nullptr;
  Kokkos::Timer clock;
  std::mutex report_mutex;
  std::size_t finished = 0;
  auto done_one = [&]() {  // progress: integrals finished so far
    std::lock_guard<std::mutex> lock(report_mutex);
    ++finished;
    if (opt.progress)
      opt.progress->update({"batch", int(finished), -1.0, clock.seconds(),
                            std::to_string(finished) + " of " + std::to_string(m) + " integrals"});
  };
  bool const host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;
  // Several ranks: one at a time, so that every rank calls the collectives in the same order.
  int const workers =
      host || opt.ranks.several() ? 1 : int(std::min<std::size_t>(m, std::size_t(std::max(opt.concurrency, 1))));
  if (workers <= 1) {
    for (std::size_t k = 0; k < m; ++k) {
      out[k] = integrate<ExecutionSpace, Real>(space, fs[k], lower, upper, tol, one);
      done_one();
    }
    return out;
  }
  space.fence("parity::cubature::batch_begin");
  auto const instances = Kokkos::Experimental::partition_space(space, std::vector<int>(workers, 1));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w]() {
      try {
        for (std::size_t k = next++; k < m; k = next++) {
          out[k] = integrate<ExecutionSpace, Real>(instances[w], fs[k], lower, upper, tol, one);
          done_one();
        }
      } catch (...) {
        errors[w] = std::current_exception();
        next = m;  // the others stop after their current integral
      }
    });
  for (auto& t : threads) t.join();
  for (auto const& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

}  // namespace parity::cubature
