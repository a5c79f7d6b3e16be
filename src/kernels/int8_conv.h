// An 8-bit 2-D convolution on oneDNN's convolution primitive with int32 output: u8 or s8 source with one zero point
// (applied by oneDNN, padding taps included, i.e. they count as the zero point as ONNX specifies), s8 weights without
// zero point reordered once into the primitive's layout, groups and depthwise as oneDNN grouped convolution. With
// VNNI/AMX exact: the int32 sums equal sum((x - x_zero_point) * w) over the taps (checked against the reference loops
// in tests/unit/int8_conv_test.cc); without VNNI neighbouring channel products saturate in int16 pairs
// (kernels/int8_gemm.h, Int8GemmArithmetic). Used only where Int8GemmUsable().
#pragma once

#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace onyx::kernels {

struct Int8ConvDims {
  int64_t batch = 1, in_channels = 1, out_channels = 1, group = 1;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;  // as ONNX counts them: 1 = no gap
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  bool operator==(const Int8ConvDims&) const = default;
  int64_t Flops() const {
    return 2 * batch * out_channels * out_h * out_w * (in_channels / group) * kernel_h * kernel_w;
  }
};

// The thread count to build and run an int8 convolution of `d` with, given the session's `threads`: PrimitiveThreads
// (kernels/dnnl_util.h) on the work in dense multiply-accumulate equivalents. A depthwise tap (one input channel
// per group) counts as kDepthwiseTapCost dense ones: oneDNN's int8 depthwise kernel has one product per lane
// where the dense VNNI/AMX kernels have four or more, plus a byte of input per product (measured here at one
// thread: MobileNet-v2's depthwise layers ~40 GFLOP/s, its 1x1 layers 350-430), so counting its flops alone
// left every MobileNet-v2 depthwise layer single-threaded although each one runs 1.4-1.9x faster on 2 threads
// (0.5 to 2 MFLOP each, 14 of them: ~0.14 ms of the model's ~1.9 ms at 2 threads).
inline constexpr int64_t kDepthwiseTapCost = 8;
int Int8ConvThreads(const Int8ConvDims& d, int threads);

// Requantization inside the convolution (oneDNN output scales, 8-bit destination): y = saturate(round_half_even(
// float(acc + bias) * scale[m]) + zero_point). Equal to kernels/int8_requantize.h's RequantizeValue only while
// float(acc) + float(bias) is float(acc + bias), i.e. while |acc| and |bias| stay below 2^24: FusedRequantIsExact
// checks that bound from the weights at creation. A non-zero zero point is not oneDNN's destination zero point,
// which it adds before rounding (round(v + z) differs from round(v) + z on ties when z is odd, and v + z may round
// in float): the primitive rounds in a post-op first, then adds it to the integer-valued result (exact).
struct Int8ConvRequant {
  bool signed_output = false;
  std::vector<float> scales;  // 1 or out_channels values
  std::vector<int32_t> bias;  // empty or out_channels values
  int32_t zero_point = 0;
};

// Whether |sum((x - x_zero_point) * w[m])| < 2^24 and |bias[m]| < 2^24 for every output channel m of `weights`
// ([M, K] row-major, int8) and bias (empty: none), for any x with x - x_zero_point in [source_low, source_high]
// (source_low <= 0 <= source_high).
bool FusedRequantIsExact(const int8_t* weights, int64_t out_channels, int64_t per_channel,
                         const std::vector<int32_t>& bias, int32_t source_low, int32_t source_high);

class Int8Conv {
 public:
  // Builds the primitive for `dims` and reorders `weights` ([M, C/group, kh, kw] int8, row-major) into its layout.
  // `threads` is the OpenMP thread count the primitive runs with (Run must be called under the same count).
  // Fails (the caller falls back) where oneDNN only offers its reference implementation.
  // With `requant`, the primitive writes 8-bit results (RunNhwc only; no slack needed in y).
  // With `implementation` (one of Implementations()), that oneDNN implementation instead of the timed choice (tests).
  // With `constant_zero_point`, x's zero point in every run (Run and RunNhwc refuse another): the primitive is built
  // without oneDNN's run-time zero-point argument where it can be (0; any other value on images bordered with it
  // where the convolution pads, its share -zp * sum(w[m]) folded into `requant`'s bias where the sums stay exact, or
  // subtracted from int32 sums), since
  // oneDNN 2.6 offers its brgemm convolutions only then: ResNet-50's 3x3 int8 layers ran 1.6-1.9x faster on them than
  // on its direct VNNI kernel with the argument, faster than ONNX Runtime's (docs/performance.md, session 23).
  static Result<std::unique_ptr<Int8Conv>> Create(const Int8ConvDims& dims, bool signed_source, const int8_t* weights,
                                                  int threads, const Int8ConvRequant* requant = nullptr,
                                                  std::string_view implementation = {},
                                                  std::optional<int32_t> constant_zero_point = std::nullopt);
  // The oneDNN implementations Create chooses between for these arguments (by name, oneDNN's order, which may depend
  // on the thread count); empty where oneDNN has only its reference one.
  static Result<std::vector<std::string>> Implementations(const Int8ConvDims& dims, bool signed_source, int threads,
                                                          const Int8ConvRequant* requant = nullptr,
                                                          std::optional<int32_t> constant_zero_point = std::nullopt);
  ~Int8Conv();
  Int8Conv(const Int8Conv&) = delete;
  Int8Conv& operator=(const Int8Conv&) = delete;

  // x: [N, C, H, W] uint8 or int8 (as created), channels first; y: [N, OH, OW, M] int32, channels last, followed by
  // OutputSlack() more int32 that the call may overwrite (see there).
  Status Run(const void* x, int32_t x_zero_point, int32_t* y) const;
  // The same with x channels last, [N, H, W, C] (the 8-bit layout between fused operators,
  // optimizer/int8_nhwc_layout.h): no reorder; x is copied into a buffer with margin only where oneDNN's kernel
  // could read past its end (see OutputSlack).
  // y: int32 sums with OutputSlack() room, or with a fused requantization 8-bit values [N, OH, OW, M] exactly.
  // Built for a constant x zero point (Create), Run and RunNhwc refuse any other.
  Status RunNhwc(const void* x, int32_t x_zero_point, void* y) const;
  bool fused_requant() const;
  // Whether a run's int32 sums come out exact, for a kernel that writes them through float (oneDNN's direct ones;
  // int32 destination) with weights that can take them past 2^24; true otherwise. SumsExactFor, before a run on x
  // (as Run or RunNhwc take it), with the zero-point argument: x's bytes small enough; ResultExact, after it, without
  // the argument: every result below 2^24. Where either is false the caller sums another way.
  bool SumsExactFor(const void* x) const;
  bool ResultExact(const int32_t* y) const;
  // False where built for a constant x zero point without oneDNN's zero-point argument.
  bool has_zero_point_argument() const;

  // oneDNN 2.6.3's AMX 1x1 int8 convolution writes whole tiles of 16 output pixels, past the end of the destination
  // when the pixel count is not a multiple of 16 (measured: up to 15 pixels x M). Destinations get 64 pixels of
  // room, sources are copied into buffers with the same margin, and images run one at a time so that one image's
  // overrun lands in the next one's not yet written rows.
  int64_t OutputSlack() const { return 64 * dims_.out_channels; }

  // Evicts the primitive's weights from every cache (FlushFromCaches), before a timed run that should find them as a
  // model whose weights outgrow the caches does.
  void EvictWeights() const;

  const Int8ConvDims& dims() const { return dims_; }
  int threads() const { return threads_; }
  const char* implementation() const;

 private:
  struct Impl;
  // The fastest of oneDNN's first few implementations on this shape, timed (the tuning cache), AMX only where it wins
  // clearly enough to pay its unit's warm-up (see the .cc); oneDNN's first where tuning is off.
  static dnnl::convolution_forward::primitive_desc ChooseImplementation(
      const Int8ConvDims& d, const std::vector<dnnl::convolution_forward::primitive_desc>& candidates,
      dnnl::memory plain_weights, bool fused, bool zero_point_argument, int threads);
  // Create for the arguments as given (Create retries without a constant zero point where that fails).
  static Result<std::unique_ptr<Int8Conv>> CreateOnce(const Int8ConvDims& dims, bool signed_source,
                                                      const int8_t* weights, int threads,
                                                      const Int8ConvRequant* requant, std::string_view implementation,
                                                      std::optional<int32_t> constant_zero_point);
  // int32 sums for a non-zero constant zero point: the share z * sum(w[m]) off the primitive's uncentred sums.
  void SubtractSumOffsets(int32_t* y) const;
  // An error where the primitive was built for one constant x zero point and is run with another.
  Status CheckZeroPoint(int32_t x_zero_point) const;
  Int8Conv(const Int8ConvDims& dims, int threads, std::unique_ptr<Impl> impl);
  Int8ConvDims dims_;
  int threads_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onyx::kernels
