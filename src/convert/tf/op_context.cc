#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

Result<TfValue> OpContext::Input(size_t i) const {
  if (i >= inputs_.size()) {
    return InvalidArgument(node.Where() + ": has " + std::to_string(inputs_.size()) + " inputs, needs at least " +
                           std::to_string(i + 1));
  }
  return inputs_[i];
}

Result<Tensor> OpContext::ConstInput(size_t i, const std::string& what) const {
  ONYX_ASSIGN_OR_RETURN(TfValue v, Input(i));
  if (v.constant == nullptr) {
    return Unsupported(node.Where() + ": the " + what + " (input " + std::to_string(i) +
                       ") must be a constant to convert, and is computed at run time");
  }
  return *v.constant;
}

Result<std::vector<int64_t>> OpContext::ConstInts(size_t i, const std::string& what) const {
  ONYX_ASSIGN_OR_RETURN(Tensor t, ConstInput(i, what));
  if (t.type() != DataType::kInt32 && t.type() != DataType::kInt64) {
    return InvalidArgument(node.Where() + ": the " + what + " must hold integers, not " +
                           std::string(DataTypeName(t.type())));
  }
  return t.ToInt64Vector();
}

const std::map<std::string, OpFn>& OpTable() {
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t;
    AddNnOps(t);
    AddMathOps(t);
    AddLogicalOps(t);
    AddReductionOps(t);
    AddArrayOps(t);
    AddCreationOps(t);
    AddImageOps(t);
    AddControlFlowOps(t);
    AddSparseOps(t);
    AddSpectralOps(t);
    AddRecurrentOps(t);
    AddNumericOps(t);
    // Last: wraps the NHWC converters registered above with their NCHW forms.
    AddChannelsFirstForms(t);
    return t;
  }();
  return table;
}

}  // namespace onyx::convert::tf
