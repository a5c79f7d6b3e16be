// Registration functions of the NeuralNet family's files, called by RegisterNeuralNetOps (register.cc).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::nn {

void RegisterMatMulOps(KernelRegistry& registry);         // matmul.cc: MatMul, MatMulInteger, QLinearMatMul
void RegisterGemmOps(KernelRegistry& registry);           // gemm.cc: Gemm
void RegisterConvOps(KernelRegistry& registry);           // conv.cc: Conv, ConvInteger, QLinearConv
void RegisterConvTransposeOps(KernelRegistry& registry);  // conv_transpose.cc: ConvTranspose
void RegisterPoolOps(KernelRegistry& registry);           // pool.cc: MaxPool, AveragePool, LpPool, Global*Pool
void RegisterBatchNormOps(KernelRegistry& registry);      // batch_norm.cc: BatchNormalization
void RegisterNormalizationOps(KernelRegistry& registry);  // normalization.cc: Instance/Layer/Group/MVN
void RegisterLrnOps(KernelRegistry& registry);            // lrn.cc: LRN
void RegisterQuantizeOps(KernelRegistry& registry);       // quantize.cc: Quantize/Dequantize/DynamicQuantize

}  // namespace onyx::ops::nn
