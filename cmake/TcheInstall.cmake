# make install: libraries, public headers, pkg-config file and CMake package config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS touche touche_static touche_cli
  EXPORT toucheTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/touche DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT toucheTargets NAMESPACE touche:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/touche)

configure_package_config_file(cmake/toucheConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/toucheConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/touche)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/toucheConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/toucheConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/toucheConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/touche)

configure_file(cmake/touche.pc.in ${CMAKE_CURRENT_BINARY_DIR}/touche.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/touche.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
