// The gate equations follow TensorFlow Lite's float LSTM step (lstm_eval.cc), for each step t:
//   gate_g  = x_t W_g^T + h_{t-1} R_g^T (+ p_g * c_{t-1} for i and f, p_o * c_t for o)
//             then layer norm: normalize(gate_g) * ln_g + b_g, else gate_g + b_g
//   f = sigmoid(gate_f); i = sigmoid(gate_i), or 1 - f with CIFG; g = act(gate_c)
//   c_t = clip(f * c_{t-1} + i * g, cell_clip); o = sigmoid(gate_o); m = o * act(c_t)
//   h_t = clip(m P^T + p_bias, proj_clip) with a projection, else m.
// normalize(v) = (v - mean) / sqrt(variance + 1e-8) over the cells of each batch row.
#include "convert/tflite/lstm_gates.h"

namespace onyx::convert::tflite {
namespace {

constexpr float kLayerNormEpsilon = 1e-8f;

// A [rows, cols] float constant transposed (TFLite stores weights [out, in]; x W^T is MatMul(x, W^T)).
Result<Tensor> Transposed(const Tensor& w) {
  if (w.rank() != 2) return InvalidArgument("LSTM weights of rank " + std::to_string(w.rank()) + ", expected 2");
  const int64_t rows = w.dim(0), cols = w.dim(1);
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DataType::kFloat, {cols, rows}));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) t.data<float>()[k * rows + r] = w.data<float>()[r * cols + k];
  }
  return t;
}

struct Gate {
  std::string w, r, peephole, bias, layer_norm;  // ONNX constants; "" where absent
};

struct Weights {
  bool cifg = false;
  Gate gates[4];  // i f c o
  std::string projection, projection_bias;
  int64_t n_cell = 0, n_output = 0;
};

// An optional float constant input as an ONNX constant ("" when omitted), checked to be a vector of `n`.
Result<std::string> OptionalVector(OpContext& c, size_t k, int64_t n, const std::string& what,
                                   const std::string& name) {
  if (!c.HasInput(k)) return std::string();
  ONYX_ASSIGN_OR_RETURN(Tensor t, c.FloatConst(k, what));
  if (t.size() != n) {
    return c.Error("the " + what + " hold " + std::to_string(t.size()) + " values, expected " + std::to_string(n));
  }
  ONYX_ASSIGN_OR_RETURN(t, t.Reshaped({n}));
  return c.b.Constant(name, std::move(t));
}

Result<Weights> ReadWeights(OpContext& c, const LstmLayout& l, const std::string& tag) {
  Weights w;
  w.cifg = !c.HasInput(l.input_weights);
  static const char* kGate[4] = {"input", "forget", "cell", "output"};
  ONYX_ASSIGN_OR_RETURN(Tensor forget, c.FloatConst(l.input_weights + 1, "forget gate's input weights"));
  if (forget.rank() != 2) return c.Error("input weights of rank " + std::to_string(forget.rank()));
  w.n_cell = forget.dim(0);
  const int64_t n_input = forget.dim(1);
  w.n_output = w.n_cell;
  if (c.HasInput(l.projection)) {
    ONYX_ASSIGN_OR_RETURN(Tensor p, c.FloatConst(l.projection, "projection weights"));
    if (p.rank() != 2 || p.dim(1) != w.n_cell) return c.Error("projection weights are not [n_output, n_cell]");
    w.n_output = p.dim(0);
    ONYX_ASSIGN_OR_RETURN(Tensor pt, Transposed(p));
    w.projection = c.b.Constant(c.Name(tag + "projection"), std::move(pt));
    ONYX_ASSIGN_OR_RETURN(w.projection_bias, OptionalVector(c, l.projection + 1, w.n_output, "projection bias",
                                                            c.Name(tag + "projection_bias")));
  } else if (c.HasInput(l.projection + 1)) {
    return c.Error("a projection bias without projection weights");
  }
  for (size_t g = 0; g < 4; ++g) {
    if (g == 0 && w.cifg) continue;
    Gate& gate = w.gates[g];
    const std::string name = tag + kGate[g];
    ONYX_ASSIGN_OR_RETURN(Tensor wi, c.FloatConst(l.input_weights + g, std::string(kGate[g]) + " input weights"));
    ONYX_ASSIGN_OR_RETURN(Tensor ri,
                          c.FloatConst(l.recurrent_weights + g, std::string(kGate[g]) + " recurrent weights"));
    if (wi.rank() != 2 || wi.dim(0) != w.n_cell || wi.dim(1) != n_input) {
      return c.Error("the " + std::string(kGate[g]) + " gate's input weights are not [n_cell, n_input]");
    }
    if (ri.rank() != 2 || ri.dim(0) != w.n_cell || ri.dim(1) != w.n_output) {
      return c.Error("the " + std::string(kGate[g]) + " gate's recurrent weights are not [n_cell, n_output]");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor wt, Transposed(wi));
    ONYX_ASSIGN_OR_RETURN(Tensor rt, Transposed(ri));
    gate.w = c.b.Constant(c.Name(name + "_weights"), std::move(wt));
    gate.r = c.b.Constant(c.Name(name + "_recurrent_weights"), std::move(rt));
    ONYX_ASSIGN_OR_RETURN(gate.bias, OptionalVector(c, l.biases + g, w.n_cell, "gate bias", c.Name(name + "_bias")));
    if (g != 2) {
      const size_t p = l.peepholes + (g == 0 ? 0 : g == 1 ? 1 : 2);
      ONYX_ASSIGN_OR_RETURN(gate.peephole,
                            OptionalVector(c, p, w.n_cell, "peephole weights", c.Name(name + "_peephole")));
    }
    if (l.layer_norm != LstmLayout::kNoLayerNorm) {
      ONYX_ASSIGN_OR_RETURN(gate.layer_norm, OptionalVector(c, l.layer_norm + g, w.n_cell, "layer-norm coefficients",
                                                            c.Name(name + "_layer_norm")));
    }
  }
  const bool layer_norm = !w.gates[1].layer_norm.empty();
  for (size_t g = w.cifg ? 1 : 0; g < 4; ++g) {
    if (w.gates[g].layer_norm.empty() != layer_norm) continue;
    return c.Error("layer-norm coefficients for some gates only");
  }
  if (!layer_norm) {
    for (size_t g = 1; g < 4; ++g) {
      if (w.gates[g].bias.empty()) return c.Error("a gate without bias");
    }
  }
  return w;
}

std::string Clip(OpContext& c, const std::string& v, float bound, const std::string& what) {
  if (bound <= 0) return v;
  return c.b.Op1("Clip", {v, c.b.ConstFloat(c.Name("lo"), -bound), c.b.ConstFloat(c.Name("hi"), bound)}, c.Name(what));
}

Result<std::string> CellActivation(OpContext& c, int8_t kind, const std::string& v) {
  if (kind == 6) return c.b.Op1("Sigmoid", {v}, c.Name("sigmoid"));  // kTfLiteActSigmoid
  return c.Activation(kind, v);
}

// (v - mean) / sqrt(variance + epsilon) over the last axis.
std::string Normalize(OpContext& c, const std::string& v) {
  const std::vector<ir::Attribute> last = {ir::IntsAttr("axes", {-1}), ir::IntAttr("keepdims", 1)};
  const std::string mean = c.b.Op1("ReduceMean", {v}, c.Name("mean"), last);
  const std::string d = c.b.Op1("Sub", {v, mean}, c.Name("centered"));
  const std::string sq = c.b.Op1("Mul", {d, d}, c.Name("squared"));
  std::string var = c.b.Op1("ReduceMean", {sq}, c.Name("variance"), last);
  var = c.b.Op1("Add", {var, c.b.ConstFloat(c.Name("epsilon"), kLayerNormEpsilon)}, c.Name("variance"));
  return c.b.Op1("Div", {d, c.b.Op1("Sqrt", {var}, c.Name("stddev"))}, c.Name("normalized"));
}

// The pre-activation of one gate; `cell` is the state the peephole reads.
std::string GateInput(OpContext& c, const Gate& g, const std::string& x, const std::string& h, const std::string& cell,
                      const std::string& what) {
  std::string v = c.b.Op1("MatMul", {x, g.w}, c.Name(what + "_x"));
  v = c.b.Op1("Add", {v, c.b.Op1("MatMul", {h, g.r}, c.Name(what + "_h"))}, c.Name(what));
  if (!g.peephole.empty()) {
    v = c.b.Op1("Add", {v, c.b.Op1("Mul", {cell, g.peephole}, c.Name(what + "_peephole"))}, c.Name(what));
  }
  if (!g.layer_norm.empty()) {
    v = c.b.Op1("Mul", {Normalize(c, v), g.layer_norm}, c.Name(what + "_scaled"));
  }
  if (!g.bias.empty()) v = c.b.Op1("Add", {v, g.bias}, c.Name(what + "_biased"));
  return v;
}

}  // namespace

bool NeedsExplicitLstm(const OpContext& c, const LstmLayout& l, const LstmOptions& o) {
  if (o.cell_clip > 0 || o.proj_clip > 0 || !c.HasInput(l.input_weights)) return true;
  if (c.HasInput(l.projection) || c.HasInput(l.projection + 1)) return true;
  if (l.layer_norm != LstmLayout::kNoLayerNorm) {
    for (size_t g = 0; g < 4; ++g) {
      if (c.HasInput(l.layer_norm + g)) return true;
    }
  }
  // A partial peephole set (ONNX's P takes all three).
  return c.HasInput(l.peepholes + 2) && !(c.HasInput(l.peepholes) && c.HasInput(l.peepholes + 1));
}

Result<std::vector<std::string>> ExplicitLstm(OpContext& c, const std::vector<std::string>& steps, int64_t batch,
                                              const LstmLayout& layout, const LstmOptions& options,
                                              const std::string& tag) {
  ONYX_ASSIGN_OR_RETURN(Weights w, ReadWeights(c, layout, tag));
  // The zero initial states are expanded in the graph: the batch comes from the file's input shape, and a converter
  // must not allocate what a file merely claims.
  const std::string zero = c.b.ConstFloat(c.Name("zero"), 0);
  std::string h = c.b.Op1("Expand", {zero, c.b.ConstInts(c.Name(tag + "output_state_shape"), {batch, w.n_output})},
                          c.Name(tag + "output_state"));
  std::string cell = c.b.Op1("Expand", {zero, c.b.ConstInts(c.Name(tag + "cell_state_shape"), {batch, w.n_cell})},
                             c.Name(tag + "cell_state"));
  const std::string one = c.b.ConstFloat(c.Name("one"), 1);
  std::vector<std::string> outs;
  for (const std::string& x : steps) {
    const std::string f =
        c.b.Op1("Sigmoid", {GateInput(c, w.gates[1], x, h, cell, tag + "forget")}, c.Name(tag + "forget_gate"));
    const std::string i =
        w.cifg ? c.b.Op1("Sub", {one, f}, c.Name(tag + "input_gate"))
               : c.b.Op1("Sigmoid", {GateInput(c, w.gates[0], x, h, cell, tag + "input")}, c.Name(tag + "input_gate"));
    ONYX_ASSIGN_OR_RETURN(std::string g,
                          CellActivation(c, options.activation, GateInput(c, w.gates[2], x, h, cell, tag + "cell")));
    std::string next = c.b.Op1("Mul", {f, cell}, c.Name(tag + "kept"));
    next = c.b.Op1("Add", {next, c.b.Op1("Mul", {i, g}, c.Name(tag + "written"))}, c.Name(tag + "cell_state"));
    cell = Clip(c, next, options.cell_clip, tag + "cell_clip");
    const std::string o =
        c.b.Op1("Sigmoid", {GateInput(c, w.gates[3], x, h, cell, tag + "output")}, c.Name(tag + "output_gate"));
    ONYX_ASSIGN_OR_RETURN(std::string act, CellActivation(c, options.activation, cell));
    std::string m = c.b.Op1("Mul", {o, act}, c.Name(tag + "cell_output"));
    if (!w.projection.empty()) {
      m = c.b.Op1("MatMul", {m, w.projection}, c.Name(tag + "projected"));
      if (!w.projection_bias.empty()) m = c.b.Op1("Add", {m, w.projection_bias}, c.Name(tag + "projected"));
      m = Clip(c, m, options.proj_clip, tag + "proj_clip");
    }
    h = m;
    outs.push_back(h);
  }
  return outs;
}

}  // namespace onyx::convert::tflite
