// Single-step recurrent cells: RNN (TensorFlow's RNNCell), LSTM (the full kernel) and SVDF. Their state inputs are
// TFLite variable tensors, zeros at the start of a run: a converted model runs one invocation from those zeros, so
// the recurrent terms drop out (x W^T + 0 R^T). A state that is not a variable would need them and is not
// converted.
#include "convert/tflite/lstm_gates.h"
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

// LSTM(input [B, I], the 17 weight inputs of the sequence LSTMs (1-17), output_state 18, cell_state 19, layer-norm
// coefficients 20-23) -> output [B, n_output]: one step of lstm_gates.h's equations. LSTMOptions: activation 0,
// cell_clip 1, proj_clip 2, kernel_type 3 (FULL 0; BASIC, the 5-input fused kernel, is not converted).
Status Lstm(OpContext& c) {
  LstmOptions options;
  ONYX_ASSIGN_OR_RETURN(options.activation, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(options.cell_clip, c.OptFloat(1));
  ONYX_ASSIGN_OR_RETURN(options.proj_clip, c.OptFloat(2));
  ONYX_ASSIGN_OR_RETURN(int8_t kernel, c.OptByte(3));
  if (kernel != 0) return c.Unsupported("the BASIC LSTM kernel");
  if (c.num_outputs() != 1) return c.Unsupported("an LSTM with " + std::to_string(c.num_outputs()) + " outputs");
  ONYX_RETURN_IF_ERROR(RequireVariableState(c, 18));
  ONYX_RETURN_IF_ERROR(RequireVariableState(c, 19));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, c.InShape(0));
  if (in.size() != 2 || in[0] <= 0) return c.Unsupported("an input that is not [batch, n_input]");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  LstmLayout layout;
  layout.layer_norm = 20;
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> h, ExplicitLstm(c, {x}, in[0], layout, options, ""));
  return c.SetOutput(h[0]);
}

// SVDF(input [B, I], weights_feature [F, I], weights_time [F, M], bias [U] (optional), state [B, F * M]) ->
// [B, U], U = F / rank; SVDFOptions: rank 0, activation 1. The kernel shifts the state left by one and writes the
// new feature column x Wf^T at its end, then sums state * weights_time over the memory and the rank's filters of
// each unit. From a zero state only the new column is non-zero: act(bias + sum_rank((x Wf^T) * Wt[:, M - 1])).
Status Svdf(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t rank, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(1));
  ONYX_RETURN_IF_ERROR(RequireVariableState(c, 4));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(Tensor feature, c.FloatConst(1, "feature weights"));
  ONYX_ASSIGN_OR_RETURN(Tensor time, c.FloatConst(2, "time weights"));
  if (in.size() != 2 || feature.rank() != 2 || feature.dim(1) != in[1]) {
    return c.Error("the input is not [batch, n_input] or the feature weights not [filters, n_input]");
  }
  const int64_t filters = feature.dim(0);
  if (time.rank() != 2 || time.dim(0) != filters || time.dim(1) < 1)
    return c.Error("time weights not [filters, memory]");
  if (rank <= 0 || filters % rank != 0) return c.Error("rank " + std::to_string(rank) + " does not divide the filters");
  const int64_t units = filters / rank, memory = time.dim(1);
  ONYX_ASSIGN_OR_RETURN(Tensor last, Tensor::Create(DataType::kFloat, {filters}));
  for (int64_t f = 0; f < filters; ++f) last.data<float>()[f] = time.data<float>()[f * memory + memory - 1];
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  std::string y = c.b.Op1("Gemm", {x, c.b.Constant(c.Name("feature_weights"), std::move(feature))}, c.Name("features"),
                          {ir::IntAttr("transB", 1)});
  y = c.b.Op1("Mul", {y, c.b.Constant(c.Name("newest_time_weights"), std::move(last))}, c.Name("weighted"));
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("unit_shape"), {0, units, rank})}, c.Name("by_unit"));
  y = c.b.Op1("ReduceSum", {y, c.b.ConstInts(c.Name("rank_axis"), {2})}, c.Name("units"), {ir::IntAttr("keepdims", 0)});
  if (c.HasInput(3)) {
    ONYX_ASSIGN_OR_RETURN(Tensor bias, c.FloatConst(3, "bias"));
    if (bias.size() != units) return c.Error("the bias does not hold one value per unit");
    y = c.b.Op1("Add", {y, c.b.Constant(c.Name("bias"), std::move(bias))}, c.Name("biased"));
  }
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(y);
}

}  // namespace

void AddCellOps(std::map<int32_t, OpFn>& t) {
  t[op::kRnn] = RnnCell;
  t[op::kLstm] = Lstm;
  t[op::kSvdf] = Svdf;
}

}  // namespace onyx::convert::tflite
