// The blocked-layout pass: rewrites float32 2-D convolutions with constant weights, and the pooling, residual
// Add, activation and channel-Concat nodes between them, into the onyx-internal Nchwc* operators (see
// src/ir/nchwc_ops.h), so that values flow between convolutions in oneDNN's nChw16c (AVX-512) or nChw8c (AVX2) layout
// and the layout changes only where a plain consumer (or a graph output) needs the value. It also fuses a convolution's
// single-consumer residual Add and activation into the convolution.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites the main graph; returns how many Conv nodes now run blocked. Subgraphs are left alone. `block` is the
// channel block (8 or 16, ir/nchwc_ops.h); 0 takes this process's choice, kernels::NchwcBlockSize() (from the CPU as
// capped by ONYX_MAX_ISA), which the caller must have checked is not 0 (kernels::BlockedConvolutionIsFast).
Result<int> ApplyNchwcLayout(ir::Model& model, int block = 0);

}  // namespace onyx::optimizer
