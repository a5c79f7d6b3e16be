// Shared pieces of the ai.onnx.ml family: the per-file registration functions, the score transforms of the
// classifiers and regressors (post_transform), reading a numeric [N, F] batch, and attributes given either as
// a FLOATS list or as a TENSOR (the *_as_tensor and *_tensor forms).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "runtime/kernel.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::ml {

inline constexpr const char* kMlDomain = "ai.onnx.ml";

void RegisterTreeEnsembleOps(KernelRegistry& registry);
void RegisterLinearOps(KernelRegistry& registry);
void RegisterSvmOps(KernelRegistry& registry);
void RegisterLabelEncoderOps(KernelRegistry& registry);
void RegisterFeatureTransformOps(KernelRegistry& registry);
void RegisterOneHotEncoderOps(KernelRegistry& registry);
void RegisterArrayFeatureExtractorOps(KernelRegistry& registry);
void RegisterFeatureVectorizerOps(KernelRegistry& registry);
void RegisterMapOps(KernelRegistry& registry);

// post_transform, numbered as the integer attribute of TreeEnsemble (5) numbers it.
enum class PostTransform { kNone = 0, kSoftmax = 1, kLogistic = 2, kSoftmaxZero = 3, kProbit = 4 };

// Reads the STRING attribute `post_transform` (default NONE).
Result<PostTransform> ParsePostTransform(const KernelInfo& info);
// From the integer form (TreeEnsemble 5).
Result<PostTransform> PostTransformFromInt(const KernelInfo& info, int64_t v);

// The transforms, as onnxruntime and the ONNX reference compute them (probit uses the same closed-form
// approximation of erf^-1, so that scores agree with theirs rather than with an exact inverse).
double Logistic(double v);
double Probit(double v);
// Applies the transform to one row of scores in place. SOFTMAX_ZERO leaves exact zeros at zero (they do not take
// part in the normalization); a row of zeros only becomes 0.5 everywhere, as in the reference.
void ApplyPostTransform(PostTransform t, double* row, int64_t n);

// A numeric input read as a row-major [N, F] matrix of doubles: [F] is one row, [N, ...] flattens the trailing
// dimensions. Element types: float, double, float16, bfloat16, int32, int64 (`what` names the input in errors).
struct FeatureBatch {
  int64_t n = 0;
  int64_t f = 0;
  std::vector<double> values;
  const double* row(int64_t i) const { return values.data() + i * f; }
};
Result<FeatureBatch> ReadFeatureBatch(const Tensor& x, const std::string& what);

// The FLOATS attribute `name`, or its TENSOR form `tensor_name` (float or double elements); error when both
// are given. Empty when neither is.
Result<std::vector<double>> GetFloatsOrTensor(const KernelInfo& info, const std::string& name,
                                              const std::string& tensor_name);

// Index of the largest value (the first one on ties); NaNs never win unless every value is NaN.
int64_t ArgMax(const double* v, int64_t n);

}  // namespace onyx::ops::ml
