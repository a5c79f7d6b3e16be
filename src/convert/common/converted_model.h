// What the TensorFlow and TFLite converters share around their graph walks: the model they fill (built at
// default-domain opset 17, the operator forms they emit), the one error listing every operator without a converter,
// and the finishing steps (layout Transposes cancelled, the model moved to the requested opset).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "convert/common/transpose_optimizer.h"
#include "core/status.h"
#include "ir/model.h"

namespace onyx::convert {

// IR version 8, producer onyx, opset 17.
ir::Model NewConvertedModel(std::string graph_name);

// Ok when `missing` is empty; else Unsupported: "<path>: no converter for <framework> operator(s) A, B".
Status MissingOperators(const std::string& path, const std::string& framework, const std::set<std::string>& missing);

// Cancels the layout Transposes (OptimizeTransposes), then converts to `opset` when it is not 17.
Result<TransposeStats> FinishConvertedModel(ir::Model& model, int64_t opset);

}  // namespace onyx::convert
