// TensorFlow operators of the sparse family (see op_context.h).
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddSparseOps(std::map<std::string, OpFn>&) {}

}  // namespace onyx::convert::tf
