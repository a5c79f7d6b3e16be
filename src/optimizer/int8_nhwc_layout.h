// The 8-bit layout pass: keeps the activations of fused int8 graphs channels last ([N, H, W, C]) between the
// operators that can run so, as ONNX Runtime's NHWC transformer does for its quantized operators. oneDNN's int8
// convolutions read and write channels last; in the ONNX layout every QLinearConv paid a reorder of its input and a
// transposition of its output. The pass rewrites QLinearConv with constant int8 weights (zero points 0) into
// ai.onyx.internal.QLinearConv with channels_last = 1, and the 8-bit operators between them (ai.onyx.internal
// QLinearAdd of two channels-last values, QLinearConcat and 8-bit Split along the channels, MaxPool,
// QLinearGlobalAveragePool, the byte-table operators, nearest Resize; per-tensor DequantizeLinear, unary activations
// and QuantizeLinear where the float values between them are read by such operators alone) to read channels-last
// values; a Transpose goes in
// only where a value enters the channels-last region or a channels-first reader (or a graph output) needs it; where the
// value entering is a float QuantizeLinear's result (a model's input), the quantization itself writes channels last
// instead (ai.onyx.internal.QuantizeLinear with channels_last = 1). Every operator computes exactly what it computed
// channels first (integer sums, the same requantization), so results stay bit-identical.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites the main graph; returns how many QLinearConv nodes now run channels last (0: graph unchanged).
// Subgraphs are left alone.
Result<int> ApplyInt8NhwcLayout(ir::Model& model);

}  // namespace onyx::optimizer
