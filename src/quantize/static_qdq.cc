// Static quantization in the QDQ format, as ONNX Runtime's quantize_static writes it: each activation a quantized
// operator reads goes through QuantizeLinear -> DequantizeLinear with a scale and zero point from calibration;
// weights are stored int8 (symmetric) behind a DequantizeLinear; Conv/Gemm biases are stored int32 with scale
// s_input * s_weight. A Relu (or Clip from 0) whose output is quantized anyway is folded into the range of that
// quantization: its input takes the Relu's output name and calibrated range, whose zero point sits at the bottom
// of the integer range, so QuantizeLinear itself clamps the negatives away.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "ir/graph_edit.h"
#include "optimizer/qdq_fusion.h"
#include "quantize/bias_correction.h"
#include "quantize/calibration.h"
#include "quantize/graph_util.h"
#include "quantize/modes.h"
#include "quantize/prepare.h"
#include "quantize/weights.h"
#include "runtime/session.h"

namespace onyx::quantize {

namespace {

const std::vector<std::string> kStaticOps = {
    "Conv",   "MatMul", "Gemm", "Add", "Mul", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool",
    "Resize", "Relu",   "Clip"};

// Inputs of a selected node that are activations to quantize (the rest: weights, biases, shapes, scales).
std::vector<size_t> ActivationInputs(const ir::Node& n, const ir::Graph& g) {
  const std::string& op = n.op_type;
  auto variable = [&](size_t i) {
    return i < n.inputs.size() && !n.inputs[i].empty() && ConstantTensor(g, n.inputs[i]) == nullptr;
  };
  std::vector<size_t> out;
  if (op == "Conv" || op == "Gemm" || op == "MatMul") {
    if (variable(0)) out.push_back(0);
    if (variable(1)) out.push_back(1);  // MatMul/Gemm of two activations (attention)
  } else if (op == "Add" || op == "Mul" || op == "Concat") {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (variable(i)) out.push_back(i);
    }
  } else if (variable(0)) {
    out.push_back(0);
  }
  return out;
}

// Clip's lower bound when it is a constant 0 (input 1 from opset 11, attribute `min` before).
bool ClipsAtZero(const ir::Node& n, const ir::Graph& g) {
  if (n.op_type == "Relu") return true;
  if (n.op_type != "Clip") return false;
  if (const ir::Attribute* a = n.FindAttribute("min")) return a->f == 0.0f;
  if (n.inputs.size() < 2 || n.inputs[1].empty()) return false;
  const Tensor* lo = ConstantTensor(g, n.inputs[1]);
  return lo != nullptr && lo->type() == DataType::kFloat && lo->size() == 1 && lo->data<float>()[0] == 0.0f;
}

// The weight axis of per-channel scales: Conv's output channels, MatMul's columns, Gemm's N.
int64_t WeightAxis(const ir::Node& n) {
  if (n.op_type == "Conv") return 0;
  if (n.op_type == "Gemm") return IntAttribute(n, "transB", 0) != 0 ? 0 : 1;
  return 1;
}

bool IsClassifierLike(const Tensor& t) { return t.rank() == 2 && t.dim(1) > 1; }

Status EvaluateAgreement(const ir::Model& float_model, const ir::Model& quantized, const CalibrationSet& data,
                         const QuantizeOptions& options, QuantizeReport* report) {
  SessionOptions so;
  so.intra_op_num_threads = options.threads;
  ONYX_ASSIGN_OR_RETURN(auto reference, Session::Create(float_model, so));
  ONYX_ASSIGN_OR_RETURN(auto candidate, Session::Create(quantized, so));
  const auto& outs = float_model.graph.outputs;
  std::vector<ErrorAccumulator> errors(outs.size());
  std::vector<int64_t> rows(outs.size(), 0), same(outs.size(), 0), samples(outs.size(), 0);
  Progress progress{0, static_cast<int64_t>(data.size()), "evaluating"};
  for (size_t i = 0; i < data.size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(Feeds feeds, data.Load(i));
    std::vector<Value> want, got;
    ONYX_RETURN_IF_ERROR(reference->Run(feeds, {}, &want));
    Status st = candidate->Run(feeds, {}, &got);
    if (!st.ok()) return st.WithContext("the quantized model failed on calibration sample " + std::to_string(i));
    for (size_t k = 0; k < outs.size() && k < got.size(); ++k) {
      if (!want[k].is_tensor() || !got[k].is_tensor() || want[k].tensor().type() != DataType::kFloat ||
          got[k].tensor().type() != DataType::kFloat || want[k].tensor().shape() != got[k].tensor().shape()) {
        continue;
      }
      const Tensor& w = want[k].tensor();
      const Tensor& q = got[k].tensor();
      errors[k].Add(w.values<float>(), q.values<float>());
      ++samples[k];
      if (IsClassifierLike(w)) {
        const int64_t c = w.dim(1);
        for (int64_t r = 0; r < w.dim(0); ++r) {
          const float* a = w.data<float>() + r * c;
          const float* b = q.data<float>() + r * c;
          same[k] += (std::max_element(a, a + c) - a) == (std::max_element(b, b + c) - b) ? 1 : 0;
          ++rows[k];
        }
      }
    }
    ++progress.done;
    if (options.progress) options.progress(progress);
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    if (samples[k] == 0) continue;
    OutputReport r;
    r.name = outs[k].name;
    r.error = errors[k].Get();
    r.samples = samples[k];
    if (rows[k] > 0) r.top1_agreement = static_cast<double>(same[k]) / static_cast<double>(rows[k]);
    report->outputs.push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace

Result<ir::Model> QuantizeStatic(const ir::Model& input, const QuantizeOptions& options, QuantizeReport* report) {
  if (options.calibration_dir.empty()) return InvalidArgument("static quantization needs a calibration folder");
  if (options.activation_type != DataType::kUint8 && options.activation_type != DataType::kInt8) {
    return InvalidArgument("activations are quantized to uint8 or int8");
  }
  ONYX_ASSIGN_OR_RETURN(ir::Model model, AtLeastOpset(input, 13, report));
  ir::Graph& g = model.graph;
  QuantizeOptions selection = options;  // with --exclude names mapped onto the prepared graph
  std::vector<std::string>& exclude = selection.exclude;
  if (options.prepare) {
    // --exclude names nodes of the input model. Folding keeps a Conv's name, but MatMul + Add becomes a Gemm named
    // after the Add: such an excluded node is found again by its weight, which the fused node still reads.
    std::map<std::string, std::string> weight_of;  // excluded node -> its weight input
    for (const ir::Node& n : g.nodes) {
      if (n.inputs.size() > 1 &&
          std::find(options.exclude.begin(), options.exclude.end(), n.name) != options.exclude.end())
        weight_of[n.name] = n.inputs[1];
    }
    ONYX_RETURN_IF_ERROR(PrepareForQuantization(model, options.threads, report));
    for (const auto& [excluded, w] : weight_of) {
      const std::string& name = excluded;  // a plain reference for the lambda: clang before 16 cannot capture bindings
      if (std::any_of(g.nodes.begin(), g.nodes.end(), [&](const ir::Node& n) { return n.name == name; })) continue;
      for (const ir::Node& n : g.nodes) {
        if (n.inputs.size() > 1 && n.inputs[1] == w && ConstantTensor(g, w) != nullptr) {
          exclude.push_back(n.name);
          report->notes.push_back("--exclude " + name + ": applies to " + n.Describe() + ", which it was folded into");
        }
      }
    }
  }
  report->calibration_method = options.method == CalibrationMethod::kMinMax       ? "minmax"
                               : options.method == CalibrationMethod::kPercentile ? "percentile"
                                                                                  : "entropy";
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);

  // 1. Which nodes, and which of their inputs are activations to calibrate.
  std::vector<bool> selected(g.nodes.size(), false);
  std::vector<std::string> tensors;
  std::set<std::string> tensor_set;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!Selected(n, selection, kStaticOps) || n.inputs.empty() || n.outputs.empty()) continue;
    if (n.op_type == "Conv" || n.op_type == "Gemm") {
      const Tensor* w = n.inputs.size() > 1 ? ConstantTensor(g, n.inputs[1]) : nullptr;
      if (n.op_type == "Conv" && (w == nullptr || w->type() != DataType::kFloat)) {
        report->notes.push_back(n.Describe() + " kept in float: its weight is not a float constant");
        continue;
      }
      if (n.op_type == "Gemm" && IntAttribute(n, "transA", 0) != 0) continue;
    }
    selected[i] = true;
  }
  // Whether a selected Relu (or Clip from 0) can fold into its producer's output quantization: the producer is
  // quantized, reads nothing else from it, and every reader of the Relu's output is a quantized operator reading it
  // as an activation (the float value would lack the clamp).
  auto foldable = [&](size_t i) {
    const ir::Node& n = g.nodes[i];
    const std::string& x = n.inputs[0];
    const int producer = ir::FindProducer(g, x);
    if (producer < 0 || !selected[static_cast<size_t>(producer)] || graph_outputs.count(x) > 0 ||
        graph_outputs.count(n.outputs[0]) > 0 || ir::FindConsumers(g, x).size() != 1) {
      return false;
    }
    const std::vector<int> readers = ir::FindConsumers(g, n.outputs[0]);
    for (int c : readers) {
      const ir::Node& r = g.nodes[static_cast<size_t>(c)];
      bool reads_as_activation = false;
      for (size_t k : ActivationInputs(r, g)) reads_as_activation |= r.inputs[k] == n.outputs[0];
      if (!selected[static_cast<size_t>(c)] || !reads_as_activation) return false;
    }
    return !readers.empty();
  };
  // A Relu/Clip is quantized only to fold into its producer: one that cannot (after an excluded or float producer,
  // or read by a float operator) stays float, else it would quantize its producer's pre-activation output (negative
  // values included: a coarser scale) only for a float operator to read. Deselecting one can unfold another.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ir::Node& n = g.nodes[i];
      if (!selected[i] || (n.op_type != "Relu" && n.op_type != "Clip")) continue;
      const int producer = ir::FindProducer(g, n.inputs[0]);
      const bool keep = ClipsAtZero(n, g) ? foldable(i) : producer >= 0 && selected[static_cast<size_t>(producer)];
      if (!keep) {
        selected[i] = false;
        changed = true;
      }
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!selected[i]) continue;
    for (size_t k : ActivationInputs(g.nodes[i], g)) {
      if (tensor_set.insert(g.nodes[i].inputs[k]).second) tensors.push_back(g.nodes[i].inputs[k]);
    }
  }
  // A quantized Conv's output that a float operator reads (MobileNet-v3's Conv -> HardSwish) is quantized too, as
  // ONNX Runtime's QDQ quantizer quantizes every quantized node's output: the Conv then runs in 8 bits (QLinearConv)
  // and the float operator reads the dequantized value. Behind a Relu/Clip that folds into it, that one's output.
  std::set<std::string> float_read_outputs;
  auto reads_as_quantized_activation = [&](int c, const std::string& t) {
    if (!selected[static_cast<size_t>(c)]) return false;
    const ir::Node& r = g.nodes[static_cast<size_t>(c)];
    for (size_t k : ActivationInputs(r, g)) {
      if (r.inputs[k] == t) return true;
    }
    return false;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!selected[i] || n.op_type != "Conv" || n.outputs.size() != 1) continue;
    std::string t = n.outputs[0];
    if (const std::vector<int> readers = ir::FindConsumers(g, t); readers.size() == 1) {
      const auto r = static_cast<size_t>(readers[0]);
      if (selected[r] && ClipsAtZero(g.nodes[r], g) && foldable(r)) t = g.nodes[r].outputs[0];
    }
    if (graph_outputs.count(t) > 0) continue;
    const std::vector<int> readers = ir::FindConsumers(g, t);
    if (std::all_of(readers.begin(), readers.end(), [&](int c) { return reads_as_quantized_activation(c, t); })) {
      continue;
    }
    float_read_outputs.insert(t);
    if (tensor_set.insert(t).second) tensors.push_back(t);
  }

  // 2. Calibrate them on the float model.
  ONYX_ASSIGN_OR_RETURN(CalibrationSet data, CalibrationSet::Open(options.calibration_dir, g, options.max_samples));
  report->calibration_samples = static_cast<int64_t>(data.size());
  CalibrationStats stats;
  ONYX_ASSIGN_OR_RETURN(auto observed, Calibrate(model, tensors, data, options, &stats));
  report->sessions = stats.sessions;
  report->observer_bytes = stats.observer_bytes;
  report->observed_bytes_per_run = stats.observed_bytes_per_run;
  auto quantized = [&](const std::string& t) {
    auto it = observed.find(t);
    return it != observed.end() && it->second.is_float && it->second.seen;
  };
  if (options.method == CalibrationMethod::kEntropy) {
    const auto kept =
        std::count_if(observed.begin(), observed.end(), [](const auto& o) { return o.second.kept_minmax; });
    if (kept > 0) {
      report->notes.push_back(std::to_string(kept) +
                              " activation(s) keep their min/max range: the entropy threshold's QDQ error was larger");
    }
  }

  // 2b. Bias correction of the Conv/Gemm whose weights will be int8 (the same weights the rewrite below makes).
  if (options.bias_correction) {
    std::vector<BiasCorrectionTarget> targets;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ir::Node& n = g.nodes[i];
      if (!selected[i] || (n.op_type != "Conv" && n.op_type != "Gemm") || n.inputs.size() < 2) continue;
      if (!quantized(n.inputs[0])) continue;  // a float input keeps the layer's output in float precision anyway
      targets.push_back({i, options.per_channel ? WeightAxis(n) : -1});
    }
    ONYX_ASSIGN_OR_RETURN(int corrected, CorrectBiases(model, targets, data, options));
    if (corrected > 0) {
      report->notes.push_back("bias correction: " + std::to_string(corrected) +
                              " bias(es) corrected for the mean error of their int8 weights");
    }
  }

  // 3. Fold Relu/Clip(0, ...) into the quantization of their output.
  std::map<std::string, std::string> renamed;  // pre-activation value -> the Relu output that replaces it
  std::vector<bool> removed(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!selected[i] || !ClipsAtZero(n, g) || !quantized(n.outputs[0]) || !foldable(i)) continue;
    const std::string& x = n.inputs[0];
    const int producer = ir::FindProducer(g, x);
    for (auto& o : g.nodes[static_cast<size_t>(producer)].outputs) {
      if (o == x) o = n.outputs[0];
    }
    renamed[x] = n.outputs[0];
    removed[i] = true;
    ++report->quantized_nodes[n.op_type + " (folded)"];
  }

  // 3b. MaxPool, nearest Resize and Split output values of their input: their outputs take the input's parameters
  // (and its measured QDQ error: the same values), as ONNX Runtime's QDQ quantizer writes them, so that both engines
  // drop the DQ -> op -> Q group and run the op on the 8-bit data (exactly the same values) instead of dequantizing,
  // pooling or splitting in float and requantizing. In graph order, so chains (SPPF's pools) share one range.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!selected[i] || removed[i] || n.inputs.empty() || n.outputs.empty()) continue;
    const ir::Attribute* mode = n.FindAttribute("mode");
    const bool nearest = n.op_type == "Resize" && (mode == nullptr || mode->s == "nearest");
    const bool split = n.op_type == "Split";
    if ((n.op_type != "MaxPool" && !nearest && !split) || (!split && n.outputs.size() != 1)) continue;
    const std::string& x = n.inputs[0];
    if (!quantized(x)) continue;
    const bool all_outputs = std::all_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& y) {
      return !y.empty() && quantized(y) && graph_outputs.count(y) == 0;
    });
    if (!all_outputs) continue;
    const ObservedTensor& in = observed.at(x);
    for (const std::string& y : n.outputs) {
      ObservedTensor& out = observed.at(y);
      out.scale = in.scale;
      out.zero_point = in.zero_point;
      out.range = in.range;
      out.error = in.error;
    }
  }

  // 4. Rewrite: Q/DQ pairs, quantized weights and biases.
  Namer namer(g);
  std::vector<ir::Node> extra;
  std::map<std::string, std::string> dq_of;  // activation -> its DequantizeLinear output
  auto activation = [&](const std::string& t) -> std::string {
    auto it = dq_of.find(t);
    if (it != dq_of.end()) return it->second;
    const ObservedTensor& o = observed.at(t);
    const std::string scale = AddInitializer(g, namer, t + "_scale", Tensor::Scalar<float>(o.scale));
    const std::string zp = AddInitializer(g, namer, t + "_zero_point",
                                          options.activation_type == DataType::kInt8
                                              ? Tensor::Scalar<int8_t>(static_cast<int8_t>(o.zero_point))
                                              : Tensor::Scalar<uint8_t>(static_cast<uint8_t>(o.zero_point)));
    const std::string q = namer.Value(t + "_QuantizeLinear_Output");
    const std::string dq = namer.Value(t + "_DequantizeLinear_Output");
    extra.push_back(MakeNode("QuantizeLinear", namer.Node(t + "_QuantizeLinear"), {t, scale, zp}, {q}));
    extra.push_back(MakeNode("DequantizeLinear", namer.Node(t + "_DequantizeLinear"), {q, scale, zp}, {dq}));
    TensorReport r;
    r.name = t;
    r.kind = "activation";
    r.type = std::string(DataTypeName(options.activation_type));
    r.scales = {o.scale};
    r.zero_points = {o.zero_point};
    r.range_min = o.range.first;
    r.range_max = o.range.second;
    r.error_measured = !o.error.empty();
    if (r.error_measured) r.error = o.error.Get();
    report->tensors.push_back(std::move(r));
    return dq_of[t] = dq;
  };
  std::map<std::pair<std::string, int64_t>, std::pair<std::string, Tensor>> weight_dq;  // (weight, axis) -> DQ, scales
  auto weight = [&](const std::string& w, int64_t axis) -> Result<std::pair<std::string, Tensor>> {
    auto key = std::make_pair(w, options.per_channel ? axis : -1);
    auto it = weight_dq.find(key);
    if (it != weight_dq.end()) return it->second;
    const Tensor tensor = *ConstantTensor(g, w);
    ONYX_ASSIGN_OR_RETURN(QuantizedTensor qt, QuantizeSymmetric(tensor, key.second, options.reduce_range));
    report->tensors.push_back(ConstantReport(w, "weight", qt));
    const std::string q = AddInitializer(g, namer, w + "_quantized", qt.q);
    const std::string scale = AddInitializer(g, namer, w + "_scale", qt.scale);
    const std::string zp = AddInitializer(g, namer, w + "_zero_point", qt.zero_point);
    const std::string dq = namer.Value(w + "_DequantizeLinear_Output");
    std::vector<ir::Attribute> attrs;
    if (qt.axis >= 0) attrs.push_back(ir::IntAttr("axis", qt.axis));
    extra.push_back(MakeNode("DequantizeLinear", namer.Node(w + "_DequantizeLinear"), {q, scale, zp}, {dq}, attrs));
    return weight_dq[key] = {dq, qt.scale};
  };

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!selected[i] || removed[i]) continue;
    ir::Node& n = g.nodes[i];
    bool any = false;
    const std::vector<size_t> acts = ActivationInputs(n, g);
    for (size_t k : acts) {
      std::string t = n.inputs[k];
      if (!quantized(t)) continue;
      n.inputs[k] = activation(t);
      any = true;
    }
    const bool has_weight = (n.op_type == "Conv" || n.op_type == "Gemm" || n.op_type == "MatMul") &&
                            n.inputs.size() > 1 && std::find(acts.begin(), acts.end(), 1) == acts.end();
    if (has_weight) {
      const Tensor* w = ConstantTensor(g, n.inputs[1]);
      const bool weight_ok = w != nullptr && w->type() == DataType::kFloat && (n.op_type == "Conv" || w->rank() == 2);
      if (weight_ok) {
        const std::string w_name = n.inputs[1];
        ONYX_ASSIGN_OR_RETURN(auto wq, weight(w_name, WeightAxis(n)));
        n.inputs[1] = wq.first;
        any = true;
        // Bias: int32 with scale s_input * s_weight (Gemm only when alpha = beta = 1, else it stays float).
        const bool plain_gemm = n.op_type != "Gemm" ||
                                (FloatAttribute(n, "alpha", 1.0f) == 1.0f && FloatAttribute(n, "beta", 1.0f) == 1.0f);
        const std::string x = g.nodes[i].inputs[0];
        std::string x_float;
        for (const auto& [t, dq] : dq_of) {
          if (dq == x) x_float = t;
        }
        const Tensor* b = n.op_type != "MatMul" && n.inputs.size() > 2 ? ConstantTensor(g, n.inputs[2]) : nullptr;
        if (b != nullptr && plain_gemm && !x_float.empty() && b->type() == DataType::kFloat && b->rank() == 1) {
          const float sx = observed.at(x_float).scale;
          std::vector<float> scales;
          for (float sw : wq.second.values<float>()) scales.push_back(sx * sw);
          if (scales.size() == 1 || static_cast<int64_t>(scales.size()) == b->size()) {
            const Tensor bias = *b;
            const std::string b_name = n.inputs[2];
            ONYX_ASSIGN_OR_RETURN(QuantizedTensor qb, QuantizeBias(bias, scales));
            report->tensors.push_back(ConstantReport(b_name, "bias", qb));
            const std::string q = AddInitializer(g, namer, b_name + "_quantized", qb.q);
            const std::string scale = AddInitializer(g, namer, b_name + "_quantized_scale", qb.scale);
            const std::string dq = namer.Value(b_name + "_DequantizeLinear_Output");
            std::vector<ir::Attribute> attrs;
            if (qb.axis >= 0) attrs.push_back(ir::IntAttr("axis", 0));
            extra.push_back(
                MakeNode("DequantizeLinear", namer.Node(b_name + "_DequantizeLinear"), {q, scale}, {dq}, attrs));
            g.nodes[i].inputs[2] = dq;
          }
        }
      }
    }
    if (any) ++report->quantized_nodes[g.nodes[i].op_type];
  }
  // The float readers of a quantized Conv's output read its dequantized value (the selected ones were rewired above).
  for (const std::string& t : float_read_outputs) {
    if (!quantized(t)) continue;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (removed[i]) continue;
      for (auto& in : g.nodes[i].inputs) {
        if (in == t) in = activation(t);
      }
    }
  }
  std::vector<ir::Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!removed[i]) nodes.push_back(std::move(g.nodes[i]));
  }
  for (auto& n : extra) nodes.push_back(std::move(n));
  g.nodes = std::move(nodes);
  // Value infos of the folded pre-activation values describe names that no longer exist.
  std::erase_if(g.value_info, [&](const ir::ValueInfo& v) { return renamed.count(v.name) > 0; });
  ir::RemoveDeadNodes(g);
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(g));
  if (options.format == Format::kQOperator) {
    ONYX_ASSIGN_OR_RETURN(int fused, optimizer::ConvertQdqToQOperator(model));
    (void)fused;
    ONYX_RETURN_IF_ERROR(ir::TopologicalSort(model.graph));
  }

  ONYX_RETURN_IF_ERROR(EvaluateAgreement(input, model, data, options, report));
  return model;
}

}  // namespace onyx::quantize
