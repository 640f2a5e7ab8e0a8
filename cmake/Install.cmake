# make install PREFIX=...: headers, libraries, pkg-config file, CMake package, CLI, man page.
include(CMakePackageConfigHelpers)
install(TARGETS deltalake_static deltalake_shared EXPORT deltalakeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS deltalake RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(EXISTS ${CMAKE_SOURCE_DIR}/docs/deltalake.1)
  install(FILES ${CMAKE_SOURCE_DIR}/docs/deltalake.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(EXPORT deltalakeTargets NAMESPACE deltalake:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/deltalake)
# The exported static library names DL::codecs and DL::roaring (its private
# dependencies); the package config recreates them from the system libraries.
file(WRITE ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake.in [=[
@PACKAGE_INIT@
include(CMakeFindDependencyMacro)
find_dependency(Threads)
if(NOT TARGET DL::codecs)
  add_library(DL::codecs INTERFACE IMPORTED)
  set_target_properties(DL::codecs PROPERTIES
    INTERFACE_LINK_LIBRARIES "zstd;snappy;lz4;brotlidec;brotlienc;z")
endif()
if(NOT TARGET DL::roaring)
  add_library(DL::roaring INTERFACE IMPORTED)
  set_target_properties(DL::roaring PROPERTIES INTERFACE_LINK_LIBRARIES "roaring")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/deltalakeTargets.cmake)
]=])
configure_package_config_file(${CMAKE_BINARY_DIR}/deltalakeConfig.cmake.in
  ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/deltalake)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/deltalakeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake ${CMAKE_BINARY_DIR}/deltalakeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/deltalake)
# The .pc file finds the prefix from its own place, so `cmake --install
# --prefix ANY` (what `make install PREFIX=...` does) yields a correct file.
file(RELATIVE_PATH DL_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" DL_PC_TO_PREFIX "${DL_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/deltalake.pc.in ${CMAKE_BINARY_DIR}/deltalake.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/deltalake.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
