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
file(WRITE ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake.in
"@PACKAGE_INIT@\ninclude(CMakeFindDependencyMacro)\nfind_dependency(Threads)\ninclude(\${CMAKE_CURRENT_LIST_DIR}/deltalakeTargets.cmake)\n")
configure_package_config_file(${CMAKE_BINARY_DIR}/deltalakeConfig.cmake.in
  ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/deltalake)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/deltalakeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/deltalakeConfig.cmake ${CMAKE_BINARY_DIR}/deltalakeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/deltalake)
configure_file(${CMAKE_SOURCE_DIR}/cmake/deltalake.pc.in ${CMAKE_BINARY_DIR}/deltalake.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/deltalake.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
