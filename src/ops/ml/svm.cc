// SVMRegressor and SVMClassifier, as libsvm-style models exported by skl2onnx evaluate them.
// Kernels: LINEAR <a,b>, POLY (gamma <a,b> + coef0)^degree, RBF exp(-gamma |a-b|^2), SIGMOID tanh(gamma <a,b> +
// coef0), with kernel_params = [gamma, coef0, degree] (zeros when absent).
//
// SVMClassifier has two modes. With support vectors (vectors_per_class given) it is libsvm's one-vs-one SVC:
// for each pair of classes i < j the decision value is
//   s_ij = sum_{v in class i} coefficients[j-1][v] K(x, v) + sum_{v in class j} coefficients[i][v] K(x, v) + rho_ij
// (coefficients laid out [classes - 1, vectors]); s_ij > 0 is a vote for i, otherwise for j, and the label is the
// class with the most votes (the first on ties). The scores are then Platt probabilities coupled across pairs when
// prob_a/prob_b are given (one pair per decision value, [N, classes]), else the decision values themselves
// ([N, pairs]), except that two classes give [-s, s] ([N, 2]) as the ONNX reference and onnxruntime (under NONE)
// write them. Without support vectors it is a linear model: scores = X * coefficients^T + rho[0], labelled by the
// largest score. post_transform applies to each row of scores last.
// SVMRegressor: sum_v coefficients[v] K(x, v) + rho[0] (or <x, coefficients> + rho[0] without support vectors),
// mapped to +1/-1 by its sign when one_class is set, then post_transform; output [N, 1].
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

class SvmKernelFunction {
 public:
  Status Init(const KernelInfo& info) {
    const std::string type = info.GetString("kernel_type", "LINEAR");
    if (type == "LINEAR") {
      type_ = Type::kLinear;
    } else if (type == "POLY") {
      type_ = Type::kPoly;
    } else if (type == "RBF") {
      type_ = Type::kRbf;
    } else if (type == "SIGMOID") {
      type_ = Type::kSigmoid;
    } else {
      return info.Error("attribute 'kernel_type' is '" + type + "', expected LINEAR, POLY, RBF or SIGMOID");
    }
    const auto params = info.GetFloats("kernel_params");
    if (params.size() > 3) {
      return info.Error("attribute 'kernel_params' has " + std::to_string(params.size()) +
                        " values, expected [gamma, coef0, degree]");
    }
    if (params.size() > 0) gamma_ = params[0];
    if (params.size() > 1) coef0_ = params[1];
    if (params.size() > 2) degree_ = params[2];
    return Status::Ok();
  }

  void SetLinear() { type_ = Type::kLinear; }

  double operator()(const double* a, const float* b, int64_t n) const {
    if (type_ == Type::kRbf) {
      double d2 = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double d = a[i] - static_cast<double>(b[i]);
        d2 += d * d;
      }
      return std::exp(-gamma_ * d2);
    }
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += a[i] * static_cast<double>(b[i]);
    switch (type_) {
      case Type::kLinear: return dot;
      case Type::kPoly: return std::pow(gamma_ * dot + coef0_, degree_);
      case Type::kSigmoid: return std::tanh(gamma_ * dot + coef0_);
      case Type::kRbf: break;
    }
    return dot;
  }

 private:
  enum class Type { kLinear, kPoly, kRbf, kSigmoid };
  Type type_ = Type::kLinear;
  double gamma_ = 0, coef0_ = 0, degree_ = 0;
};

// Pairwise coupling of the probabilities r[i][j] = P(i | i or j) into class probabilities (Wu, Lin and Weng 2004,
// method 2, as libsvm implements it).
std::vector<double> MulticlassProbability(int64_t k, const std::vector<double>& r) {
  const auto at = [k](int64_t i, int64_t j) { return static_cast<size_t>(i * k + j); };
  std::vector<double> q(static_cast<size_t>(k * k), 0.0), qp(static_cast<size_t>(k), 0.0),
      p(static_cast<size_t>(k), 1.0 / static_cast<double>(k));
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < i; ++j) {
      q[at(i, i)] += r[at(j, i)] * r[at(j, i)];
      q[at(i, j)] = q[at(j, i)];
    }
    for (int64_t j = i + 1; j < k; ++j) {
      q[at(i, i)] += r[at(j, i)] * r[at(j, i)];
      q[at(i, j)] = -r[at(j, i)] * r[at(i, j)];
    }
  }
  const double eps = 0.005 / static_cast<double>(k);
  const int64_t max_iter = std::max<int64_t>(100, k);
  for (int64_t iter = 0; iter < max_iter; ++iter) {
    double pqp = 0;
    for (int64_t i = 0; i < k; ++i) {
      qp[static_cast<size_t>(i)] = 0;
      for (int64_t j = 0; j < k; ++j) qp[static_cast<size_t>(i)] += q[at(i, j)] * p[static_cast<size_t>(j)];
      pqp += p[static_cast<size_t>(i)] * qp[static_cast<size_t>(i)];
    }
    double max_error = 0;
    for (int64_t i = 0; i < k; ++i) max_error = std::max(max_error, std::abs(qp[static_cast<size_t>(i)] - pqp));
    if (max_error < eps) break;
    for (int64_t i = 0; i < k; ++i) {
      const double diff = (-qp[static_cast<size_t>(i)] + pqp) / q[at(i, i)];
      p[static_cast<size_t>(i)] += diff;
      pqp = (pqp + diff * (diff * q[at(i, i)] + 2 * qp[static_cast<size_t>(i)])) / (1 + diff) / (1 + diff);
      for (int64_t j = 0; j < k; ++j) {
        qp[static_cast<size_t>(j)] = (qp[static_cast<size_t>(j)] + diff * q[at(i, j)]) / (1 + diff);
        p[static_cast<size_t>(j)] /= (1 + diff);
      }
    }
  }
  return p;
}

class SvmClassifierKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(kernel_.Init(info));
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    int_labels_ = info.GetInts("classlabels_ints");
    string_labels_ = info.GetStrings("classlabels_strings");
    if (int_labels_.empty() == string_labels_.empty()) {
      return info.Error("exactly one of 'classlabels_ints' and 'classlabels_strings' must be given (and non-empty)");
    }
    classes_ = static_cast<int64_t>(int_labels_.empty() ? string_labels_.size() : int_labels_.size());
    coefficients_ = info.GetFloats("coefficients");
    support_vectors_ = info.GetFloats("support_vectors");
    rho_ = info.GetFloats("rho");
    prob_a_ = info.GetFloats("prob_a");
    prob_b_ = info.GetFloats("prob_b");
    vectors_per_class_ = info.GetInts("vectors_per_class");
    if (coefficients_.empty()) return info.Error("attribute 'coefficients' is missing or empty");
    if (rho_.empty()) return info.Error("attribute 'rho' is missing or empty");
    if (prob_a_.size() != prob_b_.size()) {
      return info.Error("attributes 'prob_a' and 'prob_b' have " + std::to_string(prob_a_.size()) + " and " +
                        std::to_string(prob_b_.size()) + " values, expected the same number");
    }
    vectors_ = 0;
    for (int64_t v : vectors_per_class_) {
      // Each support vector takes at least one value of support_vectors, which bounds the counts (and their sum).
      if (v < 0 || v > static_cast<int64_t>(support_vectors_.size()) - vectors_) {
        return info.Error("attribute 'vectors_per_class' holds " + std::to_string(v) + ", more support vectors than "
                          "'support_vectors' (" + std::to_string(support_vectors_.size()) + " values) can hold");
      }
      starts_.push_back(vectors_);
      vectors_ += v;
    }
    if (vectors_ > 0) {
      if (static_cast<int64_t>(vectors_per_class_.size()) != classes_) {
        return info.Error("attribute 'vectors_per_class' has " + std::to_string(vectors_per_class_.size()) +
                          " values, expected one per class (" + std::to_string(classes_) + ")");
      }
      if (classes_ < 2) return info.Error("a support vector classifier needs at least 2 classes");
      if (support_vectors_.size() % static_cast<size_t>(vectors_) != 0) {
        return info.Error("attribute 'support_vectors' has " + std::to_string(support_vectors_.size()) +
                          " values, not a multiple of the " + std::to_string(vectors_) + " support vectors");
      }
      features_ = static_cast<int64_t>(support_vectors_.size()) / vectors_;
      const int64_t pairs = classes_ * (classes_ - 1) / 2;
      if (static_cast<int64_t>(coefficients_.size()) < (classes_ - 1) * vectors_) {
        return info.Error("attribute 'coefficients' has " + std::to_string(coefficients_.size()) + " values, expected " +
                          std::to_string((classes_ - 1) * vectors_) + " ([classes - 1, support vectors])");
      }
      if (static_cast<int64_t>(rho_.size()) < pairs) {
        return info.Error("attribute 'rho' has " + std::to_string(rho_.size()) + " values, expected " +
                          std::to_string(pairs) + " (one per pair of classes)");
      }
      if (!prob_a_.empty() && static_cast<int64_t>(prob_a_.size()) < pairs) {
        return info.Error("attribute 'prob_a' has " + std::to_string(prob_a_.size()) + " values, expected " +
                          std::to_string(pairs) + " (one per pair of classes)");
      }
    } else {
      kernel_.SetLinear();
      if (coefficients_.size() % static_cast<size_t>(classes_) != 0) {
        return info.Error("attribute 'coefficients' has " + std::to_string(coefficients_.size()) +
                          " values, not a multiple of the " + std::to_string(classes_) + " classes");
      }
      features_ = static_cast<int64_t>(coefficients_.size()) / classes_;
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    if (b.f != features_) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(b.f) + " features per row, the model " +
                             std::to_string(features_));
    }
    const bool svc = vectors_ > 0;
    const bool proba = svc && !prob_a_.empty();
    const int64_t pairs = classes_ * (classes_ - 1) / 2;
    const int64_t cols = !svc || proba ? classes_ : (classes_ == 2 ? 2 : pairs);
    const bool strings = !string_labels_.empty();
    Tensor& y = ctx.AllocateOutput(0, strings ? DataType::kString : DataType::kInt64, {b.n});
    Tensor& z = ctx.AllocateOutput(1, DataType::kFloat, {b.n, cols});
    std::vector<double> scores;
    std::vector<double> kernels(static_cast<size_t>(vectors_));
    std::vector<int64_t> votes(static_cast<size_t>(classes_));
    for (int64_t n = 0; n < b.n; ++n) {
      const double* row = b.row(n);
      int64_t label = 0;
      if (!svc) {
        scores.assign(static_cast<size_t>(classes_), 0.0);
        for (int64_t c = 0; c < classes_; ++c) {
          scores[static_cast<size_t>(c)] = kernel_(row, coefficients_.data() + c * features_, features_) + rho_[0];
        }
        label = ArgMax(scores.data(), classes_);
      } else {
        for (int64_t v = 0; v < vectors_; ++v) {
          kernels[static_cast<size_t>(v)] = kernel_(row, support_vectors_.data() + v * features_, features_);
        }
        std::fill(votes.begin(), votes.end(), 0);
        std::vector<double> decisions;
        for (int64_t i = 0; i < classes_; ++i) {
          for (int64_t j = i + 1; j < classes_; ++j) {
            double s = rho_[decisions.size()];
            for (int64_t m = 0; m < vectors_per_class_[static_cast<size_t>(i)]; ++m) {
              const int64_t v = starts_[static_cast<size_t>(i)] + m;
              s += coefficients_[static_cast<size_t>((j - 1) * vectors_ + v)] * kernels[static_cast<size_t>(v)];
            }
            for (int64_t m = 0; m < vectors_per_class_[static_cast<size_t>(j)]; ++m) {
              const int64_t v = starts_[static_cast<size_t>(j)] + m;
              s += coefficients_[static_cast<size_t>(i * vectors_ + v)] * kernels[static_cast<size_t>(v)];
            }
            decisions.push_back(s);
            ++votes[static_cast<size_t>(s > 0 ? i : j)];
          }
        }
        label = std::max_element(votes.begin(), votes.end()) - votes.begin();
        if (proba) {
          std::vector<double> r(static_cast<size_t>(classes_ * classes_), 0.0);
          size_t k = 0;
          for (int64_t i = 0; i < classes_; ++i) {
            for (int64_t j = i + 1; j < classes_; ++j, ++k) {
              const double p = 1.0 - Logistic(decisions[k] * prob_a_[k] + prob_b_[k]);
              const double clamped = std::min(std::max(p, 1e-7), 1 - 1e-7);
              r[static_cast<size_t>(i * classes_ + j)] = clamped;
              r[static_cast<size_t>(j * classes_ + i)] = 1 - clamped;
            }
          }
          scores = MulticlassProbability(classes_, r);
        } else if (classes_ == 2) {
          scores = {-decisions[0], decisions[0]};
        } else {
          scores = std::move(decisions);
        }
      }
      ApplyPostTransform(post_, scores.data(), cols);
      for (int64_t c = 0; c < cols; ++c) z.data<float>()[n * cols + c] = static_cast<float>(scores[static_cast<size_t>(c)]);
      if (strings) {
        y.data<std::string>()[n] = string_labels_[static_cast<size_t>(label)];
      } else {
        y.data<int64_t>()[n] = int_labels_[static_cast<size_t>(label)];
      }
    }
    return Status::Ok();
  }

 private:
  SvmKernelFunction kernel_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  int64_t classes_ = 0;
  std::vector<float> coefficients_, support_vectors_, rho_, prob_a_, prob_b_;
  std::vector<int64_t> vectors_per_class_, starts_;
  int64_t vectors_ = 0;
  int64_t features_ = 0;
};

class SvmRegressorKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(kernel_.Init(info));
    ONYX_ASSIGN_OR_RETURN(post_, ParsePostTransform(info));
    coefficients_ = info.GetFloats("coefficients");
    support_vectors_ = info.GetFloats("support_vectors");
    rho_ = info.GetFloats("rho");
    supports_ = info.GetInt("n_supports", 0);
    one_class_ = info.GetInt("one_class", 0) != 0;
    if (rho_.empty()) return info.Error("attribute 'rho' is missing or empty");
    if (supports_ < 0) return info.Error("attribute 'n_supports' is " + std::to_string(supports_) + ", expected >= 0");
    if (supports_ > 0) {
      if (support_vectors_.size() % static_cast<size_t>(supports_) != 0) {
        return info.Error("attribute 'support_vectors' has " + std::to_string(support_vectors_.size()) +
                          " values, not a multiple of n_supports (" + std::to_string(supports_) + ")");
      }
      if (static_cast<int64_t>(coefficients_.size()) < supports_) {
        return info.Error("attribute 'coefficients' has " + std::to_string(coefficients_.size()) +
                          " values, expected one per support vector (" + std::to_string(supports_) + ")");
      }
      features_ = static_cast<int64_t>(support_vectors_.size()) / supports_;
    } else {
      kernel_.SetLinear();
      features_ = static_cast<int64_t>(coefficients_.size());
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    if (b.f != features_) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(b.f) + " features per row, the model " +
                             std::to_string(features_));
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {b.n, 1});
    for (int64_t n = 0; n < b.n; ++n) {
      double s = rho_[0];
      if (supports_ > 0) {
        for (int64_t v = 0; v < supports_; ++v) {
          s += coefficients_[static_cast<size_t>(v)] * kernel_(b.row(n), support_vectors_.data() + v * features_, features_);
        }
      } else {
        s += kernel_(b.row(n), coefficients_.data(), features_);
      }
      if (one_class_) s = s > 0 ? 1.0 : -1.0;
      ApplyPostTransform(post_, &s, 1);
      y.data<float>()[n] = static_cast<float>(s);
    }
    return Status::Ok();
  }

 private:
  SvmKernelFunction kernel_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<float> coefficients_, support_vectors_, rho_;
  int64_t supports_ = 0;
  int64_t features_ = 0;
  bool one_class_ = false;
};

}  // namespace

void RegisterSvmOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "SVMClassifier", 1, kLatestVersion, MakeFactory<SvmClassifierKernel>());
  registry.Add(kMlDomain, "SVMRegressor", 1, kLatestVersion, MakeFactory<SvmRegressorKernel>());
}

}  // namespace onyx::ops::ml
