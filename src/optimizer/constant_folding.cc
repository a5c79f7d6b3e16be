// Constant folding: a node whose inputs are all constants runs once, now, through the runtime's own kernel (a
// one-node Session), and its outputs become initializers under the same names. Also folds Shape and Size of main
// graph inputs whose declared shape is fully static (a session rejects feeds of another shape), and of main-graph
// values whose shape inference finds fully static (from such inputs and constants), as ONNX Runtime folds them: the
// Shape -> Gather -> arithmetic chains torch exports around Reshape and Slice then fold to constants too (a
// transformer's head splitting), which later passes need constant.
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "optimizer/graph_index.h"
#include "optimizer/inferred_types.h"

namespace onyx::optimizer {
namespace {

// Outputs larger than this are left to be computed at run time when they are larger than the inputs too
// (ConstantOfShape, Expand, Tile, Range would otherwise bloat the model).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

// Whether every reader of DequantizeLinear n's output is a Conv or ConvTranspose reading it as weights or bias (and
// it is no graph output).
bool OnlyConvolutionWeights(const ir::Node& n, const GraphIndex& index) {
  if (n.outputs.size() != 1 || index.IsGraphOutput(n.outputs[0])) return false;
  const auto& readers = index.Consumers(n.outputs[0]);
  if (readers.empty()) return false;
  for (int r : readers) {
    const ir::Node& c = index.graph().nodes[static_cast<size_t>(r)];
    if (!IsOnnxOp(c, "Conv") && !IsOnnxOp(c, "ConvTranspose")) return false;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      if (c.inputs[k] == n.outputs[0] && k != 1 && k != 2) return false;
    }
  }
  return true;
}

bool MayFold(const ir::Node& n, const GraphIndex& index, const PassContext& ctx) {
  // Random operators; Dropout (random in training mode; in inference the identity pass removes it);
  // DequantizeLinear, whose float result would be 4x its int8 weights and would hide the quantized pattern from
  // int8 kernels (onnxruntime keeps it too) -- except, once the QDQ groups that fuse have fused, the weights of
  // convolutions left in float (int8 activations on x86-64, as ONNX Runtime leaves them): computed once instead of
  // on every run, and constant, as the blocked convolutions need them (the same values either way).
  static const std::unordered_set<std::string> excluded = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
  if (!(n.domain.empty() || n.domain == "ai.onnx" || n.domain == "ai.onnx.ml")) return false;
  if (excluded.count(n.op_type)) return false;
  if (n.op_type == "DequantizeLinear" && !(ctx.fold_weight_dequantize && OnlyConvolutionWeights(n, index))) {
    return false;
  }
  for (const auto& a : n.attributes) {
    if (a.g || !a.graphs.empty()) return false;  // If/Loop/Scan: bodies may read outer values
  }
  return !n.outputs.empty();
}

// Whether the output's size, known from the constant inputs before running, is past the limit (ConstantOfShape,
// Expand, Tile, Range): those are not even computed, so a hostile shape cannot make folding allocate gigabytes.
bool KnownTooLarge(const ir::Node& n, const std::function<const Tensor*(const std::string&)>& constant) {
  auto product = [](const Tensor* t) {
    double p = 1;
    for (int64_t i = 0; i < t->size(); ++i) p *= std::max<double>(1.0, static_cast<double>(t->IntAt(i)));
    return p;
  };
  const auto limit = static_cast<double>(kMaxFoldedElements);
  auto input = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty() ? constant(n.inputs[i]) : nullptr; };
  if ((IsOnnxOp(n, "ConstantOfShape") || IsOnnxOp(n, "Expand")) && input(n.op_type == "Expand" ? 1 : 0) != nullptr) {
    const Tensor* shape = input(n.op_type == "Expand" ? 1 : 0);
    return IsInteger(shape->type()) && product(shape) > limit;
  }
  if (IsOnnxOp(n, "Tile") && input(0) != nullptr && input(1) != nullptr && IsInteger(input(1)->type())) {
    return product(input(1)) * static_cast<double>(input(0)->size()) > limit;
  }
  if (IsOnnxOp(n, "Range") && input(0) != nullptr && input(1) != nullptr && input(2) != nullptr) {
    if (input(0)->size() != 1 || input(1)->size() != 1 || input(2)->size() != 1) return false;  // the kernel rejects it
    const double start = input(0)->DoubleAt(0), stop = input(1)->DoubleAt(0), step = input(2)->DoubleAt(0);
    return step == 0 || !std::isfinite((stop - start) / step) || std::abs((stop - start) / step) > limit;
  }
  return false;
}

// Runs `node` on constant inputs; nullopt when it fails or produces something other than tensors.
std::optional<std::vector<Tensor>> Evaluate(const ir::Node& node,
                                            const std::function<const Tensor*(const std::string&)>& constant,
                                            const PassContext& ctx) {
  ir::Model m;
  m.ir_version = ctx.model.ir_version;
  m.opset_import = ctx.model.opset_import;
  m.graph.name = "constant_folding";
  m.graph.nodes.push_back(node);
  std::unordered_set<std::string> added;
  for (const auto& in : node.inputs) {
    if (in.empty() || !added.insert(in).second) continue;
    ir::NamedTensor nt;
    nt.name = in;
    nt.tensor = *constant(in);
    m.graph.initializers.push_back(std::move(nt));
  }
  for (const auto& out : node.outputs) {
    if (!out.empty()) m.graph.outputs.push_back(ir::ValueInfo{out, std::nullopt, {}, {}});
  }
  if (!ctx.options.run_constant_model) return std::nullopt;
  auto outs = ctx.options.run_constant_model(std::move(m));
  if (!outs.ok()) return std::nullopt;
  std::vector<Tensor> tensors;
  for (auto& v : *outs) {
    if (!v.is_tensor()) return std::nullopt;
    tensors.push_back(std::move(v.tensor()));
  }
  return tensors;
}

// The shape `type` gives where every dim is a number, else nullopt.
std::optional<Shape> FullyStatic(const ir::TypeInfo* type) {
  if (type == nullptr || !type->is_tensor() || !type->shape) return std::nullopt;
  Shape s;
  for (const auto& d : *type->shape) {
    if (!d.is_value() || d.value < 0) return std::nullopt;
    s.push_back(d.value);
  }
  return s;
}

// The fully static shape of a main-graph input, or nullopt.
std::optional<Shape> StaticInputShape(const ir::Graph& graph, const GraphIndex& index, const std::string& name,
                                      const PassContext& ctx) {
  if (!ctx.is_main_graph || !index.IsGraphInput(name)) return std::nullopt;
  for (const auto& in : graph.inputs) {
    if (in.name == name) return FullyStatic(in.type ? &*in.type : nullptr);
  }
  return std::nullopt;
}

// Shape (with opset 15's start/end) or Size of a statically shaped input.
std::optional<Tensor> FoldShapeOf(const ir::Node& n, const Shape& shape) {
  if (IsOnnxOp(n, "Size")) return Tensor::Scalar<int64_t>(NumElements(shape));
  const auto rank = static_cast<int64_t>(shape.size());
  auto clamp = [&](int64_t v) {
    if (v < 0) v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  const int64_t start = clamp(AttrInt(n, "start", 0));
  const int64_t end = clamp(AttrInt(n, "end", rank));
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(shape[static_cast<size_t>(i)]);
  return Tensor::FromVector<int64_t>(dims, {static_cast<int64_t>(dims.size())});
}

}  // namespace

Result<int> RunConstantFolding(ir::Graph& graph, const PassContext& ctx) {
  GraphIndex index(graph, ctx);
  std::unordered_map<std::string, Tensor> folded;  // values folded in this sweep (become initializers below)
  auto constant = [&](const std::string& name) -> const Tensor* {
    auto it = folded.find(name);
    return it != folded.end() ? &it->second : index.Constant(name);
  };
  // The graph's inferred types, computed once per sweep where a Shape or Size of an intermediate value asks (main
  // graph only: a body's values depend on its outer scope).
  std::optional<std::optional<infer::GraphTypes>> inferred;
  auto static_shape = [&](const std::string& name) -> std::optional<Shape> {
    if (auto s = StaticInputShape(graph, index, name, ctx)) return s;
    if (!ctx.is_main_graph || index.IsGraphInput(name)) return std::nullopt;
    if (!inferred) inferred = InferOnCopy(graph, ctx);
    if (!*inferred) return std::nullopt;
    return FullyStatic(FindType(**inferred, name));
  };
  std::vector<int> removed;
  std::vector<std::string> new_constants;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    if (!MayFold(n, index, ctx)) continue;
    std::optional<std::vector<Tensor>> outputs;
    if ((IsOnnxOp(n, "Shape") || IsOnnxOp(n, "Size")) && n.inputs.size() == 1 && n.outputs.size() == 1 &&
        constant(n.inputs[0]) == nullptr) {
      auto shape = static_shape(n.inputs[0]);
      if (!shape) continue;
      auto t = FoldShapeOf(n, *shape);
      if (!t) continue;
      outputs = std::vector<Tensor>{std::move(*t)};
    } else {
      int64_t input_elements = 0;
      bool all_constant = true;
      for (const auto& in : n.inputs) {
        if (in.empty()) continue;
        const Tensor* t = constant(in);
        if (t == nullptr) {
          all_constant = false;
          break;
        }
        input_elements += t->size();
      }
      if (!all_constant || KnownTooLarge(n, constant)) continue;
      outputs = Evaluate(n, constant, ctx);
      if (!outputs) continue;
      int64_t output_elements = 0;
      for (const auto& t : *outputs) output_elements += t.size();
      if (!IsOnnxOp(n, "Constant") && output_elements > kMaxFoldedElements && output_elements > input_elements) {
        continue;
      }
    }
    // Session outputs come back in the order of the node's non-empty outputs.
    size_t k = 0;
    for (const auto& out : n.outputs) {
      if (out.empty()) continue;
      folded[out] = std::move((*outputs)[k++]);
      new_constants.push_back(out);
    }
    removed.push_back(static_cast<int>(i));
  }
  if (removed.empty()) return 0;
  EraseNodes(graph, removed);
  for (const auto& name : new_constants) {
    ir::NamedTensor nt;
    nt.name = name;
    nt.tensor = std::move(folded[name]);
    graph.initializers.push_back(std::move(nt));
  }
  return static_cast<int>(removed.size());
}

}  // namespace onyx::optimizer
