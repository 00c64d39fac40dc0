# Compile flags shared by every kvlab target.
include(CheckCXXCompilerFlag)

# The instruction set of a native build (the wasm build ignores it):
#   native    the building machine's own (-march=native, or -mcpu=native where only that exists):
#             AVX2+FMA on this project's x86 machines, NEON on arm64; the binary may not run elsewhere
#   portable  the compiler's baseline, no -m flags: SSE2 on x86-64, NEON on arm64; runs on any machine
#             of the architecture
#   avx2      -mavx2 -mfma, what every native build used before KVLAB_ARCH existed (x86-64 only)
# xsimd picks its backend from what these flags enable; KVLAB_SIMD=OFF uses the scalar kernels instead.
set(KVLAB_ARCH "native" CACHE STRING "native instruction set: native, portable or avx2")
set_property(CACHE KVLAB_ARCH PROPERTY STRINGS native portable avx2)

# The optimisation level is the build type's (Release, the default: -O3 -DNDEBUG; Debug: -g), so that a
# Debug build is one.
add_library(kvlab_flags INTERFACE)
target_compile_options(kvlab_flags INTERFACE -Wall -Wextra -Wpedantic)
if(EMSCRIPTEN)
  set(KVLAB_ARCH_USED "wasm")
  # Native wasm exceptions cost nothing on the hot path (JS-based -fexceptions wraps calls in trampolines).
  # With -pthread, Emscripten 3.1.6 catches no native wasm exception (every throw escapes to JS as a
  # WebAssembly.Exception), so the threaded module uses JS-based exceptions.
  if(KVLAB_WASM_THREADS)
    set(KVLAB_WASM_EXCEPTIONS -fexceptions)
  else()
    set(KVLAB_WASM_EXCEPTIONS -fwasm-exceptions)
  endif()
  target_compile_options(kvlab_flags INTERFACE ${KVLAB_WASM_EXCEPTIONS})
  target_link_options(kvlab_flags INTERFACE ${KVLAB_WASM_EXCEPTIONS})
  if(KVLAB_WASM_THREADS)
    # Every object is compiled for shared memory (atomics, bulk memory), or the module cannot link with it.
    # A model runs on up to KVLAB_WASM_MAX_THREADS threads (model/thread_pool.h); the module starts the
    # workers the device's cores allow within it as it loads (src/wasm/thread_workers.js).
    set(KVLAB_WASM_MAX_THREADS 8)
    target_compile_options(kvlab_flags INTERFACE -pthread)
    target_link_options(kvlab_flags INTERFACE -pthread)
    target_compile_definitions(kvlab_flags INTERFACE KVLAB_WASM_MAX_THREADS=${KVLAB_WASM_MAX_THREADS})
  endif()
  if(KVLAB_SIMD)
    # xsimd has no wasm backend: with these flags it picks sse4.1, which Emscripten lowers to SIMD128.
    target_compile_options(kvlab_flags INTERFACE -msimd128 -msse4.1)
  endif()
else()
  set(KVLAB_ARCH_USED "${KVLAB_ARCH}")
  if(KVLAB_ARCH STREQUAL "native")
    check_cxx_compiler_flag(-march=native KVLAB_HAS_MARCH_NATIVE)
    check_cxx_compiler_flag(-mcpu=native KVLAB_HAS_MCPU_NATIVE)
    if(KVLAB_HAS_MARCH_NATIVE)
      target_compile_options(kvlab_flags INTERFACE -march=native)
    elseif(KVLAB_HAS_MCPU_NATIVE)
      target_compile_options(kvlab_flags INTERFACE -mcpu=native)
    else()
      message(WARNING "KVLAB_ARCH=native: ${CMAKE_CXX_COMPILER_ID} takes neither -march=native nor -mcpu=native; "
                      "building for the compiler's baseline, as KVLAB_ARCH=portable would")
      set(KVLAB_ARCH_USED "portable")
    endif()
  elseif(KVLAB_ARCH STREQUAL "avx2")
    if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
      message(FATAL_ERROR "KVLAB_ARCH=avx2 needs an x86-64 machine (this one is ${CMAKE_SYSTEM_PROCESSOR}): "
                          "use native or portable")
    endif()
    target_compile_options(kvlab_flags INTERFACE -mavx2 -mfma)
  elseif(NOT KVLAB_ARCH STREQUAL "portable")
    message(FATAL_ERROR "KVLAB_ARCH must be native, portable or avx2 (got \"${KVLAB_ARCH}\")")
  endif()
endif()
message(STATUS "kvlab: instruction set ${KVLAB_ARCH_USED}, KVLAB_SIMD=${KVLAB_SIMD}")
# The setting as built, for `kvlab info`, `bench` and the step table's model description.
target_compile_definitions(kvlab_flags INTERFACE KVLAB_ARCH_NAME="${KVLAB_ARCH_USED}")
if(KVLAB_SIMD)
  target_compile_definitions(kvlab_flags INTERFACE KVLAB_SIMD=1)
else()
  target_compile_definitions(kvlab_flags INTERFACE KVLAB_SIMD=0)
endif()
