# Install rules and the CMake package: find_package(kjarni) gives the target kjarni::kjarni.
# (Included by the top-level CMakeLists.txt when KJARNI_INSTALL is on.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KJARNI_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/kjarni")

install(TARGETS kjarni EXPORT kjarniTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/kjarni DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT kjarniTargets NAMESPACE kjarni:: DESTINATION ${KJARNI_CMAKE_INSTALL_DIR})

if(TARGET kjarni_tool)
  # Beside a shared libkjarni, the tool finds it in ../lib.
  set_target_properties(kjarni_tool PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS kjarni_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# What a consumer must find again: Threads always; for a static libkjarni also what it links
# privately (fmt, xxhash, GMP; dl is a plain library name).
get_target_property(KJARNI_LIBRARY_TYPE kjarni TYPE)
configure_package_config_file(cmake/kjarniConfig.cmake.in
  "${PROJECT_BINARY_DIR}/kjarniConfig.cmake"
  INSTALL_DESTINATION ${KJARNI_CMAKE_INSTALL_DIR})
# 0.x: a minor release may break the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/kjarniConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/kjarniConfig.cmake"
  "${PROJECT_BINARY_DIR}/kjarniConfigVersion.cmake"
  cmake/kjarniXxhash.cmake
  cmake/kjarniGmp.cmake
  DESTINATION ${KJARNI_CMAKE_INSTALL_DIR})

# pkg-config: kjarni.pc. A static libkjarni lists its dependencies in Requires.private/Libs.private
# (pkg-config --static).
if(KJARNI_LIBRARY_TYPE STREQUAL "STATIC_LIBRARY")
  set(KJARNI_PC_REQUIRES_PRIVATE "fmt libxxhash gmpxx")
  set(KJARNI_PC_LIBS_PRIVATE "-pthread")
  foreach(library IN LISTS CMAKE_DL_LIBS)
    string(APPEND KJARNI_PC_LIBS_PRIVATE " -l${library}")
  endforeach()
else()
  set(KJARNI_PC_REQUIRES_PRIVATE "")
  set(KJARNI_PC_LIBS_PRIVATE "-pthread")
endif()
# Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix may differ).
file(RELATIVE_PATH KJARNI_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(cmake/kjarni.pc.in "${PROJECT_BINARY_DIR}/kjarni.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/kjarni.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/kjarni)
