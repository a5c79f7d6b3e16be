// Recurrent layers: SimpleRNN, GRU (reset_after both ways), LSTM -> ONNX RNN / GRU / LSTM, their Bidirectional
// wrapper (one bidirectional ONNX node), and TimeDistributed (the inner layer applied to batch*time rows).
// Keras gate orders: LSTM i,f,c,o (ONNX i,o,f,c), GRU z,r,h (ONNX z,r,h); kernels are transposed per gate.
#include <climits>

#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

using json = nlohmann::json;

struct RnnSpec {
  std::string kind;  // "LSTM", "GRU", "SimpleRNN"
  int64_t units = 0;
  std::string activation, recurrent_activation;
  bool use_bias = true, return_sequences = false, return_state = false, go_backwards = false, reset_after = false;
  int gates() const { return kind == "LSTM" ? 4 : kind == "GRU" ? 3 : 1; }
};

Result<RnnSpec> ReadSpec(const std::string& kind, const json& cfg, const std::string& where) {
  RnnSpec s;
  s.kind = kind;
  ONYX_ASSIGN_OR_RETURN(s.units, GetInt(cfg, "units", where));
  ONYX_ASSIGN_OR_RETURN(s.activation, ActivationName(cfg, "activation", where));
  if (cfg.contains("activation") && cfg["activation"].is_null()) s.activation = "linear";
  if (kind != "SimpleRNN") {
    ONYX_ASSIGN_OR_RETURN(s.recurrent_activation, ActivationName(cfg, "recurrent_activation", where));
    if (!cfg.contains("recurrent_activation")) s.recurrent_activation = "sigmoid";
  }
  s.use_bias = GetBoolOr(cfg, "use_bias", true);
  s.return_sequences = GetBoolOr(cfg, "return_sequences", false);
  s.return_state = GetBoolOr(cfg, "return_state", false);
  s.go_backwards = GetBoolOr(cfg, "go_backwards", false);
  // Keras 2.3+ and Keras 3 default to reset_after=True; TF.js only knows False (and writes it).
  s.reset_after = kind == "GRU" && GetBoolOr(cfg, "reset_after", true);
  if (GetBoolOr(cfg, "stateful", false)) return Unsupported(where + ": stateful recurrent layers");
  return s;
}

// ONNX activation name plus (alpha, beta) when it takes them.
struct OnnxAct {
  std::string name;
  std::vector<float> params;
};

Result<OnnxAct> RnnActivation(const std::string& act, SourceFormat fmt, const std::string& where) {
  if (act == "tanh") return OnnxAct{"Tanh", {}};
  if (act == "sigmoid") return OnnxAct{"Sigmoid", {}};
  if (act == "relu") return OnnxAct{"Relu", {}};
  if (act == "hard_sigmoid") return OnnxAct{"HardSigmoid", {fmt == SourceFormat::kKeras3 ? 1.0f / 6.0f : 0.2f, 0.5f}};
  if (act == "linear") return OnnxAct{"Affine", {1.0f, 0.0f}};
  if (act == "elu") return OnnxAct{"Elu", {1.0f}};
  if (act == "softsign") return OnnxAct{"Softsign", {}};
  if (act == "softplus") return OnnxAct{"Softplus", {}};
  return Unsupported(where + ": recurrent activation '" + act + "' has no ONNX equivalent");
}

// One direction's W [G*U, F], R [G*U, U], B [2*G*U] in ONNX gate order.
struct DirWeights {
  std::vector<float> w, r, b;
  int64_t input = 0;
};

Result<DirWeights> Relayout(const RnnSpec& s, const LayerCall& c, size_t first) {
  ONYX_ASSIGN_OR_RETURN(Tensor k, c.WeightAt(first, "kernel"));
  ONYX_ASSIGN_OR_RETURN(Tensor rk, c.WeightAt(first + 1, "recurrent_kernel"));
  const int64_t U = s.units, G = s.gates();
  if (k.rank() != 2 || k.dim(1) != G * U || rk.rank() != 2 || rk.dim(0) != U || rk.dim(1) != G * U) {
    return InvalidArgument(c.Where() + ": kernel " + ShapeToString(k.shape()) + " / recurrent kernel " +
                           ShapeToString(rk.shape()) + " do not fit " + std::to_string(U) + " units");
  }
  Tensor bias;
  if (s.use_bias) {
    ONYX_ASSIGN_OR_RETURN(bias, c.WeightAt(first + 2, "bias"));
    const int64_t want = (s.kind == "GRU" && s.reset_after) ? 2 * G * U : G * U;
    if (bias.size() != want)
      return InvalidArgument(c.Where() + ": bias has " + std::to_string(bias.size()) + " values, expected " +
                             std::to_string(want));
  }
  static const int kLstmMap[] = {0, 3, 1, 2};  // ONNX i,o,f,c from Keras i,f,c,o
  DirWeights d;
  d.input = k.dim(0);
  const int64_t F = d.input;
  d.w.resize(static_cast<size_t>(G * U * F));
  d.r.resize(static_cast<size_t>(G * U * U));
  d.b.assign(static_cast<size_t>(2 * G * U), 0.0f);
  const float* kp = k.data<float>();
  const float* rp = rk.data<float>();
  for (int64_t j = 0; j < G; ++j) {
    const int64_t src = s.kind == "LSTM" ? kLstmMap[j] : j;
    for (int64_t u = 0; u < U; ++u) {
      for (int64_t f = 0; f < F; ++f) d.w[static_cast<size_t>((j * U + u) * F + f)] = kp[f * G * U + src * U + u];
      for (int64_t v = 0; v < U; ++v) d.r[static_cast<size_t>((j * U + u) * U + v)] = rp[v * G * U + src * U + u];
      if (s.use_bias) {
        const float* bp = bias.data<float>();
        d.b[static_cast<size_t>(j * U + u)] = bp[src * U + u];
        if (s.kind == "GRU" && s.reset_after) d.b[static_cast<size_t>(G * U + j * U + u)] = bp[G * U + src * U + u];
      }
    }
  }
  return d;
}

std::string Squeeze(Context& ctx, const std::string& v, int64_t axis, const std::string& n) {
  return ctx.b.Op1("Squeeze", {v, ctx.b.ConstInts(n + "/axes", {axis})}, n);
}

std::string Reduce(Context& ctx, const std::string& op, const std::string& v, int64_t axis, const std::string& n) {
  // ReduceSum takes axes as an input from opset 13, the others from 18.
  if (op == "ReduceSum" || ctx.options.opset >= 18) {
    return ctx.b.Op1(op, {v, ctx.b.ConstInts(n + "/axes", {axis})}, n, {ir::IntAttr("keepdims", 0)});
  }
  return ctx.b.Op1(op, {v}, n, {ir::IntsAttr("axes", {axis}), ir::IntAttr("keepdims", 0)});
}

// Runs one ONNX recurrent node over x [N, T, F]; returns Y [T, D, N, U], Y_h [D, N, U], Y_c (LSTM).
Result<std::vector<std::string>> EmitRnn(Context& ctx, const LayerCall& c, const RnnSpec& s,
                                         const std::vector<DirWeights>& dirs, const KTensor& x,
                                         const std::vector<KTensor>& initial, const std::string& lengths = "") {
  GraphBuilder& b = ctx.b;
  const int64_t D = static_cast<int64_t>(dirs.size()), U = s.units, G = s.gates(), F = dirs[0].input;
  std::vector<float> w, r, bias;
  for (const auto& d : dirs) {
    w.insert(w.end(), d.w.begin(), d.w.end());
    r.insert(r.end(), d.r.begin(), d.r.end());
    bias.insert(bias.end(), d.b.begin(), d.b.end());
  }
  std::vector<std::string> acts;
  std::vector<float> alphas, betas;
  std::vector<std::string> keras_acts;
  if (s.kind == "LSTM") keras_acts = {s.recurrent_activation, s.activation, s.activation};
  if (s.kind == "GRU") keras_acts = {s.recurrent_activation, s.activation};
  if (s.kind == "SimpleRNN") keras_acts = {s.activation};
  for (int64_t d = 0; d < D; ++d) {
    for (const auto& a : keras_acts) {
      ONYX_ASSIGN_OR_RETURN(OnnxAct oa, RnnActivation(a, ctx.file.format, c.Where()));
      acts.push_back(oa.name);
      if (!oa.params.empty()) alphas.push_back(oa.params[0]);
      if (oa.params.size() > 1) betas.push_back(oa.params[1]);
    }
  }
  std::string xt = b.Op1("Transpose", {x.value}, c.name + "/time_major", {ir::IntsAttr("perm", {1, 0, 2})});
  std::vector<std::string> ins{xt, b.Constant(c.name + "/W", Tensor::FromVector<float>(w, {D, G * U, F})),
                               b.Constant(c.name + "/R", Tensor::FromVector<float>(r, {D, G * U, U})),
                               b.Constant(c.name + "/B", Tensor::FromVector<float>(bias, {D, 2 * G * U})), lengths};
  for (size_t i = 0; i < initial.size(); ++i) {
    ins.push_back(
        b.Op1("Unsqueeze", {initial[i].value, b.ConstInts(c.name + "/state_axes", {0})}, c.name + "/initial_state"));
  }
  std::vector<ir::Attribute> attrs{ir::IntAttr("hidden_size", U), ir::StringsAttr("activations", acts),
                                   ir::StringAttr("direction", D == 2           ? "bidirectional"
                                                               : s.go_backwards ? "reverse"
                                                                                : "forward")};
  if (!alphas.empty()) attrs.push_back(ir::FloatsAttr("activation_alpha", alphas));
  if (!betas.empty()) attrs.push_back(ir::FloatsAttr("activation_beta", betas));
  if (s.kind == "GRU") attrs.push_back(ir::IntAttr("linear_before_reset", s.reset_after ? 1 : 0));
  const std::string op = s.kind == "SimpleRNN" ? "RNN" : s.kind;
  return b.Op(op, ins, c.name + "/" + op, attrs, s.kind == "LSTM" ? 3 : 2);
}

// y [N, T, U]: outputs of a run over CompactMaskedSteps's steps -> Keras's masked outputs at the original
// steps: step t takes compacted output cumsum(mask)[t] - 1, or zero where no step up to t is unmasked.
std::string ScatterMaskedOutputs(Context& ctx, const KTensor& x, const std::string& y, const std::string& n) {
  GraphBuilder& b = ctx.b;
  std::string maskf =
      b.Op1("Cast", {x.mask}, n + "/out_mask_float", {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  std::string seen = b.Op1("CumSum", {maskf, b.Constant(n + "/time_axis", Tensor::Scalar<int64_t>(1))}, n + "/seen");
  std::string pos = b.Op1(
      "Max",
      {b.Op1("Sub", {seen, b.ConstFloat(n + "/one", 1.0f)}, n + "/last_unmasked"), b.ConstFloat(n + "/zero", 0.0f)},
      n + "/clamped");
  pos = b.Op1("Cast", {pos}, n + "/pos", {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
  pos = b.Op1("Unsqueeze", {pos, b.ConstInts(n + "/pos_axes", {2})}, n + "/pos3");
  pos = b.Op1("Expand", {pos, b.Op1("Shape", {y}, n + "/y_shape")}, n + "/pos_full");
  std::string gathered = b.Op1("GatherElements", {y, pos}, n + "/gather_outputs", {ir::IntAttr("axis", 1)});
  std::string any = b.Op1(
      "Unsqueeze",
      {b.Op1("Greater", {seen, b.ConstFloat(n + "/half", 0.5f)}, n + "/any_seen"), b.ConstInts(n + "/any_axes", {2})},
      n + "/any_seen3");
  return b.Op1("Where", {any, gathered, b.ConstFloat(n + "/zero_out", 0.0f)}, n + "/outputs");
}

Result<std::vector<KTensor>> Recurrent(Context& ctx, const LayerCall& c, const std::string& kind) {
  if (c.inputs.empty() || c.inputs[0].rank() != 3)
    return InvalidArgument(c.Where() + ": expects a [batch, time, features] input");
  ONYX_ASSIGN_OR_RETURN(RnnSpec s, ReadSpec(kind, c.config, c.Where()));
  const KTensor& x = c.inputs[0];
  std::vector<KTensor> initial(c.inputs.begin() + 1, c.inputs.end());
  if (auto it = c.kwargs.find("initial_state"); it != c.kwargs.end())
    initial.insert(initial.end(), it->second.begin(), it->second.end());
  if (!x.mask.empty() && s.return_sequences && (s.go_backwards || !initial.empty())) {
    // Keras's backends disagree on these (the order of go_backwards outputs; whether the output before the first
    // unmasked step is zero or the initial state).
    return MaskNotConvertible(c, x, "return_sequences=True with go_backwards or initial states over masked steps");
  }
  ONYX_ASSIGN_OR_RETURN(DirWeights d, Relayout(s, c, 0));
  const size_t nstates = kind == "LSTM" ? 2 : 1;
  if (!initial.empty() && initial.size() != nstates) {
    return InvalidArgument(c.Where() + ": " + std::to_string(initial.size()) + " initial states, expected " +
                           std::to_string(nstates));
  }
  // A masked input: Keras skips masked steps (the state is carried over them): the RNN over the unmasked steps,
  // compacted to the front, with sequence_lens. With return_sequences=True Keras's output at a masked step is
  // the previous output (zero before the first unmasked step): the compacted outputs are gathered back.
  KTensor run = x;
  std::string lengths;
  if (!x.mask.empty()) run.value = CompactMaskedSteps(ctx, x, c.name + "/mask", &lengths);
  ONYX_ASSIGN_OR_RETURN(auto outs, EmitRnn(ctx, c, s, {d}, run, initial, lengths));
  GraphBuilder& b = ctx.b;
  const int64_t N = x.shape[0], T = x.shape[1], U = s.units;
  std::vector<KTensor> result;
  if (s.return_sequences) {
    std::string y = Squeeze(ctx, outs[0], 1, c.name + "/squeeze_dir");
    if (s.go_backwards) {
      // Keras emits the outputs in processing order, ONNX at the input positions.
      y = b.Op1("Slice",
                {y, b.ConstInts(c.name + "/rev_start", {-1}), b.ConstInts(c.name + "/rev_end", {INT64_MIN}),
                 b.ConstInts(c.name + "/rev_axes", {0}), b.ConstInts(c.name + "/rev_steps", {-1})},
                c.name + "/reverse");
    }
    y = b.Op1("Transpose", {y}, c.name + "/batch_major", {ir::IntsAttr("perm", {1, 0, 2})});
    if (!x.mask.empty()) y = ScatterMaskedOutputs(ctx, x, y, c.name + "/mask");
    result.push_back({y, {N, T, U}, DataType::kFloat});
    result.back().mask = x.mask;  // Keras passes the mask on with the sequence
    result.back().mask_origin = x.mask_origin;
  } else {
    result.push_back({Squeeze(ctx, outs[1], 0, c.name + "/last"), {N, U}, DataType::kFloat});
  }
  if (s.return_state) {
    result.push_back({Squeeze(ctx, outs[1], 0, c.name + "/state_h"), {N, U}, DataType::kFloat});
    if (kind == "LSTM") result.push_back({Squeeze(ctx, outs[2], 0, c.name + "/state_c"), {N, U}, DataType::kFloat});
  }
  return result;
}

Result<std::vector<KTensor>> Bidirectional(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1 || c.inputs[0].rank() != 3)
    return InvalidArgument(c.Where() + ": expects one [batch, time, features] input");
  if (!c.config.contains("layer") || !c.config["layer"].is_object())
    return InvalidArgument(c.Where() + ": no wrapped layer");
  const json& inner = c.config["layer"];
  const std::string kind = inner.value("class_name", std::string());
  if (kind != "LSTM" && kind != "GRU" && kind != "SimpleRNN") return Unsupported(c.Where() + ": wraps " + kind);
  static const json kEmpty = json::object();
  const json& icfg = inner.contains("config") && inner["config"].is_object() ? inner["config"] : kEmpty;
  ONYX_ASSIGN_OR_RETURN(RnnSpec s, ReadSpec(kind, icfg, c.Where()));
  if (s.return_state) return Unsupported(c.Where() + ": return_state in a Bidirectional layer");
  if (s.go_backwards) return Unsupported(c.Where() + ": a go_backwards forward layer");
  if (!c.inputs[0].mask.empty() && s.return_sequences) {
    return MaskNotConvertible(c, c.inputs[0], "return_sequences=True over masked steps");
  }
  const size_t per = s.use_bias ? 3 : 2;
  ONYX_ASSIGN_OR_RETURN(DirWeights fw, Relayout(s, c, 0));
  ONYX_ASSIGN_OR_RETURN(DirWeights bw, Relayout(s, c, per));
  const KTensor& x = c.inputs[0];
  KTensor run = x;  // masked steps: as in Recurrent (the backward layer sees the unmasked steps reversed)
  std::string lengths;
  if (!x.mask.empty()) run.value = CompactMaskedSteps(ctx, x, c.name + "/mask", &lengths);
  ONYX_ASSIGN_OR_RETURN(auto outs, EmitRnn(ctx, c, s, {fw, bw}, run, {}, lengths));
  GraphBuilder& b = ctx.b;
  const std::string merge = c.config.contains("merge_mode") && c.config["merge_mode"].is_null()
                                ? "none"
                                : GetStringOr(c.config, "merge_mode", "concat");
  const int64_t N = x.shape[0], T = x.shape[1], U = s.units;
  std::string y;
  int64_t dir_axis;
  std::vector<int64_t> shape;
  if (s.return_sequences) {
    y = b.Op1("Transpose", {outs[0]}, c.name + "/batch_major", {ir::IntsAttr("perm", {2, 0, 1, 3})});  // [N, T, 2, U]
    dir_axis = 2;
    shape = {N, T, U};
  } else {
    y = b.Op1("Transpose", {outs[1]}, c.name + "/batch_major", {ir::IntsAttr("perm", {1, 0, 2})});  // [N, 2, U]
    dir_axis = 1;
    shape = {N, U};
  }
  if (merge == "concat") {
    std::vector<int64_t> target(static_cast<size_t>(dir_axis), 0);
    target.push_back(2 * U);
    shape.back() = 2 * U;
    return std::vector<KTensor>{
        {b.Op1("Reshape", {y, b.ConstInts(c.name + "/shape", target)}, c.name), shape, DataType::kFloat}};
  }
  if (merge == "sum")
    return std::vector<KTensor>{{Reduce(ctx, "ReduceSum", y, dir_axis, c.name), shape, DataType::kFloat}};
  if (merge == "ave")
    return std::vector<KTensor>{{Reduce(ctx, "ReduceMean", y, dir_axis, c.name), shape, DataType::kFloat}};
  if (merge == "mul")
    return std::vector<KTensor>{{Reduce(ctx, "ReduceProd", y, dir_axis, c.name), shape, DataType::kFloat}};
  if (merge == "none") {
    auto parts = b.Op("Split", {y, b.ConstInts(c.name + "/split", {1, 1})}, c.name + "/split",
                      {ir::IntAttr("axis", dir_axis)}, 2);
    return std::vector<KTensor>{{Squeeze(ctx, parts[0], dir_axis, c.name + "/forward"), shape, DataType::kFloat},
                                {Squeeze(ctx, parts[1], dir_axis, c.name + "/backward"), shape, DataType::kFloat}};
  }
  return Unsupported(c.Where() + ": merge_mode '" + merge + "'");
}

// TimeDistributed(layer): the inner layer on x reshaped to [N*T, ...], then back to [N, T, ...].
Result<std::vector<KTensor>> TimeDistributed(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1 || c.inputs[0].rank() < 3)
    return InvalidArgument(c.Where() + ": expects one input of rank >= 3");
  if (!c.config.contains("layer") || !c.config["layer"].is_object())
    return InvalidArgument(c.Where() + ": no wrapped layer");
  const json& inner = c.config["layer"];
  const std::string cls = inner.value("class_name", std::string());
  LayerFn fn = FindLayerConverter(cls);
  if (!fn || cls == "TimeDistributed") return Unsupported(c.Where() + ": wraps " + cls);
  const KTensor& x = c.inputs[0];
  GraphBuilder& b = ctx.b;
  std::vector<int64_t> flat{-1};
  for (int64_t i = 2; i < x.rank(); ++i) {
    if (x.shape[static_cast<size_t>(i)] < 0) return Unsupported(c.Where() + ": inner dimensions of unknown size");
    flat.push_back(x.shape[static_cast<size_t>(i)]);
  }
  KTensor rows{b.Op1("Reshape", {x.value, b.ConstInts(c.name + "/rows_shape", flat)}, c.name + "/rows"), flat, x.type};
  rows.shape[0] = (x.shape[0] < 0 || x.shape[1] < 0) ? -1 : x.shape[0] * x.shape[1];
  static const json kEmpty = json::object();
  LayerCall ic{cls,    c.name, inner.contains("config") && inner["config"].is_object() ? inner["config"] : kEmpty,
               {rows}, {},     c.weights,
               kEmpty};
  auto r = fn(ctx, ic);
  if (!r.ok()) return r.status().WithContext(c.Where());
  if (r->size() != 1) return Unsupported(c.Where() + ": inner layer with several outputs");
  const KTensor& y = (*r)[0];
  std::vector<int64_t> tail;
  std::vector<int64_t> shape{x.shape[0], x.shape[1]};
  for (int64_t i = 1; i < y.rank(); ++i) {
    if (y.shape[static_cast<size_t>(i)] < 0) return Unsupported(c.Where() + ": inner output of unknown size");
    tail.push_back(y.shape[static_cast<size_t>(i)]);
    shape.push_back(y.shape[static_cast<size_t>(i)]);
  }
  std::string nt = b.Op1("Slice",
                         {b.Op1("Shape", {x.value}, c.name + "/shape"), b.ConstInts(c.name + "/zero", {0}),
                          b.ConstInts(c.name + "/two", {2})},
                         c.name + "/batch_time");
  std::string target =
      b.Op1("Concat", {nt, b.ConstInts(c.name + "/tail", tail)}, c.name + "/target", {ir::IntAttr("axis", 0)});
  return std::vector<KTensor>{{b.Op1("Reshape", {y.value, target}, c.name), shape, y.type}};
}

}  // namespace

void RegisterRecurrentLayers(LayerTable& t) {
  t["LSTM"] = [](Context& ctx, const LayerCall& c) { return Recurrent(ctx, c, "LSTM"); };
  t["GRU"] = [](Context& ctx, const LayerCall& c) { return Recurrent(ctx, c, "GRU"); };
  t["SimpleRNN"] = [](Context& ctx, const LayerCall& c) { return Recurrent(ctx, c, "SimpleRNN"); };
  t["Bidirectional"] = Bidirectional;
  t["TimeDistributed"] = TimeDistributed;
}

}  // namespace onyx::convert::keras
