# Compile flags shared by every kvlab target.
add_library(kvlab_flags INTERFACE)
target_compile_options(kvlab_flags INTERFACE -Wall -Wextra -Wpedantic -O3)
if(EMSCRIPTEN)
  # Native wasm exceptions cost nothing on the hot path (JS-based -fexceptions wraps calls in trampolines).
  target_compile_options(kvlab_flags INTERFACE -fwasm-exceptions)
  target_link_options(kvlab_flags INTERFACE -fwasm-exceptions)
  if(KVLAB_SIMD)
    # xsimd has no wasm backend: with these flags it picks sse4.1, which Emscripten lowers to SIMD128.
    target_compile_options(kvlab_flags INTERFACE -msimd128 -msse4.1)
  endif()
elseif(KVLAB_SIMD)
  target_compile_options(kvlab_flags INTERFACE -mavx2 -mfma)
endif()
if(KVLAB_SIMD)
  target_compile_definitions(kvlab_flags INTERFACE KVLAB_SIMD=1)
else()
  target_compile_definitions(kvlab_flags INTERFACE KVLAB_SIMD=0)
endif()
