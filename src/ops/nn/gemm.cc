// Gemm: Y = alpha * op(A) * op(B) + beta * C, with C (optional from version 11) broadcast to [M, N].
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernels/dnnl_util.h"
#include "kernels/sgemm_ort_order.h"
#include "kernels/sgemm_packed.h"
#include "kernels/sgemm_row.h"
#include "ops/common/op_util.h"
#include "ops/nn/constant_product.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

using GemmTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

class GemmKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ort_order_ = info.ort_summation_order();
    trans_a_ = info.GetInt("transA", 0) != 0;
    trans_b_ = info.GetInt("transB", 0) != 0;
    alpha_ = info.GetFloat("alpha", 1.0f);
    beta_ = info.GetFloat("beta", 1.0f);
    // A constant float B used transposed (how PyTorch exports Linear) is transposed once here: oneDNN's sgemm runs
    // B as stored [K, N] 15-30% faster than B^T here (BERT's 768x768 projection at 2 threads: 317 -> 415 GFLOP/s;
    // 3072x768 twice as fast).
    const Tensor* b = info.ConstantInput(1);
    b_constant_ = b != nullptr;
    if (trans_b_ && b != nullptr && b->type() == DataType::kFloat && b->rank() == 2) {
      b_as_stored_ = movement::Permute(*b, b->shape(), {1, 0});
      // Every float path reads this copy from now on, never B's values: the session may drop the original.
      info.AdoptConstantInput(1);
    }
    // Y = A B + bias with B and the bias row constant (a PyTorch Linear on 2-D input: transformers' attention output
    // projections, MLPs, batched classifier heads): products of 2+ rows run as MatMulBias's do, B packed once per
    // row count on the kernel timed fastest here (constant_product.h). BERT-like's 128 x 768 x 768 projection: sgemm
    // 0.92 ms, packed 0.80. One row keeps the path below, which sums as ONNX Runtime does (tests/quant's float_heads
    // checks it bit for bit at level all; the product's single-row loop adds the bias after the sums, ORT before),
    // so B stays as stored for it too: the packed copy of a product that packs sits beside it. Small B (under
    // kernels::kMinPackedProductWeights values, as for MatMulBias) keeps sgemm.
    const Tensor* c = info.has_input(2) ? info.ConstantInput(2) : nullptr;
    const bool bias_row = c != nullptr && c->type() == DataType::kFloat && beta_ == 1.0f &&
                          (c->rank() == 1 || (c->rank() == 2 && c->dim(0) == 1));
    if (!ort_order_ && b != nullptr && b->type() == DataType::kFloat && b->rank() == 2 &&
        b->size() >= kernels::kMinPackedProductWeights && !trans_a_ && alpha_ == 1.0f &&
        (!info.has_input(2) || bias_row) && (!bias_row || c->size() == (trans_b_ ? b->dim(0) : b->dim(1)))) {
      product_ = std::make_unique<ConstantFloatProduct>(trans_b_ ? b_as_stored_ : *b, kernels::MatMulActivation::kNone);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* c, OptionalTensorInput(ctx, 2));
    if (a->rank() != 2)
      return InvalidArgument("input 'A' (0) has shape " + ShapeToString(a->shape()) + ", expected rank 2");
    if (b->rank() != 2)
      return InvalidArgument("input 'B' (1) has shape " + ShapeToString(b->shape()) + ", expected rank 2");
    if (b->type() != a->type() || (c != nullptr && c->type() != a->type())) {
      return InvalidArgument("inputs A, B and C must have the same element type");
    }
    const int64_t m = trans_a_ ? a->dim(1) : a->dim(0);
    const int64_t k = trans_a_ ? a->dim(0) : a->dim(1);
    const int64_t kb = trans_b_ ? b->dim(1) : b->dim(0);
    const int64_t n = trans_b_ ? b->dim(0) : b->dim(1);
    if (k != kb) {
      return InvalidArgument("op(A) is " + std::to_string(m) + "x" + std::to_string(k) + " but op(B) is " +
                             std::to_string(kb) + "x" + std::to_string(n) + " (A " + ShapeToString(a->shape()) +
                             ", B " + ShapeToString(b->shape()) + ")");
    }
    // [m, n] in a vector of the calling thread (the frame copies it into a recycled one): no allocation per run.
    thread_local Shape thread_out_shape(2);
    Shape& out_shape = thread_out_shape;
    out_shape[0] = m;
    out_shape[1] = n;
    if (c != nullptr) {
      // C broadcasts to [m, n] without changing it: each of its (right-aligned) dims is 1 or the output's.
      bool fits = c->rank() <= 2;
      for (int64_t i = 0; fits && i < c->rank(); ++i) {
        const int64_t d = c->dim(c->rank() - 1 - i);
        fits = d == 1 || d == out_shape[static_cast<size_t>(1 - i)];
      }
      if (!fits) {
        return InvalidArgument("input 'C' (2) with shape " + ShapeToString(c->shape()) + " does not broadcast to " +
                               ShapeToString(out_shape));
      }
    }
    Tensor& y = ctx.AllocateOutput(0, a->type(), out_shape);
    if (product_ != nullptr && m > 1 && a->type() == DataType::kFloat && y.size() > 0) {
      return product_->Run(m, a->data<float>(), c != nullptr ? c->data<float>() : nullptr, y.data<float>(),
                           ctx.num_threads());
    }
    const bool use_c = c != nullptr && beta_ != 0.0f;
    return Dispatch<GemmTypes>(a->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      ComputeView<T> av(*a);
      ComputeView<T> bv(*b);
      ComputeOutput<T> yv(y);
      CT* out = yv.data();
      auto fill_with_c = [&](auto convert) {
        ComputeView<T> cv(*c);
        if (c->size() == n && n > 1 && (c->rank() == 1 || c->dim(0) == 1)) {
          // A bias row (the common case): copy it into every row.
          for (int64_t j = 0; j < n; ++j) out[j] = convert(cv.data()[j]);
          for (int64_t i = 1; i < m; ++i) std::copy(out, out + n, out + i * n);
          return;
        }
        std::vector<int64_t> strides[1] = {BroadcastStrides(c->shape(), out_shape)};
        ForEachStrided(out_shape, strides, [&](int64_t i, const int64_t* off) { out[i] = convert(cv.data()[off[0]]); });
      };
      const int64_t lda = trans_a_ ? m : k;
      const int64_t ldb = trans_b_ ? k : n;
      const bool exact = std::is_floating_point_v<CT> || (std::trunc(alpha_) == alpha_ && std::trunc(beta_) == beta_);
      auto to_ct = [](float v) {
        if constexpr (std::is_integral_v<CT>) {
          return static_cast<CT>(static_cast<int64_t>(v));  // negative values wrap for unsigned types
        } else {
          return static_cast<CT>(v);
        }
      };
      if (exact) {
        if (use_c) fill_with_c([](CT v) { return v; });
        if constexpr (std::is_same_v<T, float>) {
          if (ort_order_ && k > 0) {
            // ONNX Runtime's Gemm<float>: C broadcast into Y, then one MlasGemm with beta, a constant B prepacked
            // at session creation (kernels/sgemm_ort_order.h); B as stored or its transposed copy: same order.
            kernels::OrtSgemmOptions options;
            options.b_packed = b_constant_;
            options.ort_threads = std::max(omp_get_max_threads(), 1);
            const bool copy = b_as_stored_.defined();
            kernels::SgemmOrtOrder(trans_a_, trans_b_ && !copy, m, n, k, alpha_, av.data(), lda,
                                   copy ? b_as_stored_.data<float>() : bv.data(), copy ? n : ldb, use_c ? beta_ : 0.0f,
                                   out, n, options);
            yv.Finish();
            return Status::Ok();
          }
          if (m == 1 && !trans_a_ && alpha_ == 1.0f && (!use_c || beta_ == 1.0f) &&
              (!trans_b_ || b_as_stored_.defined())) {
            // One row (a classifier head): summed as ONNX Runtime sums it, so the logits match it to the last bit
            // (kernels/sgemm_row.h). A constant B is packed in panels on the first such run (the weights then
            // stream contiguously: 2-4x faster than rows of B as stored, whose reads from memory the two halves of
            // a 2-thread split interleave); the packed product sums in the same order.
            const float* b_kn = trans_b_ ? b_as_stored_.data<float>() : bv.data();
            if (b_constant_) {
              std::call_once(row_product_once_, [&] {
                row_product_ =
                    std::make_unique<const kernels::PackedSgemm>(k, n, b_kn, nullptr, kernels::MatMulActivation::kNone);
              });
              const int threads =
                  kernels::PrimitiveThreads(2 * k * n, ctx.num_threads(), k * n * static_cast<int64_t>(sizeof(float)));
              row_product_->Run(1, av.data(), out, threads, use_c);
            } else {
              kernels::SgemmRowPackedOrder(av.data(), b_kn, n, out, k, n, use_c);
            }
            yv.Finish();
            return Status::Ok();
          }
          if (b_as_stored_.defined()) {
            Gemm<float>(trans_a_, false, m, n, k, alpha_, av.data(), lda, b_as_stored_.data<float>(), n,
                        use_c ? beta_ : 0.0f, out, n);
            yv.Finish();
            return Status::Ok();
          }
        }
        Gemm<CT>(trans_a_, trans_b_, m, n, k, to_ct(alpha_), av.data(), lda, bv.data(), ldb,
                 use_c ? to_ct(beta_) : CT(0), out, n);
      } else {
        // Integer inputs with fractional alpha/beta: exact integer product, then scaled in double.
        Gemm<CT>(trans_a_, trans_b_, m, n, k, CT(1), av.data(), lda, bv.data(), ldb, CT(0), out, n);
        std::vector<double> cd(static_cast<size_t>(m * n), 0.0);
        if (use_c) {
          ComputeView<T> cv(*c);
          std::vector<int64_t> strides[1] = {BroadcastStrides(c->shape(), out_shape)};
          ForEachStrided(out_shape, strides, [&](int64_t i, const int64_t* off) {
            cd[static_cast<size_t>(i)] = static_cast<double>(cv.data()[off[0]]);
          });
        }
        for (int64_t i = 0; i < m * n; ++i) {
          out[i] = static_cast<CT>(alpha_ * static_cast<double>(out[i]) + beta_ * cd[static_cast<size_t>(i)]);
        }
      }
      yv.Finish();
      return Status::Ok();
    });
  }

 private:
  bool ort_order_ = false;   // float products in ONNX Runtime's order (KernelInfo::ort_summation_order)
  bool b_constant_ = false;  // B is a session constant, which ONNX Runtime prepacks
  bool trans_a_ = false;
  bool trans_b_ = false;
  float alpha_ = 1.0f;
  float beta_ = 1.0f;
  Tensor b_as_stored_;  // the constant B, transposed to [K, N] once (float with transB only)
  std::once_flag row_product_once_;
  std::unique_ptr<const kernels::PackedSgemm> row_product_;  // the constant B packed, built by the first 1-row run
  std::unique_ptr<ConstantFloatProduct> product_;            // float A B + bias row, both constant (else null): 2+ rows
};

}  // namespace

void RegisterGemmOps(KernelRegistry& registry) {
  registry.Add("", "Gemm", 1, kLatestVersion, MakeFactory<GemmKernel>());
}

}  // namespace onyx::ops::nn
