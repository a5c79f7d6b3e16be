// TensorFlow operators of the recurrent family (see op_context.h).
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddRecurrentOps(std::map<std::string, OpFn>&) {}

}  // namespace onyx::convert::tf
