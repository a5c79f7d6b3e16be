// com.microsoft FusedMatMul, which ONNX Runtime's optimizer writes for a MatMul with a transposed operand or a
// scale folded in (ORT-optimized BERT models carry it): Y = alpha * op(A) op(B), op transposing the last two
// axes when transA/transB is set; the batch dims broadcast as MatMul's do. transBatchA/transBatchB: the operand
// is stored with its rows axis first, (M, batch..., K), and read as (batch..., M, K) before transA/transB apply
// (ORT's optimizer folds a Transpose into it that way). Operands are read in place through strides. Rank >= 2.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/sgemm_ort_order.h"
#include "ops/contrib/contrib_ops.h"
#include "ops/nn/gemm_kernel.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

// An operand as a batch of matrices read through strides: logical batch dims with their strides, and each
// matrix's rows x cols with a row stride (columns contiguous), before any transA/transB.
struct MatrixBatch {
  std::vector<int64_t> dims, strides;
  int64_t rows = 0, cols = 0, ld = 0;
};

MatrixBatch Describe(const Tensor& t, bool trans_batch) {
  const int64_t r = t.rank();
  std::vector<int64_t> contiguous(static_cast<size_t>(r), 1);
  for (int64_t i = r - 2; i >= 0; --i)
    contiguous[static_cast<size_t>(i)] = contiguous[static_cast<size_t>(i + 1)] * t.dim(i + 1);
  MatrixBatch m;
  m.cols = t.dim(r - 1);
  if (trans_batch && r >= 3) {  // stored (rows, batch..., cols)
    m.rows = t.dim(0);
    m.ld = contiguous[0];
    for (int64_t i = 1; i < r - 1; ++i) {
      m.dims.push_back(t.dim(i));
      m.strides.push_back(contiguous[static_cast<size_t>(i)]);
    }
  } else {
    m.rows = t.dim(r - 2);
    m.ld = m.cols;
    for (int64_t i = 0; i < r - 2; ++i) {
      m.dims.push_back(t.dim(i));
      m.strides.push_back(contiguous[static_cast<size_t>(i)]);
    }
  }
  return m;
}

class FusedMatMulKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 1.0f);
    trans_a_ = info.GetInt("transA", 0) != 0;
    trans_b_ = info.GetInt("transB", 0) != 0;
    trans_batch_a_ = info.GetInt("transBatchA", 0) != 0;
    trans_batch_b_ = info.GetInt("transBatchB", 0) != 0;
    ort_order_ = info.ort_summation_order();
    b_constant_ = info.ConstantInput(1) != nullptr && info.ConstantInput(1)->rank() == 2;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(RequireFloat("A", 0, *a));
    ONYX_RETURN_IF_ERROR(RequireFloat("B", 1, *b));
    if (a->rank() < 2 || b->rank() < 2) {
      return Unsupported("inputs A " + ShapeToString(a->shape()) + " and B " + ShapeToString(b->shape()) +
                         ": rank 1 operands are not implemented");
    }
    const MatrixBatch ma = Describe(*a, trans_batch_a_);
    const MatrixBatch mb = Describe(*b, trans_batch_b_);
    const int64_t m = trans_a_ ? ma.cols : ma.rows;
    const int64_t k = trans_a_ ? ma.rows : ma.cols;
    const int64_t kb = trans_b_ ? mb.cols : mb.rows;
    const int64_t n = trans_b_ ? mb.rows : mb.cols;
    if (k != kb) {
      return InvalidArgument("inputs A " + ShapeToString(a->shape()) + " and B " + ShapeToString(b->shape()) +
                             " disagree on the inner dim (transA " + std::to_string(trans_a_) + ", transB " +
                             std::to_string(trans_b_) + ", transBatchA " + std::to_string(trans_batch_a_) +
                             ", transBatchB " + std::to_string(trans_batch_b_) + ")");
    }
    // Broadcast the batch dims, right-aligned; a broadcast operand keeps stride 0 there.
    const size_t batch_rank = std::max(ma.dims.size(), mb.dims.size());
    Shape out_shape(batch_rank);
    std::vector<int64_t> sa(batch_rank, 0), sb(batch_rank, 0);
    for (size_t i = 0; i < batch_rank; ++i) {
      const int64_t ia = static_cast<int64_t>(i) - static_cast<int64_t>(batch_rank - ma.dims.size());
      const int64_t ib = static_cast<int64_t>(i) - static_cast<int64_t>(batch_rank - mb.dims.size());
      const int64_t da = ia >= 0 ? ma.dims[static_cast<size_t>(ia)] : 1;
      const int64_t db = ib >= 0 ? mb.dims[static_cast<size_t>(ib)] : 1;
      if (da != db && da != 1 && db != 1) {
        return InvalidArgument("batch dims of A " + ShapeToString(a->shape()) + " and B " + ShapeToString(b->shape()) +
                               " do not broadcast");
      }
      out_shape[i] = da == 1 ? db : da;
      sa[i] = da == 1 ? 0 : ma.strides[static_cast<size_t>(ia)];
      sb[i] = db == 1 ? 0 : mb.strides[static_cast<size_t>(ib)];
    }
    int64_t batches = 1;
    for (int64_t d : out_shape) batches *= d;
    out_shape.push_back(m);
    out_shape.push_back(n);
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, out_shape);
    const float* pa = a->data<float>();
    const float* pb = b->data<float>();
    float* py = y.data<float>();
    // Under KernelInfo::ort_summation_order ONNX Runtime's FusedMatMul (its MatMul<float> kernel): one MlasGemmBatch of
    // these GEMMs, alpha applied by MLAS's kernel, B packed when constant, its thread split.
    kernels::OrtSgemmOptions options;
    options.b_packed = b_constant_;
    options.ort_threads = kernels::OrtGemmBatchThreads(m, n, k, batches);
    for (int64_t t = 0; t < batches; ++t) {
      int64_t off_a = 0, off_b = 0, rest = t;
      for (size_t i = batch_rank; i-- > 0;) {
        const int64_t idx = rest % out_shape[i];
        rest /= out_shape[i];
        off_a += idx * sa[i];
        off_b += idx * sb[i];
      }
      if (ort_order_) {
        kernels::SgemmOrtOrder(trans_a_, trans_b_, m, n, k, alpha_, pa + off_a, ma.ld, pb + off_b, mb.ld, 0.0f,
                               py + t * m * n, n, options);
      } else {
        nn::Gemm<float>(trans_a_, trans_b_, m, n, k, alpha_, pa + off_a, ma.ld, pb + off_b, mb.ld, 0.0f,
                        py + t * m * n, n);
      }
    }
    return Status::Ok();
  }

 private:
  float alpha_ = 1.0f;
  bool trans_a_ = false;
  bool trans_b_ = false;
  bool trans_batch_a_ = false;
  bool trans_batch_b_ = false;
  bool ort_order_ = false;   // KernelInfo::ort_summation_order: MLAS's sums
  bool b_constant_ = false;  // ONNX Runtime prepacks a constant 2-D B
};

}  // namespace

void RegisterFusedMatMulOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "FusedMatMul", 1, kLatestVersion, MakeFactory<FusedMatMulKernel>());
}

}  // namespace onyx::ops::contrib
