// The table of per-operator inference functions, keyed by (domain, op_type). A function sees the node's
// resolved since_version in its context (InferenceContext::since_version) and handles every version itself.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "infer/op_context.h"

namespace onyx::infer {

using InferenceFn = Status (*)(InferenceContext& ctx);

class OpInferenceRegistry {
 public:
  // The registry with every family's functions (built once).
  static const OpInferenceRegistry& Get();

  // `domain` "" and "ai.onnx" are the same domain.
  void Add(std::string_view domain, std::string_view op_type, InferenceFn fn);
  InferenceFn Find(std::string_view domain, std::string_view op_type) const;
  size_t size() const { return table_.size(); }

 private:
  std::map<std::pair<std::string, std::string>, InferenceFn, std::less<>> table_;
};

// One per family file (ops_<family>.cc).
void RegisterElementwiseInference(OpInferenceRegistry& r);
void RegisterTensorInference(OpInferenceRegistry& r);
void RegisterShapeInference(OpInferenceRegistry& r);
void RegisterNnInference(OpInferenceRegistry& r);
void RegisterReductionInference(OpInferenceRegistry& r);
void RegisterControlFlowInference(OpInferenceRegistry& r);
void RegisterSequenceInference(OpInferenceRegistry& r);
void RegisterMiscInference(OpInferenceRegistry& r);
void RegisterContribInference(OpInferenceRegistry& r);  // com.microsoft

}  // namespace onyx::infer
