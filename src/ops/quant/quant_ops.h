// The quantized operators onyx's QDQ fusion (src/optimizer/qdq_fusion.cc) emits in its private domain
// ai.onyx.internal, computing what ONNX Runtime's com.microsoft operators of the same names compute, bit for bit.
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

}  // namespace onyx::ops::quant
