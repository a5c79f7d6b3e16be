#include "quantize/bias_correction.h"

#include <string>

#include "ir/graph_edit.h"
#include "quantize/graph_util.h"
#include "quantize/weights.h"
#include "runtime/session.h"

namespace onyx::quantize {

namespace {

// Output channels of a target and whether its bias can take a per-channel correction.
struct Layout {
  int64_t channels = 0;
  bool ok = false;
};

Layout LayoutOf(const ir::Graph& g, const ir::Node& n) {
  const Tensor* w = ConstantTensor(g, n.inputs[1]);
  if (w == nullptr || w->type() != DataType::kFloat) return {};
  Layout l;
  if (n.op_type == "Conv") {
    if (w->rank() < 3) return {};
    l.channels = w->dim(0);
  } else if (n.op_type == "Gemm") {
    if (w->rank() != 2 || IntAttribute(n, "transA", 0) != 0) return {};
    l.channels = IntAttribute(n, "transB", 0) != 0 ? w->dim(0) : w->dim(1);
  } else {
    return {};
  }
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* b = ConstantTensor(g, n.inputs[2]);
    if (b == nullptr || b->type() != DataType::kFloat || b->rank() != 1 || b->size() != l.channels) return {};
  }
  l.ok = true;
  return l;
}

}  // namespace

Result<int> CorrectBiases(ir::Model& model, const std::vector<BiasCorrectionTarget>& targets,
                          const CalibrationSet& data, const QuantizeOptions& options) {
  ir::Graph& g = model.graph;
  // The probe: the float model plus, for each target, the same operator on dW (no bias) and its mean per channel
  // as a graph output (GlobalAveragePool for a Conv: [N, M, 1, 1]; a Gemm's [N, M] as it is).
  ir::Model probe = model;
  Namer namer(probe.graph);
  struct Probe {
    size_t node;
    int64_t channels;
    std::string output;
  };
  std::vector<Probe> probes;
  for (const BiasCorrectionTarget& t : targets) {
    const ir::Node& n = g.nodes[t.node];
    const Layout layout = LayoutOf(g, n);
    if (!layout.ok) continue;
    const Tensor& w = *ConstantTensor(g, n.inputs[1]);
    ONYX_ASSIGN_OR_RETURN(QuantizedTensor qt, QuantizeSymmetric(w, t.axis, options.reduce_range));
    ONYX_ASSIGN_OR_RETURN(Tensor dw, Dequantize(qt));
    float* d = dw.data<float>();
    const float* src = w.data<float>();
    for (int64_t i = 0; i < w.size(); ++i) d[i] -= src[i];
    const std::string dw_name = AddInitializer(probe.graph, namer, n.inputs[1] + "_rounding_error", std::move(dw));
    const std::string y = namer.Value(n.outputs[0] + "_rounding_error");
    probe.graph.nodes.push_back(
        MakeNode(n.op_type, namer.Node(n.name + "_rounding_error"), {n.inputs[0], dw_name}, {y}, n.attributes));
    std::string out = y;
    if (n.op_type == "Conv") {
      out = namer.Value(y + "_mean");
      probe.graph.nodes.push_back(MakeNode("GlobalAveragePool", namer.Node(y + "_mean"), {y}, {out}));
    }
    probe.graph.outputs.push_back(ir::ValueInfo{out, {}, {}, {}});
    probes.push_back({t.node, layout.channels, out});
  }
  if (probes.empty() || data.size() == 0) return 0;

  SessionOptions so;
  so.intra_op_num_threads = options.threads;
  ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(probe), so));
  std::vector<std::string> names;
  for (const Probe& p : probes) names.push_back(p.output);
  std::vector<std::vector<double>> sums(probes.size());
  std::vector<int64_t> rows(probes.size(), 0);
  for (size_t k = 0; k < probes.size(); ++k) sums[k].assign(static_cast<size_t>(probes[k].channels), 0.0);
  Progress progress{0, static_cast<int64_t>(data.size()), "correcting"};
  std::vector<Value> outs;
  for (size_t i = 0; i < data.size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(Feeds feeds, data.Load(i));
    Status st = session->Run(feeds, names, &outs);
    if (!st.ok()) return st.WithContext("bias correction, calibration sample " + std::to_string(i));
    for (size_t k = 0; k < probes.size(); ++k) {
      const Tensor& t = outs[k].tensor();
      const int64_t m = probes[k].channels;
      if (t.type() != DataType::kFloat || t.rank() < 2 || t.dim(1) != m || t.size() != t.dim(0) * m) {
        return Internal("bias correction: the rounding error of " + g.nodes[probes[k].node].Describe() + " has shape " +
                        ShapeToString(t.shape()) + ", expected [N, " + std::to_string(m) + ", ...]");
      }
      const float* v = t.data<float>();
      for (int64_t r = 0; r < t.dim(0); ++r) {
        for (int64_t c = 0; c < m; ++c) sums[k][static_cast<size_t>(c)] += v[r * m + c];
      }
      rows[k] += t.dim(0);
    }
    ++progress.done;
    if (options.progress) options.progress(progress);
  }

  Namer model_namer(g);
  int corrected = 0;
  for (size_t k = 0; k < probes.size(); ++k) {
    if (rows[k] == 0) continue;
    ir::Node& n = g.nodes[probes[k].node];
    const int64_t m = probes[k].channels;
    // Gemm adds beta * C: the correction of C is E[dW x] / beta (alpha is in the probe's Gemm already).
    const double beta = n.op_type == "Gemm" ? FloatAttribute(n, "beta", 1.0f) : 1.0;
    if (beta == 0.0) continue;
    std::vector<float> bias(static_cast<size_t>(m), 0.0f);
    const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
    if (has_bias) {
      const Tensor* b = ConstantTensor(g, n.inputs[2]);
      for (int64_t c = 0; c < m; ++c) bias[static_cast<size_t>(c)] = b->data<float>()[c];
    }
    for (int64_t c = 0; c < m; ++c) {
      const double mean = sums[k][static_cast<size_t>(c)] / static_cast<double>(rows[k]);
      bias[static_cast<size_t>(c)] = static_cast<float>(bias[static_cast<size_t>(c)] - mean / beta);
    }
    Tensor corrected_bias = Tensor::FromVector<float>(bias, {m});
    // A bias initializer only this node reads keeps its name (the quantized model's names stay ONNX Runtime's:
    // "<bias>_quantized"); a shared one, a Constant node's value or a missing bias becomes a new initializer.
    ir::NamedTensor* own = nullptr;
    if (has_bias && ir::FindConsumers(g, n.inputs[2]).size() == 1) {
      for (auto& t : g.initializers) {
        if (t.name == n.inputs[2]) own = &t;
      }
    }
    if (own != nullptr) {
      own->tensor = std::move(corrected_bias);
      own->external_data.clear();
    } else {
      const std::string base = has_bias ? n.inputs[2] + "_corrected" : n.outputs[0] + "_bias";
      const std::string name = AddInitializer(g, model_namer, base, std::move(corrected_bias));
      if (n.inputs.size() < 3) n.inputs.resize(3);
      n.inputs[2] = name;
    }
    ++corrected;
  }
  return corrected;
}

}  // namespace onyx::quantize
