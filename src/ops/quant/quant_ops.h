// ONNX Runtime's com.microsoft 8-bit operators (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
// QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat, QLinearSoftmax, QLinearWhere, QGemm, ...), computing
// what it computes bit for bit, and the ones onyx's QDQ fusion (src/optimizer/qdq_fusion.cc) and 8-bit layout pass
// emit in the private domain ai.onyx.internal.
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::quant {

void RegisterQLinearAddOps(KernelRegistry& registry);
void RegisterQLinearPoolOps(KernelRegistry& registry);
void RegisterMaxPool8BitOps(KernelRegistry& registry);
void RegisterQLinearConvNhwcOps(KernelRegistry& registry);
void RegisterMatMulIntegerToFloatOps(KernelRegistry& registry);
void RegisterQGemmOps(KernelRegistry& registry);
void RegisterQuantizeNhwcOps(KernelRegistry& registry);
void RegisterQLinearConcatOps(KernelRegistry& registry);
void RegisterQLinearLookupOps(KernelRegistry& registry);
void RegisterQLinearSoftmaxOps(KernelRegistry& registry);
void RegisterQLinearAveragePoolOps(KernelRegistry& registry);
void RegisterRequantizeInt32Ops(KernelRegistry& registry);

}  // namespace onyx::ops::quant
