// ai.onyx.internal.QLinearGlobalAveragePool(X, x_scale, x_zero_point, y_scale, y_zero_point), channels first: the
// mean of each [H, W, ...] image of a uint8 or int8 tensor, as ONNX Runtime's com.microsoft operator computes it
// (MLAS's MlasQLinearGlobalAveragePoolNchw): the exact int32 sum minus x_zero_point * size, requantized with the
// float scale x_scale / (y_scale * size) (kernels/int8_requantize.h). Like MLAS it refuses images of 2^24 or more
// elements and scales outside [2^-32, 256), where the result would be constant. With channels_last = 1 (from the int8
// layout pass) X is [N, D1, ..., C] and Y is written [N, C, 1, ...], which is the same memory as [N, 1, ..., C]:
// the sums are exact integers either way, so the result is the channels-first one. Registered in com.microsoft too,
// where the channels-last result has the shape [N, 1, ..., C].
#include <string>
#include <vector>

#include "kernels/int8_pool.h"
#include "kernels/int8_requantize.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {

template <typename Q>
Status QLinearGlobalAverage(const Q* in, int64_t batch, int64_t channels, int64_t size, bool channels_last,
                            float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, Q* out) {
  if (size >= 0x1000000) return InvalidArgument("images of 2^24 or more elements are not supported");
  const float scale = x_scale / (y_scale * static_cast<float>(size));
  if (!(scale >= 0x1.0p-32f && scale < 256.0f)) {
    return InvalidArgument("x_scale / (y_scale * image size) = " + std::to_string(scale) +
                           " is outside [2^-32, 256): the result would be constant");
  }
  const int32_t offset = -x_zp * static_cast<int32_t>(size);
  if (channels_last) {
    ParallelFor(batch, size * channels, [&](int64_t lo, int64_t hi) {
      thread_local std::vector<int32_t> sums_of_thread;  // kept from run to run: no allocation per run
      std::vector<int32_t>& sums = sums_of_thread;
      sums.resize(static_cast<size_t>(channels));
      for (int64_t n = lo; n < hi; ++n) {
        kernels::SumPixelsChannelsLast(in + n * size * channels, size, channels, sums.data());
        for (int32_t& sum : sums) sum += offset;
        kernels::RequantizeRows<Q>(sums.data(), 1, channels, nullptr, &scale, false, y_zp, out + n * channels);
      }
    });
    return Status::Ok();
  }
  ParallelFor(batch * channels, size, [&](int64_t lo, int64_t hi) {
    for (int64_t ch = lo; ch < hi; ++ch) {
      const Q* p = in + ch * size;
      int32_t sum = offset;
      for (int64_t i = 0; i < size; ++i) sum += p[i];
      out[ch] = kernels::RequantizeValue<Q>(sum, scale, y_zp);
    }
  });
  return Status::Ok();
}

template Status QLinearGlobalAverage<uint8_t>(const uint8_t*, int64_t, int64_t, int64_t, bool, float, int32_t, float,
                                              int32_t, uint8_t*);
template Status QLinearGlobalAverage<int8_t>(const int8_t*, int64_t, int64_t, int64_t, bool, float, int32_t, float,
                                             int32_t, int8_t*);

namespace {

// kMs: com.microsoft's operator, whose channels-last result is [N, 1, ..., C]; else the internal one's
// [N, C, 1, ...] (the same memory).
template <bool kMs>
class QLinearGlobalAveragePoolKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    channels_last_ = info.GetInt("channels_last", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, nn::OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale, ctx.TensorInput(3));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp, nn::OptionalTensorInput(ctx, 4));
    const DataType type = x->type();
    if (type != DataType::kUint8 && type != DataType::kInt8) {
      return InvalidArgument("input 'X' (0) must be uint8 or int8, got " + std::string(DataTypeName(type)));
    }
    if (x->rank() < 3)
      return InvalidArgument("input 'X' (0) must be [N, C, D1, ...], got " + ShapeToString(x->shape()));
    ONYX_ASSIGN_OR_RETURN(float xs, ScalarScale(*x_scale, "input 'x_scale' (1)"));
    ONYX_ASSIGN_OR_RETURN(float ys, ScalarScale(*y_scale, "input 'y_scale' (3)"));
    ONYX_ASSIGN_OR_RETURN(int32_t xz, ScalarZeroPoint(x_zp, type, "input 'x_zero_point' (2)"));
    ONYX_ASSIGN_OR_RETURN(int32_t yz, ScalarZeroPoint(y_zp, type, "input 'y_zero_point' (4)"));
    const int64_t c = channels_last_ ? x->dim(x->rank() - 1) : x->dim(1);
    const int64_t size = x->size() / std::max<int64_t>(x->dim(0) * c, 1);
    Shape out_shape(x->shape().size(), 1);
    out_shape[0] = x->dim(0);
    out_shape[kMs && channels_last_ ? out_shape.size() - 1 : 1] = c;
    Tensor& y = ctx.AllocateOutput(0, type, out_shape);
    if (type == DataType::kUint8) {
      return QLinearGlobalAverage(x->data<uint8_t>(), x->dim(0), c, size, channels_last_, xs, xz, ys, yz,
                                  y.data<uint8_t>());
    }
    return QLinearGlobalAverage(x->data<int8_t>(), x->dim(0), c, size, channels_last_, xs, xz, ys, yz,
                                y.data<int8_t>());
  }

 private:
  bool channels_last_ = false;
};

}  // namespace

void RegisterQLinearPoolOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "QLinearGlobalAveragePool", 1, kLatestVersion,
               MakeFactory<QLinearGlobalAveragePoolKernel<false>>());
  registry.Add("com.microsoft", "QLinearGlobalAveragePool", 1, kLatestVersion,
               MakeFactory<QLinearGlobalAveragePoolKernel<true>>());
}

}  // namespace onyx::ops::quant
