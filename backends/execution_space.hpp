#pragma once
// The one place that names this executable's execution space. Each build tree defines exactly
// one PARITY_BACKEND_* (cmake/ParityBackend.cmake).
#include <Kokkos_Core.hpp>

namespace parity::backend {

#if defined(PARITY_BACKEND_CUDA)
using ExecutionSpace = Kokkos::Cuda;
#elif defined(PARITY_BACKEND_OPENMP)
using ExecutionSpace = Kokkos::OpenMP;
#elif defined(PARITY_BACKEND_SERIAL)
using ExecutionSpace = Kokkos::Serial;
#else
#error "define one of PARITY_BACKEND_SERIAL, PARITY_BACKEND_OPENMP, PARITY_BACKEND_CUDA"
#endif

using MemorySpace = ExecutionSpace::memory_space;

}  // namespace parity::backend
