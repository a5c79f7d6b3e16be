// A 256-entry byte table applied to 8-bit data (QLinearConcat's requantization of an input whose scale or zero point
// differs from the output's: every byte value's result is computed once, then each byte is looked up). Vectorized
// with Highway, dispatched at run time under ONYX_MAX_ISA: with AVX-512 VBMI (Highway's AVX3_DL target) two
// 128-entry permutes per 64 bytes (~9x the plain loop); with AVX-512 without VBMI sixteen 16-entry byte shuffles,
// one per high nibble (~2x); elsewhere the plain loop. A lookup, so every target gives table[x] exactly.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// y[r * y_pitch + k] = table[x[r * x_pitch + k]] for r in [0, rows), k in [0, width): `rows` rows of `width` bytes
// (a contiguous run when the pitches equal the width). `table` holds 256 bytes; x and y must not overlap.
void LookupBytes(const uint8_t* table, const uint8_t* x, int64_t x_pitch, uint8_t* y, int64_t y_pitch, int64_t rows,
                 int64_t width);

}  // namespace onyx::kernels
