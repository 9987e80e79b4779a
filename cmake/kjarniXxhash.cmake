# Makes the imported target xxHash::xxhash (the compilation cache's hashes). Newer xxhash releases
# ship a CMake config; Debian's libxxhash-dev has only the header and the library, so the target is
# made here. Included by the build and by the installed kjarniConfig.cmake (a static libkjarni
# needs it at the consumer's link).
if(NOT TARGET xxHash::xxhash)
  find_package(xxHash CONFIG QUIET)
endif()
if(NOT TARGET xxHash::xxhash)
  find_path(KJARNI_XXHASH_INCLUDE_DIR xxhash.h HINTS "$ENV{KJARNI_DEPS}/include")
  find_library(KJARNI_XXHASH_LIBRARY NAMES xxhash HINTS "$ENV{KJARNI_DEPS}/lib")
  if(NOT KJARNI_XXHASH_INCLUDE_DIR OR NOT KJARNI_XXHASH_LIBRARY)
    message(FATAL_ERROR "xxhash (xxhash.h, libxxhash) not found: install libxxhash-dev")
  endif()
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES
    IMPORTED_LOCATION "${KJARNI_XXHASH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${KJARNI_XXHASH_INCLUDE_DIR}")
endif()
