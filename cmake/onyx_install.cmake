# `cmake --install build --prefix P`: headers, libonyx.so and the static libraries, the CLI, the Python module
# (python/CMakeLists.txt), the CMake package (find_package(onyx)) and pkg-config's onyx.pc. `cpack -G DEB` in the
# build folder packs the same tree under /usr into onyx_<version>_amd64.deb.
include(CMakePackageConfigHelpers)

set(ONYX_INSTALL_INCLUDEDIR include)
set(ONYX_INSTALL_LIBDIR lib)
set(ONYX_INSTALL_CMAKEDIR lib/cmake/onyx)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/onyx DESTINATION ${ONYX_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS onyx_shared EXPORT onyxTargets
  LIBRARY DESTINATION ${ONYX_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
# The static libraries, for programs that link onyx whole (they also need its dependencies: see docs/c-api.md).
install(TARGETS onyx onyx_proto ARCHIVE DESTINATION ${ONYX_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS onyx_cli RUNTIME DESTINATION bin COMPONENT runtime)

install(EXPORT onyxTargets NAMESPACE onyx:: DESTINATION ${ONYX_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/onyxConfig.cmake.in ${CMAKE_BINARY_DIR}/onyxConfig.cmake
  INSTALL_DESTINATION ${ONYX_INSTALL_CMAKEDIR} PATH_VARS ONYX_INSTALL_INCLUDEDIR)
# 0.x releases may break the ABI at every minor version; from 1.0 on, the major version.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ONYX_COMPATIBILITY SameMinorVersion)
else()
  set(ONYX_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/onyxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${ONYX_COMPATIBILITY})
install(FILES ${CMAKE_BINARY_DIR}/onyxConfig.cmake ${CMAKE_BINARY_DIR}/onyxConfigVersion.cmake
  DESTINATION ${ONYX_INSTALL_CMAKEDIR} COMPONENT dev)
# onyx.pc: the shared library; onyx-static.pc: libonyx.a and what it links.
foreach(pc onyx onyx-static)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/${pc}.pc DESTINATION ${ONYX_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endforeach()

# One .deb with everything; dpkg-shlibdeps computes Depends from the libraries the binaries link.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME onyx)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ONNX models in C++: library, C/C++ API, onyx CLI and Python module")
set(CPACK_PACKAGE_CONTACT "onyx developers <onyx@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(ONYX_BUILD_PYTHON)
  # The Python module is built for one Python version (its extension suffix names it).
  math(EXPR ONYX_PY_NEXT_MINOR "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${ONYX_PY_NEXT_MINOR}), python3-numpy")
endif()
include(CPack)
