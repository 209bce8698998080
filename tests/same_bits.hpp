#pragma once
// Bit-for-bit equality of two doubles, for the tests that hold results to the same bits on every
// backend, thread count and rank count (a NaN equals a NaN of the same payload; 0 and -0 differ).
#include <cstring>

namespace parity::test {

inline bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

}  // namespace parity::test
