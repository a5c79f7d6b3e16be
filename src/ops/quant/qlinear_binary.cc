// QLinearAdd and QLinearMul(A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point): the sum or
// product of two uint8 or int8 tensors (numpy broadcasting) quantized to C's parameters, as ONNX Runtime's
// com.microsoft operators compute them (kernels/int8_qlinear_add.h, kernels/int8_qlinear_mul.h), registered in
// com.microsoft and, for the QDQ fusion's QLinearAdd, in ai.onyx.internal. Broadcasting follows ONNX Runtime's spans:
// the output is cut into runs of its innermost dims along which either both operands vary, or one of them is a single
// value; a single-valued operand takes MLAS's "scalar B" role (when it is A, the two operands and their parameters
// swap, as ONNX Runtime swaps them).
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/int8_qlinear_add.h"
#include "kernels/int8_qlinear_mul.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

// How operand `which` (0 = A, 1 = B) behaves along output dim d: 0 varies, 1 is a single value (broadcast).
enum class Run { kBoth, kAScalar, kBScalar };

// The two operators' arithmetic, for the broadcasting loop below.
struct AddOp {
  using Params = kernels::QLinearAddParams;
  // Whether swapping the operands (and their parameters) gives the same bytes: not for the sum (its two multiply-adds
  // nest in one order).
  static constexpr bool kCommutes = false;
  static Params Make(float sa, int32_t za, float sb, int32_t zb, float sc, int32_t zc) {
    return kernels::MakeQLinearAddParams(sa, za, sb, zb, sc, zc);
  }
  template <typename Q>
  static void Spans(const Q* a, const Q* b, int64_t n, const Params& p, Q* out) {
    kernels::QLinearAddSpans<Q>(a, b, n, p, out);
  }
  template <typename Q>
  static void Scalar(const Q* a, Q b, int64_t n, const Params& p, Q* out) {
    kernels::QLinearAddScalar<Q>(a, b, n, p, out);
  }
  template <typename Q>
  static void RowsRepeatedB(const Q* a, const Q* b, int64_t rows, int64_t span, const Params& p, Q* out) {
    for (int64_t r = 0; r < rows; ++r) kernels::QLinearAddSpans<Q>(a + r * span, b, span, p, out + r * span);
  }
};

struct MulOp {
  using Params = kernels::QLinearMulParams;
  // The exact integer product and a_scale * b_scale (one float product) do not depend on the operands' order.
  static constexpr bool kCommutes = true;
  static Params Make(float sa, int32_t za, float sb, int32_t zb, float sc, int32_t zc) {
    return kernels::MakeQLinearMulParams(sa, za, sb, zb, sc, zc);
  }
  template <typename Q>
  static void Spans(const Q* a, const Q* b, int64_t n, const Params& p, Q* out) {
    kernels::QLinearMulSpans<Q>(a, b, n, p, out);
  }
  template <typename Q>
  static void Scalar(const Q* a, Q b, int64_t n, const Params& p, Q* out) {
    kernels::QLinearMulScalar<Q>(a, b, n, p, out);
  }
  template <typename Q>
  static void RowsRepeatedB(const Q* a, const Q* b, int64_t rows, int64_t span, const Params& p, Q* out) {
    kernels::QLinearMulRowsRepeatedB<Q>(a, b, rows, span, p, out);
  }
};

// The operator on tensors whose parameters are read: a and b of one 8-bit type, the result in ctx's output 0.
template <typename Op>
Status QLinearBinaryRun(const Tensor* a, float sa, int32_t za, const Tensor* b, float sb, int32_t zb, float sc,
                        int32_t zc, KernelContext& ctx) {
  const DataType type = a->type();
  if (a->shape() == b->shape()) {
    // Equal shapes (a residual connection): one run of both, without resolving any broadcast.
    Tensor& y = ctx.AllocateOutput(0, type, a->shape());
    const typename Op::Params ab = Op::Make(sa, za, sb, zb, sc, zc);
    auto same = [&](auto* out_data, const auto* ad, const auto* bd) {
      using Q = std::remove_pointer_t<decltype(out_data)>;
      ParallelFor(y.size(), 4,
                  [&](int64_t lo, int64_t hi) { Op::template Spans<Q>(ad + lo, bd + lo, hi - lo, ab, out_data + lo); });
    };
    if (type == DataType::kUint8) {
      same(y.data<uint8_t>(), a->data<uint8_t>(), b->data<uint8_t>());
    } else {
      same(y.data<int8_t>(), a->data<int8_t>(), b->data<int8_t>());
    }
    return Status::Ok();
  }
  auto out_shape = BroadcastShapes(a->shape(), b->shape());
  if (!out_shape.ok()) {
    return InvalidArgument("inputs 'A' " + ShapeToString(a->shape()) + " and 'B' " + ShapeToString(b->shape()) +
                           " cannot be broadcast");
  }
  Tensor& y = ctx.AllocateOutput(0, type, *out_shape);
  const Shape& out = *out_shape;
  const int64_t total = y.size();
  if (total == 0) return Status::Ok();
  const std::vector<int64_t> sa_strides = BroadcastStrides(a->shape(), out);
  const std::vector<int64_t> sb_strides = BroadcastStrides(b->shape(), out);
  // The innermost run: trailing dims (size-1 output dims ignored) of one kind.
  auto kind_of = [&](size_t d) {
    const bool av = sa_strides[d] != 0, bv = sb_strides[d] != 0;
    return av && bv ? Run::kBoth : av ? Run::kBScalar : Run::kAScalar;
  };
  size_t inner = out.size();
  Run kind = Run::kBoth;
  bool kind_set = false;
  int64_t span = 1;
  while (inner > 0) {
    const size_t d = inner - 1;
    if (out[d] == 1) {
      --inner;
      continue;
    }
    const Run k = kind_of(d);
    if (kind_set && k != kind) break;
    kind = k;
    kind_set = true;
    span *= out[d];
    --inner;
  }
  // When both operands are single values along every dim (all output dims 1), the one element is a run of both.
  const Shape outer_shape(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(inner));
  const int64_t runs = total / span;
  std::vector<int64_t> a_off(static_cast<size_t>(runs)), b_off(static_cast<size_t>(runs));
  {
    std::vector<int64_t> strides[2] = {std::vector<int64_t>(sa_strides.begin(), sa_strides.begin() + inner),
                                       std::vector<int64_t>(sb_strides.begin(), sb_strides.begin() + inner)};
    ForEachStrided(outer_shape, strides, [&](int64_t i, const int64_t* off) {
      a_off[static_cast<size_t>(i)] = off[0];
      b_off[static_cast<size_t>(i)] = off[1];
    });
  }
  const typename Op::Params ab = Op::Make(sa, za, sb, zb, sc, zc);
  const typename Op::Params ba = Op::Make(sb, zb, sa, za, sc, zc);
  // Runs of one operand one after the other, each with the same run of the other (which repeats).
  bool repeated_b = true, repeated_a = true;
  for (int64_t r = 0; (repeated_a || repeated_b) && r < runs; ++r) {
    const int64_t at_a = a_off[static_cast<size_t>(r)], at_b = b_off[static_cast<size_t>(r)];
    repeated_b = repeated_b && at_a == r * span && at_b == b_off[0];
    repeated_a = repeated_a && at_b == r * span && at_a == a_off[0];
  }
  auto run = [&](auto* out_data, const auto* ad, const auto* bd) {
    using Q = std::remove_pointer_t<decltype(out_data)>;
    auto one_run = [&](int64_t r, int64_t lo, int64_t hi) {
      Q* o = out_data + r * span + lo;
      const Q* ar = ad + a_off[static_cast<size_t>(r)];
      const Q* br = bd + b_off[static_cast<size_t>(r)];
      switch (kind) {
        case Run::kBoth:
          Op::template Spans<Q>(ar + lo, br + lo, hi - lo, ab, o);
          break;
        case Run::kBScalar:
          Op::template Scalar<Q>(ar + lo, br[0], hi - lo, ab, o);
          break;
        case Run::kAScalar:
          Op::template Scalar<Q>(br + lo, ar[0], hi - lo, ba, o);
          break;
      }
    };
    if (runs == 1) {
      ParallelFor(span, 4, [&](int64_t lo, int64_t hi) { one_run(0, lo, hi); });
    } else if (kind == Run::kBoth && repeated_b) {
      // a's runs one after the other, each with the same run of b (a squeeze-and-excitation gate over a
      // channels-last image's pixels): whole blocks of runs per call instead of a call per run of a few channels.
      ParallelFor(runs, span * 4, [&](int64_t lo, int64_t hi) {
        Op::template RowsRepeatedB<Q>(ad + lo * span, bd + b_off[0], hi - lo, span, ab, out_data + lo * span);
      });
    } else if (kind == Run::kBoth && repeated_a && Op::kCommutes) {
      ParallelFor(runs, span * 4, [&](int64_t lo, int64_t hi) {
        Op::template RowsRepeatedB<Q>(bd + lo * span, ad + a_off[0], hi - lo, span, ba, out_data + lo * span);
      });
    } else {
      ParallelFor(runs, span * 4, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) one_run(r, 0, span);
      });
    }
  };
  if (type == DataType::kUint8) {
    run(y.data<uint8_t>(), a->data<uint8_t>(), b->data<uint8_t>());
  } else {
    run(y.data<int8_t>(), a->data<int8_t>(), b->data<int8_t>());
  }
  return Status::Ok();
}

template <typename Op>
Status QLinearBinaryCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* a_scale, ctx.TensorInput(1));
  ONYX_ASSIGN_OR_RETURN(const Tensor* a_zp, nn::OptionalTensorInput(ctx, 2));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(3));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b_scale, ctx.TensorInput(4));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b_zp, nn::OptionalTensorInput(ctx, 5));
  ONYX_ASSIGN_OR_RETURN(const Tensor* c_scale, ctx.TensorInput(6));
  ONYX_ASSIGN_OR_RETURN(const Tensor* c_zp, nn::OptionalTensorInput(ctx, 7));
  const DataType type = a->type();
  if ((type != DataType::kUint8 && type != DataType::kInt8) || b->type() != type) {
    return InvalidArgument("inputs 'A' and 'B' must both be uint8 or both int8, got " +
                           std::string(DataTypeName(type)) + " and " + std::string(DataTypeName(b->type())));
  }
  ONYX_ASSIGN_OR_RETURN(float sa, ScalarScale(*a_scale, "input 'A_scale' (1)"));
  ONYX_ASSIGN_OR_RETURN(float sb, ScalarScale(*b_scale, "input 'B_scale' (4)"));
  ONYX_ASSIGN_OR_RETURN(float sc, ScalarScale(*c_scale, "input 'C_scale' (6)"));
  ONYX_ASSIGN_OR_RETURN(int32_t za, ScalarZeroPoint(a_zp, type, "input 'A_zero_point' (2)"));
  ONYX_ASSIGN_OR_RETURN(int32_t zb, ScalarZeroPoint(b_zp, type, "input 'B_zero_point' (5)"));
  ONYX_ASSIGN_OR_RETURN(int32_t zc, ScalarZeroPoint(c_zp, type, "input 'C_zero_point' (7)"));
  return QLinearBinaryRun<Op>(a, sa, za, b, sb, zb, sc, zc, ctx);
}

}  // namespace

Status QLinearAddTensors(const Tensor& a, float a_scale, int32_t a_zero_point, const Tensor& b, float b_scale,
                         int32_t b_zero_point, float c_scale, int32_t c_zero_point, KernelContext& ctx) {
  if ((a.type() != DataType::kUint8 && a.type() != DataType::kInt8) || b.type() != a.type()) {
    return InvalidArgument("QLinearAdd's operands must both be uint8 or both int8, got " +
                           std::string(DataTypeName(a.type())) + " and " + std::string(DataTypeName(b.type())));
  }
  return QLinearBinaryRun<AddOp>(&a, a_scale, a_zero_point, &b, b_scale, b_zero_point, c_scale, c_zero_point, ctx);
}

void RegisterQLinearAddOps(KernelRegistry& registry) {
  registry.AddFn(ir::kInternalDomain, "QLinearAdd", 1, kLatestVersion, QLinearBinaryCompute<AddOp>);
  registry.AddFn("com.microsoft", "QLinearAdd", 1, kLatestVersion, QLinearBinaryCompute<AddOp>);
  registry.AddFn("com.microsoft", "QLinearMul", 1, kLatestVersion, QLinearBinaryCompute<MulOp>);
}

}  // namespace onyx::ops::quant
