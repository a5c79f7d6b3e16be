// Registration functions of the Transformer family's files (called by RegisterTransformerOps in register.cc)
// and the small numeric helpers they share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/data_type.h"
#include "core/tensor.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::transformer {

void RegisterAttentionOps(KernelRegistry& registry);            // attention.cc: Attention 23, 24, 25
void RegisterFlexAttentionOps(KernelRegistry& registry);        // flex_attention.cc: ai.onnx.preview FlexAttention
void RegisterLinearAttentionOps(KernelRegistry& registry);      // linear_attention.cc: LinearAttention 27
void RegisterRmsNormalizationOps(KernelRegistry& registry);     // rms_normalization.cc: RMSNormalization 23
void RegisterRotaryEmbeddingOps(KernelRegistry& registry);      // rotary_embedding.cc: RotaryEmbedding 23
void RegisterSwiGluOps(KernelRegistry& registry);               // swiglu.cc: SwiGLU 28
void RegisterTensorScatterOps(KernelRegistry& registry);        // tensor_scatter.cc: TensorScatter 24
void RegisterCausalConvWithStateOps(KernelRegistry& registry);  // causal_conv_with_state.cc: CausalConvWithState 27

// The function bodies that define these operators materialize intermediate tensors of the input type; rounding
// through T at the same points keeps float16 results as close as possible to theirs.
template <typename T>
inline double RoundThrough(double v) {
  return static_cast<double>(static_cast<ComputeType<T>>(FromDouble<T>(v)));
}

// Reads element i of a float tensor of type T as double.
template <typename T>
inline double Load(const T* p, int64_t i) {
  return static_cast<double>(static_cast<ComputeType<T>>(p[i]));
}

// A float tensor's values as doubles (any of the float types).
std::vector<double> FloatTensorToDoubles(const Tensor& t);

// "[2, 3]" style description of an input for error messages: "input 'Q' (0) has shape [2, 3]".
std::string DescribeInput(const char* name, int index, const Tensor& t);

}  // namespace onyx::ops::transformer
