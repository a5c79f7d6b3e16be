// MatMul (numpy matmul: batched, broadcasting batch dims, 1-D operands promoted and their dim dropped),
// MatMulInteger and QLinearMatMul (the same product on zero-point-centred 8-bit values, accumulated in int32), and
// the optimizer's ai.onyx.internal.MatMulBias (a float MatMul by a constant matrix with its bias and GELU fused).
#include <omp.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/float_matmul.h"
#include "kernels/int8_exact_gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_gemv.h"
#include "kernels/int8_matmul.h"
#include "kernels/int8_requantize.h"
#include "kernels/sgemm_ort_order.h"
#include "kernels/vector_math.h"
#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/constant_product.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

// How a batched product maps onto 2-D GEMMs: output matrix i multiplies A matrix a_index[i] by B matrix b_index[i].
struct MatMulPlan {
  Shape out_shape;
  Shape a_matrix;  // A viewed as [..., M, K]
  Shape b_matrix;  // B viewed as [..., K, N]
  int64_t m = 0, k = 0, n = 0;
  size_t a_rank = 0, b_rank = 0;  // as given (before a 1-D operand is promoted)
  std::vector<int64_t> a_index, b_index;
};

Result<MatMulPlan> PlanMatMul(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty()) {
    return InvalidArgument("MatMul operands must have rank >= 1, got A " + ShapeToString(a) + " and B " +
                           ShapeToString(b));
  }
  MatMulPlan p;
  p.a_rank = a.size();
  p.b_rank = b.size();
  p.a_matrix = a.size() == 1 ? Shape{1, a[0]} : a;
  p.b_matrix = b.size() == 1 ? Shape{b[0], 1} : b;
  p.m = p.a_matrix[p.a_matrix.size() - 2];
  p.k = p.a_matrix.back();
  p.n = p.b_matrix.back();
  if (p.b_matrix[p.b_matrix.size() - 2] != p.k) {
    return InvalidArgument("A " + ShapeToString(a) + " and B " + ShapeToString(b) +
                           " have mismatched inner dimensions " + std::to_string(p.k) + " and " +
                           std::to_string(p.b_matrix[p.b_matrix.size() - 2]));
  }
  const Shape a_batch(p.a_matrix.begin(), p.a_matrix.end() - 2);
  const Shape b_batch(p.b_matrix.begin(), p.b_matrix.end() - 2);
  auto batch = BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) {
    return InvalidArgument("the batch dims of A " + ShapeToString(a) + " and B " + ShapeToString(b) +
                           " cannot be broadcast");
  }
  p.out_shape = *batch;
  if (a.size() > 1) p.out_shape.push_back(p.m);
  if (b.size() > 1) p.out_shape.push_back(p.n);
  const int64_t count = NumElements(*batch);
  p.a_index.resize(static_cast<size_t>(count));
  p.b_index.resize(static_cast<size_t>(count));
  std::vector<int64_t> strides[2] = {BroadcastStrides(a_batch, *batch), BroadcastStrides(b_batch, *batch)};
  ForEachStrided(*batch, strides, [&](int64_t i, const int64_t* off) {
    p.a_index[static_cast<size_t>(i)] = off[0];
    p.b_index[static_cast<size_t>(i)] = off[1];
  });
  return p;
}

template <typename T>
void RunMatMul(const MatMulPlan& p, const T* a, const T* b, T* y) {
  const size_t count = p.a_index.size();
  const int64_t a_step = p.m * p.k, b_step = p.k * p.n, y_step = p.m * p.n;
  // Common case (activations [..., M, K] times weights [K, N]): one GEMM over all rows of A.
  bool stacked = true;
  for (size_t i = 0; i < count && stacked; ++i) stacked = p.b_index[i] == 0 && p.a_index[i] == static_cast<int64_t>(i);
  if (stacked) {
    Gemm<T>(false, false, p.m * static_cast<int64_t>(count), p.n, p.k, T(1), a, p.k, b, p.n, T(0), y, p.n);
    return;
  }
  RunGemmBatch(static_cast<int64_t>(count), p.m * p.n * p.k, [&](int64_t i) {
    const auto u = static_cast<size_t>(i);
    Gemm<T>(false, false, p.m, p.n, p.k, T(1), a + p.a_index[u] * a_step, p.k, b + p.b_index[u] * b_step, p.n, T(0),
            y + i * y_step, p.n);
  });
}

// Float MatMul in ONNX Runtime's order (KernelInfo::ort_summation_order): MatMul<float> hands MLAS one batch of
// GEMMs (MlasGemmBatch) as its MatMulComputeHelper shapes them: one GEMM over all rows of A when B is one matrix
// (its batch dims all 1, A of at least B's rank); M = 1 GEMMs, one per row of A, when B is a vector; else one per
// output matrix. A constant 2-D B is prepacked (K blocks of 256). MlasGemmBatch splits its threads:
// min(M*N*K / 64Ki + 1, threads) among the GEMMs of the batch, each getting that count divided by the batch size,
// rounded up; the split decides the K blocking of an unpacked B (kernels/sgemm_ort_order.h). ONNX Runtime's thread
// count is taken to be onyx's.
void RunMatMulOrtOrder(const MatMulPlan& p, const float* a, const float* b, float* y, bool b_packed) {
  const size_t count = p.a_index.size();
  int64_t b_batch = 1;  // (no Shape built: a run makes no allocation of its own)
  for (size_t d = 0; d + 2 < p.b_matrix.size(); ++d) b_batch *= p.b_matrix[d];
  const bool folded = p.a_rank >= 2 && p.b_rank >= 2 && p.a_rank >= p.b_rank && b_batch == 1;
  const bool rows = p.b_rank == 1 && p.a_rank >= 2;  // A's rows times a vector: GEMMs of M = 1
  const int64_t m = folded ? p.m * static_cast<int64_t>(count) : rows ? 1 : p.m;
  const int64_t batch = folded ? 1 : static_cast<int64_t>(count) * (rows ? p.m : 1);
  kernels::OrtSgemmOptions options;
  options.b_packed = b_packed;
  options.ort_threads = kernels::OrtGemmBatchThreads(m, p.n, p.k, batch);
  if (folded) {
    kernels::SgemmOrtOrder(false, false, m, p.n, p.k, 1.0f, a, p.k, b, p.n, 0.0f, y, p.n, options);
    return;
  }
  const int64_t a_step = p.m * p.k, b_step = p.k * p.n, y_step = p.m * p.n;
  for (size_t i = 0; i < count; ++i) {
    const float* ai = a + p.a_index[i] * a_step;
    const float* bi = b + p.b_index[i] * b_step;
    float* yi = y + static_cast<int64_t>(i) * y_step;
    if (rows) {
      for (int64_t r = 0; r < p.m; ++r) {
        kernels::SgemmOrtOrder(false, false, 1, 1, p.k, 1.0f, ai + r * p.k, p.k, bi, 1, 0.0f, yi + r, 1, options);
      }
    } else {
      kernels::SgemmOrtOrder(false, false, p.m, p.n, p.k, 1.0f, ai, p.k, bi, p.n, 0.0f, yi, p.n, options);
    }
  }
}

using MatMulTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

// MatMul, with the plan of the last pair of input shapes kept: a run of the same shapes takes it without planning
// again (no allocation per run).
class MatMulKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ort_order_ = info.ort_summation_order();
    const Tensor* b = info.ConstantInput(1);
    b_prepacked_by_ort_ = b != nullptr && b->rank() == 2;  // MatMul<float>::PrePack packs a constant 2-D B only
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    if (a->type() != b->type()) {
      return InvalidArgument("inputs A and B have different types " + std::string(DataTypeName(a->type())) + " and " +
                             std::string(DataTypeName(b->type())));
    }
    ONYX_ASSIGN_OR_RETURN(
        std::shared_ptr<const Planned> planned,
        planned_.FindOrMake([&](const Planned& p) { return p.a_shape == a->shape() && p.b_shape == b->shape(); },
                            [&]() -> Result<std::shared_ptr<const Planned>> {
                              ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, PlanMatMul(a->shape(), b->shape()));
                              return std::make_shared<const Planned>(Planned{a->shape(), b->shape(), std::move(plan)});
                            }));
    const MatMulPlan& plan = planned->plan;
    Tensor& y = ctx.AllocateOutput(0, a->type(), plan.out_shape);
    return Dispatch<MatMulTypes>(a->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ComputeView<T> av(*a);
      ComputeView<T> bv(*b);
      ComputeOutput<T> yv(y);
      if constexpr (std::is_same_v<T, float>) {
        if (ort_order_ && plan.k > 0) {
          RunMatMulOrtOrder(plan, av.data(), bv.data(), yv.data(), b_prepacked_by_ort_);
          yv.Finish();
          return Status::Ok();
        }
      }
      RunMatMul(plan, av.data(), bv.data(), yv.data());
      yv.Finish();
      return Status::Ok();
    });
  }

 private:
  bool ort_order_ = false;           // float products in ONNX Runtime's order (KernelInfo::ort_summation_order)
  bool b_prepacked_by_ort_ = false;  // B is a constant matrix, which ONNX Runtime prepacks
  struct Planned {
    Shape a_shape, b_shape;
    MatMulPlan plan;
  };
  KeptPlan<Planned> planned_;  // the last input shapes' plan
};

// Zero points of A apply per row: a 1-D one of M values is read as [M, 1]; B's apply per column.
Shape RowParamShape(const Tensor& t, const MatMulPlan& p) {
  if (t.rank() == 1 && t.size() == p.m && p.a_matrix.size() >= 2) return Shape{p.m, 1};
  return t.shape();
}

// The product on the exact int16-pair GEMM (kernels/int8_exact_gemm.h) on CPUs whose oneDNN int8 kernels add
// products in saturating pairs, where the sums must be exact there: uint8 B (ONNX Runtime's U8U8 kernels are exact)
// or int8 A (onyx's exact loops ran it before). Zero points already checked to be one value each.
bool ExactIntegerProduct(const MatMulPlan& p, const Tensor& a, const Tensor* a_zp, const Tensor& b, const Tensor* b_zp,
                         int threads, int32_t* y) {
  const bool a_signed = a.type() == DataType::kInt8, b_signed = b.type() == DataType::kInt8;
  if (!kernels::ExactInt8GemmWanted(a_signed, b_signed)) return false;
  auto zero_point = [](const Tensor* z, bool is_signed) -> int32_t {
    if (z == nullptr) return 0;
    return is_signed ? int32_t{z->data<int8_t>()[0]} : int32_t{z->data<uint8_t>()[0]};
  };
  // A's batches over one B (the weights, paired once) as one product of count * M rows.
  const size_t count = p.a_index.size();
  bool stacked = true;
  for (size_t i = 0; i < count && stacked; ++i) stacked = p.b_index[i] == 0 && p.a_index[i] == static_cast<int64_t>(i);
  const int64_t rows = stacked ? p.m * static_cast<int64_t>(count) : p.m;
  const std::vector<int32_t> a_zero(static_cast<size_t>(rows), zero_point(a_zp, a_signed));
  const int32_t b_zero = zero_point(b_zp, b_signed);
  auto run = [&](auto a_tag, auto b_tag) {
    using A = decltype(a_tag);
    using B = decltype(b_tag);
    if (stacked) {
      return kernels::ExactInt8Gemm<A, B>(rows, p.n, p.k, a.data<A>(), p.k, a_zero.data(), b.data<B>(), p.n, b_zero, y,
                                          p.n, threads);
    }
    for (size_t i = 0; i < count; ++i) {
      if (!kernels::ExactInt8Gemm<A, B>(p.m, p.n, p.k, a.data<A>() + p.a_index[i] * p.m * p.k, p.k, a_zero.data(),
                                        b.data<B>() + p.b_index[i] * p.k * p.n, p.n, b_zero,
                                        y + static_cast<int64_t>(i) * p.m * p.n, p.n, threads)) {
        return false;
      }
    }
    return true;
  };
  if (a_signed) return b_signed ? run(int8_t{}, int8_t{}) : run(int8_t{}, uint8_t{});
  return run(uint8_t{}, uint8_t{});
}

// The product on oneDNN's int8 GEMM (kernels/int8_gemm.h) when it applies: A uint8 or int8, B int8 or uint8, each
// zero point one value of its operand's type. Returns false where the reference loop has to run.
bool FastIntegerProduct(const MatMulPlan& p, const Tensor& a, const Tensor* a_zp, const Tensor& b, const Tensor* b_zp,
                        int threads, int32_t* y) {
  if (a.type() != DataType::kInt8 && a.type() != DataType::kUint8) return false;
  if (b.type() != DataType::kInt8 && b.type() != DataType::kUint8) return false;
  if ((a_zp != nullptr && (a_zp->type() != a.type() || a_zp->size() != 1)) ||
      (b_zp != nullptr && (b_zp->type() != b.type() || b_zp->size() < 1))) {
    return false;
  }
  // B's zero points per column (a per-channel quantizer's) that are all equal: one value.
  Tensor b_zp_one;
  if (b_zp != nullptr && b_zp->size() > 1) {
    const auto* z = static_cast<const uint8_t*>(b_zp->raw());
    for (int64_t i = 1; i < b_zp->size(); ++i) {
      if (z[i] != z[0]) return false;
    }
    b_zp_one = Tensor::Allocate(b_zp->type(), {});
    static_cast<uint8_t*>(b_zp_one.raw())[0] = z[0];
    b_zp = &b_zp_one;
  }
  if (ExactIntegerProduct(p, a, a_zp, b, b_zp, threads, y)) return true;
  if (!kernels::Int8GemmUsable(a.type() == DataType::kInt8)) return false;
  // B's zero point as B's 8 bits; uint8 B runs exact (GemmInt8UnsignedWeights), as ONNX Runtime's U8U8 kernels.
  const uint8_t bz = b_zp != nullptr ? static_cast<const uint8_t*>(b_zp->raw())[0] : uint8_t{0};
  const bool unsigned_b = b.type() == DataType::kUint8;
  const size_t count = p.a_index.size();
  bool stacked = true;
  for (size_t i = 0; i < count && stacked; ++i) stacked = p.b_index[i] == 0 && p.a_index[i] == static_cast<int64_t>(i);
  auto run = [&](auto tag) {
    using A = decltype(tag);
    const A az = a_zp != nullptr ? a_zp->data<A>()[0] : A{0};
    const A* ad = a.data<A>();
    auto product = [&](int64_t m, const A* a_matrix, int64_t b_offset, int32_t* out) {
      return unsigned_b
                 ? kernels::GemmInt8UnsignedWeights<A>(false, false, m, p.n, p.k, a_matrix, p.k, az,
                                                       b.data<uint8_t>() + b_offset, p.n, bz, out, p.n, threads)
                 : kernels::GemmInt8<A>(false, false, m, p.n, p.k, a_matrix, p.k, az, b.data<int8_t>() + b_offset, p.n,
                                        static_cast<int8_t>(bz), out, p.n, threads);
    };
    if (stacked) return product(p.m * static_cast<int64_t>(count), ad, 0, y);
    for (size_t i = 0; i < count; ++i) {
      if (!product(p.m, ad + p.a_index[i] * p.m * p.k, p.b_index[i] * p.k * p.n,
                   y + static_cast<int64_t>(i) * p.m * p.n)) {
        return false;
      }
    }
    return true;
  };
  if (a.type() == DataType::kUint8) return run(uint8_t{});
  if (a.type() == DataType::kInt8) return run(int8_t{});
  return false;
}

// The prepacked path of MatMulInteger and QLinearMatMul (kernels/int8_matmul.h, oneDNN's matmul primitive): when B
// is a constant int8 matrix whose zero point, if given, is a constant 0 (oneDNN takes none for the weights), on CPUs
// where oneDNN's int8 kernels run (kernels::Int8GemmUsable). The weights are reordered when the primitive is built:
// for each new row count, A type or thread count.
class PackedInt8MatMul {
 public:
  void Init(const KernelInfo& info, size_t b_index, size_t b_zp_index) {
    if (kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kReferenceOnly) return;
    const Tensor* b = info.ConstantInput(b_index);
    if (b == nullptr || b->type() != DataType::kInt8 || b->rank() != 2) return;
    if (info.has_input(b_zp_index)) {
      // One zero point or one per column (a per-channel quantizer's), all 0.
      const Tensor* z = info.ConstantInput(b_zp_index);
      if (z == nullptr || z->type() != DataType::kInt8 || z->size() < 1) return;
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return;
      }
    }
    weights_ = *b;
    enabled_ = true;
    gemv_.Set(weights_.dim(0), weights_.dim(1), weights_.data<int8_t>());
  }

  // The int32 product into y, and true; false when the path does not apply (the caller computes it otherwise).
  Result<bool> Run(const MatMulPlan& p, const Tensor& a, const Tensor* a_zp, int threads, int32_t* y) {
    if (!enabled_ || (a.type() != DataType::kUint8 && a.type() != DataType::kInt8)) return false;
    if (a_zp != nullptr && (a_zp->type() != a.type() || a_zp->size() != 1)) return false;
    if (p.b_matrix != weights_.shape()) return false;
    for (size_t i = 0; i < p.a_index.size(); ++i) {
      if (p.b_index[i] != 0 || p.a_index[i] != static_cast<int64_t>(i)) return false;
    }
    const int64_t m = p.m * static_cast<int64_t>(p.a_index.size());
    if (m == 0 || p.n == 0) return false;
    const bool is_signed = a.type() == DataType::kInt8;
    if (const kernels::Int8Gemv* gemv = is_signed ? nullptr : gemv_.For(m)) {
      // A decoder's step (kernels/int8_gemv.h): the same sums as the primitive's.
      gemv->Run(m, a.data<uint8_t>(), p.k, a_zp != nullptr ? int32_t{a_zp->data<uint8_t>()[0]} : 0, y, threads);
      return true;
    }
    if (!kernels::Int8GemmUsable(is_signed)) return false;
    const std::shared_ptr<kernels::Int8MatMul> mm =
        products_.Get(m, p.k, p.n, is_signed, weights_.data<int8_t>(), threads);
    if (mm == nullptr) return false;
    int32_t az = 0;
    if (a_zp != nullptr) az = is_signed ? a_zp->data<int8_t>()[0] : a_zp->data<uint8_t>()[0];
    ONYX_RETURN_IF_ERROR(mm->Run(m, a.raw(), az, y));
    return true;
  }

 private:
  Tensor weights_;
  bool enabled_ = false;
  kernels::LazyInt8Gemv gemv_;  // few-row products (kernels/int8_gemv.h)
  kernels::Int8MatMulCache products_;
};

// The int32 product of centred 8-bit operands into y (NumElements(p.out_shape) values).
Status IntegerProduct(const MatMulPlan& p, const Tensor& a, const Tensor* a_zp, const Tensor& b, const Tensor* b_zp,
                      const std::string& a_zp_name, const std::string& b_zp_name, int threads, PackedInt8MatMul& packed,
                      int32_t* y) {
  ONYX_ASSIGN_OR_RETURN(bool done, packed.Run(p, a, a_zp, threads, y));
  if (done || FastIntegerProduct(p, a, a_zp, b, b_zp, threads, y)) return Status::Ok();
  const Tensor a2 = a.rank() == 1 ? *a.Reshaped(p.a_matrix) : a;
  const Tensor b2 = b.rank() == 1 ? *b.Reshaped(p.b_matrix) : b;
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> ai,
                        CenteredInt32Broadcast(a2, a_zp, a_zp ? RowParamShape(*a_zp, p) : Shape{}, a_zp_name));
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> bi,
                        CenteredInt32Broadcast(b2, b_zp, b_zp ? b_zp->shape() : Shape{}, b_zp_name));
  RunMatMul<int32_t>(p, ai.data(), bi.data(), y);
  return Status::Ok();
}

class MatMulIntegerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    packed_.Init(info, 1, 3);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* a_zp, OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b_zp, OptionalTensorInput(ctx, 3));
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, PlanMatMul(a->shape(), b->shape()));
    Tensor& y = ctx.AllocateOutput(0, DataType::kInt32, plan.out_shape);
    return IntegerProduct(plan, *a, a_zp, *b, b_zp, "input 'a_zero_point' (2)", "input 'b_zero_point' (3)",
                          ctx.num_threads(), packed_, y.data<int32_t>());
  }

 private:
  PackedInt8MatMul packed_;
};

// A QLinearMatMul scale: one value, one per row of the product (M), or (per_column) one per column (N).
Result<std::vector<double>> ReadScale(const Tensor& t, int64_t per_axis_count, const std::string& name) {
  if (!IsFloatingPoint(t.type())) return InvalidArgument(name + " must be a float tensor");
  if (t.size() != 1 && t.size() != per_axis_count) {
    return InvalidArgument(name + " has shape " + ShapeToString(t.shape()) + ", expected a scalar or " +
                           std::to_string(per_axis_count) + " values");
  }
  return ToDoubleVector(t);
}

Status QLinearMatMulCompute(KernelContext& ctx, PackedInt8MatMul& packed) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* a_scale, ctx.TensorInput(1));
  ONYX_ASSIGN_OR_RETURN(const Tensor* a_zp, OptionalTensorInput(ctx, 2));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(3));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b_scale, ctx.TensorInput(4));
  ONYX_ASSIGN_OR_RETURN(const Tensor* b_zp, OptionalTensorInput(ctx, 5));
  ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale, ctx.TensorInput(6));
  ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp, OptionalTensorInput(ctx, 7));
  ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, PlanMatMul(a->shape(), b->shape()));
  ONYX_ASSIGN_OR_RETURN(std::vector<double> as, ReadScale(*a_scale, plan.m, "input 'a_scale' (1)"));
  ONYX_ASSIGN_OR_RETURN(std::vector<double> bs, ReadScale(*b_scale, plan.n, "input 'b_scale' (4)"));
  ONYX_ASSIGN_OR_RETURN(std::vector<double> ys, ReadScale(*y_scale, plan.m, "input 'y_scale' (6)"));
  std::vector<int32_t> yz = {0};
  DataType out_type = a->type();
  if (y_zp != nullptr) {
    if (y_zp->size() != 1 && y_zp->size() != plan.m) {
      return InvalidArgument("input 'y_zero_point' (7) has shape " + ShapeToString(y_zp->shape()) +
                             ", expected a scalar or " + std::to_string(plan.m) + " values");
    }
    out_type = y_zp->type();
    yz = Int32Values(*y_zp);
  }
  std::vector<int32_t> acc(static_cast<size_t>(NumElements(plan.out_shape)));
  ONYX_RETURN_IF_ERROR(IntegerProduct(plan, *a, a_zp, *b, b_zp, "input 'a_zero_point' (2)", "input 'b_zero_point' (5)",
                                      ctx.num_threads(), packed, acc.data()));
  // The combined scale is formed in the scales' own precision (float32, or float16 rounding for half scales).
  const DataType scale_type = a_scale->type();
  auto combine = [&](double sa, double sb, double sy) -> double {
    if (scale_type == DataType::kFloat16) {
      const float ab = static_cast<float>(Float16(static_cast<float>(sa) * static_cast<float>(sb)));
      return static_cast<float>(Float16(ab / static_cast<float>(sy)));
    }
    if (scale_type == DataType::kBFloat16) {
      const float ab = static_cast<float>(BFloat16(static_cast<float>(sa) * static_cast<float>(sb)));
      return static_cast<float>(BFloat16(ab / static_cast<float>(sy)));
    }
    if (scale_type == DataType::kDouble) return sa * sb / sy;
    return static_cast<float>(static_cast<float>(sa) * static_cast<float>(sb)) / static_cast<float>(sy);
  };
  Tensor& y = ctx.AllocateOutput(0, out_type, plan.out_shape);
  const int64_t rows = plan.m, cols = plan.n;
  return Dispatch<Quant8Types>(out_type, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q* out = y.data<Q>();
    // float32 scales, one for A and Y, one or one per column for B: MLAS's requantization (float product), as ONNX
    // Runtime's QLinearMatMul computes it with the combined scale a_scale * b_scale / y_scale formed in float.
    if (scale_type == DataType::kFloat && b_scale->type() == DataType::kFloat && y_scale->type() == DataType::kFloat &&
        as.size() == 1 && ys.size() == 1 && yz.size() == 1) {
      std::vector<float> mult(bs.size());
      for (size_t j = 0; j < bs.size(); ++j) mult[j] = static_cast<float>(combine(as[0], bs[j], ys[0]));
      kernels::RequantizeRows<Q>(acc.data(), static_cast<int64_t>(acc.size()) / cols, cols, nullptr, mult.data(),
                                 bs.size() > 1, yz[0], out);
      return Status::Ok();
    }
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t col = static_cast<int64_t>(i) % cols;
      const int64_t row = (static_cast<int64_t>(i) / cols) % rows;
      const double mult =
          combine(as[as.size() == 1 ? 0 : row], bs[bs.size() == 1 ? 0 : col], ys[ys.size() == 1 ? 0 : row]);
      out[i] = SaturateRound<Q>(static_cast<double>(acc[i]) * mult + yz[yz.size() == 1 ? 0 : row]);
    }
    return Status::Ok();
  });
}

class QLinearMatMulKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    packed_.Init(info, 3, 5);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override { return QLinearMatMulCompute(ctx, packed_); }

 private:
  PackedInt8MatMul packed_;
};

// ai.onyx.internal.MatMulBias(A, B, bias) with attribute activation ("", "Gelu" (the erf form) or "Relu"):
// Y = act(MatMul(A, B) + bias) for float A [..., K] (any rank >= 1), B [K, N] and bias [N] (optional). The MatMul +
// Add (+ Gelu) fusion (src/optimizer/matmul_add_fusion.cc) emits it for B and bias constant; then the product runs
// on kernels::FloatMatMul (B packed once, bias and GELU applied to each tile in cache), else on sgemm with the bias
// added through beta and GELU as a second pass.
class MatMulBiasKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string activation = info.GetString("activation", "");
    if (activation == "Gelu") {
      activation_ = kernels::MatMulActivation::kGeluErf;
    } else if (activation == "Relu") {
      activation_ = kernels::MatMulActivation::kRelu;
    } else if (!activation.empty()) {
      return info.Error("attribute 'activation' is '" + activation + "', expected '', 'Gelu' or 'Relu'");
    }
    const Tensor* b = info.ConstantInput(1);
    const bool packable = b != nullptr && b->type() == DataType::kFloat && b->rank() == 2 &&
                          (!info.has_input(2) || info.ConstantInput(2) != nullptr);
    if (packable) {
      // Shares the storage: the product may read B in place. B's values are read through it only, and it drops B
      // once every kept product packed its own copy: the session then holds no other reference (adopted), and the
      // original weights are freed.
      product_ = std::make_unique<ConstantFloatProduct>(*b, activation_);
      info.AdoptConstantInput(1);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, OptionalTensorInput(ctx, 2));
    if (a->type() != DataType::kFloat || b->type() != DataType::kFloat ||
        (bias != nullptr && bias->type() != DataType::kFloat)) {
      return InvalidArgument("inputs A, B and bias must be float32");
    }
    if (a->rank() < 1 || b->rank() != 2 || a->dim(a->rank() - 1) != b->dim(0)) {
      return InvalidArgument("A " + ShapeToString(a->shape()) + " and B " + ShapeToString(b->shape()) +
                             " do not multiply (B must be a matrix of A's last dim rows)");
    }
    const int64_t k = b->dim(0), n = b->dim(1);
    if (bias != nullptr && (bias->rank() != 1 || bias->dim(0) != n)) {
      return InvalidArgument("input 'bias' (2) has shape " + ShapeToString(bias->shape()) + ", expected [" +
                             std::to_string(n) + "]");
    }
    // A's shape with the last dim N, in a vector of the calling thread: no allocation per run.
    thread_local Shape thread_out_shape;
    Shape& out_shape = thread_out_shape;
    out_shape.assign(a->shape().begin(), a->shape().end());
    out_shape.back() = n;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, out_shape);
    const int64_t m = k == 0 ? NumElements(out_shape) / std::max<int64_t>(n, 1) : a->size() / k;
    if (y.size() == 0) return Status::Ok();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    if (product_ != nullptr) return product_->Run(m, a->data<float>(), bias_data, y.data<float>(), ctx.num_threads());
    PlainFloatProduct(m, k, n, a->data<float>(), b->data<float>(), bias_data, activation_, y.data<float>());
    return Status::Ok();
  }

 private:
  kernels::MatMulActivation activation_ = kernels::MatMulActivation::kNone;
  // B (and the bias) constant: the product packs them once per row count (constant_product.h); else null.
  std::unique_ptr<ConstantFloatProduct> product_;
};

}  // namespace

void RegisterMatMulOps(KernelRegistry& registry) {
  registry.Add("", "MatMul", 1, kLatestVersion, MakeFactory<MatMulKernel>());
  registry.Add("", "MatMulInteger", 10, kLatestVersion, MakeFactory<MatMulIntegerKernel>());
  registry.Add("", "QLinearMatMul", 10, kLatestVersion, MakeFactory<QLinearMatMulKernel>());
  registry.Add(ir::kInternalDomain, "MatMulBias", 1, kLatestVersion, MakeFactory<MatMulBiasKernel>());
}

}  // namespace onyx::ops::nn
