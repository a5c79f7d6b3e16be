// TensorList operators (TensorListReserve/FromTensor/SetItem/GetItem/Stack/Length/PushBack/PopBack/Concat(V2)/
// Split/Scatter(V2)/ScatterIntoExistingList/Gather/Resize/ElementShape, EmptyTensorList) as ONNX sequence
// operators; loops carry the lists as sequence loop variables.
#pragma once

#include <map>
#include <string>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddTensorListOps(std::map<std::string, OpFn>& table);

}  // namespace onyx::convert::tf
