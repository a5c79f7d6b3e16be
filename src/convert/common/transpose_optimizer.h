// Removes the Transpose nodes a channels-last to channels-first translation introduces. Converters of
// channels-last frameworks (Keras, TF, TFLite) wrap every channels-first ONNX op (Conv, pooling, ...) in a pair of
// Transposes; this pass then, until nothing changes:
//   - merges Transpose(Transpose(x)) into one Transpose, or into nothing when the two are inverse;
//   - folds a Transpose of a constant into the constant;
//   - pushes a Transpose down through layout-agnostic ops (elementwise unary ops, binary ops whose other input is
//     a constant or a Transpose with the same permutation, Concat, Pad of constant pads), so that it meets its
//     inverse and cancels.
// Graph inputs and outputs keep their names and layouts.
#pragma once

#include "ir/model.h"

namespace onyx::convert {

struct TransposeStats {
  int before = 0;  // Transpose nodes before the pass
  int after = 0;
};

TransposeStats OptimizeTransposes(ir::Graph& graph);

}  // namespace onyx::convert
