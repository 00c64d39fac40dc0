#pragma once
// The two 16-bit float formats the model stores numbers in, and their conversions from and to float32,
// written once for plain scalars and for xsimd batches (a `Lanes` type says how to read a float's bits,
// compare and select: ScalarLanes here, the SIMD kernels' own for batches), so that the SIMD kernels and
// their scalar twins convert with the same operations and give the same bits.
//   bfloat16: the top 16 bits of a float32 (same exponent range, 8 bits of mantissa);
//   IEEE half (f16): 5 exponent bits, 11 bits of mantissa, subnormals below 2^-14, largest 65504.
// Rounding is to nearest, ties to even, with integer operations (round_off_bits), as hardware does.
#include <cstdint>
#include <cstring>

namespace kvlab {

// `bits` without its low `Shift` bits, rounded to nearest, ties to even (U: uint32_t or a batch of
// them). A mantissa that rounds up past its top carries into the exponent, as it should.
template <int Shift, typename U>
U round_off_bits(U bits) {
  return (bits + U((1u << (Shift - 1)) - 1u) + ((bits >> Shift) & U(1u))) >> Shift;
}

struct ScalarLanes {
  using Bits = uint32_t;
  using Float = float;
  static Bits bits(Float value) {
    Bits bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
  }
  static Float value(Bits bits) {
    Float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  // Both operands are below 2^31 wherever it is used (the SIMD lanes compare them as signed).
  static bool less(Bits a, Bits b) { return a < b; }
  static Bits pick(bool condition, Bits if_true, Bits if_false) { return condition ? if_true : if_false; }
};

// float32 -> bfloat16 bits (in the low 16 bits). Finite values only: a NaN may round to infinity.
template <typename L>
typename L::Bits bf16_bits(typename L::Float value) {
  return round_off_bits<16>(L::bits(value));
}

template <typename L>
typename L::Float from_bf16_bits(typename L::Bits half) {
  return L::value(half << 16);
}

// float32 -> IEEE half bits (in the low 16 bits): normal and subnormal halves rounded to nearest even,
// 65520 and above to infinity, NaN to a quiet NaN; the sign kept.
template <typename L>
typename L::Bits f16_bits(typename L::Float value) {
  using U = typename L::Bits;
  const U bits = L::bits(value);
  const U magnitude = bits & U(0x7FFFFFFFu);
  const U sign = (bits >> 16) & U(0x8000u);
  // Normal halves (2^-14 and up): the exponent rebiased from 127 to 15, 13 mantissa bits rounded off.
  const U normal = round_off_bits<13>(magnitude - U(112u << 23));
  // Subnormal halves (multiples of 2^-24 below 2^-14): added to 0.5, whose last mantissa bit is worth
  // 2^-24, the value is rounded to nearest even by the float addition itself.
  const U half_magic = U(126u << 23);  // 0.5f
  const U subnormal = L::bits(L::value(magnitude) + L::value(half_magic)) - half_magic;
  const U finite = L::pick(L::less(magnitude, U(113u << 23)), subnormal, normal);
  const U huge = L::pick(L::less(U(0x7F800000u), magnitude), U(0x7E00u), U(0x7C00u));  // NaN, infinity
  return L::pick(L::less(magnitude, U(143u << 23)), finite, huge) | sign;              // 2^16 and up: huge
}

// IEEE half bits (in the low 16 bits, the high ones zero) -> float32, exactly. The exponent and mantissa
// moved to float32's places and scaled by 2^112 (the difference of the biases, 127 - 15) are the value
// for normal and subnormal halves alike (a subnormal half lands on a float32 subnormal, which the
// multiplication by a power of two normalises exactly); infinity and NaN (exponent 31) get float32's
// all-ones exponent instead, keeping the mantissa.
template <typename L>
typename L::Float from_f16_bits(typename L::Bits half) {
  using U = typename L::Bits;
  const U shifted = (half & U(0x7FFFu)) << 13;
  const U scaled = L::bits(L::value(shifted) * L::value(U(239u << 23)));  // 2^112
  const U magnitude = L::pick(L::less(shifted, U(31u << 23)), scaled, shifted | U(0x7F800000u));
  return L::value(magnitude | ((half & U(0x8000u)) << 16));
}

inline uint16_t to_bf16(float value) { return static_cast<uint16_t>(bf16_bits<ScalarLanes>(value)); }
inline float from_bf16(uint16_t half) { return from_bf16_bits<ScalarLanes>(half); }
inline uint16_t to_f16(float value) { return static_cast<uint16_t>(f16_bits<ScalarLanes>(value)); }
inline float from_f16(uint16_t half) { return from_f16_bits<ScalarLanes>(half); }

}  // namespace kvlab
