# Makes the imported target kjarni::gmpxx: GMP and its C++ interface (Debian's libgmp-dev), which
# hold the template language's integers beyond 64 bits. GMP ships no CMake config, so the target is
# made here. Included by the build and by the installed kjarniConfig.cmake (a static libkjarni
# needs it at the consumer's link).
if(NOT TARGET kjarni::gmpxx)
  find_path(KJARNI_GMPXX_INCLUDE_DIR gmpxx.h HINTS "$ENV{KJARNI_DEPS}/include")
  find_library(KJARNI_GMPXX_LIBRARY NAMES gmpxx HINTS "$ENV{KJARNI_DEPS}/lib")
  find_library(KJARNI_GMP_LIBRARY NAMES gmp HINTS "$ENV{KJARNI_DEPS}/lib")
  if(NOT KJARNI_GMPXX_INCLUDE_DIR OR NOT KJARNI_GMPXX_LIBRARY OR NOT KJARNI_GMP_LIBRARY)
    message(FATAL_ERROR "GMP (gmpxx.h, libgmpxx, libgmp) not found: install libgmp-dev")
  endif()
  add_library(kjarni::gmpxx INTERFACE IMPORTED)
  set_target_properties(kjarni::gmpxx PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${KJARNI_GMPXX_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${KJARNI_GMPXX_LIBRARY};${KJARNI_GMP_LIBRARY}")
endif()
