# `cmake --install` and the CMake package: headers under <prefix>/include/parity, included as in the
# tree ("parity/grid/axis.hpp", "parity/cubature/integrate.hpp"), the host libraries, this tree's
# executable and lib/cmake/Parity (find_package(Parity CONFIG)). Headers are installed by directory,
# so a header added under core/ or models/parity/<m>/ (detail/ included) is installed without being
# listed here.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PARITY_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/parity)
set(PARITY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Parity)

foreach(dir core core/report core/cli models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/parity/ DESTINATION ${PARITY_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/parity/version.hpp DESTINATION ${PARITY_INSTALL_INCLUDEDIR})

# The include spellings of Parity 0.x, "models/<m>/x.hpp" with <prefix>/include/parity on the include
# path, kept for one release: each old path is a header that includes the new one.
file(GLOB_RECURSE parity_model_headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/models/parity
     ${PROJECT_SOURCE_DIR}/models/parity/*.hpp)
foreach(header ${parity_model_headers})
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/forwarding/models/${header} CONTENT
       "// Forwarding header, kept for one release: include \"parity/${header}\" instead.\n#pragma once\n#include \"parity/${header}\"\n")
endforeach()
install(DIRECTORY ${PROJECT_BINARY_DIR}/forwarding/models DESTINATION ${PARITY_INSTALL_INCLUDEDIR})

get_property(parity_model_targets GLOBAL PROPERTY PARITY_INSTALL_TARGETS)
install(TARGETS parity_base parity_core parity_report parity_cli ${parity_model_targets}
        EXPORT ParityTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${PARITY_INSTALL_INCLUDEDIR})
install(TARGETS ${PARITY_EXECUTABLE} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT ParityTargets NAMESPACE Parity:: DESTINATION ${PARITY_INSTALL_CMAKEDIR})

# Pre-1.0: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ParityConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ParityConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ParityConfig.cmake
                              INSTALL_DESTINATION ${PARITY_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_BINARY_DIR}/ParityConfig.cmake ${PROJECT_BINARY_DIR}/ParityConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindRandom123.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake
        DESTINATION ${PARITY_INSTALL_CMAKEDIR})
