// ai.onyx.internal.RequantizeInt32(acc, bias, multiplier, y_scale, y_zero_point): the float requantization that
// follows an integer convolution in a quantized TFLite model as onyx's converter writes it (ConvInteger -> Add of the
// int32 bias -> Cast to float -> Mul by the per-channel multiplier -> QuantizeLinear), fused by the optimizer
// (optimizer/integer_requantize_fusion.cc) into one pass over the accumulators instead of four over whole tensors.
// Each element goes through the same operations as the four operators: the int32 sum wrapping, the conversion to
// float, one float product, then QuantizeLinear's division, rounding half to even, zero point and saturation
// (kernels::QuantizeFloat, NaN to the zero point), so the bytes are the unfused graph's.
//
// bias (int32) and multiplier (float) hold one value, or one per channel (dimension 1 of acc); y_scale is one float,
// y_zero_point one uint8 or int8 value (uint8 0 when absent), whose type the output takes.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/int8_quantize.h"
#include "ops/common/parallel.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

class RequantizeInt32Kernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const Tensor* bias = info.num_inputs() >= 2 ? info.ConstantInput(1) : nullptr;
    const Tensor* multiplier = info.num_inputs() >= 3 ? info.ConstantInput(2) : nullptr;
    const Tensor* scale = info.num_inputs() >= 4 ? info.ConstantInput(3) : nullptr;
    if (bias == nullptr || bias->type() != DataType::kInt32) {
      return info.Error("input 'bias' (1) must be a constant int32 tensor");
    }
    if (multiplier == nullptr || multiplier->type() != DataType::kFloat) {
      return info.Error("input 'multiplier' (2) must be a constant float tensor");
    }
    if (scale == nullptr || scale->type() != DataType::kFloat || scale->size() != 1) {
      return info.Error("input 'y_scale' (3) must be a constant float scalar");
    }
    bias_.assign(bias->data<int32_t>(), bias->data<int32_t>() + bias->size());
    multiplier_.assign(multiplier->data<float>(), multiplier->data<float>() + multiplier->size());
    scale_ = scale->data<float>()[0];
    if (info.num_inputs() >= 5 && info.has_input(4)) {
      const Tensor* zp = info.ConstantInput(4);
      if (zp == nullptr || zp->size() != 1 || (zp->type() != DataType::kUint8 && zp->type() != DataType::kInt8)) {
        return info.Error("input 'y_zero_point' (4) must be a constant uint8 or int8 scalar");
      }
      out_type_ = zp->type();
      zero_point_ = zp->type() == DataType::kUint8 ? zp->data<uint8_t>()[0] : zp->data<int8_t>()[0];
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* acc, ctx.TensorInput(0));
    if (acc->type() != DataType::kInt32) return InvalidArgument("input 'acc' (0) must be int32");
    const int64_t channels = acc->rank() >= 2 ? acc->dim(1) : 1;
    for (const size_t n : {bias_.size(), multiplier_.size()}) {
      if (n != 1 && static_cast<int64_t>(n) != channels) {
        return InvalidArgument("per-channel bias or multiplier of " + std::to_string(n) + " values for " +
                               std::to_string(channels) + " channels of input 'acc' (0) " +
                               ShapeToString(acc->shape()));
      }
    }
    Tensor& y = ctx.AllocateOutput(0, out_type_, acc->shape());
    const int64_t images = acc->rank() >= 1 ? acc->dim(0) : 1;
    const int64_t planes = images * channels;
    const int64_t plane = planes > 0 ? acc->size() / planes : 0;
    const int32_t* a = acc->data<int32_t>();
    ParallelFor(planes, std::max<int64_t>(plane, 1) * 4, [&](int64_t lo, int64_t hi) {
      constexpr int64_t kChunk = 1024;
      float f[kChunk];
      for (int64_t p = lo; p < hi; ++p) {
        const int64_t c = p % channels;
        const uint32_t b = static_cast<uint32_t>(bias_[bias_.size() == 1 ? 0 : static_cast<size_t>(c)]);
        const float m = multiplier_[multiplier_.size() == 1 ? 0 : static_cast<size_t>(c)];
        for (int64_t start = 0; start < plane; start += kChunk) {
          const int64_t len = std::min(kChunk, plane - start);
          const int32_t* in = a + p * plane + start;
          // Add (wrapping, as the int32 Add), Cast, Mul: one rounding each.
          for (int64_t j = 0; j < len; ++j) {
            f[j] = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(in[j]) + b)) * m;
          }
          const int64_t at = p * plane + start;
          if (out_type_ == DataType::kUint8) {
            kernels::QuantizeFloat<uint8_t>(f, len, scale_, zero_point_, static_cast<uint8_t>(zero_point_),
                                            y.data<uint8_t>() + at);
          } else {
            kernels::QuantizeFloat<int8_t>(f, len, scale_, zero_point_, static_cast<int8_t>(zero_point_),
                                           y.data<int8_t>() + at);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  std::vector<int32_t> bias_;
  std::vector<float> multiplier_;
  float scale_ = 1.0f;
  int32_t zero_point_ = 0;
  DataType out_type_ = DataType::kUint8;
};

}  // namespace

void RegisterRequantizeInt32Ops(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "RequantizeInt32", 1, kLatestVersion, MakeFactory<RequantizeInt32Kernel>());
}

}  // namespace onyx::ops::quant
