#include "ops/op_list.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

namespace transformer {

std::vector<double> FloatTensorToDoubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.size()));
  (void)Dispatch<FloatTypes>(t.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = Load(p, static_cast<int64_t>(i));
    return Status::Ok();
  });
  return out;
}

std::string DescribeInput(const char* name, int index, const Tensor& t) {
  return std::string("input '") + name + "' (" + std::to_string(index) + ") has shape " + ShapeToString(t.shape());
}

}  // namespace transformer

void RegisterTransformerOps(KernelRegistry& registry) {
  transformer::RegisterAttentionOps(registry);
  transformer::RegisterFlexAttentionOps(registry);
  transformer::RegisterLinearAttentionOps(registry);
  transformer::RegisterRmsNormalizationOps(registry);
  transformer::RegisterRotaryEmbeddingOps(registry);
  transformer::RegisterSwiGluOps(registry);
  transformer::RegisterTensorScatterOps(registry);
  transformer::RegisterCausalConvWithStateOps(registry);
}

}  // namespace onyx::ops
