// GroupNormalization as PyTorch exports nn.GroupNorm before opset 18 (wav2vec-style speech front ends, diffusion
// U-Nets, detection heads):
//   r = Reshape(x, [N or 0, G, -1]), n = InstanceNormalization(r, ones[G], zeros[G]), y = Reshape(n, shape of x),
//   out = Add(Mul(y, gamma), beta) with gamma and beta constants varying along the channel axis only,
// becomes one GroupNormalization(x, gamma[C], beta[C]) with num_groups G (ONNX's from opset 21, whose scale and bias
// are per channel; before that onyx's private ai.onyx.internal.GroupNormalization, the same kernel, which reads them
// per channel when they have C values). One pass for the statistics and one that normalizes, scales and shifts,
// where the exported form made four (the speech front end's 1.6M-value GroupNorm 0.70 -> ~0.4 ms). The shape of x
// must be known (inferred) where the second Reshape's shape is a constant, to check that it restores x's. Not where
// ONNX Runtime's arithmetic is asked for (it runs the exported form).
#include <cstring>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"
#include "optimizer/inferred_types.h"

namespace onyx::optimizer {
namespace {

// A constant float tensor whose values all equal `value`.
bool AllFloats(const Tensor* t, float value) {
  if (t == nullptr || t->type() != DataType::kFloat) return false;
  const float* v = t->data<float>();
  for (int64_t i = 0; i < t->size(); ++i) {
    if (v[i] != value) return false;
  }
  return true;
}

// The per-channel values of a constant that varies along axis 1 only of a rank-`rank` value of `channels` channels
// ([C, 1, ..., 1] of rank - 1 or [1, C, 1, ..., 1] of rank `rank`, float), as a vector of C; empty otherwise.
std::vector<float> PerChannel(const Tensor* t, int64_t rank, int64_t channels) {
  if (t == nullptr || t->type() != DataType::kFloat || t->size() != channels) return {};
  const int64_t r = t->rank();
  if (r != rank - 1 && r != rank) return {};
  const int64_t channel_axis = r == rank ? 1 : 0;
  for (int64_t a = 0; a < r; ++a) {
    if (a != channel_axis && t->dim(a) != 1) return {};
  }
  return std::vector<float>(t->data<float>(), t->data<float>() + channels);
}

}  // namespace

Result<int> RunFuseGroupNorm(ir::Graph& graph, const PassContext& ctx) {
  if (ctx.options.ort_fusions) return 0;
  bool candidate = false;
  for (const auto& n : graph.nodes) candidate = candidate || IsOnnxOp(n, "InstanceNormalization");
  if (!candidate) return 0;
  const std::optional<infer::GraphTypes> types = InferOnCopy(graph, ctx);
  const bool standard = ctx.model.OpsetVersion("").value_or(0) >= 21;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& add = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    for (int side = 0; side < 2; ++side) {
      const Tensor* beta = index.Constant(add.inputs[static_cast<size_t>(1 - side)]);
      const std::string& scaled = add.inputs[static_cast<size_t>(side)];
      const ir::Node* mul = index.ProducerOp(scaled, "Mul");
      if (beta == nullptr || mul == nullptr || mul->inputs.size() != 2 || !index.HasSingleReader(scaled)) continue;
      const int gamma_side = index.Constant(mul->inputs[1]) != nullptr ? 1 : 0;
      const Tensor* gamma = index.Constant(mul->inputs[static_cast<size_t>(gamma_side)]);
      const std::string& restored = mul->inputs[static_cast<size_t>(1 - gamma_side)];
      const ir::Node* back = index.ProducerOp(restored, "Reshape");
      if (gamma == nullptr || back == nullptr || back->inputs.size() != 2 || !index.HasSingleReader(restored)) continue;
      const std::string& normalized = back->inputs[0];
      const ir::Node* in = index.ProducerOp(normalized, "InstanceNormalization");
      if (in == nullptr || in->inputs.size() != 3 || !index.HasSingleReader(normalized)) continue;
      if (!AllFloats(index.Constant(in->inputs[1]), 1.0f) || !AllFloats(index.Constant(in->inputs[2]), 0.0f)) continue;
      const std::string& grouped = in->inputs[0];
      const ir::Node* split = index.ProducerOp(grouped, "Reshape");
      if (split == nullptr || split->inputs.size() != 2 || !index.HasSingleReader(grouped)) continue;
      if (AttrInt(*split, "allowzero", 0) != 0 || AttrInt(*back, "allowzero", 0) != 0) continue;
      const std::string& x = split->inputs[0];
      // x's shape: every dimension known, from inference.
      const ir::TypeInfo* x_type = types ? FindType(*types, x) : nullptr;
      if (x_type == nullptr || !x_type->shape || x_type->elem_type != DataType::kFloat) continue;
      std::vector<int64_t> dims;
      for (const ir::Dim& d : *x_type->shape) {
        if (!d.is_value()) break;
        dims.push_back(d.value);
      }
      const auto rank = static_cast<int64_t>(x_type->shape->size());
      if (static_cast<int64_t>(dims.size()) != rank || rank < 3) continue;
      // [N or 0, G, -1]: G groups of the channels (and every spatial position) each.
      const Tensor* split_shape = index.Constant(split->inputs[1]);
      if (split_shape == nullptr || split_shape->type() != DataType::kInt64 || split_shape->size() != 3) continue;
      const std::vector<int64_t> s = split_shape->ToInt64Vector();
      const int64_t channels = dims[1], groups = s[1];
      if ((s[0] != 0 && s[0] != dims[0]) || s[2] != -1 || groups < 1 || channels % groups != 0) continue;
      // The second Reshape restores x's shape: Shape(x), or a constant equal to it.
      bool restores = false;
      if (const ir::Node* shape = index.ProducerOp(back->inputs[1], "Shape")) {
        restores = shape->inputs.size() == 1 && shape->inputs[0] == x && shape->attributes.empty();
      } else if (const Tensor* c = index.Constant(back->inputs[1]); c != nullptr && c->type() == DataType::kInt64) {
        restores = c->ToInt64Vector() == dims;
      }
      if (!restores) continue;
      const std::vector<float> g = PerChannel(gamma, rank, channels);
      const std::vector<float> b = PerChannel(beta, rank, channels);
      if (g.empty() || b.empty()) continue;
      auto vector_of = [&](const std::vector<float>& v) {
        Tensor t = Tensor::Allocate(DataType::kFloat, {channels});
        std::memcpy(t.data<float>(), v.data(), v.size() * sizeof(float));
        return t;
      };
      ir::Node gn;
      gn.name = add.name.empty() ? in->name : add.name;
      gn.op_type = "GroupNormalization";
      gn.domain = standard ? "" : ir::kInternalDomain;
      const std::string base = gn.name.empty() ? x : gn.name;
      gn.inputs = {x, AddInitializer(graph, base + "_scale", vector_of(g)),
                   AddInitializer(graph, base + "_bias", vector_of(b))};
      gn.outputs = {add.outputs[0]};
      SetAttrInt(gn, "num_groups", groups);
      SetAttrFloat(gn, "epsilon", AttrFloat(*in, "epsilon", 1e-5f));
      graph.nodes[static_cast<size_t>(i)] = std::move(gn);  // the pattern's other nodes: dead-code elimination
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
