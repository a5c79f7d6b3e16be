// TF1 TensorArrays (TensorArrayV3 and its Write/Read/Gather/Scatter/Split/Concat/Size/Close ops, as tf.map_fn and
// TF1 while loops use them) as ONNX sequences. A TensorArray is state behind a handle in TensorFlow, and its "flow"
// tensor orders the ops on it; here the flow is the sequence itself: every op reads the array from its flow input
// and a writing op gives the new sequence as its flow output, so loops carry the array as a sequence loop variable.
// The handle is a placeholder value that only says whether the array may grow (ConvertEnv::tensor_arrays).
#pragma once

#include <map>
#include <string>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddTensorArrayOps(std::map<std::string, OpFn>& table);

}  // namespace onyx::convert::tf
