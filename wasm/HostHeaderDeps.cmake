# Header-only Debian packages (Eigen, nlohmann/json) in the Emscripten build.
#
# Emscripten.cmake sets CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY with the emscripten sysroot as the
# root, so Debian's CMake packages are not found: look outside the root for these two only.
#
# NOTE: nlohmann_json's imported target lists /usr/include as its include directory. CMake then
# passes `-isystem /usr/include` to em++, glibc's headers shadow emscripten's libc and the build
# fails ('bits/libc-header-start.h' file not found). So the target is re-pointed at a build-dir
# folder holding only the symlink `nlohmann -> /usr/include/nlohmann`. Eigen's target
# (/usr/include/eigen3) holds only Eigen and is used as is.
find_package(Eigen3 3.3 REQUIRED NO_MODULE NO_CMAKE_FIND_ROOT_PATH)
find_package(nlohmann_json 3 REQUIRED NO_CMAKE_FIND_ROOT_PATH)

# Debian's target lists the directory twice ("/usr/include;/usr/include"): use it only as a hint
# and take the one real directory from find_path.
get_target_property(_looplab_json_dirs nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
find_path(LOOPLAB_HOST_NLOHMANN_INCLUDE_DIR nlohmann/json.hpp
  PATHS ${_looplab_json_dirs} /usr/include
  NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH REQUIRED)

set(_looplab_host_headers "${CMAKE_BINARY_DIR}/host-headers")
file(MAKE_DIRECTORY "${_looplab_host_headers}")
file(CREATE_LINK "${LOOPLAB_HOST_NLOHMANN_INCLUDE_DIR}/nlohmann" "${_looplab_host_headers}/nlohmann"
  SYMBOLIC)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_looplab_host_headers}")
