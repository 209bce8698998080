#pragma once
// How many teams a device runs at once (one full wave), for kernels that split their work
// statically over the league: a league larger than this pays for a second, partly idle wave.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace parity::run {

// Teams of `team_size` threads with `scratch_bytes` of level-0 team scratch each that fit on the
// device at once, by threads, blocks and shared memory per multiprocessor, and at most
// `max_per_multiprocessor` per multiprocessor if > 0; 0 where the backend gives no such figure (the
// host backends, whose concurrency is their thread count). Registers are not counted here: a kernel
// whose registers limit it fits fewer, so such a kernel should have launch bounds and pass the teams
// they hold as max_per_multiprocessor (Kokkos::LaunchBounds<T, B> with teams of T threads: B).
// On CUDA, besides the scratch, Kokkos' team
// kernels take (team_size + 2) doubles of shared memory for reductions (Kokkos 4.x,
// Kokkos_Cuda_Parallel_Team.hpp), the kernel's static shared memory (128 bytes allowed here) and
// the driver's reservedSharedMemPerBlock.
template <class ExecSpace>
long resident_teams([[maybe_unused]] ExecSpace const& space, [[maybe_unused]] int team_size,
                    [[maybe_unused]] std::size_t scratch_bytes, [[maybe_unused]] int max_per_multiprocessor = 0) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    auto const& prop = space.cuda_device_prop();
    std::size_t const per_team =
        scratch_bytes + sizeof(double) * std::size_t(team_size + 2) + 128 + std::size_t(prop.reservedSharedMemPerBlock);
    long const by_threads = prop.maxThreadsPerMultiProcessor / std::max(team_size, 1);
    long const by_shared = long(prop.sharedMemPerMultiprocessor / per_team);
    long per_multiprocessor = std::min({by_threads, by_shared, long(prop.maxBlocksPerMultiProcessor)});
    if (max_per_multiprocessor > 0) per_multiprocessor = std::min(per_multiprocessor, long(max_per_multiprocessor));
    return long(prop.multiProcessorCount) * std::max(per_multiprocessor, 1L);
  }
#endif
  return 0;
}

}  // namespace parity::run
