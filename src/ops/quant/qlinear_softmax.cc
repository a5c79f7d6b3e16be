// com.microsoft.QLinearSoftmax(X, X_scale, x_zero_point, y_scale, y_zero_point), attributes axis and opset (the
// Softmax version the operator stands for), on uint8 or int8 data, computed as ONNX Runtime computes it:
//  - a table of 256 float "exponentials" e[i] = float(exp((i - 255 + shift) * x_scale)) in double, where
//    shift = max(0, log(FLT_MAX / D) - 5) / x_scale and D is the reduced length (the trailing dims from `axis` for
//    opset < 13, the `axis` dim from 13 on), indexed so that a row's maximum lands on entry 255 (uint8: entry
//    255 - max + x; int8: entry (uint8)(127 - max + x) of a table stored shifted by 128);
//  - per row the float sum of its entries in order, then y = round_half_even(e * floor(1 / y_scale) / sum) + y_zp,
//    saturated to the type's range (as ONNX Runtime 1.30 does: an int8 row with one element at the maximum and
//    y_zero_point -128 gives 127, not the wrapped -128 of older versions).
// Opset 13 on an axis other than the last: ONNX Runtime transposes the axis last and back; the same values follow
// from walking the axis with a stride, which is done here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

using ExpTable = std::vector<float>;

void BuildExpTable(float x_scale, int64_t reduce_len, bool is_signed, float* table) {
  // ONNX Runtime: log() of a float quotient (FLT_MAX / D in float), in double from there on.
  double shift = std::log(std::numeric_limits<float>::max() / static_cast<float>(reduce_len));
  shift = std::max(0.0, shift - 5.0) / x_scale;
  for (int i = 0; i < 256; ++i) {
    const double e = std::exp((static_cast<double>(i) - 255 + shift) * static_cast<double>(x_scale));
    const uint8_t index = static_cast<uint8_t>(is_signed ? i - 128 : i);
    table[index] = static_cast<float>(e);
  }
}

class QLinearSoftmaxKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    auto opset = info.GetRequiredInt("opset");
    if (!opset.ok()) return info.Error(opset.status().message());
    opset_ = *opset;
    axis_ = info.GetInt("axis", opset_ < 13 ? 1 : -1);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale_t, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale_t, ctx.TensorInput(3));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp_t, nn::OptionalTensorInput(ctx, 4));
    const DataType type = x->type();
    if (type != DataType::kUint8 && type != DataType::kInt8) {
      return InvalidArgument("input 'X' (0) must be uint8 or int8, got " + std::string(DataTypeName(type)));
    }
    ONYX_ASSIGN_OR_RETURN(float x_scale, ScalarScale(*x_scale_t, "input 'X_scale' (1)"));
    ONYX_ASSIGN_OR_RETURN(float y_scale, ScalarScale(*y_scale_t, "input 'y_scale' (3)"));
    ONYX_ASSIGN_OR_RETURN(int32_t y_zp, ScalarZeroPoint(y_zp_t, type, "input 'y_zero_point' (4)"));
    Tensor& y = ctx.AllocateOutput(0, type, x->shape());
    if (x->size() == 0) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, x->rank()));
    const Shape& s = x->shape();
    // Rows of D values, `inner` apart: opset < 13 flattens [axis, rank) into one row; 13 on reduces one dim.
    int64_t d, inner;
    if (opset_ < 13) {
      d = nn::ShapeProduct(s, static_cast<size_t>(axis), s.size());
      inner = 1;
    } else {
      d = s[static_cast<size_t>(axis)];
      inner = nn::ShapeProduct(s, static_cast<size_t>(axis) + 1, s.size());
    }
    const int64_t outer = x->size() / (d * inner);
    float table[256];
    {
      // The last run's table, reused while x_scale and the row length stay (runs may overlap: under a lock).
      std::lock_guard<std::mutex> lock(table_mutex_);
      if (table_scale_ != x_scale || table_len_ != d || table_signed_ != (type == DataType::kInt8)) {
        BuildExpTable(x_scale, d, type == DataType::kInt8, table_);
        table_scale_ = x_scale;
        table_len_ = d;
        table_signed_ = type == DataType::kInt8;
      }
      std::memcpy(table, table_, sizeof(table));
    }
    const float y_mult = std::floor(1.0f / y_scale);
    auto run = [&](const auto* in, auto* out) {
      using Q = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
      ParallelFor(outer * inner, d * 4, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t base = (r / inner) * d * inner + r % inner;
          const Q* row = in + base;
          Q* orow = out + base;
          Q xmax = row[0];
          for (int64_t k = 1; k < d; ++k) xmax = std::max(xmax, row[k * inner]);
          // The entry of value v: uint8 table[255 - max + v]; int8 table[(uint8)(127 - max + v)].
          auto entry = [&](Q v) -> float {
            if constexpr (std::is_same_v<Q, uint8_t>) {
              return table[255 - xmax + v];
            } else {
              return table[static_cast<uint8_t>(127 - xmax + v)];
            }
          };
          float sum = 0.0f;
          for (int64_t k = 0; k < d; ++k) sum += entry(row[k * inner]);
          for (int64_t k = 0; k < d; ++k) {
            const float q = std::nearbyint(entry(row[k * inner]) * y_mult / sum);
            if constexpr (std::is_same_v<Q, uint8_t>) {
              const uint32_t v = static_cast<uint32_t>(q) + static_cast<uint32_t>(y_zp);
              orow[k * inner] = v > 255 ? uint8_t{255} : static_cast<uint8_t>(v);
            } else {
              const int32_t v = static_cast<int32_t>(q) + y_zp;
              orow[k * inner] = static_cast<int8_t>(std::clamp(v, -128, 127));
            }
          }
        }
      });
    };
    if (type == DataType::kUint8) {
      run(x->data<uint8_t>(), y.data<uint8_t>());
    } else {
      run(x->data<int8_t>(), y.data<int8_t>());
    }
    return Status::Ok();
  }

 private:
  int64_t opset_ = 13;
  int64_t axis_ = -1;
  // The exponential table of the last run's parameters (rebuilt when x_scale or the row length changes).
  std::mutex table_mutex_;
  float table_[256] = {};
  float table_scale_ = -1.0f;
  int64_t table_len_ = -1;
  bool table_signed_ = false;
};

}  // namespace

void RegisterQLinearSoftmaxOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "QLinearSoftmax", 1, kLatestVersion, MakeFactory<QLinearSoftmaxKernel>());
}

}  // namespace onyx::ops::quant
