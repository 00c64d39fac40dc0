# Header-only Debian libraries (xsimd, nlohmann-json, CLI11) are exposed through a build-tree folder
# that holds only symlinks: putting /usr/include itself on an emcc include path breaks Emscripten's libc.
set(KVLAB_DEPS_INCLUDE "${CMAKE_BINARY_DIR}/deps-include")
file(MAKE_DIRECTORY "${KVLAB_DEPS_INCLUDE}")
foreach(header_dir xsimd nlohmann CLI)
  if(NOT EXISTS "/usr/include/${header_dir}")
    message(FATAL_ERROR "/usr/include/${header_dir} is missing: run scripts/setup")
  endif()
  file(CREATE_LINK "/usr/include/${header_dir}" "${KVLAB_DEPS_INCLUDE}/${header_dir}" SYMBOLIC)
endforeach()

add_library(kvlab_header_deps INTERFACE)
target_include_directories(kvlab_header_deps SYSTEM INTERFACE "${KVLAB_DEPS_INCLUDE}")
