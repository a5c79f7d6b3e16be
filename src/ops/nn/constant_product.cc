#include "ops/nn/constant_product.h"

#include <algorithm>

#include "kernels/dnnl_util.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/gemm_kernel.h"

namespace onyx::ops::nn {

void PlainFloatProduct(int64_t m, int64_t k, int64_t n, const float* a, const float* b, const float* bias,
                       kernels::MatMulActivation activation, float* c) {
  if (bias != nullptr) {
    for (int64_t i = 0; i < m; ++i) std::copy(bias, bias + n, c + i * n);
  }
  Gemm<float>(false, false, m, n, k, 1.0f, a, k, b, n, bias != nullptr ? 1.0f : 0.0f, c, n);
  if (activation == kernels::MatMulActivation::kGeluErf) {
    ParallelFor(m, n * 8, [&](int64_t lo, int64_t hi) { kernels::Gelu(c + lo * n, c + lo * n, (hi - lo) * n); });
  } else if (activation == kernels::MatMulActivation::kRelu) {
    ParallelFor(m, n, [&](int64_t lo, int64_t hi) { kernels::Relu(c + lo * n, c + lo * n, (hi - lo) * n); });
  }
}

Result<Tensor> ConstantFloatProduct::PlainWeights() const {
  if (weights_.raw() != nullptr) return weights_;
  for (auto it = built_.rbegin(); it != built_.rend(); ++it) {
    if (it->product->weights.raw() != nullptr) return it->product->weights;
  }
  Tensor plain = Tensor::Allocate(DataType::kFloat, Shape{k_, n_});
  ONYX_RETURN_IF_ERROR(built_.back().product->mm->CopyWeightsTo(plain.data<float>()));
  return plain;
}

size_t ConstantFloatProduct::builds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return class_builds_.total();
}

Status ConstantFloatProduct::Run(int64_t m, const float* a, const float* bias, float* c, int available_threads) {
  if (m <= 0 || n_ <= 0) return Status::Ok();
  const float* b_values = nullptr;
  if (k_ > 0) {
    const int threads =
        kernels::PrimitiveThreads(2 * m * k_ * n_, available_threads, n_ * k_ * static_cast<int64_t>(sizeof(float)));
    std::shared_ptr<const Product> product;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found =
          std::find_if(built_.begin(), built_.end(), [&](const Built& b) { return b.m == m && b.threads == threads; });
      if (found == built_.end()) {
        // A product of another row count of the class that runs any row count (a prompt of another length) runs this
        // one too.
        const kernels::RowClass row_class = kernels::ProductRowClass(m);
        found = std::find_if(built_.begin(), built_.end(), [&](const Built& b) {
          return b.threads == threads && kernels::ProductRowClass(b.m) == row_class && b.product->mm != nullptr &&
                 b.product->mm->RunsAnyRowCount();
        });
      }
      if (found == built_.end()) {
        // B as stored, fetched (at most once) only where the new product shares no kept product's copy: rebuilding it
        // from a packed copy, for a product that would then share that copy, cost a prompt of each new length a
        // reorder of every weight matrix.
        Tensor plain;
        const kernels::FloatMatMul::WeightsSource source = [&]() -> Result<const float*> {
          if (plain.raw() == nullptr) {
            ONYX_ASSIGN_OR_RETURN(plain, PlainWeights());
          }
          return plain.data<float>();
        };
        std::vector<const kernels::FloatMatMul*> kept;
        for (auto it = built_.rbegin(); it != built_.rend(); ++it) {
          if (it->product->mm != nullptr) kept.push_back(it->product->mm.get());
        }
        auto made = class_builds_.CountBuild(m, threads)
                        ? kernels::FloatMatMul::CreateAnyRowCount(m, k_, n_, source, bias, activation_, threads, kept)
                        : kernels::FloatMatMul::Create(m, k_, n_, source, bias, activation_, threads, kept);
        auto fresh = std::make_shared<Product>();
        if (made.ok()) fresh->mm = std::move(*made);
        if (fresh->mm == nullptr || fresh->mm->ReadsWeightsInPlace()) {
          // The sgemm path reads B as stored; a product reading it in place (perhaps a kept one's: PlainWeights
          // returns that one) keeps it alive.
          ONYX_RETURN_IF_ERROR(source().status());
          fresh->weights = std::move(plain);
        }
        if (built_.size() == kKeptProducts) built_.erase(built_.begin());
        built_.push_back({m, threads, std::move(fresh)});
        found = built_.end() - 1;
        // From now on the kept products hold B (or their packed copies, from which it is rebuilt): the original
        // is released once none reads it in place.
        weights_ = Tensor();
      }
      product = found->product;
    }
    if (product->mm != nullptr) return product->mm->Run(m, a, c);
    b_values = product->weights.data<float>();
  }
  PlainFloatProduct(m, k_, n_, a, b_values, bias, activation_, c);
  return Status::Ok();
}

}  // namespace onyx::ops::nn
