// QuantizeLinear and DequantizeLinear (per tensor, per axis, and blocked from version 21) for every quantized
// type: the 8/16-bit integers, float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz; version 19), int4/uint4 (21),
// float4e2m1 (23) and int2/uint2 (25), with float8e8m0 scales (24); and DynamicQuantizeLinear.
// The low-precision conversions are those of core/low_precision.h, bit-exact with the reference.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/low_precision.h"
#include "kernels/int8_quantize.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

// ---- the quantized element types ----

// The version of QuantizeLinear/DequantizeLinear that first allows `t` as the quantized type; 0 when never.
int FirstVersionFor(DataType t) {
  switch (t) {
    case DataType::kUint8:
    case DataType::kInt8:
      return 10;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 19;
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kUint4:
    case DataType::kInt4:
      return 21;
    case DataType::kFloat4E2M1:
      return 23;
    case DataType::kUint2:
    case DataType::kInt2:
      return 25;
    default:
      return 0;
  }
}

Status CheckQuantizedType(DataType t, int since_version, const char* what) {
  const int first = FirstVersionFor(t);
  if (first == 0) {
    return Unsupported(std::string(what) + " " + std::string(DataTypeName(t)) + " is not a quantized type");
  }
  if (since_version < first) {
    return InvalidArgument(std::string(what) + " " + std::string(DataTypeName(t)) + " needs operator version " +
                           std::to_string(first) + " or later (this node is version " + std::to_string(since_version) +
                           ")");
  }
  return Status::Ok();
}

// [lo, hi] of the integer quantized types; false for the float ones.
bool IntegerRange(DataType t, double& lo, double& hi) {
  switch (t) {
    case DataType::kUint8:
      lo = 0, hi = 255;
      return true;
    case DataType::kInt8:
      lo = -128, hi = 127;
      return true;
    case DataType::kUint16:
      lo = 0, hi = 65535;
      return true;
    case DataType::kInt16:
      lo = -32768, hi = 32767;
      return true;
    case DataType::kInt32:
      lo = -2147483648.0, hi = 2147483647.0;
      return true;
    case DataType::kUint4:
      lo = 0, hi = 15;
      return true;
    case DataType::kInt4:
      lo = -8, hi = 7;
      return true;
    case DataType::kUint2:
      lo = 0, hi = 3;
      return true;
    case DataType::kInt2:
      lo = -2, hi = 1;
      return true;
    default:
      return false;
  }
}

// Element i of a tensor of any numeric type, the packed and float8 types included, as a double (exact).
double ElementAt(const Tensor& t, int64_t i) {
  switch (t.type()) {
    case DataType::kInt4:
      return GetInt4(t.raw(), i);
    case DataType::kUint4:
      return GetUint4(t.raw(), i);
    case DataType::kInt2:
      return GetInt2(t.raw(), i);
    case DataType::kUint2:
      return GetUint2(t.raw(), i);
    case DataType::kFloat4E2M1:
      return Float4E2M1ToFloat(GetPackedNibble(t.raw(), i));
    default:
      if (IsFloat8(t.type())) return Float8ToFloat(t.type(), t.data<uint8_t>()[i]);
      return t.DoubleAt(i);
  }
}

std::vector<double> ElementsOf(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) out[static_cast<size_t>(i)] = ElementAt(t, i);
  return out;
}

// Rounds v to the float type `p` (float, double, float16, bfloat16). Going through float first is harmless for
// the 16-bit types: float carries enough extra bits that the two roundings agree with a single one for the
// quotients computed here.
double RoundTo(DataType p, double v) {
  switch (p) {
    case DataType::kFloat:
      return static_cast<float>(v);
    case DataType::kFloat16:
      return static_cast<float>(Float16(static_cast<float>(v)));
    case DataType::kBFloat16:
      return static_cast<float>(BFloat16(static_cast<float>(v)));
    default:
      return v;
  }
}

// The type x / y_scale is computed in when the `precision` attribute is absent: what the reference's numpy
// promotion gives (an int32 operand or a double one: double; two equal float types: that type; otherwise float).
DataType DivisionType(DataType x, DataType scale) {
  if (x == DataType::kInt32 || scale == DataType::kInt32 || x == DataType::kDouble || scale == DataType::kDouble) {
    return DataType::kDouble;
  }
  if (x == scale && IsFloatingPoint(x)) return x;
  return DataType::kFloat;
}

bool IsScaleType(DataType t) { return IsFloatingPoint(t) || t == DataType::kFloat8E8M0; }

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

// (Names as C strings here and in CheckZeroPoint: a std::string per run would be a heap allocation per node.)
Result<ScaleLayout> MakeLayout(const Shape& x, const Tensor& scale, int64_t axis_attr, int64_t block_size,
                               const char* scale_name) {
  ScaleLayout l;
  const bool scalar = scale.size() == 1 && scale.rank() <= 1 && block_size == 0;
  if (scalar) return l;
  if (x.empty()) {
    return InvalidArgument(std::string(scale_name) + " has shape " + ShapeToString(scale.shape()) +
                           " but x is a scalar");
  }
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, static_cast<int64_t>(x.size())));
  l.outer = ShapeProduct(x, 0, static_cast<size_t>(axis));
  l.axis_dim = x[static_cast<size_t>(axis)];
  l.inner = ShapeProduct(x, static_cast<size_t>(axis) + 1, x.size());
  if (block_size <= 0) {
    if (scale.rank() != 1 || scale.dim(0) != l.axis_dim) {
      return InvalidArgument(std::string(scale_name) + " has shape " + ShapeToString(scale.shape()) +
                             ", expected a scalar or [" + std::to_string(l.axis_dim) + "] (axis " +
                             std::to_string(axis) + " of x " + ShapeToString(x) + ")");
    }
    l.kind = ScaleLayout::Kind::kAxis;
    return l;
  }
  Shape want = x;
  want[static_cast<size_t>(axis)] = (l.axis_dim + block_size - 1) / block_size;
  if (scale.shape() != want) {
    return InvalidArgument(std::string(scale_name) + " has shape " + ShapeToString(scale.shape()) + ", expected " +
                           ShapeToString(want) + " for blocks of " + std::to_string(block_size) + " along axis " +
                           std::to_string(axis) + " of x " + ShapeToString(x));
  }
  l.kind = ScaleLayout::Kind::kBlocked;
  l.block = block_size;
  l.scale_axis_dim = want[static_cast<size_t>(axis)];
  return l;
}

Status CheckZeroPoint(const Tensor* zp, const Tensor& scale, const char* name) {
  if (zp != nullptr && zp->shape() != scale.shape() && !(zp->size() == 1 && scale.size() == 1)) {
    return InvalidArgument(std::string(name) + " has shape " + ShapeToString(zp->shape()) +
                           ", expected the scale's shape " + ShapeToString(scale.shape()));
  }
  return Status::Ok();
}

// Writes element i of y from the quotient q = x / y_scale and the zero point, by y's type: integers round half
// to even, add the zero point and clamp (NaN gives the zero point); float8 converts q + zero point with
// `saturate`; float4e2m1 converts q + zero point (always saturating).
void StoreQuantized(Tensor& y, int64_t i, double q, double zp, bool saturate) {
  const DataType t = y.type();
  double lo = 0, hi = 0;
  if (IntegerRange(t, lo, hi)) {
    const double v = std::isnan(q) ? zp : std::clamp(std::nearbyint(q) + zp, lo, hi);
    const int64_t r = static_cast<int64_t>(std::clamp(v, lo, hi));
    switch (t) {
      case DataType::kUint8:
        y.data<uint8_t>()[i] = static_cast<uint8_t>(r);
        return;
      case DataType::kInt8:
        y.data<int8_t>()[i] = static_cast<int8_t>(r);
        return;
      case DataType::kUint16:
        y.data<uint16_t>()[i] = static_cast<uint16_t>(r);
        return;
      case DataType::kInt16:
        y.data<int16_t>()[i] = static_cast<int16_t>(r);
        return;
      case DataType::kUint4:
        SetUint4(y.raw(), i, r);
        return;
      case DataType::kInt4:
        SetInt4(y.raw(), i, r);
        return;
      case DataType::kUint2:
        SetUint2(y.raw(), i, r);
        return;
      case DataType::kInt2:
        SetInt2(y.raw(), i, r);
        return;
      default:
        return;  // int32 is not a QuantizeLinear output (CheckQuantizedType)
    }
  }
  if (t == DataType::kFloat4E2M1) {
    SetPackedNibble(y.raw(), i, FloatToFloat4E2M1(DoubleToFloatRoundToOdd(q + zp)));
  } else {
    y.data<uint8_t>()[i] = DoubleToFloat8(t, q + zp, saturate);
  }
}

// ---- the float32 <-> 8-bit fast paths (kernels/int8_quantize.h), same results as the general loops ----

// Calls f(row, begin, end) over x viewed as rows of `inner` elements sharing one scale (per tensor: rows of the
// whole tensor), threaded over rows, or within the single row when there is only one.
template <typename F>
void ForEachScaleRow(const ScaleLayout& layout, int64_t size, F&& f) {
  const bool per_tensor = layout.kind == ScaleLayout::Kind::kTensor;
  const int64_t row_len = per_tensor ? size : layout.inner;
  const int64_t rows = row_len > 0 ? size / row_len : 0;
  if (rows == 1) {
    ParallelFor(row_len, 4, [&](int64_t lo, int64_t hi) { f(int64_t{0}, lo, hi); });
    return;
  }
  ParallelFor(rows, row_len * 4, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) f(r, int64_t{0}, row_len);
  });
}

// QuantizeLinear of float32 x with float32 scales (computed in float32) to uint8/int8, per tensor or per axis.
// Returns false when the case is not one of those (the general loop then runs).
// `constant_zps`: the zero points resolved once (ConstantZeroPoints), or null to read them from `zp` now.
bool QuantizeFloatFast(const Tensor& x, const Tensor& scale, const Tensor* zp, const std::vector<int32_t>* constant_zps,
                       const ScaleLayout& layout, DataType p, Tensor& y) {
  if (x.type() != DataType::kFloat || scale.type() != DataType::kFloat || p != DataType::kFloat ||
      layout.kind == ScaleLayout::Kind::kBlocked || (y.type() != DataType::kUint8 && y.type() != DataType::kInt8)) {
    return false;
  }
  const float* scales = scale.data<float>();
  std::vector<int32_t> read;
  if (constant_zps == nullptr && zp != nullptr) read = Int32Values(*zp);
  const std::vector<int32_t>& zps = constant_zps != nullptr ? *constant_zps : read;
  const int64_t axis_dim = layout.kind == ScaleLayout::Kind::kAxis ? layout.axis_dim : 1;
  auto run = [&](auto* out) {
    using Q = std::remove_pointer_t<decltype(out)>;
    ForEachScaleRow(layout, x.size(), [&](int64_t row, int64_t lo, int64_t hi) {
      const int64_t s = row % axis_dim;
      const int32_t z = zps.empty() ? 0 : zps[static_cast<size_t>(s)];
      const int64_t base = layout.kind == ScaleLayout::Kind::kTensor ? 0 : row * layout.inner;
      // A NaN quantizes to the zero point (StoreQuantized).
      kernels::QuantizeFloat<Q>(x.data<float>() + base + lo, hi - lo, scales[s], z, static_cast<Q>(z), out + base + lo);
    });
  };
  if (y.type() == DataType::kUint8) {
    run(y.data<uint8_t>());
  } else {
    run(y.data<int8_t>());
  }
  return true;
}

// DequantizeLinear of uint8/int8 x with float32 scales to float32, per tensor or per axis; false otherwise.
bool DequantizeFloatFast(const Tensor& x, const Tensor& scale, const Tensor* zp,
                         const std::vector<int32_t>* constant_zps, const ScaleLayout& layout, Tensor& y) {
  if ((x.type() != DataType::kUint8 && x.type() != DataType::kInt8) || scale.type() != DataType::kFloat ||
      y.type() != DataType::kFloat || layout.kind == ScaleLayout::Kind::kBlocked) {
    return false;
  }
  const float* scales = scale.data<float>();
  std::vector<int32_t> read;
  if (constant_zps == nullptr && zp != nullptr) read = Int32Values(*zp);
  const std::vector<int32_t>& zps = constant_zps != nullptr ? *constant_zps : read;
  const int64_t axis_dim = layout.kind == ScaleLayout::Kind::kAxis ? layout.axis_dim : 1;
  auto run = [&](const auto* in) {
    using Q = std::remove_cv_t<std::remove_pointer_t<decltype(in)>>;
    ForEachScaleRow(layout, x.size(), [&](int64_t row, int64_t lo, int64_t hi) {
      const int64_t s = row % axis_dim;
      const int32_t z = zps.empty() ? 0 : zps[static_cast<size_t>(s)];
      const int64_t base = layout.kind == ScaleLayout::Kind::kTensor ? 0 : row * layout.inner;
      kernels::DequantizeToFloat<Q>(in + base + lo, hi - lo, scales[s], z, y.data<float>() + base + lo);
    });
  };
  if (x.type() == DataType::kUint8) {
    run(x.data<uint8_t>());
  } else {
    run(x.data<int8_t>());
  }
  return true;
}

// The zero points of input 2 as int32, resolved once when it is a constant 8-bit tensor (the fast paths' types),
// so that runs do not convert them again; nullopt otherwise (no input 2 counts: an empty list, zero points 0).
std::optional<std::vector<int32_t>> ConstantZeroPoints(const KernelInfo& info) {
  if (!info.has_input(2)) return std::vector<int32_t>();
  const Tensor* zp = info.ConstantInput(2);
  if (zp == nullptr || (zp->type() != DataType::kUint8 && zp->type() != DataType::kInt8)) return std::nullopt;
  return Int32Values(*zp);
}

// The ONNX version whose types a node takes: com.microsoft's QuantizeLinear and DequantizeLinear (version 1, which
// ONNX Runtime's quantizer writes for 16-bit and 4-bit types) take what ONNX's version 21 takes (their attribute
// `axis` only: no block_size, output_dtype or saturate, which then keep their defaults).
int VersionOf(const KernelInfo& info) { return info.node().domain == "com.microsoft" ? 21 : info.since_version(); }

class QuantizeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_version_ = VersionOf(info);
    axis_ = info.GetInt("axis", 1);
    saturate_ = info.GetInt("saturate", 1) != 0;
    block_size_ = info.GetInt("block_size", 0);
    if (block_size_ < 0) return info.Error("attribute 'block_size' must not be negative");
    const int64_t od = info.GetInt("output_dtype", 0);
    if (od != 0) {
      if (!IsValidDataType(static_cast<int32_t>(od))) return info.Error("attribute 'output_dtype' is not a type");
      output_dtype_ = static_cast<DataType>(od);
      if (FirstVersionFor(output_dtype_) == 0) {
        return info.Error("attribute 'output_dtype' " + std::string(DataTypeName(output_dtype_)) +
                          " is not a quantized type");
      }
    }
    constant_zps_ = ConstantZeroPoints(info);
    const int64_t precision = info.GetInt("precision", 0);
    if (precision != 0) {
      if (!IsValidDataType(static_cast<int32_t>(precision)) || !IsFloatingPoint(static_cast<DataType>(precision))) {
        return info.Error("attribute 'precision' must be a float type, got " + std::to_string(precision));
      }
      precision_ = static_cast<DataType>(precision);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* zp, OptionalTensorInput(ctx, 2));
    if (!IsFloatingPoint(x->type()) && x->type() != DataType::kInt32) {
      return InvalidArgument("input 'x' (0) has type " + std::string(DataTypeName(x->type())) +
                             ", expected a float type or int32");
    }
    if (!IsScaleType(scale->type()) && scale->type() != DataType::kInt32) {
      return InvalidArgument("input 'y_scale' (1) has type " + std::string(DataTypeName(scale->type())) +
                             ", expected a float type, int32 or float8e8m0");
    }
    if (scale->type() == DataType::kFloat8E8M0 && since_version_ < 24) {
      return InvalidArgument("input 'y_scale' (1) of type float8e8m0 needs operator version 24 or later");
    }
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
    ONYX_RETURN_IF_ERROR(CheckQuantizedType(out_type, since_version_, "output type"));
    const DataType p = precision_ != DataType::kUndefined ? precision_ : DivisionType(x->type(), scale->type());
    Tensor& y = ctx.AllocateOutput(0, out_type, x->shape());
    if (QuantizeFloatFast(*x, *scale, zp, constant_zps_ ? &*constant_zps_ : nullptr, layout, p, y)) {
      return Status::Ok();
    }
    std::vector<double> scales = ElementsOf(*scale);
    for (double& s : scales) s = RoundTo(p, s);
    const std::vector<double> zps = zp != nullptr ? ElementsOf(*zp) : std::vector<double>(scales.size(), 0.0);
    if (y.nbytes() > 0) std::memset(y.raw(), 0, y.nbytes());  // defined padding bits in packed types
    for (int64_t i = 0; i < x->size(); ++i) {
      const size_t s = static_cast<size_t>(layout.Index(i));
      // Rounding the double quotient of two p values to p gives p's correctly rounded quotient.
      const double q = RoundTo(p, RoundTo(p, x->DoubleAt(i)) / scales[s]);
      StoreQuantized(y, i, q, zps[s], saturate_);
    }
    return Status::Ok();
  }

 private:
  int since_version_ = 0;
  int64_t axis_ = 1;
  bool saturate_ = true;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
  DataType precision_ = DataType::kUndefined;
  std::optional<std::vector<int32_t>> constant_zps_;
};

class DequantizeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_version_ = VersionOf(info);
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
    constant_zps_ = ConstantZeroPoints(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* zp, OptionalTensorInput(ctx, 2));
    if (x->type() != DataType::kInt32) {
      ONYX_RETURN_IF_ERROR(CheckQuantizedType(x->type(), since_version_, "input 'x' (0) type"));
    }
    if (!IsScaleType(scale->type())) {
      return InvalidArgument("input 'x_scale' (1) has type " + std::string(DataTypeName(scale->type())) +
                             ", expected a float type or float8e8m0");
    }
    if (scale->type() == DataType::kFloat8E8M0 && since_version_ < 24) {
      return InvalidArgument("input 'x_scale' (1) of type float8e8m0 needs operator version 24 or later");
    }
    ONYX_ASSIGN_OR_RETURN(ScaleLayout layout,
                          MakeLayout(x->shape(), *scale, axis_, block_size_, "input 'x_scale' (1)"));
    ONYX_RETURN_IF_ERROR(CheckZeroPoint(zp, *scale, "input 'x_zero_point' (2)"));
    if (zp != nullptr && zp->type() != x->type()) {
      return InvalidArgument("input 'x_zero_point' (2) has type " + std::string(DataTypeName(zp->type())) + ", x has " +
                             std::string(DataTypeName(x->type())));
    }
    DataType out_type = output_dtype_;
    if (out_type == DataType::kUndefined) {
      if (!IsFloatingPoint(scale->type())) {
        return InvalidArgument("input 'x_scale' (1) has type " + std::string(DataTypeName(scale->type())) +
                               ": attribute 'output_dtype' must name the output type");
      }
      out_type = scale->type();
    }
    Tensor& y = ctx.AllocateOutput(0, out_type, x->shape());
    if (DequantizeFloatFast(*x, *scale, zp, constant_zps_ ? &*constant_zps_ : nullptr, layout, y)) {
      return Status::Ok();
    }
    const std::vector<double> scales = ElementsOf(*scale);
    const std::vector<double> zps = zp != nullptr ? ElementsOf(*zp) : std::vector<double>(scales.size(), 0.0);
    const bool integer_x = IsInteger(x->type());
    return Dispatch<FloatTypes>(out_type, [&](auto ytag) {
      using Y = typename decltype(ytag)::type;
      Y* out = y.data<Y>();
      for (int64_t i = 0; i < x->size(); ++i) {
        const size_t s = static_cast<size_t>(layout.Index(i));
        // Integers subtract exactly; float8/float4 values subtract in float, as the reference does.
        const double centred =
            integer_x ? ElementAt(*x, i) - zps[s] : static_cast<float>(ElementAt(*x, i)) - static_cast<float>(zps[s]);
        if constexpr (std::is_same_v<Y, double>) {
          out[i] = centred * scales[s];
        } else {
          out[i] = FromDouble<Y>(static_cast<float>(centred) * static_cast<float>(scales[s]));
        }
      }
      return Status::Ok();
    });
  }

 private:
  int since_version_ = 0;
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
  std::optional<std::vector<int32_t>> constant_zps_;
};

// DynamicQuantizeLinear: uint8 asymmetric quantization with a scale and zero point chosen from x's range
// (always including 0), computed in float32 as ONNX Runtime does (GetQuantizationParameter in its qmath.h): scale
// (max - min) / 255, or 1 when the range is empty (all zeros: the spec's formula would divide by zero), zero point
// round_half_even(clamp(0 - min / scale, 0, 255)); a NaN element quantizes to 0.
Status DynamicQuantizeCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  if (x->type() != DataType::kFloat) {
    return Unsupported("input 'x' (0) has type " + std::string(DataTypeName(x->type())) + ", expected float");
  }
  const float* in = x->data<float>();
  const int64_t n = x->size();
  // Min and max per chunk, then over the chunks (min/max are exact, so the split does not change the result).
  constexpr int64_t kChunks = 64;
  float los[kChunks], his[kChunks];
  const int64_t chunks = std::clamp<int64_t>(n / 4096, 1, kChunks);
  ParallelFor(chunks, n / chunks, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c)
      kernels::MinMaxWithZero(in + n * c / chunks, n * (c + 1) / chunks - n * c / chunks, &los[c], &his[c]);
  });
  float lo = 0.0f, hi = 0.0f;
  for (int64_t c = 0; c < chunks; ++c) {
    lo = std::min(lo, los[c]);
    hi = std::max(hi, his[c]);
  }
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const uint8_t zero_point = SaturateRound<uint8_t>(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
  Tensor& y = ctx.AllocateOutput(0, DataType::kUint8, x->shape());
  uint8_t* out = y.data<uint8_t>();
  ParallelFor(n, 4, [&](int64_t b, int64_t e) {
    kernels::QuantizeFloat<uint8_t>(in + b, e - b, scale, zero_point, uint8_t{0}, out + b);
  });
  ctx.AllocateOutput(1, DataType::kFloat, {}).data<float>()[0] = scale;
  ctx.AllocateOutput(2, DataType::kUint8, {}).data<uint8_t>()[0] = zero_point;
  return Status::Ok();
}

}  // namespace

void RegisterQuantizeOps(KernelRegistry& registry) {
  registry.Add("", "QuantizeLinear", 10, kLatestVersion, MakeFactory<QuantizeKernel>());
  registry.Add("", "DequantizeLinear", 10, kLatestVersion, MakeFactory<DequantizeKernel>());
  registry.Add("com.microsoft", "QuantizeLinear", 1, kLatestVersion, MakeFactory<QuantizeKernel>());
  registry.Add("com.microsoft", "DequantizeLinear", 1, kLatestVersion, MakeFactory<DequantizeKernel>());
  registry.AddFn("", "DynamicQuantizeLinear", 11, kLatestVersion, DynamicQuantizeCompute);
}

}  // namespace onyx::ops::nn
