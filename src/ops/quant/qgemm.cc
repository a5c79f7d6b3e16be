// com.microsoft.QGemm (ONNX Runtime's contrib operator, which its QDQ transformer makes of DQ(A), DQ(B)[, DQ(int32
// C)] -> Gemm [-> Q]; onyx's optimizer makes the same, optimizer/qdq_fusion.cc):
//
//   inputs  A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (int32, optional), y_scale, y_zero_point (optional)
//   acc[m, n] = C[m, n] (broadcast, 0 without C) + sum_k (A'[m, k] - a_zero_point) * (B'[k, n] - b_zero_point[n])
//   scale[n]  = alpha * a_scale * b_scale[n] (float, in that order), divided by y_scale when Y is quantized
//   Y[m, n]   = float(acc) * scale[n]                  (no y_scale: float output)
//             = saturate(round_half_even(float(acc) * scale[n]) + y_zero_point)   (MLAS's requantization)
//
// with A' = A or A^T (transA) [M, K] and B' = B or B^T (transB) [K, N]. The int32 sums are MLAS's (kernels/int8_gemm.h:
// on CPUs without VNNI its uint8 x int8 products add in saturating pairs, and onyx's too). A constant int8 B with
// zero points all 0 is transposed (when transB) and packed once (kernels/int8_matmul.h); otherwise the product runs
// on the unpacked int8 GEMM, or exact loops where that does not apply (uint8 B without VNNI, int8 A without VNNI,
// per-column B zero points).
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_gemv.h"
#include "kernels/int8_matmul.h"
#include "kernels/int8_requantize.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

enum : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kC, kYScale, kYZero };

// One value of an 8-bit zero point as int32, or the values per column.
std::vector<int32_t> ZeroPoints(const Tensor* z) {
  return z == nullptr ? std::vector<int32_t>{0} : nn::Int32Values(*z);
}

// sum_k (a(i, p) - az) * (b(p, j) - bz[j]) wrapping like int32, for rows [lo, hi): the exact loops.
template <typename A, typename B>
void ExactSums(const A* a, bool trans_a, const B* b, bool trans_b, int64_t m, int64_t n, int64_t k, int32_t az,
               const std::vector<int32_t>& bz, int64_t lo, int64_t hi, int32_t* acc) {
  std::vector<uint32_t> row(static_cast<size_t>(n));
  for (int64_t i = lo; i < hi; ++i) {
    std::fill(row.begin(), row.end(), 0u);
    for (int64_t p = 0; p < k; ++p) {
      const auto x = static_cast<uint32_t>(static_cast<int32_t>(trans_a ? a[p * m + i] : a[i * k + p]) - az);
      for (int64_t j = 0; j < n; ++j) {
        const int32_t w = static_cast<int32_t>(trans_b ? b[j * k + p] : b[p * n + j]) - bz[bz.size() == 1 ? 0 : j];
        row[static_cast<size_t>(j)] += x * static_cast<uint32_t>(w);
      }
    }
    for (int64_t j = 0; j < n; ++j) acc[i * n + j] += static_cast<int32_t>(row[static_cast<size_t>(j)]);
  }
}

class QGemmKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    trans_a_ = info.GetInt("transA", 0) != 0;
    trans_b_ = info.GetInt("transB", 0) != 0;
    alpha_ = info.GetFloat("alpha", 1.0f);
    const Tensor* b = info.ConstantInput(kB);
    if (b == nullptr || b->type() != DataType::kInt8 || b->rank() != 2) return Status::Ok();
    if (info.has_input(kBZero)) {
      const Tensor* z = info.ConstantInput(kBZero);
      if (z == nullptr || z->type() != DataType::kInt8) return Status::Ok();
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return Status::Ok();
      }
    }
    // B' = [K, N] row-major, as the packed product takes it.
    const int64_t rows = b->dim(0), cols = b->dim(1);
    if (!trans_b_) {
      packed_b_ = *b;
    } else {
      packed_b_ = Tensor::Allocate(DataType::kInt8, Shape{cols, rows});
      const int8_t* s = b->data<int8_t>();
      int8_t* d = packed_b_.data<int8_t>();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) d[c * rows + r] = s[r * cols + c];
      }
    }
    gemv_.Set(packed_b_.dim(0), packed_b_.dim(1), packed_b_.data<int8_t>());
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(kA));
    ONYX_ASSIGN_OR_RETURN(const Tensor* a_scale, ctx.TensorInput(kAScale));
    ONYX_ASSIGN_OR_RETURN(const Tensor* a_zp, nn::OptionalTensorInput(ctx, kAZero));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(kB));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b_scale, ctx.TensorInput(kBScale));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b_zp, nn::OptionalTensorInput(ctx, kBZero));
    ONYX_ASSIGN_OR_RETURN(const Tensor* c, nn::OptionalTensorInput(ctx, kC));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale, nn::OptionalTensorInput(ctx, kYScale));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp, nn::OptionalTensorInput(ctx, kYZero));
    auto is8 = [](const Tensor& t) { return t.type() == DataType::kUint8 || t.type() == DataType::kInt8; };
    if (!is8(*a) || !is8(*b) || a->rank() != 2 || b->rank() != 2) {
      return InvalidArgument("inputs 'A' (0) and 'B' (3) must be 8-bit matrices, got " +
                             std::string(DataTypeName(a->type())) + " " + ShapeToString(a->shape()) + " and " +
                             std::string(DataTypeName(b->type())) + " " + ShapeToString(b->shape()));
    }
    const int64_t m = trans_a_ ? a->dim(1) : a->dim(0), k = trans_a_ ? a->dim(0) : a->dim(1);
    const int64_t n = trans_b_ ? b->dim(0) : b->dim(1), kb = trans_b_ ? b->dim(1) : b->dim(0);
    if (k != kb) {
      return InvalidArgument("A " + ShapeToString(a->shape()) + " and B " + ShapeToString(b->shape()) +
                             " do not multiply with transA=" + std::to_string(trans_a_) +
                             " and transB=" + std::to_string(trans_b_));
    }
    ONYX_RETURN_IF_ERROR(CheckParams(*a, a_scale, a_zp, *b, b_scale, b_zp, y_scale, y_zp, n));
    if (c != nullptr && (c->type() != DataType::kInt32 || !BiasBroadcasts(c->shape(), m, n))) {
      return InvalidArgument("input 'C' (6) must be int32 broadcasting to [" + std::to_string(m) + ", " +
                             std::to_string(n) + "], got " + std::string(DataTypeName(c->type())) + " " +
                             ShapeToString(c->shape()));
    }
    // The multipliers: ONNX Runtime's ComputeOutputScale.
    thread_local std::vector<float> scale_of_thread;
    std::vector<float>& scale = scale_of_thread;
    scale.resize(static_cast<size_t>(b_scale->size()));
    for (size_t j = 0; j < scale.size(); ++j) {
      scale[j] = alpha_ * a_scale->data<float>()[0] * b_scale->data<float>()[j];
      if (y_scale != nullptr) scale[j] /= y_scale->data<float>()[0];
    }
    const DataType out_type = y_scale == nullptr ? DataType::kFloat : y_zp != nullptr ? y_zp->type() : a->type();
    thread_local Shape out_shape_of_thread;
    Shape& out_shape = out_shape_of_thread;
    out_shape.assign({m, n});
    Tensor& y = ctx.AllocateOutput(0, out_type, out_shape);
    if (m == 0 || n == 0) return Status::Ok();
    // The int32 sums: in Y's buffer for a float Y (same size), else in a buffer of the calling thread.
    thread_local std::vector<int32_t> acc_of_thread;
    int32_t* acc;
    if (out_type == DataType::kFloat) {
      acc = reinterpret_cast<int32_t*>(y.data<float>());
    } else {
      acc_of_thread.resize(static_cast<size_t>(m * n));
      acc = acc_of_thread.data();
    }
    ONYX_RETURN_IF_ERROR(Product(*a, a_zp, *b, b_zp, m, n, k, ctx.num_threads(), acc));
    if (c != nullptr) AddBias(*c, m, n, acc);
    const bool per_column = scale.size() > 1;
    if (out_type == DataType::kFloat) {
      float* out = y.data<float>();
      ParallelFor(m * n, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          int32_t v;
          std::memcpy(&v, out + i, sizeof v);
          out[i] = static_cast<float>(v) * scale[per_column ? static_cast<size_t>(i % n) : 0];
        }
      });
      return Status::Ok();
    }
    const int32_t yz = y_zp != nullptr ? nn::Int32Values(*y_zp)[0] : 0;
    return Dispatch<nn::Quant8Types>(out_type, [&](auto tag) {
      using Q = typename decltype(tag)::type;
      kernels::RequantizeRows<Q>(acc, m, n, nullptr, scale.data(), per_column, yz, y.data<Q>());
      return Status::Ok();
    });
  }

 private:
  static Status CheckParams(const Tensor& a, const Tensor* a_scale, const Tensor* a_zp, const Tensor& b,
                            const Tensor* b_scale, const Tensor* b_zp, const Tensor* y_scale, const Tensor* y_zp,
                            int64_t n) {
    auto float_values = [](const Tensor* t, int64_t per_column, const char* what) -> Status {
      if (t->type() != DataType::kFloat || (t->size() != 1 && t->size() != per_column) || t->rank() > 1) {
        return InvalidArgument(std::string(what) + " must be one float value" +
                               (per_column > 1 ? " or " + std::to_string(per_column) : std::string()) + ", got " +
                               std::string(DataTypeName(t->type())) + " " + ShapeToString(t->shape()));
      }
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(float_values(a_scale, 1, "input 'a_scale' (1)"));
    ONYX_RETURN_IF_ERROR(float_values(b_scale, n, "input 'b_scale' (4)"));
    if (y_scale != nullptr) ONYX_RETURN_IF_ERROR(float_values(y_scale, 1, "input 'y_scale' (7)"));
    auto zero_point = [](const Tensor* z, const Tensor& of, int64_t count, const char* what) -> Status {
      if (z == nullptr) return Status::Ok();
      if (z->type() != of.type() || (z->size() != 1 && z->size() != count) || z->rank() > 1) {
        return InvalidArgument(std::string(what) + " must be " + std::string(DataTypeName(of.type())) + " with " +
                               (count > 1 ? "1 or " + std::to_string(count) : std::string("1")) + " value(s), got " +
                               std::string(DataTypeName(z->type())) + " " + ShapeToString(z->shape()));
      }
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(zero_point(a_zp, a, 1, "input 'a_zero_point' (2)"));
    ONYX_RETURN_IF_ERROR(zero_point(b_zp, b, n, "input 'b_zero_point' (5)"));
    if (y_zp != nullptr) {
      if (y_scale == nullptr) return InvalidArgument("input 'y_zero_point' (8) given without 'y_scale' (7)");
      if ((y_zp->type() != DataType::kUint8 && y_zp->type() != DataType::kInt8) || y_zp->size() != 1) {
        return InvalidArgument("input 'y_zero_point' (8) must be one 8-bit value");
      }
    }
    return Status::Ok();
  }

  // C's shapes that Gemm broadcasts: [], [1], [N], [1, N], [M, 1], [M, N] (and [1, 1]).
  static bool BiasBroadcasts(const Shape& s, int64_t m, int64_t n) {
    if (s.size() > 2) return false;
    const int64_t rows = s.size() == 2 ? s[0] : 1, cols = s.empty() ? 1 : s.back();
    return (rows == 1 || rows == m) && (cols == 1 || cols == n);
  }

  static void AddBias(const Tensor& c, int64_t m, int64_t n, int32_t* acc) {
    const Shape& s = c.shape();
    const int64_t rows = s.size() == 2 ? s[0] : 1, cols = s.empty() ? 1 : s.back();
    const int32_t* bias = c.data<int32_t>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const int32_t v = bias[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
        acc[i * n + j] = static_cast<int32_t>(static_cast<uint32_t>(acc[i * n + j]) + static_cast<uint32_t>(v));
      }
    }
  }

  // acc = the centred product.
  Status Product(const Tensor& a, const Tensor* a_zp, const Tensor& b, const Tensor* b_zp, int64_t m, int64_t n,
                 int64_t k, int threads, int32_t* acc) {
    const bool signed_a = a.type() == DataType::kInt8;
    const int32_t az = ZeroPoints(a_zp)[0];
    if (k == 0) {
      std::fill(acc, acc + m * n, 0);
      return Status::Ok();
    }
    if (const kernels::Int8Gemv* gemv = signed_a || trans_a_ ? nullptr : gemv_.For(m);
        gemv != nullptr && gemv->k() == k && gemv->n() == n) {
      gemv->Run(m, a.data<uint8_t>(), k, az, acc, threads);  // a classifier's one row (kernels/int8_gemv.h)
      return Status::Ok();
    }
    if (packed_b_.defined() && !trans_a_ && packed_b_.dim(0) == k && packed_b_.dim(1) == n &&
        kernels::Int8GemmUsable(signed_a)) {
      if (std::shared_ptr<kernels::Int8MatMul> mm = products_.Get(m, k, n, signed_a, packed_b_.data<int8_t>(), threads))
        return mm->Run(m, a.raw(), az, acc);
    }
    const std::vector<int32_t> bz = ZeroPoints(b_zp);
    const int64_t lda = trans_a_ ? m : k, ldb = trans_b_ ? k : n;
    if (bz.size() == 1) {
      bool done = false;
      auto run = [&](auto tag) {
        using A = decltype(tag);
        const A* ad = a.data<A>();
        if (b.type() == DataType::kInt8) {
          done = kernels::GemmInt8<A>(trans_a_, trans_b_, m, n, k, ad, lda, static_cast<A>(az), b.data<int8_t>(), ldb,
                                      static_cast<int8_t>(bz[0]), acc, n, threads);
        } else {
          done =
              kernels::GemmInt8UnsignedWeights<A>(trans_a_, trans_b_, m, n, k, ad, lda, static_cast<A>(az),
                                                  b.data<uint8_t>(), ldb, static_cast<uint8_t>(bz[0]), acc, n, threads);
        }
      };
      if (signed_a) {
        run(int8_t{});
      } else {
        run(uint8_t{});
      }
      if (done) return Status::Ok();
    }
    std::fill(acc, acc + m * n, 0);
    ParallelFor(m, k * n, [&](int64_t lo, int64_t hi) {
      auto sums = [&](auto a_tag, auto b_tag) {
        using A = decltype(a_tag);
        using B = decltype(b_tag);
        ExactSums<A, B>(a.data<A>(), trans_a_, b.data<B>(), trans_b_, m, n, k, az, bz, lo, hi, acc);
      };
      if (signed_a) {
        b.type() == DataType::kInt8 ? sums(int8_t{}, int8_t{}) : sums(int8_t{}, uint8_t{});
      } else {
        b.type() == DataType::kInt8 ? sums(uint8_t{}, int8_t{}) : sums(uint8_t{}, uint8_t{});
      }
    });
    return Status::Ok();
  }

  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.0f;
  Tensor packed_b_;  // constant int8 B' [K, N] with zero points 0, or undefined
  kernels::Int8MatMulCache products_;
  kernels::LazyInt8Gemv gemv_;  // few-row products of packed_b_ (kernels/int8_gemv.h)
};

}  // namespace

void RegisterQGemmOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "QGemm", 1, kLatestVersion, MakeFactory<QGemmKernel>());
}

}  // namespace onyx::ops::quant
