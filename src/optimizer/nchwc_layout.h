// The blocked-layout pass: rewrites float32 2-D convolutions with constant weights, and the pooling, residual
// Add, activation and channel-Concat nodes between them, into the onyx-internal Nchwc* operators (see
// src/ops/nchwc/nchwc_names.h), so that values flow between convolutions in oneDNN's nChw16c layout and the
// layout changes only where a plain consumer (or a graph output) needs the value. It also fuses a convolution's
// single-consumer residual Add and activation into the convolution.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites the main graph; returns how many Conv nodes now run blocked. Subgraphs are left alone.
Result<int> ApplyNchwcLayout(ir::Model& model);

}  // namespace onyx::optimizer
