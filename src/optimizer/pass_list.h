// The one list of optimization passes, in the order the driver runs them in each round. Adding a pass: write
// src/optimizer/<name>.cc defining `Result<int> Run<Name>(ir::Graph&, const PassContext&)` in onyx::optimizer
// and add one line here, with the lowest level that runs it (see docs/optimizer.md).
#pragma once

#include "optimizer/pass.h"

#define ONYX_OPTIMIZER_PASSES(X)                                                                                \
  /* basic: clean-ups that any runtime can take */                                                              \
  X(DeadCodeElimination, kBasic) /* first too: dead nodes are not worth folding */                              \
  X(ConstantFolding, kBasic)                                                                                    \
  X(EliminateIdentity, kBasic)                                                                                  \
  X(EliminateCast, kBasic)                                                                                      \
  X(FuseReshapeChain, kBasic)                                                                                   \
  X(FuseTransposePair, kBasic)                                                                                  \
  X(SinkTransposeThroughBinary, kBasic)                                                                         \
  X(CommonSubexpression, kBasic)                                                                                \
  X(DeadCodeElimination, kBasic)                                                                                \
  /* extended: several nodes become one operator */                                                             \
  X(ConvertQdqS8ToU8, kExtended)      /* int8 Q -> DQ pairs to uint8, as ONNX Runtime's x86-64 build */         \
  X(FuseQdqGroups, kExtended)         /* before the float fusions: QDQ groups to integer operators */           \
  X(FuseQLinearLookupMul, kExtended)  /* after it: x * f(x) of 8-bit tables as one table */                     \
  X(DropSplitQdq, kExtended)          /* DQ -> Split -> Q with equal parameters: the Split on 8-bit data */     \
  X(FuseQdqUnaryTable, kExtended)     /* DQ -> activation -> Q on 8-bit data: one byte table */                 \
  X(FuseIntegerRequantize, kExtended) /* converted TFLite: bias Add, Cast, Mul, Q after ConvInteger */          \
  X(FuseWeightOnlyMatMul, kExtended)  /* level all inside: DequantizeLinear + MatMul -> MatMulNBits */          \
  X(FusePadConv, kExtended)                                                                                     \
  X(TrimConvTaps, kExtended) /* after FusePadConv: taps of dilated Convs that never reach the input */          \
  X(FuseConvBatchNorm, kExtended)                                                                               \
  X(DecomposeBatchNorm, kExtended) /* the others: a scale and a bias, which FuseConvScaleBias may take */       \
  X(FuseConvScaleBias, kExtended)                                                                               \
  X(FuseGemmScaleBias, kExtended)                                                                               \
  X(FuseMatMulAdd, kExtended)                                                                                   \
  X(FuseGelu, kExtended)                                                                                        \
  X(FuseHardSwish, kExtended)                                                                                   \
  X(FuseLayerNorm, kExtended)                                                                                   \
  X(FuseGroupNorm, kExtended)     /* Reshape, InstanceNormalization, Reshape, Mul, Add -> GroupNormalization */ \
  X(FuseSkipLayerNorm, kExtended) /* ort_fusions only: Add + LayerNormalization, as ONNX Runtime */             \
  X(FuseMatMulScale, kExtended)   /* ort_fusions only: MatMul and a scalar factor -> FusedMatMul alpha */       \
  X(FuseAttention, kExtended)                                                                                   \
  X(FuseDynamicQuantMatMul, kExtended) /* last: the passes above read types through the unfused Cast */

namespace onyx::optimizer {
#define ONYX_DECLARE_PASS(name, level) Result<int> Run##name(ir::Graph& graph, const PassContext& ctx);
ONYX_OPTIMIZER_PASSES(ONYX_DECLARE_PASS)
#undef ONYX_DECLARE_PASS
}  // namespace onyx::optimizer
