# Third-party dependencies, all from Debian's packages (see scripts/install-deps.sh).
# Vendor headers (OpenCL, CUDA) are needed to build only: the libraries are dlopen'ed at run time.
list(APPEND CMAKE_PREFIX_PATH "$ENV{KJARNI_DEPS}")

find_package(fmt REQUIRED)
find_package(Threads REQUIRED)
# nlohmann-json (header-only: the library reads CLBlast parameter files with it, the tool writes JSON).
# Its CMake config may be absent from unpacked packages.
find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(KJARNI_JSON_INCLUDE_DIR nlohmann/json.hpp REQUIRED HINTS "$ENV{KJARNI_DEPS}/include")
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${KJARNI_JSON_INCLUDE_DIR}")
endif()

find_path(KJARNI_OPENCL_INCLUDE_DIR CL/cl.h HINTS "$ENV{KJARNI_DEPS}/include")
if(NOT KJARNI_OPENCL_INCLUDE_DIR)
  message(FATAL_ERROR "OpenCL headers (CL/cl.h) not found: install opencl-headers")
endif()

# Headers only (cuda.h, nvrtc.h): the driver and NVRTC are dlopen'ed.
find_path(KJARNI_CUDA_INCLUDE_DIR cuda.h HINTS /usr/local/cuda/include "$ENV{CUDA_HOME}/include"
  DOC "Directory holding cuda.h and nvrtc.h")
set(KJARNI_WITH_CUDA OFF)
if(KJARNI_CUDA_INCLUDE_DIR AND EXISTS "${KJARNI_CUDA_INCLUDE_DIR}/cuda.h")
  # The backend resolves driver entry points as their CUDA 12.0 ABI (cudaTypedefs.h's PFN_*_v12000).
  file(STRINGS "${KJARNI_CUDA_INCLUDE_DIR}/cuda.h" _kjarni_cuda_version REGEX "^#define CUDA_VERSION [0-9]+")
  string(REGEX REPLACE "^#define CUDA_VERSION ([0-9]+).*" "\\1" _kjarni_cuda_version "${_kjarni_cuda_version}")
  if(_kjarni_cuda_version VERSION_GREATER_EQUAL 12000 AND EXISTS "${KJARNI_CUDA_INCLUDE_DIR}/cudaTypedefs.h")
    set(KJARNI_WITH_CUDA ON)
    message(STATUS "kjarni: CUDA backend built against ${KJARNI_CUDA_INCLUDE_DIR} (CUDA_VERSION ${_kjarni_cuda_version})")
  else()
    message(STATUS "kjarni: CUDA headers in ${KJARNI_CUDA_INCLUDE_DIR} are older than 12.0, the CUDA backend is not built")
  endif()
else()
  message(STATUS "kjarni: cuda.h not found, the CUDA backend is not built")
endif()

# xxhash (the compilation cache's keys and checksums). Newer releases ship a CMake config; Debian's
# libxxhash-dev has only the header and the library, so make the imported target ourselves.
include(${CMAKE_CURRENT_LIST_DIR}/kjarniXxhash.cmake)

# GMP (the template language's integers beyond 64 bits).
include(${CMAKE_CURRENT_LIST_DIR}/kjarniGmp.cmake)
