#include "ops/ml/ml_common.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterMachineLearningOps(KernelRegistry& registry) {
  ml::RegisterTreeEnsembleOps(registry);
  ml::RegisterLinearOps(registry);
  ml::RegisterSvmOps(registry);
  ml::RegisterLabelEncoderOps(registry);
  ml::RegisterFeatureTransformOps(registry);
  ml::RegisterOneHotEncoderOps(registry);
  ml::RegisterArrayFeatureExtractorOps(registry);
  ml::RegisterFeatureVectorizerOps(registry);
  ml::RegisterMapOps(registry);
}

}  // namespace onyx::ops
