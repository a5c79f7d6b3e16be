# libonyx.so: the static library's objects (already position-independent), whole, in one shared library that
# exports only the C API (onyx.map). The C++ API (include/onyx/onyx.hpp) is header-only over it, so no internal
# C++ type crosses the library boundary. Not LTO: the objects are plain, and a link costs seconds, not minutes.
set(ONYX_SHARED_ANCHOR ${ONYX_PROTO_OUT}/onyx_shared_anchor.cc)
file(GENERATE OUTPUT ${ONYX_SHARED_ANCHOR}
     CONTENT "// libonyx.so is libonyx.a's objects; this file only gives the target a source of its own.\n")
add_library(onyx_shared SHARED ${ONYX_SHARED_ANCHOR})
target_link_libraries(onyx_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,onyx>")
target_link_options(onyx_shared PRIVATE "LINKER:--version-script=${CMAKE_CURRENT_LIST_DIR}/onyx.map")
if(NOT ONYX_SANITIZE AND NOT ONYX_FUZZ)
  # Every symbol resolved at link time (sanitizer builds leave their runtime's symbols to the program).
  target_link_options(onyx_shared PRIVATE "LINKER:--no-undefined")
endif()
target_include_directories(onyx_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                 $<INSTALL_INTERFACE:include>)
set_target_properties(onyx_shared PROPERTIES
  OUTPUT_NAME onyx
  EXPORT_NAME onyx
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/onyx.map)
add_library(onyx::onyx ALIAS onyx_shared)

# bench/api_overhead.cc (Google Benchmark, Debian libbenchmark-dev): the cost of one C API run.
option(ONYX_BUILD_BENCHMARKS "Build bench/api_overhead (needs libbenchmark-dev)" OFF)
if(ONYX_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  add_executable(onyx_api_overhead ${CMAKE_SOURCE_DIR}/bench/api_overhead.cc)
  target_link_libraries(onyx_api_overhead PRIVATE onyx_shared benchmark::benchmark)
  target_compile_options(onyx_api_overhead PRIVATE ${ONYX_WARNINGS})
endif()
