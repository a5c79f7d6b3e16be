// The one list of operator families. Each family's register function (defined in src/ops/<family>/) adds the
// kernels of its operators; adding a family means adding one line here.
#pragma once

namespace onyx {
class KernelRegistry;
}

#define ONYX_OP_FAMILIES(X) \
  X(Elementwise)            \
  X(Reduction)              \
  X(TensorOps)              \
  X(NeuralNet)              \
  X(ControlFlow)            \
  X(Sequence)               \
  X(Conversion)              \
  X(Image)                   \
  X(Recurrent)               \
  X(Loss)                    \
  X(Random)                  \
  X(Signal)                  \
  X(String)                  \
  X(Transformer)             \
  X(ImageDecoding)           \
  X(MachineLearning)        \
  X(Nchwc)                  \
  X(Contrib)                \
  X(Quantized)              \
  X(Fused) /* last: aliases kernels registered above */

namespace onyx::ops {
#define ONYX_DECLARE_FAMILY(name) void Register##name##Ops(KernelRegistry& registry);
ONYX_OP_FAMILIES(ONYX_DECLARE_FAMILY)
#undef ONYX_DECLARE_FAMILY
}  // namespace onyx::ops
