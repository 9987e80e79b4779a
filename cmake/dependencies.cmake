# Third-party dependencies, all from Debian's packages (see scripts/install-deps.sh).
# Vendor headers (OpenCL, CUDA) are needed to build only: the libraries are dlopen'ed at run time.
list(APPEND CMAKE_PREFIX_PATH "$ENV{KJARNI_DEPS}")

find_package(fmt REQUIRED)
find_package(Threads REQUIRED)

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

# nlohmann-json and CLI11 are header-only; their CMake configs may be absent from unpacked packages.
find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(KJARNI_JSON_INCLUDE_DIR nlohmann/json.hpp REQUIRED HINTS "$ENV{KJARNI_DEPS}/include")
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${KJARNI_JSON_INCLUDE_DIR}")
endif()
find_path(KJARNI_CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED HINTS "$ENV{KJARNI_DEPS}/include")

# xxhash (the compilation cache's keys and checksums). Newer releases ship a CMake config; Debian's
# libxxhash-dev has only the header and the library, so make the imported target ourselves.
find_package(xxHash CONFIG QUIET)
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
