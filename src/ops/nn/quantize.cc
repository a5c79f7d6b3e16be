// QuantizeLinear, DequantizeLinear (per tensor, per axis, and blocked from version 21) for the 8/16/32-bit
// integer types, and DynamicQuantizeLinear. Float8 and 4/2-bit variants are not implemented here.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

using QuantizedTypes = TypeList<uint8_t, int8_t, uint16_t, int16_t, int32_t>;
using QuantizeInputTypes = TypeList<float, Float16, BFloat16, double, int32_t>;

bool IsSupportedQuantized(DataType t) {
  return t == DataType::kUint8 || t == DataType::kInt8 || t == DataType::kUint16 || t == DataType::kInt16 ||
         t == DataType::kInt32;
}

// Maps each element of the quantized/real tensor to its scale (and zero point) element.
struct ScaleLayout {
  enum class Kind { kTensor, kAxis, kBlocked } kind = Kind::kTensor;
  int64_t outer = 1, axis_dim = 1, inner = 1;  // x viewed as [outer, axis_dim, inner]
  int64_t block = 1;
  int64_t scale_axis_dim = 1;

  int64_t Index(int64_t i) const {
    if (kind == Kind::kTensor) return 0;
    const int64_t in = i % inner;
    const int64_t a = (i / inner) % axis_dim;
    if (kind == Kind::kAxis) return a;
    const int64_t o = i / (inner * axis_dim);
    return (o * scale_axis_dim + a / block) * inner + in;
  }
};

Result<ScaleLayout> MakeLayout(const Shape& x, const Tensor& scale, int64_t axis_attr, int64_t block_size,
                               const std::string& scale_name) {
  ScaleLayout l;
  const bool scalar = scale.size() == 1 && scale.rank() <= 1 && block_size == 0;
  if (scalar) return l;
  if (x.empty()) {
    return InvalidArgument(scale_name + " has shape " + ShapeToString(scale.shape()) + " but x is a scalar");
  }
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, static_cast<int64_t>(x.size())));
  l.outer = ShapeProduct(x, 0, static_cast<size_t>(axis));
  l.axis_dim = x[static_cast<size_t>(axis)];
  l.inner = ShapeProduct(x, static_cast<size_t>(axis) + 1, x.size());
  if (block_size <= 0) {
    if (scale.rank() != 1 || scale.dim(0) != l.axis_dim) {
      return InvalidArgument(scale_name + " has shape " + ShapeToString(scale.shape()) + ", expected a scalar or [" +
                             std::to_string(l.axis_dim) + "] (axis " + std::to_string(axis) + " of x " +
                             ShapeToString(x) + ")");
    }
    l.kind = ScaleLayout::Kind::kAxis;
    return l;
  }
  Shape want = x;
  want[static_cast<size_t>(axis)] = (l.axis_dim + block_size - 1) / block_size;
  if (scale.shape() != want) {
    return InvalidArgument(scale_name + " has shape " + ShapeToString(scale.shape()) + ", expected " +
                           ShapeToString(want) + " for blocks of " + std::to_string(block_size) + " along axis " +
                           std::to_string(axis) + " of x " + ShapeToString(x));
  }
  l.kind = ScaleLayout::Kind::kBlocked;
  l.block = block_size;
  l.scale_axis_dim = want[static_cast<size_t>(axis)];
  return l;
}

Status CheckZeroPoint(const Tensor* zp, const Tensor& scale, const std::string& name) {
  if (zp != nullptr && zp->shape() != scale.shape() && !(zp->size() == 1 && scale.size() == 1)) {
    return InvalidArgument(name + " has shape " + ShapeToString(zp->shape()) + ", expected the scale's shape " +
                           ShapeToString(scale.shape()));
  }
  return Status::Ok();
}

class QuantizeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 1);
    block_size_ = info.GetInt("block_size", 0);
    if (block_size_ < 0) return info.Error("attribute 'block_size' must not be negative");
    const int64_t od = info.GetInt("output_dtype", 0);
    if (od != 0) {
      if (!IsValidDataType(static_cast<int32_t>(od))) return info.Error("attribute 'output_dtype' is not a type");
      output_dtype_ = static_cast<DataType>(od);
      if (!IsSupportedQuantized(output_dtype_)) {
        return info.UnsupportedError("output_dtype " + std::string(DataTypeName(output_dtype_)) + " is not supported");
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* zp, OptionalTensorInput(ctx, 2));
    if (!IsFloatingPoint(scale->type())) return InvalidArgument("input 'y_scale' (1) must have a float type");
    ONYX_ASSIGN_OR_RETURN(ScaleLayout layout,
                          MakeLayout(x->shape(), *scale, axis_, block_size_, "input 'y_scale' (1)"));
    ONYX_RETURN_IF_ERROR(CheckZeroPoint(zp, *scale, "input 'y_zero_point' (2)"));
    DataType out_type = DataType::kUint8;
    if (zp != nullptr) {
      out_type = zp->type();
      if (output_dtype_ != DataType::kUndefined && output_dtype_ != out_type) {
        return InvalidArgument("output_dtype " + std::string(DataTypeName(output_dtype_)) +
                               " differs from y_zero_point's type " + std::string(DataTypeName(out_type)));
      }
    } else if (output_dtype_ != DataType::kUndefined) {
      out_type = output_dtype_;
    }
    if (!IsSupportedQuantized(out_type)) {
      return Unsupported("quantizing to " + std::string(DataTypeName(out_type)) + " is not supported");
    }
    const std::vector<double> scales = ToDoubleVector(*scale);
    const std::vector<int32_t> zps = zp != nullptr ? Int32Values(*zp) : std::vector<int32_t>(scales.size(), 0);
    Tensor& y = ctx.AllocateOutput(0, out_type, x->shape());
    return Dispatch<QuantizeInputTypes>(x->type(), [&](auto xtag) {
      using X = typename decltype(xtag)::type;
      const X* in = x->data<X>();
      return Dispatch<QuantizedTypes>(out_type, [&](auto qtag) {
        using Q = typename decltype(qtag)::type;
        Q* out = y.data<Q>();
        for (int64_t i = 0; i < x->size(); ++i) {
          const size_t s = static_cast<size_t>(layout.Index(i));
          double q;
          if constexpr (std::is_same_v<X, double> || std::is_same_v<X, int32_t>) {
            q = static_cast<double>(in[i]) / scales[s];
          } else {
            // float32 division, as the reference computes it
            q = static_cast<double>(static_cast<float>(in[i]) / static_cast<float>(scales[s]));
          }
          if (std::isnan(q)) {
            out[i] = SaturateRound<Q>(static_cast<double>(zps[s]));
          } else {
            out[i] = SaturateRound<Q>(std::nearbyint(q) + static_cast<double>(zps[s]));
          }
        }
        return Status::Ok();
      });
    });
  }

 private:
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
};

class DequantizeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 1);
    block_size_ = info.GetInt("block_size", 0);
    if (block_size_ < 0) return info.Error("attribute 'block_size' must not be negative");
    const int64_t od = info.GetInt("output_dtype", 0);
    if (od != 0) {
      if (!IsValidDataType(static_cast<int32_t>(od)) || !IsFloatingPoint(static_cast<DataType>(od))) {
        return info.Error("attribute 'output_dtype' must be a float type, got " + std::to_string(od));
      }
      output_dtype_ = static_cast<DataType>(od);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* zp, OptionalTensorInput(ctx, 2));
    if (!IsFloatingPoint(scale->type())) return InvalidArgument("input 'x_scale' (1) must have a float type");
    ONYX_ASSIGN_OR_RETURN(ScaleLayout layout,
                          MakeLayout(x->shape(), *scale, axis_, block_size_, "input 'x_scale' (1)"));
    ONYX_RETURN_IF_ERROR(CheckZeroPoint(zp, *scale, "input 'x_zero_point' (2)"));
    if (zp != nullptr && zp->type() != x->type()) {
      return InvalidArgument("input 'x_zero_point' (2) has type " + std::string(DataTypeName(zp->type())) + ", x has " +
                             std::string(DataTypeName(x->type())));
    }
    const DataType out_type = output_dtype_ != DataType::kUndefined ? output_dtype_ : scale->type();
    const std::vector<double> scales = ToDoubleVector(*scale);
    const std::vector<int32_t> zps = zp != nullptr ? Int32Values(*zp) : std::vector<int32_t>(scales.size(), 0);
    Tensor& y = ctx.AllocateOutput(0, out_type, x->shape());
    return Dispatch<QuantizedTypes>(x->type(), [&](auto qtag) {
      using Q = typename decltype(qtag)::type;
      const Q* in = x->data<Q>();
      return Dispatch<FloatTypes>(out_type, [&](auto ytag) {
        using Y = typename decltype(ytag)::type;
        Y* out = y.data<Y>();
        for (int64_t i = 0; i < x->size(); ++i) {
          const size_t s = static_cast<size_t>(layout.Index(i));
          const int64_t centred = static_cast<int64_t>(in[i]) - zps[s];
          if constexpr (std::is_same_v<Y, double>) {
            out[i] = static_cast<double>(centred) * scales[s];
          } else {
            out[i] = FromDouble<Y>(static_cast<float>(centred) * static_cast<float>(scales[s]));
          }
        }
        return Status::Ok();
      });
    });
  }

 private:
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
};

// DynamicQuantizeLinear: uint8 asymmetric quantization with a scale and zero point chosen from x's range
// (always including 0), computed in float32.
Status DynamicQuantizeCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  if (x->type() != DataType::kFloat) {
    return Unsupported("input 'x' (0) has type " + std::string(DataTypeName(x->type())) + ", expected float");
  }
  const float* in = x->data<float>();
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < x->size(); ++i) {
    if (std::isnan(in[i])) continue;
    lo = std::min(lo, in[i]);
    hi = std::max(hi, in[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  uint8_t zero_point = 0;
  if (scale > 0) zero_point = SaturateRound<uint8_t>(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
  Tensor& y = ctx.AllocateOutput(0, DataType::kUint8, x->shape());
  uint8_t* out = y.data<uint8_t>();
  for (int64_t i = 0; i < x->size(); ++i) {
    out[i] = scale > 0 ? SaturateRound<uint8_t>(std::nearbyint(in[i] / scale) + zero_point) : zero_point;
  }
  ctx.AllocateOutput(1, DataType::kFloat, {}).data<float>()[0] = scale;
  ctx.AllocateOutput(2, DataType::kUint8, {}).data<uint8_t>()[0] = zero_point;
  return Status::Ok();
}

}  // namespace

void RegisterQuantizeOps(KernelRegistry& registry) {
  registry.Add("", "QuantizeLinear", 10, kLatestVersion, MakeFactory<QuantizeKernel>());
  registry.Add("", "DequantizeLinear", 10, kLatestVersion, MakeFactory<DequantizeKernel>());
  registry.AddFn("", "DynamicQuantizeLinear", 11, kLatestVersion, DynamicQuantizeCompute);
}

}  // namespace onyx::ops::nn
