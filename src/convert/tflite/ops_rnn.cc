// Recurrent layers: UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN -> ONNX RNN,
// UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM -> ONNX LSTM. The state inputs are TFLite variable
// tensors (zeros at the start of a run): ONNX's omitted initial states are zeros too. TFLite's gate weights come one
// tensor per gate; ONNX stacks them (LSTM order input, output, forget, cell) and takes the sequence time-major, so
// batch-major sequences are transposed around the op. LSTMs that ONNX LSTM cannot express (CIFG, projection,
// clipping, layer norm, other cell activations) take explicit gates unrolled over the sequence (lstm_gates.h).
#include <algorithm>
#include <cstring>

#include "convert/tflite/lstm_gates.h"
#include "convert/tflite/op_context.h"
#include "core/limits.h"

namespace onyx::convert::tflite {
namespace {

// Concatenates float constants along dim 0 and adds a leading unit dim (ONNX's num_directions).
Result<Tensor> Stack(const std::vector<Tensor>& parts) {
  if (parts.empty()) return InvalidArgument("nothing to stack");
  Shape shape = parts[0].shape();
  int64_t rows = 0;
  for (const Tensor& p : parts) {
    if (p.rank() != static_cast<int64_t>(shape.size()) || p.type() != DataType::kFloat) {
      return InvalidArgument("recurrent weights of different ranks or types");
    }
    for (size_t d = 1; d < shape.size(); ++d) {
      if (p.dim(static_cast<int64_t>(d)) != shape[d]) return InvalidArgument("recurrent weights of different shapes");
    }
    rows += p.dim(0);
  }
  Shape out_shape = {1, rows};
  out_shape.insert(out_shape.end(), shape.begin() + 1, shape.end());
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DataType::kFloat, out_shape));
  size_t at = 0;
  for (const Tensor& p : parts) {
    std::memcpy(static_cast<char*>(out.raw()) + at, p.raw(), p.nbytes());
    at += p.nbytes();
  }
  return out;
}

Result<Tensor> Zeros(int64_t n) { return Tensor::Create(DataType::kFloat, {n}, true); }

// The fused activation as an ONNX recurrent activation name (TFLite applies it to the cell input and output).
Result<std::string> ActivationName(OpContext& c, int8_t kind) {
  if (kind == 4) return std::string("Tanh");
  if (kind == 1) return std::string("Relu");
  return c.Unsupported("recurrent activation " + std::to_string(kind));
}

// The sequence as ONNX wants it ([time, batch, features]) and the output transposed back.
std::string TimeMajor(OpContext& c, const std::string& x, bool time_major) {
  return time_major ? x : c.b.Op1("Transpose", {x}, c.Name("time_major"), {ir::IntsAttr("perm", {1, 0, 2})});
}

// Y [time, directions, batch, hidden] -> TFLite's [time, batch, directions * hidden] or batch-major.
std::string SequenceOut(OpContext& c, const std::string& y, bool time_major, int64_t hidden_total) {
  std::string v = c.b.Op1("Transpose", {y}, c.Name("directions_last"), {ir::IntsAttr("perm", {0, 2, 1, 3})});
  v = c.b.Op1("Reshape", {v, c.b.ConstInts(c.Name("merged_shape"), {0, 0, hidden_total})}, c.Name("merged"));
  return time_major ? v : c.b.Op1("Transpose", {v}, c.Name("batch_major"), {ir::IntsAttr("perm", {1, 0, 2})});
}

// UNIDIRECTIONAL_SEQUENCE_RNN(input, weights [H, I], recurrent_weights [H, H], bias [H], hidden_state);
// SequenceRNNOptions: time_major 0, activation 1.
Status SequenceRnn(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(bool time_major, c.OptBool(0));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(1));
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c, activation));
  if (c.IsConstInput(4)) return c.Unsupported("a constant initial hidden state");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor w, c.FloatConst(1, "weights"));
  ONYX_ASSIGN_OR_RETURN(Tensor r, c.FloatConst(2, "recurrent weights"));
  ONYX_ASSIGN_OR_RETURN(Tensor bias, c.FloatConst(3, "bias"));
  const int64_t hidden = w.dim(0);
  ONYX_ASSIGN_OR_RETURN(Tensor zeros, Zeros(hidden));
  ONYX_ASSIGN_OR_RETURN(Tensor W, Stack({w}));
  ONYX_ASSIGN_OR_RETURN(Tensor R, Stack({r}));
  ONYX_ASSIGN_OR_RETURN(Tensor B, Stack({bias, zeros}));
  ONYX_ASSIGN_OR_RETURN(B, B.Reshaped({1, 2 * hidden}));
  std::vector<std::string> outs =
      c.b.Op("RNN",
             {TimeMajor(c, x, time_major), c.b.Constant(c.Name("W"), std::move(W)),
              c.b.Constant(c.Name("R"), std::move(R)), c.b.Constant(c.Name("B"), std::move(B))},
             c.Name("rnn"), {ir::IntAttr("hidden_size", hidden), ir::StringsAttr("activations", {act})}, 2);
  return c.SetOutput(SequenceOut(c, outs[0], time_major, hidden));
}

// BIDIRECTIONAL_SEQUENCE_RNN(input, fw weights, fw recurrent weights, fw bias, fw hidden state, the same four
// backward, aux input, fw aux weights, bw aux weights) -> ONNX RNN bidirectional; BidirectionalSequenceRNNOptions:
// time_major 0, activation 1, merge_outputs 2. Outputs fw (and bw unless merged), each at its own time step.
Status BidirectionalRnn(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(bool time_major, c.OptBool(0));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(1));
  ONYX_ASSIGN_OR_RETURN(bool merge, c.OptBool(2));
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c, activation));
  for (size_t k = 9; k < c.num_inputs(); ++k) {
    if (c.HasInput(k)) return c.Unsupported("auxiliary inputs");
  }
  if (c.IsConstInput(4) || c.IsConstInput(8)) return c.Unsupported("a constant initial hidden state");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  std::vector<Tensor> w(2), r(2), bias(2);
  for (size_t d = 0; d < 2; ++d) {
    ONYX_ASSIGN_OR_RETURN(w[d], c.FloatConst(1 + 4 * d, "weights"));
    ONYX_ASSIGN_OR_RETURN(r[d], c.FloatConst(2 + 4 * d, "recurrent weights"));
    ONYX_ASSIGN_OR_RETURN(bias[d], c.FloatConst(3 + 4 * d, "bias"));
  }
  const int64_t hidden = w[0].dim(0);
  ONYX_ASSIGN_OR_RETURN(Tensor zeros, Zeros(hidden));
  ONYX_ASSIGN_OR_RETURN(Tensor W, Stack({w[0], w[1]}));
  ONYX_ASSIGN_OR_RETURN(Tensor R, Stack({r[0], r[1]}));
  ONYX_ASSIGN_OR_RETURN(Tensor B, Stack({bias[0], zeros, bias[1], zeros}));
  ONYX_ASSIGN_OR_RETURN(W, W.Reshaped({2, hidden, w[0].dim(1)}));
  ONYX_ASSIGN_OR_RETURN(R, R.Reshaped({2, hidden, hidden}));
  ONYX_ASSIGN_OR_RETURN(B, B.Reshaped({2, 2 * hidden}));
  std::vector<std::string> outs =
      c.b.Op("RNN",
             {TimeMajor(c, x, time_major), c.b.Constant(c.Name("W"), std::move(W)),
              c.b.Constant(c.Name("R"), std::move(R)), c.b.Constant(c.Name("B"), std::move(B))},
             c.Name("rnn"),
             {ir::IntAttr("hidden_size", hidden), ir::StringAttr("direction", "bidirectional"),
              ir::StringsAttr("activations", {act, act})},
             2);
  if (merge) return c.SetOutput(SequenceOut(c, outs[0], time_major, 2 * hidden));
  for (int64_t d = 0; d < 2; ++d) {
    std::string yd = c.b.Op1("Slice",
                             {outs[0], c.b.ConstInts(c.Name("start"), {d}), c.b.ConstInts(c.Name("end"), {d + 1}),
                              c.b.ConstInts(c.Name("axis"), {1})},
                             c.Name(d == 0 ? "forward" : "backward"));
    ONYX_RETURN_IF_ERROR(c.SetOutput(SequenceOut(c, yd, time_major, hidden), static_cast<size_t>(d)));
  }
  return Status::Ok();
}

// One direction of a TFLite LSTM that ONNX LSTM expresses (Explicit() is false): inputs from `base` on (TFLite order: 4
// input weights i f c o, 4 recurrent weights, 3 peepholes, 4 biases, projection weights and bias); ONNX order is i o f
// c.
struct LstmWeights {
  Tensor W, R, B, P;
  bool peephole = false;
  int64_t hidden = 0;
};

Result<LstmWeights> LstmDirection(OpContext& c, size_t w0, size_t r0, size_t p0, size_t b0, size_t proj) {
  if (!c.HasInput(w0)) return c.Unsupported("an LSTM without input gate (CIFG)");
  if (c.HasInput(proj)) return c.Unsupported("an LSTM with a projection");
  std::vector<Tensor> w(4), r(4), b(4);
  for (size_t g = 0; g < 4; ++g) {
    ONYX_ASSIGN_OR_RETURN(w[g], c.FloatConst(w0 + g, "input weights"));
    ONYX_ASSIGN_OR_RETURN(r[g], c.FloatConst(r0 + g, "recurrent weights"));
    ONYX_ASSIGN_OR_RETURN(b[g], c.FloatConst(b0 + g, "gate bias"));
  }
  LstmWeights out;
  out.hidden = w[0].dim(0);
  // TFLite i f c o -> ONNX i o f c
  ONYX_ASSIGN_OR_RETURN(out.W, Stack({w[0], w[3], w[1], w[2]}));
  ONYX_ASSIGN_OR_RETURN(out.R, Stack({r[0], r[3], r[1], r[2]}));
  ONYX_ASSIGN_OR_RETURN(Tensor zeros, Zeros(4 * out.hidden));
  ONYX_ASSIGN_OR_RETURN(Tensor bias, Stack({b[0], b[3], b[1], b[2], zeros}));
  ONYX_ASSIGN_OR_RETURN(out.B, bias.Reshaped({1, 8 * out.hidden}));
  out.peephole = c.HasInput(p0 + 1);
  if (out.peephole) {
    std::vector<Tensor> p(3);
    for (size_t g = 0; g < 3; ++g) {
      ONYX_ASSIGN_OR_RETURN(p[g], c.FloatConst(p0 + g, "peephole weights"));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor stacked, Stack({p[0], p[2], p[1]}));  // i f o -> ONNX i o f
    ONYX_ASSIGN_OR_RETURN(out.P, stacked.Reshaped({1, 3 * out.hidden}));
  }
  return out;
}

// Options (both LSTMs): activation 0, cell_clip 1, proj_clip 2; UnidirectionalSequenceLSTMOptions time_major 3;
// BidirectionalSequenceLSTMOptions merge_outputs 3, time_major 4 (default true).
Result<LstmOptions> ReadLstmOptions(OpContext& c) {
  LstmOptions o;
  ONYX_ASSIGN_OR_RETURN(o.activation, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(o.cell_clip, c.OptFloat(1));
  ONYX_ASSIGN_OR_RETURN(o.proj_clip, c.OptFloat(2));
  return o;
}

// ONNX LSTM takes tanh / relu as the cell activation here; the rest (and CIFG, projection, clipping, layer norm)
// take the explicit gates.
bool Explicit(const OpContext& c, const LstmLayout& l, const LstmOptions& o) {
  return NeedsExplicitLstm(c, l, o) || (o.activation != 1 && o.activation != 4);
}

// The steps x_t [batch, features] of input 0 in time order.
Result<std::vector<std::string>> Steps(OpContext& c, const std::string& x, bool time_major, int64_t* batch) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.InShape(0));
  if (s.size() != 3) return c.Unsupported("a sequence input of rank " + std::to_string(s.size()));
  const int64_t steps = time_major ? s[0] : s[1];
  *batch = time_major ? s[1] : s[0];
  if (steps <= 0 || *batch <= 0) return c.Unsupported("a sequence without static length and batch");
  // The length is a dim the file claims, and every step becomes a few dozen nodes: bounded before any is made.
  const int64_t max_steps = EnvLimit("ONYX_MAX_UNROLLED_STEPS", 10000);
  if (steps > max_steps) {
    return c.Error("a sequence of " + std::to_string(steps) + " steps: an LSTM that ONNX LSTM cannot express is " +
                   "unrolled step by step, up to " + std::to_string(max_steps) +
                   " steps (raise the limit with ONYX_MAX_UNROLLED_STEPS)");
  }
  std::vector<std::string> out;
  for (int64_t t = 0; t < steps; ++t) {
    std::string v = c.b.Op1("Slice",
                            {x, c.b.ConstInts(c.Name("start"), {t}), c.b.ConstInts(c.Name("end"), {t + 1}),
                             c.b.ConstInts(c.Name("axis"), {time_major ? 0 : 1})},
                            c.Name("step"));
    out.push_back(c.b.Op1("Reshape", {v, c.b.ConstInts(c.Name("step_shape"), {*batch, s[2]})}, c.Name("step")));
  }
  return out;
}

// Step outputs h_t [batch, n] -> the sequence [time, batch, n] or [batch, time, n].
std::string Sequence(OpContext& c, const std::vector<std::string>& hs, bool time_major, const std::string& what) {
  std::vector<std::string> parts;
  for (const std::string& h : hs) {
    parts.push_back(c.b.Op1("Unsqueeze", {h, c.b.ConstInts(c.Name("time_axis"), {time_major ? 0 : 1})}, c.Name(what)));
  }
  if (parts.size() == 1) return parts[0];
  return c.b.Op1("Concat", parts, c.Name(what), {ir::IntAttr("axis", time_major ? 0 : 1)});
}

Status UnidirectionalLstm(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(LstmOptions options, ReadLstmOptions(c));
  ONYX_ASSIGN_OR_RETURN(bool time_major, c.OptBool(3));
  if (c.IsConstInput(18) || c.IsConstInput(19)) return c.Unsupported("constant initial states");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  LstmLayout layout;
  layout.layer_norm = 20;
  if (Explicit(c, layout, options)) {
    int64_t batch = 0;
    ONYX_ASSIGN_OR_RETURN(std::vector<std::string> steps, Steps(c, x, time_major, &batch));
    ONYX_ASSIGN_OR_RETURN(std::vector<std::string> hs, ExplicitLstm(c, steps, batch, layout, options, ""));
    return c.SetOutput(Sequence(c, hs, time_major, "sequence"));
  }
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c, options.activation));
  ONYX_ASSIGN_OR_RETURN(LstmWeights lw, LstmDirection(c, 1, 5, 9, 12, 16));
  std::vector<std::string> ins = {TimeMajor(c, x, time_major), c.b.Constant(c.Name("W"), std::move(lw.W)),
                                  c.b.Constant(c.Name("R"), std::move(lw.R)),
                                  c.b.Constant(c.Name("B"), std::move(lw.B))};
  if (lw.peephole) {
    ins.insert(ins.end(), {"", "", "", c.b.Constant(c.Name("P"), std::move(lw.P))});
  }
  std::vector<std::string> outs =
      c.b.Op("LSTM", ins, c.Name("lstm"),
             {ir::IntAttr("hidden_size", lw.hidden), ir::StringsAttr("activations", {"Sigmoid", act, act})}, 3);
  return c.SetOutput(SequenceOut(c, outs[0], time_major, lw.hidden));
}

// BIDIRECTIONAL_SEQUENCE_LSTM with explicit gates: the backward direction runs over the reversed steps.
Status ExplicitBidirectionalLstm(OpContext& c, const std::string& x, const LstmLayout& fw, const LstmLayout& bw,
                                 const LstmOptions& options, bool merge, bool time_major) {
  int64_t batch = 0;
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> steps, Steps(c, x, time_major, &batch));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> forward, ExplicitLstm(c, steps, batch, fw, options, "fw_"));
  std::vector<std::string> reversed(steps.rbegin(), steps.rend());
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> backward, ExplicitLstm(c, reversed, batch, bw, options, "bw_"));
  std::reverse(backward.begin(), backward.end());
  if (merge) {
    std::vector<std::string> both;
    for (size_t t = 0; t < forward.size(); ++t) {
      both.push_back(c.b.Op1("Concat", {forward[t], backward[t]}, c.Name("merged"), {ir::IntAttr("axis", 1)}));
    }
    return c.SetOutput(Sequence(c, both, time_major, "sequence"));
  }
  ONYX_RETURN_IF_ERROR(c.SetOutput(Sequence(c, forward, time_major, "forward"), 0));
  return c.SetOutput(Sequence(c, backward, time_major, "backward"), 1);
}

// BIDIRECTIONAL_SEQUENCE_LSTM: forward weights at inputs 1-17 (as the unidirectional op), backward at 18-34,
// states 35-38, auxiliary inputs 39-47 (unsupported); outputs fw (and bw unless merge_outputs).
Status BidirectionalLstm(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(LstmOptions options, ReadLstmOptions(c));
  ONYX_ASSIGN_OR_RETURN(bool merge, c.OptBool(3));
  ONYX_ASSIGN_OR_RETURN(bool time_major, c.OptBool(4, true));
  for (size_t k = 39; k < c.num_inputs(); ++k) {
    if (c.HasInput(k)) return c.Unsupported("auxiliary inputs");
  }
  for (size_t k = 35; k < 39; ++k) {
    if (c.IsConstInput(k)) return c.Unsupported("constant initial states");
  }
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  const LstmLayout fw_layout;
  const LstmLayout bw_layout{18, 22, 26, 29, 33, LstmLayout::kNoLayerNorm};
  if (Explicit(c, fw_layout, options) || Explicit(c, bw_layout, options)) {
    return ExplicitBidirectionalLstm(c, x, fw_layout, bw_layout, options, merge, time_major);
  }
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c, options.activation));
  ONYX_ASSIGN_OR_RETURN(LstmWeights fw, LstmDirection(c, 1, 5, 9, 12, 16));
  ONYX_ASSIGN_OR_RETURN(LstmWeights bw, LstmDirection(c, 18, 22, 26, 29, 33));
  if (fw.peephole != bw.peephole || fw.hidden != bw.hidden) return c.Error("the directions differ in shape");
  auto both = [](const Tensor& a, const Tensor& b) -> Result<Tensor> {
    Shape s = a.shape();
    s[0] = 2;
    ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DataType::kFloat, s));
    std::memcpy(out.raw(), a.raw(), a.nbytes());
    std::memcpy(static_cast<char*>(out.raw()) + a.nbytes(), b.raw(), b.nbytes());
    return out;
  };
  ONYX_ASSIGN_OR_RETURN(Tensor W, both(fw.W, bw.W));
  ONYX_ASSIGN_OR_RETURN(Tensor R, both(fw.R, bw.R));
  ONYX_ASSIGN_OR_RETURN(Tensor B, both(fw.B, bw.B));
  std::vector<std::string> ins = {TimeMajor(c, x, time_major), c.b.Constant(c.Name("W"), std::move(W)),
                                  c.b.Constant(c.Name("R"), std::move(R)), c.b.Constant(c.Name("B"), std::move(B))};
  if (fw.peephole) {
    ONYX_ASSIGN_OR_RETURN(Tensor P, both(fw.P, bw.P));
    ins.insert(ins.end(), {"", "", "", c.b.Constant(c.Name("P"), std::move(P))});
  }
  std::vector<std::string> outs =
      c.b.Op("LSTM", ins, c.Name("lstm"),
             {ir::IntAttr("hidden_size", fw.hidden), ir::StringAttr("direction", "bidirectional"),
              ir::StringsAttr("activations", {"Sigmoid", act, act, "Sigmoid", act, act})},
             3);
  if (merge) return c.SetOutput(SequenceOut(c, outs[0], time_major, 2 * fw.hidden));
  // Separate outputs: direction d of Y [time, 2, batch, hidden].
  for (int64_t d = 0; d < 2; ++d) {
    std::string yd = c.b.Op1("Slice",
                             {outs[0], c.b.ConstInts(c.Name("start"), {d}), c.b.ConstInts(c.Name("end"), {d + 1}),
                              c.b.ConstInts(c.Name("axis"), {1})},
                             c.Name(d == 0 ? "forward" : "backward"));
    ONYX_RETURN_IF_ERROR(c.SetOutput(SequenceOut(c, yd, time_major, fw.hidden), static_cast<size_t>(d)));
  }
  return Status::Ok();
}

}  // namespace

void AddRnnOps(std::map<int32_t, OpFn>& t) {
  t[op::kUnidirectionalSequenceRnn] = SequenceRnn;
  t[op::kBidirectionalSequenceRnn] = BidirectionalRnn;
  t[op::kUnidirectionalSequenceLstm] = UnidirectionalLstm;
  t[op::kBidirectionalSequenceLstm] = BidirectionalLstm;
}

}  // namespace onyx::convert::tflite
