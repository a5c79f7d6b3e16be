// The float model made ready for static quantization: the exact, standard-ONNX rewrites of the optimizer's basic
// and extended levels (BatchNormalization, Mul/Add by per-channel constants and zero Pads folded into the Conv
// before them, MatMul + Add into Gemm, constant folding, Identity/Cast clean-ups, dead code). ONNX Runtime's
// quantization tool optimizes the model first for the same reason: each quantized operator then reads and writes
// the tensors the fused kernels do, and a per-channel weight scale sees the real (folded) weights
// (bench/quantize_quality_trained.py, nsfwjs MobileNet-v2: 94.4% top-1 agreement unfolded, 97.6% folded).
#pragma once

#include "core/status.h"
#include "ir/model.h"
#include "quantize/report.h"

namespace onyx::quantize {

// Rewrites `model` in place (main graph only) and adds a note per pass that changed something. Fails if a rewrite
// left an operator outside the default domain (the quantized model must stay standard ONNX).
Status PrepareForQuantization(ir::Model& model, int threads, QuantizeReport* report);

// The constant clean-ups alone (constant folding, Identity elimination, dead code), for dynamic quantization, whose
// selection needs each weight as an initializer: torch writes a weight shared by several layers (cloned layers, tied
// embeddings) once and feeds the other users through Identity nodes, which left all but the first layer in float.
Status PrepareConstants(ir::Model& model, int threads, QuantizeReport* report);

}  // namespace onyx::quantize
