# NCCL (NVIDIA's collectives between GPUs) ships no CMake package; this finds its header and
# library, beside the CUDA toolkit's or on the usual paths (NCCL_ROOT, CMAKE_PREFIX_PATH).
# Defines NCCL::NCCL.
find_package(CUDAToolkit QUIET)
find_path(NCCL_INCLUDE_DIR NAMES nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR CUDAToolkit_FOUND)
if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}"
                                              INTERFACE_LINK_LIBRARIES CUDA::cudart)
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
