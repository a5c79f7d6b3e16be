// ai.onyx.internal.QuantizeLinear with channels_last = 1: ONNX QuantizeLinear of a float32 [N, C, H, W] tensor with
// one scale and zero point (uint8 or int8), written [N, H, W, C]. The int8 layout pass (optimizer/int8_nhwc_layout.h)
// emits it where a model's float input enters the channels-last region: one pass over the floats instead of the
// quantized copy and its Transpose. Same results as QuantizeLinear, byte for byte (kernels::QuantizeFloat's
// rounding; tests/unit/quantize_float_kernels_test.cc).
#include <algorithm>
#include <string>
#include <type_traits>

#include "kernels/int8_quantize.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

class QuantizeNhwcKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (info.GetInt("channels_last", 0) != 1) return info.Error("only channels_last = 1 is implemented");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* zp, nn::OptionalTensorInput(ctx, 2));
    if (x->type() != DataType::kFloat || x->rank() != 4) {
      return InvalidArgument("input 'x' (0) must be a float [N, C, H, W] tensor, got " +
                             std::string(DataTypeName(x->type())) + " " + ShapeToString(x->shape()));
    }
    // (The parameters are checked without building a name per run: a std::string is a heap allocation.)
    if (scale->type() != DataType::kFloat || scale->size() != 1 || scale->rank() > 1) {
      return InvalidArgument("input 'y_scale' (1) must be one float value, got " +
                             std::string(DataTypeName(scale->type())) + " " + ShapeToString(scale->shape()));
    }
    DataType out_type = DataType::kUint8;
    int32_t z = 0;
    if (zp != nullptr) {
      out_type = zp->type();
      if ((out_type != DataType::kUint8 && out_type != DataType::kInt8) || zp->size() != 1 || zp->rank() > 1) {
        return InvalidArgument("input 'y_zero_point' (2) must be one uint8 or int8 value, got " +
                               std::string(DataTypeName(out_type)) + " " + ShapeToString(zp->shape()));
      }
      z = out_type == DataType::kUint8 ? zp->data<uint8_t>()[0] : zp->data<int8_t>()[0];
    }
    const float s = scale->data<float>()[0];
    const int64_t batch = x->dim(0), channels = x->dim(1), plane = x->dim(2) * x->dim(3);
    Tensor& y = ctx.AllocateOutput(0, out_type, {batch, x->dim(2), x->dim(3), channels});
    if (y.size() == 0) return Status::Ok();
    const float* in = x->data<float>();
    auto run = [&](auto* out) {
      using Q = std::remove_pointer_t<decltype(out)>;
      // Threads take runs of pixels (of the whole batch); a run may cross from one image into the next.
      ParallelFor(batch * plane, channels * 4, [&](int64_t lo, int64_t hi) {
        while (lo < hi) {
          const int64_t n = lo / plane, p = lo % plane;
          const int64_t count = std::min(hi - lo, plane - p);
          // A NaN quantizes to the zero point (as QuantizeLinear's general path).
          kernels::QuantizeFloatToChannelsLast<Q>(in + n * channels * plane + p, channels, plane, count, s, z,
                                                  static_cast<Q>(z), out + lo * channels);
          lo += count;
        }
      });
    };
    if (out_type == DataType::kUint8) {
      run(y.data<uint8_t>());
    } else {
      run(y.data<int8_t>());
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterQuantizeNhwcOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "QuantizeLinear", 1, kLatestVersion, MakeFactory<QuantizeNhwcKernel>());
}

}  // namespace onyx::ops::quant
