# Chooses the one backend this build tree targets (one build tree per Kokkos configuration)
# and checks that the Kokkos we found provides it.
set(PARITY_BACKEND "" CACHE STRING "Backend of this build tree: serial, openmp or cuda (default: the most capable one Kokkos has)")
set_property(CACHE PARITY_BACKEND PROPERTY STRINGS serial openmp cuda)

if(PARITY_BACKEND STREQUAL "")
  foreach(candidate CUDA OPENMP SERIAL)
    if(Kokkos_ENABLE_${candidate})
      string(TOLOWER ${candidate} PARITY_BACKEND)
      break()
    endif()
  endforeach()
endif()
string(TOUPPER "${PARITY_BACKEND}" PARITY_BACKEND_UPPER)
if(NOT PARITY_BACKEND_UPPER MATCHES "^(SERIAL|OPENMP|CUDA)$")
  message(FATAL_ERROR "PARITY_BACKEND='${PARITY_BACKEND}' is not one of serial, openmp, cuda")
endif()
if(NOT Kokkos_ENABLE_${PARITY_BACKEND_UPPER})
  message(FATAL_ERROR "PARITY_BACKEND=${PARITY_BACKEND}, but the Kokkos in ${Kokkos_DIR} was built with "
                      "backends '${Kokkos_DEVICES}'. Use a Kokkos with ${PARITY_BACKEND} enabled "
                      "(README: Installing Kokkos).")
endif()
message(STATUS "Parity backend: ${PARITY_BACKEND} (Kokkos ${Kokkos_VERSION}, devices ${Kokkos_DEVICES})")

# Kokkos built as a CMake CUDA language needs our Kokkos translation units compiled as CUDA.
set(PARITY_KOKKOS_SOURCES_ARE_CUDA OFF)
if(Kokkos_ENABLE_CUDA AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
  enable_language(CUDA)
  set(PARITY_KOKKOS_SOURCES_ARE_CUDA ON)
  # CMake < 3.26 does not know nvcc's C++20 dialect; teach it (nvcc >= 12 has -std=c++20).
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  endif()
endif()

# parity_kokkos_sources(<sources>...): mark translation units that include Kokkos so they are
# compiled the way this Kokkos needs (CUDA language, or via the compiler Kokkos was built with).
function(parity_kokkos_sources)
  if(PARITY_KOKKOS_SOURCES_ARE_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

# parity_backend_target(<target>): link Kokkos and name this build's execution space.
function(parity_backend_target target)
  target_link_libraries(${target} PUBLIC Kokkos::kokkos Parity::core)
  target_compile_definitions(${target} PRIVATE PARITY_BACKEND_${PARITY_BACKEND_UPPER}=1
                                               PARITY_BACKEND_NAME="${PARITY_BACKEND}")
endfunction()

# NCCL (optional): CUDA builds with MPI exchange their device arrays between ranks device to
# device (run::ranks::all_gather_in_place) instead of through host memory. AUTO uses it when
# found, ON insists, OFF stages through the host.
set(PARITY_ENABLE_NCCL AUTO CACHE STRING "Exchange device arrays between ranks through NCCL in CUDA builds with MPI: AUTO (when found), ON or OFF")
set_property(CACHE PARITY_ENABLE_NCCL PROPERTY STRINGS AUTO ON OFF)
set(PARITY_HAVE_NCCL OFF)
if(PARITY_BACKEND_UPPER STREQUAL "CUDA" AND PARITY_ENABLE_MPI)
  if(PARITY_ENABLE_NCCL STREQUAL "AUTO")
    find_package(NCCL QUIET)
  elseif(PARITY_ENABLE_NCCL)
    find_package(NCCL REQUIRED)
  endif()
  if(NCCL_FOUND AND PARITY_ENABLE_NCCL)
    set(PARITY_HAVE_NCCL ON)
  endif()
elseif(PARITY_ENABLE_NCCL AND NOT PARITY_ENABLE_NCCL STREQUAL "AUTO")
  message(FATAL_ERROR "PARITY_ENABLE_NCCL=ON needs the cuda backend and MPI (PARITY_ENABLE_MPI)")
endif()
message(STATUS "Device exchanges between ranks: ${PARITY_HAVE_NCCL} (NCCL, PARITY_ENABLE_NCCL=${PARITY_ENABLE_NCCL})")
