// Registration functions of the Random family's files, called by RegisterRandomOps (register.cc).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::random {

void RegisterDistributionOps(KernelRegistry& registry);  // distributions.cc: RandomUniform, RandomNormal,
                                                         // RandomUniformLike, RandomNormalLike
void RegisterSamplingOps(KernelRegistry& registry);      // sampling.cc: Bernoulli, Multinomial

}  // namespace onyx::ops::random
