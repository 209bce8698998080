# Compiler flags: an optional CPU architecture for host code, and the flags every report names.
#
# Host backends (serial, openmp) are built for generic x86-64 unless PARITY_HOST_ARCH names a
# -march value (native, x86-64-v3, sapphirerapids, ...). A fair CPU/GPU comparison builds the host
# executables for the host they run on, as the GPU build is for its GPU; the report says which.
set(PARITY_HOST_ARCH "" CACHE STRING "CPU architecture for host code (-march=<value>); empty: the compiler's default")
if(PARITY_HOST_ARCH)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-march=${PARITY_HOST_ARCH}>)
  set(parity_march "-march=${PARITY_HOST_ARCH}")
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" parity_build_type)
string(STRIP "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${parity_build_type}} ${parity_march}" PARITY_CXX_FLAGS_USED)
string(REGEX REPLACE " +" " " PARITY_CXX_FLAGS_USED "${PARITY_CXX_FLAGS_USED}")

# The flags of the translation units holding kernels: CUDA's when Kokkos compiles them as CUDA.
if(PARITY_KOKKOS_SOURCES_ARE_CUDA)
  string(STRIP "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${parity_build_type}} sm_${CMAKE_CUDA_ARCHITECTURES}"
         PARITY_KERNEL_FLAGS)
  string(REGEX REPLACE " +" " " PARITY_KERNEL_FLAGS "${PARITY_KERNEL_FLAGS}")
else()
  set(PARITY_KERNEL_FLAGS "${PARITY_CXX_FLAGS_USED}")
endif()

# Kokkos' own interface options (language-conditional generator expressions, shown unwrapped) and
# the architectures it was built for.
get_target_property(parity_kokkos_options Kokkos::kokkoscore INTERFACE_COMPILE_OPTIONS)
if(NOT parity_kokkos_options)
  set(parity_kokkos_options "")
endif()
string(REPLACE ";" " " parity_kokkos_options "${parity_kokkos_options}")
string(REGEX REPLACE "\\$<\\$<COMPILE_LANGUAGE:[A-Za-z]+>:([^>]*)>" "\\1" parity_kokkos_options "${parity_kokkos_options}")
string(REGEX REPLACE "[\"\\\\]" "" parity_kokkos_options "${parity_kokkos_options}")
string(STRIP "${parity_kokkos_options}" parity_kokkos_options)
string(REGEX REPLACE " +" " " PARITY_KOKKOS_OPTIONS "${parity_kokkos_options}")
string(REPLACE ";" "," PARITY_KOKKOS_ARCH "${Kokkos_ARCH}")
message(STATUS "Parity kernel flags: ${PARITY_KERNEL_FLAGS}; Kokkos arch: '${PARITY_KOKKOS_ARCH}'; "
               "Kokkos options: '${PARITY_KOKKOS_OPTIONS}'")
