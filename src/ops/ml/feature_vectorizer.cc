// FeatureVectorizer: concatenates its inputs' rows into one float row per example. Each input is [N, ...] (its
// trailing dimensions flattened) or [C] (one row); inputdimensions gives each input's width in the output: longer
// rows are cut, shorter ones padded with zeros (as onnxruntime and the ONNX reference do). Without the attribute
// each input keeps its own width. Every input must have the same number of rows.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

class FeatureVectorizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    has_dims_ = info.HasAttribute("inputdimensions");
    dims_ = info.GetInts("inputdimensions");
    // The output width comes from this attribute alone: bound each size so that a hostile one cannot ask for an
    // absurd allocation.
    for (int64_t d : dims_) {
      if (d < 0 || d > (int64_t{1} << 24)) {
        return info.Error("attribute 'inputdimensions' holds " + std::to_string(d) + ", expected 0 to 2^24");
      }
    }
    if (has_dims_ && dims_.size() != info.num_inputs()) {
      return info.Error("attribute 'inputdimensions' has " + std::to_string(dims_.size()) + " values for " +
                        std::to_string(info.num_inputs()) + " inputs");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    std::vector<FeatureBatch> batches;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(i));
      if (x->type() != DataType::kFloat && x->type() != DataType::kDouble && x->type() != DataType::kInt32 &&
          x->type() != DataType::kInt64) {
        return InvalidArgument("input " + std::to_string(i) + " has element type " +
                               std::string(DataTypeName(x->type())) + ", expected int32, int64, float or double");
      }
      const std::string what = "input " + std::to_string(i);
      FeatureBatch b;
      if (x->rank() == 0) {
        b.n = 1;
        b.f = 1;
        b.values = {x->DoubleAt(0)};
      } else {
        ONYX_ASSIGN_OR_RETURN(b, ReadFeatureBatch(*x, what));
      }
      if (!batches.empty() && b.n != batches[0].n) {
        return InvalidArgument(what + " has " + std::to_string(b.n) + " rows, input 0 has " +
                               std::to_string(batches[0].n));
      }
      batches.push_back(std::move(b));
    }
    if (batches.empty()) return InvalidArgument("FeatureVectorizer needs at least one input");
    std::vector<int64_t> widths;
    int64_t total = 0;
    for (size_t i = 0; i < batches.size(); ++i) {
      widths.push_back(has_dims_ ? dims_[i] : batches[i].f);
      total += widths.back();
    }
    const int64_t n = batches[0].n;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {n, total});
    float* out = y.data<float>();
    std::fill(out, out + y.size(), 0.0f);
    int64_t offset = 0;
    for (size_t i = 0; i < batches.size(); ++i) {
      const int64_t copy = std::min(widths[i], batches[i].f);
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t j = 0; j < copy; ++j) out[r * total + offset + j] = static_cast<float>(batches[i].row(r)[j]);
      }
      offset += widths[i];
    }
    return Status::Ok();
  }

 private:
  bool has_dims_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace

void RegisterFeatureVectorizerOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "FeatureVectorizer", 1, kLatestVersion, MakeFactory<FeatureVectorizerKernel>());
}

}  // namespace onyx::ops::ml
