// TensorFlow operators of the spectral family (see op_context.h).
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddSpectralOps(std::map<std::string, OpFn>&) {}

}  // namespace onyx::convert::tf
