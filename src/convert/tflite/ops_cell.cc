// Single-step recurrent cells: RNN (TensorFlow's RNNCell). Its state input is a TFLite variable tensor, zeros at
// the start of a run: a converted model runs one invocation from those zeros, so the recurrent term drops out
// (x W^T + 0 R^T). A state that is not a variable would need the recurrent term and is not converted.
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

Status RequireVariableState(OpContext& c, size_t k) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.InTensor(k));
  if (!t->is_variable || c.IsConstInput(k)) return c.Unsupported("a state input that is not a variable tensor");
  return Status::Ok();
}

// RNN(input [B, I], weights [H, I], recurrent_weights [H, H], bias [H], hidden_state [B, H]) -> output [B, H]
// = activation(x W^T + b); RNNOptions: activation 0.
Status RnnCell(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(0));
  ONYX_RETURN_IF_ERROR(RequireVariableState(c, 4));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor w, c.FloatConst(1, "weights"));
  ONYX_ASSIGN_OR_RETURN(Tensor bias, c.FloatConst(3, "bias"));
  std::string y =
      c.b.Op1("Gemm", {x, c.b.Constant(c.Name("weights"), std::move(w)), c.b.Constant(c.Name("bias"), std::move(bias))},
              c.Name("rnn_cell"), {ir::IntAttr("transB", 1)});
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(y);
}

}  // namespace

void AddCellOps(std::map<int32_t, OpFn>& t) { t[op::kRnn] = RnnCell; }

}  // namespace onyx::convert::tflite
