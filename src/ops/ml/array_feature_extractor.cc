// ArrayFeatureExtractor: picks the positions Y (int64, any shape, read flat) along the last axis of X. The output
// is X's shape with the last dimension replaced by the number of indices; a 1-D X gives [1, K] (as onnxruntime
// and the ONNX reference shape it). Indices must lie in [0, last dimension).
#include <string>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

Status ArrayFeatureExtractor(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(1));
  if (x->rank() == 0) return InvalidArgument("input 'X' (0) is a scalar, expected at least one dimension");
  if (y->type() != DataType::kInt64 && y->type() != DataType::kInt32) {
    return InvalidArgument("input 'Y' (1) has element type " + std::string(DataTypeName(y->type())) + ", expected int64");
  }
  const int64_t d = x->dim(x->rank() - 1);
  const int64_t k = y->size();
  std::vector<int64_t> idx(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    idx[static_cast<size_t>(j)] = y->IntAt(j);
    if (idx[static_cast<size_t>(j)] < 0 || idx[static_cast<size_t>(j)] >= d) {
      return InvalidArgument("input 'Y' (1) holds index " + std::to_string(idx[static_cast<size_t>(j)]) +
                             ", outside [0, " + std::to_string(d) + ") (the last dimension of 'X')");
    }
  }
  Shape shape = x->shape();
  if (x->rank() == 1) shape.insert(shape.begin(), 1);
  shape.back() = k;
  const int64_t rows = d == 0 ? NumElements(shape) / (k == 0 ? 1 : k) : x->size() / d;
  Tensor& z = ctx.AllocateOutput(0, x->type(), shape);
  return Dispatch<TypeList<float, double, int64_t, int32_t, std::string>>(x->type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x->data<T>();
    T* out = z.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < k; ++j) out[r * k + j] = in[r * d + idx[static_cast<size_t>(j)]];
    }
    return Status::Ok();
  });
}

}  // namespace

void RegisterArrayFeatureExtractorOps(KernelRegistry& registry) {
  registry.AddFn(kMlDomain, "ArrayFeatureExtractor", 1, kLatestVersion, ArrayFeatureExtractor);
}

}  // namespace onyx::ops::ml
