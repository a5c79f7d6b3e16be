#include "infer/op_registry.h"

namespace onyx::infer {

const OpInferenceRegistry& OpInferenceRegistry::Get() {
  static const OpInferenceRegistry registry = [] {
    OpInferenceRegistry r;
    RegisterElementwiseInference(r);
    RegisterTensorInference(r);
    RegisterShapeInference(r);
    RegisterNnInference(r);
    RegisterReductionInference(r);
    RegisterControlFlowInference(r);
    RegisterSequenceInference(r);
    RegisterMiscInference(r);
    RegisterContribInference(r);
    return r;
  }();
  return registry;
}

void OpInferenceRegistry::Add(std::string_view domain, std::string_view op_type, InferenceFn fn) {
  table_[{std::string(ir::CanonicalDomain(domain)), std::string(op_type)}] = fn;
}

InferenceFn OpInferenceRegistry::Find(std::string_view domain, std::string_view op_type) const {
  auto it = table_.find(std::make_pair(std::string(ir::CanonicalDomain(domain)), std::string(op_type)));
  return it == table_.end() ? nullptr : it->second;
}

}  // namespace onyx::infer
