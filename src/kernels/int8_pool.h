// The loops of the 8-bit pooling operators on channels-last images (after the int8 layout pass): the per-channel
// sums of QLinearGlobalAveragePool and the window maxima of the 8-bit MaxPool. Vectorized with Highway (dispatched
// at run time under ONYX_MAX_ISA); integer additions and maxima, so every target gives the plain loops' results
// exactly.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// sums[k] = sum over p in [0, pixels) of x[p * channels + k], for k in [0, channels), in int32 (wrapping like the
// plain loop; below 2^23 pixels of 8-bit values no sum overflows).
void SumPixelsChannelsLast(const uint8_t* x, int64_t pixels, int64_t channels, int32_t* sums);
void SumPixelsChannelsLast(const int8_t* x, int64_t pixels, int64_t channels, int32_t* sums);

// One output row of a channels-last max pool: out[o * channels + k] = max over t < counts[o] of
// x[offsets[o * max_taps + t] + k], for o in [0, out_pixels) and k in [0, channels); a pixel whose window holds no
// input (counts[o] == 0) gets the type's lowest value. offsets are in elements from x (the taps of the window that
// fall inside the image).
void MaxPoolRow(const uint8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                int64_t channels, uint8_t* out);
void MaxPoolRow(const int8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                int64_t channels, int8_t* out);

}  // namespace onyx::kernels
