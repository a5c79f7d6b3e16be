// ai.onyx.internal.QLinearConcat(Y_scale, Y_zero_point, X0, X0_scale, X0_zero_point, X1, ...), attribute axis:
// Concat of uint8 or int8 tensors, each requantized from its own scale and zero point to Y's, as ONNX Runtime's
// com.microsoft QLinearConcat computes it: an input whose scale equals Y's (as floats) and whose zero point equals
// Y's is copied; any other goes through a table of its 256 byte values, each dequantized (x_scale * (q - x_zero_point)
// in float32) and quantized to Y (kernels::QuantizeFloat: division, round half to even, saturation), then looked up
// per byte (kernels::LookupBytes, vectorized). The tables are built once where the parameters are constants. With
// channels_last = 1 (from the int8 layout pass) the inputs and the output are [N, H, W, C] and `axis` still names the
// channel axis as ONNX counts it (1).
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/int8_lookup.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

// How one input reaches the output: a plain copy, or its 256-entry table (indexed by the raw byte).
struct Requant {
  bool copy = false;
  std::vector<uint8_t> table;
};

bool IsScalar(const Tensor& t) { return t.size() == 1 && t.rank() <= 1; }

// x's scale and zero point against y's; `type` is y's 8-bit type. Checked errors name the input (1-based tuple).
Result<Requant> MakeRequant(const Tensor& xs, const Tensor* xz, const Tensor& ys, const Tensor* yz, DataType type,
                            size_t input) {
  if (xs.type() != DataType::kFloat || !IsScalar(xs)) {
    return InvalidArgument("the scale of input " + std::to_string(input) + " must be one float value");
  }
  if (xz != nullptr && (xz->type() != type || !IsScalar(*xz))) {
    return InvalidArgument("the zero point of input " + std::to_string(input) + " must be one " +
                           std::string(DataTypeName(type)) + " value, like Y_zero_point");
  }
  auto zero_point = [type](const Tensor* z) -> int32_t {
    if (z == nullptr) return 0;
    return type == DataType::kUint8 ? int32_t{z->data<uint8_t>()[0]} : int32_t{z->data<int8_t>()[0]};
  };
  const float x_scale = xs.data<float>()[0], y_scale = ys.data<float>()[0];
  const int32_t x_zp = zero_point(xz), y_zp = zero_point(yz);
  Requant r;
  if (x_scale == y_scale && x_zp == y_zp) {
    r.copy = true;
    return r;
  }
  r.table.resize(256);
  BuildQLinearTable(type, x_scale, x_zp, y_scale, y_zp, nullptr, r.table.data());
  return r;
}

class QLinearConcatKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    auto axis = info.GetRequiredInt("axis");
    if (!axis.ok()) return info.Error(axis.status().message());
    axis_ = *axis;
    channels_last_ = info.GetInt("channels_last", 0) != 0;
    const size_t count = info.num_inputs();
    if (count < 5 || (count - 2) % 3 != 0) {
      return info.Error("expected Y_scale, Y_zero_point and (X, X_scale, X_zero_point) per input, got " +
                        std::to_string(count) + " inputs");
    }
    inputs_ = (count - 2) / 3;
    // Tables of constant parameters, built once (an input without a constant one gets its table per run).
    const Tensor* ys = info.ConstantInput(0);
    const Tensor* yz = info.ConstantInput(1);
    fixed_.resize(inputs_);
    if (ys == nullptr || yz == nullptr || ys->type() != DataType::kFloat || !IsScalar(*ys) || !IsScalar(*yz) ||
        (yz->type() != DataType::kUint8 && yz->type() != DataType::kInt8)) {
      return Status::Ok();
    }
    for (size_t i = 0; i < inputs_; ++i) {
      const Tensor* xs = info.ConstantInput(3 + 3 * i);
      const bool has_zp = info.has_input(4 + 3 * i);
      const Tensor* xz = has_zp ? info.ConstantInput(4 + 3 * i) : nullptr;
      if (xs == nullptr || (has_zp && xz == nullptr)) continue;
      auto r = MakeRequant(*xs, xz, *ys, yz, yz->type(), i + 1);
      if (!r.ok()) return info.Error(r.status().message());
      fixed_[i] = std::move(*r);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* ys, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* yz, ctx.TensorInput(1));
    if (ys->type() != DataType::kFloat || !IsScalar(*ys)) {
      return InvalidArgument("input 'Y_scale' (0) must be one float value");
    }
    const DataType type = yz->type();
    if ((type != DataType::kUint8 && type != DataType::kInt8) || !IsScalar(*yz)) {
      return InvalidArgument("input 'Y_zero_point' (1) must be one uint8 or int8 value");
    }
    std::vector<const Tensor*> xs(inputs_);
    for (size_t i = 0; i < inputs_; ++i) {
      ONYX_ASSIGN_OR_RETURN(xs[i], ctx.TensorInput(2 + 3 * i));
      if (xs[i]->type() != type) {
        return InvalidArgument("input " + std::to_string(i + 1) + " has type " +
                               std::string(DataTypeName(xs[i]->type())) + ", Y_zero_point " +
                               std::string(DataTypeName(type)));
      }
    }
    // The concatenation axis in memory: channels last moves ONNX's axis 1 to the end.
    const int64_t rank = xs[0]->rank();
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    if (channels_last_) {
      if (rank != 4 || axis != 1) return InvalidArgument("channels_last = 1 needs 4-D inputs and axis 1");
      axis = 3;
    }
    Shape out_shape = xs[0]->shape();
    out_shape[static_cast<size_t>(axis)] = 0;
    for (size_t i = 0; i < inputs_; ++i) {
      const Shape& s = xs[i]->shape();
      bool fits = static_cast<int64_t>(s.size()) == rank;
      for (int64_t d = 0; fits && d < rank; ++d) {
        fits = d == axis || s[static_cast<size_t>(d)] == out_shape[static_cast<size_t>(d)];
      }
      if (!fits) {
        return InvalidArgument("input " + std::to_string(i + 1) + " has shape " + ShapeToString(s) +
                               ", which does not match input 1's " + ShapeToString(xs[0]->shape()) + " outside axis " +
                               std::to_string(axis));
      }
      out_shape[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
    }
    std::vector<Requant> per_run(inputs_);
    std::vector<const Requant*> requant(inputs_);
    for (size_t i = 0; i < inputs_; ++i) {
      if (fixed_[i].has_value()) {
        requant[i] = &*fixed_[i];
        continue;
      }
      ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale, ctx.TensorInput(3 + 3 * i));
      ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, nn::OptionalTensorInput(ctx, 4 + 3 * i));
      ONYX_ASSIGN_OR_RETURN(per_run[i], MakeRequant(*x_scale, x_zp, *ys, yz, type, i + 1));
      requant[i] = &per_run[i];
    }
    Tensor& y = ctx.AllocateOutput(0, type, out_shape);
    if (y.size() == 0) return Status::Ok();
    // The output as rows of `out_pitch` bytes (everything from the axis inward), each row the inputs' rows side by
    // side.
    const int64_t inner = nn::ShapeProduct(out_shape, static_cast<size_t>(axis) + 1, out_shape.size());
    const int64_t out_pitch = out_shape[static_cast<size_t>(axis)] * inner;
    const int64_t rows = y.size() / out_pitch;
    uint8_t* out = static_cast<uint8_t*>(y.raw());
    // Blocks of whole output rows, input by input: a table lookup per block rather than per row (channels last,
    // a row is one pixel: tens of bytes per input), while the block's output stays in cache.
    constexpr int64_t kBlockBytes = 16384;
    const int64_t block = std::max<int64_t>(1, kBlockBytes / out_pitch);
    ParallelFor(rows, out_pitch, [&](int64_t lo, int64_t hi) {
      for (int64_t r0 = lo; r0 < hi; r0 += block) {
        const int64_t count = std::min(block, hi - r0);
        uint8_t* o = out + r0 * out_pitch;
        for (size_t i = 0; i < inputs_; ++i) {
          const int64_t pitch = xs[i]->dim(axis) * inner;
          const uint8_t* in = static_cast<const uint8_t*>(xs[i]->raw()) + r0 * pitch;
          if (requant[i]->copy) {
            for (int64_t r = 0; r < count; ++r) {
              if (pitch <= 512) {
                CopyShortRun(o + r * out_pitch, in + r * pitch, static_cast<size_t>(pitch));
              } else {
                std::memcpy(o + r * out_pitch, in + r * pitch, static_cast<size_t>(pitch));
              }
            }
          } else {
            kernels::LookupBytes(requant[i]->table.data(), in, pitch, o, out_pitch, count, pitch);
          }
          o += pitch;
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool channels_last_ = false;
  size_t inputs_ = 0;
  std::vector<std::optional<Requant>> fixed_;  // per input: its table when its parameters are constants
};

}  // namespace

void RegisterQLinearConcatOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "QLinearConcat", 1, kLatestVersion, MakeFactory<QLinearConcatKernel>());
  registry.Add("com.microsoft", "QLinearConcat", 1, kLatestVersion, MakeFactory<QLinearConcatKernel>());
}

}  // namespace onyx::ops::quant
