// Registration functions of the Loss family's files, called by RegisterLossOps (register.cc).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::loss {

void RegisterCrossEntropyOps(KernelRegistry& registry);  // cross_entropy.cc: NegativeLogLikelihoodLoss,
                                                         // SoftmaxCrossEntropyLoss
void RegisterOptimizerOps(KernelRegistry& registry);     // optimizers.cc: Adagrad, Adam, Momentum
                                                         // (domain ai.onnx.preview.training)
void RegisterSumToShapeOps(KernelRegistry& registry);    // sum_to_shape.cc: ai.onyx.internal.SumToShapeOf

}  // namespace onyx::ops::loss
