# Every dependency comes from a package manager and is found here; nothing is downloaded.
find_package(Kokkos CONFIG REQUIRED)
if(Kokkos_VERSION VERSION_LESS 4.6)
  message(FATAL_ERROR "Parity needs Kokkos >= 4.6, found ${Kokkos_VERSION} in ${Kokkos_DIR}. "
                      "Point Kokkos_ROOT at a newer install or run scripts/setup.")
endif()
find_package(fmt CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
find_package(Random123 REQUIRED)
if(PARITY_ENABLE_TESTS)
  find_package(GTest CONFIG REQUIRED)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
endif()
