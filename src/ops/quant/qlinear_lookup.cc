// ONNX Runtime's com.microsoft lookup-table operators on uint8 or int8 tensors, computed as it computes them:
//   QLinearSigmoid(X, X_scale, X_zero_point, Y_scale, Y_zero_point)      table of MLAS's logistic (OrtLogistic)
//   QLinearLeakyRelu(X, X_scale, X_zero_point, Y_scale, Y_zero_point)    table of v >= 0 ? v : alpha * v
//   QLinearWhere(condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point)
//                     condition ? X requantized to Z : Y requantized to Z (numpy broadcasting of the three)
// and onyx's ai.onyx.internal.ByteLookup(X, table): a byte table the optimizer computed (optimizer/byte_table.h).
// Each byte value's result is one table entry (qlinear_common.h: dequantized, mapped, quantized to Y's parameters),
// built once where the parameters are constants, else per run; the data is then looked up byte by byte
// (kernels::LookupBytes, vectorized). QLinearWhere copies an operand whose scale and zero point equal Z's.
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/int8_lookup.h"
#include "kernels/ort_order_math.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

using Table = std::array<uint8_t, 256>;

bool IsByteType(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// The element type a node's zero point constant gives, or nullopt when no constant says.
std::optional<DataType> ConstantZeroPointType(const KernelInfo& info, size_t i) {
  const Tensor* z = info.has_input(i) ? info.ConstantInput(i) : nullptr;
  if (z == nullptr || !IsByteType(z->type())) return std::nullopt;
  return z->type();
}

// The table of one operand: from constants once at creation, else from the run's inputs.
class TableSource {
 public:
  // Indices of the operand's scale and zero point, the output's scale and zero point, and their names in errors.
  TableSource(size_t xs, size_t xz, size_t ys, size_t yz, std::array<const char*, 4> names)
      : xs_(xs), xz_(xz), ys_(ys), yz_(yz), names_(names) {}

  // Builds the table now when every parameter is a constant (and the type is known from a zero point).
  Status Init(const KernelInfo& info, const FloatMapping& f) {
    const Tensor* xs = info.ConstantInput(xs_);
    const Tensor* ys = info.ConstantInput(ys_);
    const bool xz_ok = !info.has_input(xz_) || info.ConstantInput(xz_) != nullptr;
    const bool yz_ok = !info.has_input(yz_) || info.ConstantInput(yz_) != nullptr;
    if (xs == nullptr || ys == nullptr || !xz_ok || !yz_ok) return Status::Ok();
    std::optional<DataType> type = ConstantZeroPointType(info, yz_);
    if (!type) type = ConstantZeroPointType(info, xz_);
    if (!type) return Status::Ok();  // no zero points: the type is the data's, known at run time
    auto table = Make(*type, *xs, info.ConstantInput(xz_), *ys, info.ConstantInput(yz_), f);
    if (!table.ok()) return info.Error(table.status().message());
    fixed_type_ = *type;
    fixed_ = *table;
    return Status::Ok();
  }

  // The table for data of `type` (the fixed one, or one built into `scratch`); nullptr and *copy = true where the
  // operand passes through unchanged.
  Result<const uint8_t*> Get(KernelContext& ctx, DataType type, const FloatMapping& f, bool allow_copy, bool* copy,
                             Table& scratch) const {
    *copy = false;
    if (fixed_ && fixed_type_ == type) {
      if (allow_copy && fixed_copy_) {
        *copy = true;
        return nullptr;
      }
      return fixed_->data();
    }
    ONYX_ASSIGN_OR_RETURN(const Tensor* xs, ctx.TensorInput(xs_));
    ONYX_ASSIGN_OR_RETURN(const Tensor* xz, nn::OptionalTensorInput(ctx, xz_));
    ONYX_ASSIGN_OR_RETURN(const Tensor* ys, ctx.TensorInput(ys_));
    ONYX_ASSIGN_OR_RETURN(const Tensor* yz, nn::OptionalTensorInput(ctx, yz_));
    if (allow_copy) {
      ONYX_ASSIGN_OR_RETURN(bool same, SameParams(type, *xs, xz, *ys, yz));
      if (same) {
        *copy = true;
        return nullptr;
      }
    }
    ONYX_ASSIGN_OR_RETURN(scratch, Make(type, *xs, xz, *ys, yz, f));
    return scratch.data();
  }

  // Marks the fixed table as a copy when its parameters are equal (QLinearWhere).
  Status InitCopy(const KernelInfo& info) {
    if (!fixed_) return Status::Ok();
    auto same = SameParams(fixed_type_, *info.ConstantInput(xs_), info.ConstantInput(xz_), *info.ConstantInput(ys_),
                           info.ConstantInput(yz_));
    if (!same.ok()) return info.Error(same.status().message());
    fixed_copy_ = *same;
    return Status::Ok();
  }

 private:
  Result<bool> SameParams(DataType type, const Tensor& xs, const Tensor* xz, const Tensor& ys, const Tensor* yz) const {
    ONYX_ASSIGN_OR_RETURN(float x_scale, ScalarScale(xs, names_[0]));
    ONYX_ASSIGN_OR_RETURN(float y_scale, ScalarScale(ys, names_[2]));
    ONYX_ASSIGN_OR_RETURN(int32_t x_zp, ScalarZeroPoint(xz, type, names_[1]));
    ONYX_ASSIGN_OR_RETURN(int32_t y_zp, ScalarZeroPoint(yz, type, names_[3]));
    return x_scale == y_scale && x_zp == y_zp;
  }

  Result<Table> Make(DataType type, const Tensor& xs, const Tensor* xz, const Tensor& ys, const Tensor* yz,
                     const FloatMapping& f) const {
    ONYX_ASSIGN_OR_RETURN(float x_scale, ScalarScale(xs, names_[0]));
    ONYX_ASSIGN_OR_RETURN(float y_scale, ScalarScale(ys, names_[2]));
    ONYX_ASSIGN_OR_RETURN(int32_t x_zp, ScalarZeroPoint(xz, type, names_[1]));
    ONYX_ASSIGN_OR_RETURN(int32_t y_zp, ScalarZeroPoint(yz, type, names_[3]));
    Table t;
    BuildQLinearTable(type, x_scale, x_zp, y_scale, y_zp, f, t.data());
    return t;
  }

  size_t xs_, xz_, ys_, yz_;
  std::array<const char*, 4> names_;
  std::optional<Table> fixed_;
  DataType fixed_type_ = DataType::kUint8;
  bool fixed_copy_ = false;
};

enum class Mapping { kSigmoid, kLeakyRelu };

template <Mapping kMapping>
class QLinearUnaryLookupKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 0.01f);
    if constexpr (kMapping == Mapping::kSigmoid) {
      f_ = [](const float* in, float* out, int64_t n) { kernels::OrtLogistic(in, out, n); };
    } else {
      const float alpha = alpha_;
      f_ = [alpha](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[i] >= 0.0f ? in[i] : alpha * in[i];
      };
    }
    return table_.Init(info, f_);
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (!IsByteType(x->type())) {
      return InvalidArgument("input 'X' (0) must be uint8 or int8, got " + std::string(DataTypeName(x->type())));
    }
    bool copy = false;
    Table scratch;
    ONYX_ASSIGN_OR_RETURN(const uint8_t* table, table_.Get(ctx, x->type(), f_, false, &copy, scratch));
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    const auto* in = static_cast<const uint8_t*>(x->raw());
    auto* out = static_cast<uint8_t*>(y.raw());
    ParallelFor(x->size(), 1, [&](int64_t lo, int64_t hi) {
      kernels::LookupBytes(table, in + lo, hi - lo, out + lo, hi - lo, 1, hi - lo);
    });
    return Status::Ok();
  }

 private:
  float alpha_ = 0.01f;
  FloatMapping f_;
  TableSource table_{
      1,
      2,
      3,
      4,
      {"input 'X_scale' (1)", "input 'X_zero_point' (2)", "input 'Y_scale' (3)", "input 'Y_zero_point' (4)"}};
};

// ai.onyx.internal.ByteLookup(X, table) (optimizer/byte_table.h): y[i] = table[x[i]] for 8-bit X and a constant
// table of 256 8-bit values, y of the table's type.
class ByteLookupKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const Tensor* table = info.num_inputs() == 2 ? info.ConstantInput(1) : nullptr;
    if (table == nullptr || !IsByteType(table->type()) || table->size() != 256) {
      return info.Error("input 'table' (1) must be a constant of 256 uint8 or int8 values");
    }
    table_ = *table;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (!IsByteType(x->type())) {
      return InvalidArgument("input 'X' (0) must be uint8 or int8, got " + std::string(DataTypeName(x->type())));
    }
    Tensor& y = ctx.AllocateOutput(0, table_.type(), x->shape());
    const auto* in = static_cast<const uint8_t*>(x->raw());
    auto* out = static_cast<uint8_t*>(y.raw());
    const auto* t = static_cast<const uint8_t*>(table_.raw());
    ParallelFor(x->size(), 1, [&](int64_t lo, int64_t hi) {
      kernels::LookupBytes(t, in + lo, hi - lo, out + lo, hi - lo, 1, hi - lo);
    });
    return Status::Ok();
  }

 private:
  Tensor table_;
};

class QLinearWhereKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (info.num_inputs() != 9) {
      return info.Error(
          "expected 9 inputs (condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, "
          "z_scale, z_zero_point), got " +
          std::to_string(info.num_inputs()));
    }
    for (TableSource* t : {&x_table_, &y_table_}) {
      ONYX_RETURN_IF_ERROR(t->Init(info, nullptr));
      ONYX_RETURN_IF_ERROR(t->InitCopy(info));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* cond, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(4));
    if (cond->type() != DataType::kBool) {
      return InvalidArgument("input 'condition' (0) must be bool, got " + std::string(DataTypeName(cond->type())));
    }
    const DataType type = x->type();
    if (!IsByteType(type) || y->type() != type) {
      return InvalidArgument("inputs 'X' (1) and 'Y' (4) must both be uint8 or both int8, got " +
                             std::string(DataTypeName(type)) + " and " + std::string(DataTypeName(y->type())));
    }
    bool x_copy = false, y_copy = false;
    Table x_scratch, y_scratch;
    ONYX_ASSIGN_OR_RETURN(const uint8_t* tx, x_table_.Get(ctx, type, nullptr, true, &x_copy, x_scratch));
    ONYX_ASSIGN_OR_RETURN(const uint8_t* ty, y_table_.Get(ctx, type, nullptr, true, &y_copy, y_scratch));
    auto shape = BroadcastShapes(std::vector<Shape>{cond->shape(), x->shape(), y->shape()});
    if (!shape.ok()) {
      return InvalidArgument("inputs 'condition' " + ShapeToString(cond->shape()) + ", 'X' " +
                             ShapeToString(x->shape()) + " and 'Y' " + ShapeToString(y->shape()) +
                             " cannot be broadcast");
    }
    Tensor& z = ctx.AllocateOutput(0, type, *shape);
    const bool* c = cond->data<bool>();
    const auto* xd = static_cast<const uint8_t*>(x->raw());
    const auto* yd = static_cast<const uint8_t*>(y->raw());
    auto* out = static_cast<uint8_t*>(z.raw());
    const std::vector<int64_t> strides[3] = {BroadcastStrides(cond->shape(), *shape),
                                             BroadcastStrides(x->shape(), *shape),
                                             BroadcastStrides(y->shape(), *shape)};
    ForEachStrided(*shape, strides, [&](int64_t i, const int64_t* off) {
      out[i] = c[off[0]] ? (x_copy ? xd[off[1]] : tx[xd[off[1]]]) : (y_copy ? yd[off[2]] : ty[yd[off[2]]]);
    });
    return Status::Ok();
  }

 private:
  TableSource x_table_{
      2,
      3,
      7,
      8,
      {"input 'x_scale' (2)", "input 'x_zero_point' (3)", "input 'z_scale' (7)", "input 'z_zero_point' (8)"}};
  TableSource y_table_{
      5,
      6,
      7,
      8,
      {"input 'y_scale' (5)", "input 'y_zero_point' (6)", "input 'z_scale' (7)", "input 'z_zero_point' (8)"}};
};

}  // namespace

void RegisterQLinearLookupOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "QLinearSigmoid", 1, kLatestVersion,
               MakeFactory<QLinearUnaryLookupKernel<Mapping::kSigmoid>>());
  registry.Add("com.microsoft", "QLinearLeakyRelu", 1, kLatestVersion,
               MakeFactory<QLinearUnaryLookupKernel<Mapping::kLeakyRelu>>());
  registry.Add("com.microsoft", "QLinearWhere", 1, kLatestVersion, MakeFactory<QLinearWhereKernel>());
  registry.Add(ir::kInternalDomain, "ByteLookup", 1, kLatestVersion, MakeFactory<ByteLookupKernel>());
}

}  // namespace onyx::ops::quant
