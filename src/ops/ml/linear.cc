// LinearRegressor and LinearClassifier: scores = X * coefficients^T + intercepts, one row of coefficients per
// target or class (row-major, each row as long as a feature vector), then post_transform on each row of scores.
// LinearClassifier labels by the largest raw score (first on ties). A classifier with one row of coefficients and
// two class labels is binary: its scores are [-s, s] before the transform and the label is class 1 when s > 0
// (as in the ONNX reference; onnxruntime gives the same labels but writes [1 - s, s] without the transform). With
// one row and some other number of labels, the single transformed score is compared with 0 (NONE) or 0.5 (any
// transform): at or above it the label is the first class label, below it 0 or "" (the reference's rule).
// multi_class is accepted and, as in onnxruntime and the reference, has no effect.
#include <string>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

// scores[i * rows + r] = dot(x_i, coefficients[r]) + intercepts[r]
std::vector<double> LinearScores(const FeatureBatch& b, const std::vector<float>& coefficients,
                                 const std::vector<float>& intercepts, int64_t rows) {
  std::vector<double> scores(static_cast<size_t>(b.n * rows));
  for (int64_t i = 0; i < b.n; ++i) {
    const double* x = b.row(i);
    for (int64_t r = 0; r < rows; ++r) {
      const float* w = coefficients.data() + r * b.f;
      double s = intercepts.empty() ? 0.0 : intercepts[static_cast<size_t>(r)];
      for (int64_t j = 0; j < b.f; ++j) s += x[j] * static_cast<double>(w[j]);
      scores[static_cast<size_t>(i * rows + r)] = s;
    }
  }
  return scores;
}

class LinearRegressorKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    coefficients_ = info.GetFloats("coefficients");
    intercepts_ = info.GetFloats("intercepts");
    targets_ = info.GetInt("targets", 1);
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    if (coefficients_.empty()) return info.Error("required attribute 'coefficients' is missing or empty");
    if (targets_ < 1) return info.Error("attribute 'targets' is " + std::to_string(targets_) + ", expected >= 1");
    if (coefficients_.size() % static_cast<size_t>(targets_) != 0) {
      return info.Error("attribute 'coefficients' has " + std::to_string(coefficients_.size()) +
                        " values, not a multiple of targets (" + std::to_string(targets_) + ")");
    }
    if (!intercepts_.empty() && static_cast<int64_t>(intercepts_.size()) != targets_) {
      return info.Error("attribute 'intercepts' has " + std::to_string(intercepts_.size()) + " values, expected " +
                        std::to_string(targets_) + " (one per target)");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    const int64_t features = static_cast<int64_t>(coefficients_.size()) / targets_;
    if (b.f != features) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(b.f) + " features per row, the coefficients " +
                             std::to_string(features));
    }
    std::vector<double> scores = LinearScores(b, coefficients_, intercepts_, targets_);
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {b.n, targets_});
    for (int64_t i = 0; i < b.n; ++i) {
      double* row = scores.data() + i * targets_;
      ApplyPostTransform(post_, row, targets_);
      for (int64_t t = 0; t < targets_; ++t) y.data<float>()[i * targets_ + t] = static_cast<float>(row[t]);
    }
    return Status::Ok();
  }

 private:
  std::vector<float> coefficients_;
  std::vector<float> intercepts_;
  int64_t targets_ = 1;
  PostTransform post_ = PostTransform::kNone;
};

class LinearClassifierKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    coefficients_ = info.GetFloats("coefficients");
    if (coefficients_.empty()) return info.Error("required attribute 'coefficients' is missing or empty");
    intercepts_ = info.GetFloats("intercepts");
    int_labels_ = info.GetInts("classlabels_ints");
    string_labels_ = info.GetStrings("classlabels_strings");
    if (int_labels_.empty() == string_labels_.empty()) {
      return info.Error("exactly one of 'classlabels_ints' and 'classlabels_strings' must be given (and non-empty)");
    }
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    if (!intercepts_.empty() && coefficients_.size() % intercepts_.size() != 0) {
      return info.Error("attribute 'coefficients' has " + std::to_string(coefficients_.size()) +
                        " values, not a multiple of the number of intercepts (" + std::to_string(intercepts_.size()) +
                        ")");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    const auto ncoef = static_cast<int64_t>(coefficients_.size());
    if (b.f == 0 || ncoef % b.f != 0 ||
        (!intercepts_.empty() && ncoef / b.f != static_cast<int64_t>(intercepts_.size()))) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(b.f) + " features per row, which does not divide "
                             "the " + std::to_string(ncoef) + " coefficients into " +
                             (intercepts_.empty() ? std::string("rows") : std::to_string(intercepts_.size()) + " rows"));
    }
    const int64_t rows = ncoef / b.f;
    const bool strings = !string_labels_.empty();
    const auto nlabels = static_cast<int64_t>(strings ? string_labels_.size() : int_labels_.size());
    if (rows > 1 && rows != nlabels) {
      return InvalidArgument("the coefficients hold " + std::to_string(rows) + " classes but " +
                             std::to_string(nlabels) + " class labels are given");
    }
    std::vector<double> scores = LinearScores(b, coefficients_, intercepts_, rows);
    const bool binary = rows == 1 && nlabels == 2;
    const int64_t out_cols = binary ? 2 : rows;
    Tensor& y = ctx.AllocateOutput(0, strings ? DataType::kString : DataType::kInt64, {b.n});
    Tensor& z = ctx.AllocateOutput(1, DataType::kFloat, {b.n, out_cols});
    std::vector<double> row(static_cast<size_t>(out_cols));
    for (int64_t i = 0; i < b.n; ++i) {
      int64_t label = -1;  // -1: the "no class" label of the one-score rule
      if (binary) {
        const double s = scores[static_cast<size_t>(i)];
        row = {-s, s};
        label = s > 0 ? 1 : 0;
        ApplyPostTransform(post_, row.data(), 2);
      } else if (rows == 1) {
        row[0] = scores[static_cast<size_t>(i)];
        ApplyPostTransform(post_, row.data(), 1);
        label = row[0] >= (post_ == PostTransform::kNone ? 0.0 : 0.5) ? 0 : -1;
      } else {
        for (int64_t r = 0; r < rows; ++r) row[static_cast<size_t>(r)] = scores[static_cast<size_t>(i * rows + r)];
        label = ArgMax(row.data(), rows);
        ApplyPostTransform(post_, row.data(), rows);
      }
      for (int64_t c = 0; c < out_cols; ++c) z.data<float>()[i * out_cols + c] = static_cast<float>(row[static_cast<size_t>(c)]);
      if (strings) {
        y.data<std::string>()[i] = label < 0 ? std::string() : string_labels_[static_cast<size_t>(label)];
      } else {
        y.data<int64_t>()[i] = label < 0 ? 0 : int_labels_[static_cast<size_t>(label)];
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<float> coefficients_;
  std::vector<float> intercepts_;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  PostTransform post_ = PostTransform::kNone;
};

}  // namespace

void RegisterLinearOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "LinearRegressor", 1, kLatestVersion, MakeFactory<LinearRegressorKernel>());
  registry.Add(kMlDomain, "LinearClassifier", 1, kLatestVersion, MakeFactory<LinearClassifierKernel>());
}

}  // namespace onyx::ops::ml
