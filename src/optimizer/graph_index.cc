#include "optimizer/graph_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/fused_elementwise.h"
#include "ir/graph_edit.h"
#include "ir/nchwc_ops.h"
#include "schema/op_versions.h"

namespace onyx::optimizer {
namespace {

bool IsOnnxDomain(const ir::Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

// Operators whose output 0 has both the element type and the rank of input 0: elementwise activations,
// normalizations, pooling, resampling, padding, slicing.
bool KeepsInputTypeAndRank(const std::string& op) {
  static const std::unordered_set<std::string> ops = {"Identity",
                                                      "Relu",
                                                      "LeakyRelu",
                                                      "Sigmoid",
                                                      "Tanh",
                                                      "Neg",
                                                      "Abs",
                                                      "Exp",
                                                      "Log",
                                                      "Sqrt",
                                                      "Reciprocal",
                                                      "Floor",
                                                      "Ceil",
                                                      "Round",
                                                      "Erf",
                                                      "Clip",
                                                      "Softmax",
                                                      "Dropout",
                                                      "Gelu",
                                                      "LayerNormalization",
                                                      "BatchNormalization",
                                                      "InstanceNormalization",
                                                      "GroupNormalization",
                                                      "MaxPool",
                                                      "AveragePool",
                                                      "LpPool",
                                                      "GlobalAveragePool",
                                                      "GlobalMaxPool",
                                                      "HardSwish",
                                                      "HardSigmoid",
                                                      "Elu",
                                                      "Selu",
                                                      "Softplus",
                                                      "PRelu",
                                                      "Resize",
                                                      "Upsample",
                                                      "Pad",
                                                      "DepthToSpace",
                                                      "SpaceToDepth",
                                                      "Slice",
                                                      "Tile"};
  return ops.count(op) > 0;
}

// Operators whose output 0 has the element type of input 0 (Where: of input 1); the internal twins of standard
// operators (ir::kInternalStandardTwins) as those.
bool KeepsInputType(const ir::Node& n) {
  static const std::unordered_set<std::string> ops = {
      "Add",       "Sub",     "Mul",        "Div",       "Pow",       "Max",       "Min",    "Reshape",
      "Transpose", "Squeeze", "Unsqueeze",  "Flatten",   "Concat",    "Gather",    "Expand", "MatMul",
      "Gemm",      "Conv",    "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "Where"};
  return (IsOnnxDomain(n) && (KeepsInputTypeAndRank(n.op_type) || ops.count(n.op_type) > 0)) ||
         ir::IsInternalStandardTwin(n);
}

// Operators whose output 0 has the rank of input 0 (the internal twins as above).
bool KeepsInputRank(const ir::Node& n) {
  return (IsOnnxDomain(n) && (KeepsInputTypeAndRank(n.op_type) || n.op_type == "Cast")) ||
         ir::IsInternalStandardTwin(n);
}

}  // namespace

GraphIndex::GraphIndex(const ir::Graph& graph, const PassContext& ctx)
    : graph_(graph), is_main_graph_(ctx.is_main_graph) {
  for (const auto& in : graph.inputs) inputs_[in.name] = &in;
  for (const auto& out : graph.outputs) outputs_.insert(out.name);
  for (const auto& init : graph.initializers) {
    if (!inputs_.count(init.name) && init.tensor.defined() &&
        (init.tensor.raw() != nullptr || init.tensor.size() == 0)) {
      constants_[init.name] = &init.tensor;
    }
  }
  producer_.reserve(graph.nodes.size() * 2);
  consumers_.reserve(graph.nodes.size() * 2);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    for (const auto& o : n.outputs) {
      if (!o.empty()) producer_[o] = static_cast<int>(i);
    }
    auto read = [&](const std::string& r) {
      if (r.empty()) return;
      auto& c = consumers_[r];
      if (c.empty() || c.back() != static_cast<int>(i)) c.push_back(static_cast<int>(i));
    };
    // The inputs as they are (passes rebuild the index after each rewrite: a copied list of names per node was
    // most of its cost); the outer values a subgraph reads through ir::NodeReads, only where the node has one.
    const bool has_subgraph = std::any_of(n.attributes.begin(), n.attributes.end(),
                                          [](const ir::Attribute& a) { return a.g != nullptr || !a.graphs.empty(); });
    if (has_subgraph) {
      for (const auto& r : ir::NodeReads(n)) read(r);
    } else {
      for (const auto& r : n.inputs) read(r);
    }
  }
}

int GraphIndex::Producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const ir::Node* GraphIndex::ProducerOp(const std::string& value, std::string_view op_type) const {
  int p = Producer(value);
  if (p < 0) return nullptr;
  const ir::Node& n = graph_.nodes[static_cast<size_t>(p)];
  return IsOnnxOp(n, op_type) ? &n : nullptr;
}

const std::vector<int>& GraphIndex::Consumers(const std::string& value) const {
  static const std::vector<int> none;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? none : it->second;
}

bool GraphIndex::HasSingleReader(const std::string& value) const {
  if (IsGraphOutput(value)) return false;
  const auto& c = Consumers(value);
  if (c.size() != 1) return false;
  // Read once: a node reading the value twice (Mul(x, x)) is fine, a subgraph read is not (it cannot be fused).
  const ir::Node& n = graph_.nodes[static_cast<size_t>(c[0])];
  return std::find(n.inputs.begin(), n.inputs.end(), value) != n.inputs.end();
}

int GraphIndex::ReadEdges(const std::string& value) const {
  int edges = 0;
  for (int c : Consumers(value)) {
    const ir::Node& n = graph_.nodes[static_cast<size_t>(c)];
    const auto slots = static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), value));
    const bool has_subgraph = std::any_of(n.attributes.begin(), n.attributes.end(),
                                          [](const ir::Attribute& a) { return a.g != nullptr || !a.graphs.empty(); });
    edges += slots + (slots == 0 || has_subgraph ? 1 : 0);
  }
  return edges;
}

const Tensor* GraphIndex::Constant(const std::string& value) const {
  auto it = constants_.find(value);
  return it == constants_.end() ? nullptr : it->second;
}

namespace {
bool IsDynamicQuantMatMul(const ir::Node& n) {
  return n.domain == ir::kInternalDomain &&
         (n.op_type == "DynamicQuantizeMatMul" || n.op_type == "MatMulIntegerToFloat");
}
}  // namespace

std::optional<DataType> GraphIndex::ElemType(const std::string& value) const { return ElemTypeImpl(value, 0); }

std::optional<DataType> GraphIndex::ElemTypeImpl(const std::string& value, int depth) const {
  if (depth > 64 || value.empty()) return std::nullopt;
  if (const Tensor* t = Constant(value)) return t->type();
  auto in = inputs_.find(value);
  if (in != inputs_.end()) {
    // Only a main graph's declared input types are checked against what is fed.
    const auto& type = in->second->type;
    if (is_main_graph_ && type && type->is_tensor() && type->elem_type != DataType::kUndefined) {
      return type->elem_type;
    }
    return std::nullopt;
  }
  int p = Producer(value);
  if (p < 0) return std::nullopt;
  const ir::Node& n = graph_.nodes[static_cast<size_t>(p)];
  if (n.outputs.empty() || n.outputs[0] != value) return std::nullopt;
  if (IsOnnxOp(n, "Cast")) {
    const int64_t to = AttrInt(n, "to", 0);
    if (IsValidDataType(static_cast<int32_t>(to))) return static_cast<DataType>(to);
    return std::nullopt;
  }
  // The dynamic-quantization fusion's float products (optimizer/dynamic_quant_fusion.cc).
  if (IsDynamicQuantMatMul(n)) return DataType::kFloat;
  // Blocked values are float32 by the layout pass's contract (ir/nchwc_ops.h), as are FusedElementwise's results.
  if (n.domain == ir::kInternalDomain &&
      (n.op_type == ir::nchwc::kConv || n.op_type == ir::nchwc::kPool || n.op_type == ir::nchwc::kReorder ||
       n.op_type == ir::nchwc::kResize || n.op_type == ir::fused::kFusedElementwise)) {
    return DataType::kFloat;
  }
  // DequantizeLinear gives float before opset 19 and its scale's type from 19 on: float for a float scale.
  if (IsOnnxOp(n, "DequantizeLinear") && n.inputs.size() > 1 &&
      ElemTypeImpl(n.inputs[1], depth + 1) == DataType::kFloat) {
    return DataType::kFloat;
  }
  if (IsOnnxOp(n, "Shape") || IsOnnxOp(n, "Size") || IsOnnxOp(n, "NonZero") || IsOnnxOp(n, "ArgMax") ||
      IsOnnxOp(n, "ArgMin")) {
    return DataType::kInt64;
  }
  for (const char* op :
       {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor", "IsNaN", "IsInf"}) {
    if (IsOnnxOp(n, op)) return DataType::kBool;
  }
  if (KeepsInputType(n) && !n.inputs.empty()) {
    // Where's data inputs are 1 and 2; every other listed operator's output follows input 0.
    return ElemTypeImpl(IsOnnxOp(n, "Where") ? n.inputs[1] : n.inputs[0], depth + 1);
  }
  return std::nullopt;
}

std::optional<int64_t> GraphIndex::Rank(const std::string& value) const { return RankImpl(value, 0); }

std::optional<int64_t> GraphIndex::RankImpl(const std::string& value, int depth) const {
  if (depth > 64 || value.empty()) return std::nullopt;
  if (const Tensor* t = Constant(value)) return t->rank();
  auto in = inputs_.find(value);
  if (in != inputs_.end()) {
    const auto& type = in->second->type;
    if (is_main_graph_ && type && type->is_tensor() && type->shape) return static_cast<int64_t>(type->shape->size());
    return std::nullopt;
  }
  int p = Producer(value);
  if (p < 0) return std::nullopt;
  const ir::Node& n = graph_.nodes[static_cast<size_t>(p)];
  if (n.outputs.empty() || n.outputs[0] != value) return std::nullopt;
  if (IsOnnxOp(n, "Flatten") || IsOnnxOp(n, "Gemm")) return 2;
  if (IsOnnxOp(n, "Reshape") && n.inputs.size() > 1) {  // a constant shape: its length
    const Tensor* shape = Constant(n.inputs[1]);
    if (shape != nullptr && shape->rank() == 1) return shape->size();
  }
  if (IsOnnxOp(n, "Transpose")) {
    if (auto perm = AttrInts(n, "perm")) return static_cast<int64_t>(perm->size());
  }
  if ((IsOnnxOp(n, "Add") || IsOnnxOp(n, "Sub") || IsOnnxOp(n, "Mul") || IsOnnxOp(n, "Div")) && n.inputs.size() == 2 &&
      !n.FindAttribute("broadcast")) {  // numpy broadcasting: the larger rank (opset < 7's legacy form excluded)
    auto a = RankImpl(n.inputs[0], depth + 1);
    auto b = RankImpl(n.inputs[1], depth + 1);
    if (a && b) return std::max(*a, *b);
  }
  if ((IsOnnxOp(n, "Conv") || IsOnnxOp(n, "ConvInteger")) && n.inputs.size() > 1)
    return RankImpl(n.inputs[1], depth + 1);
  if (IsOnnxOp(n, "Concat")) {  // every input has the output's rank
    for (const std::string& in : n.inputs) {
      if (auto r = RankImpl(in, depth + 1)) return r;
    }
    return std::nullopt;
  }
  if (IsDynamicQuantMatMul(n) && !n.inputs.empty()) return RankImpl(n.inputs[0], depth + 1);  // W is 2-D
  if (KeepsInputRank(n) && !n.inputs.empty()) return RankImpl(n.inputs[0], depth + 1);
  return std::nullopt;
}

bool IsOnnxOp(const ir::Node& node, std::string_view op_type) {
  return node.op_type == op_type && (node.domain.empty() || node.domain == "ai.onnx");
}

int64_t AttrInt(const ir::Node& node, std::string_view name, int64_t default_value) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kInt ? a->i : default_value;
}

float AttrFloat(const ir::Node& node, std::string_view name, float default_value) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kFloat ? a->f : default_value;
}

std::optional<std::vector<int64_t>> AttrInts(const ir::Node& node, std::string_view name) {
  const ir::Attribute* a = node.FindAttribute(name);
  if (a == nullptr || a->type != ir::AttrType::kInts) return std::nullopt;
  return a->ints;
}

namespace {
ir::Attribute& AttrSlot(ir::Node& node, const std::string& name) {
  for (auto& a : node.attributes) {
    if (a.name == name) {
      a = ir::Attribute{};
      a.name = name;
      return a;
    }
  }
  node.attributes.emplace_back();
  node.attributes.back().name = name;
  return node.attributes.back();
}
}  // namespace

void SetAttrInt(ir::Node& node, const std::string& name, int64_t value) {
  auto& a = AttrSlot(node, name);
  a.type = ir::AttrType::kInt;
  a.i = value;
}

void SetAttrFloat(ir::Node& node, const std::string& name, float value) {
  auto& a = AttrSlot(node, name);
  a.type = ir::AttrType::kFloat;
  a.f = value;
}

void SetAttrInts(ir::Node& node, const std::string& name, std::vector<int64_t> values) {
  auto& a = AttrSlot(node, name);
  a.type = ir::AttrType::kInts;
  a.ints = std::move(values);
}

std::optional<int> NodeSinceVersion(const ir::Model& model, const ir::Node& node) {
  auto opset = model.OpsetVersion(node.domain);
  if (!opset) return std::nullopt;
  return ResolveSinceVersion(node.domain, node.op_type, *opset);
}

std::optional<double> ScalarOf(const Tensor* t) {
  if (t == nullptr || t->size() != 1 || !IsFloatingPoint(t->type())) return std::nullopt;
  return t->DoubleAt(0);
}

bool IsScalarNear(const Tensor* t, double target, double relative_tolerance) {
  auto v = ScalarOf(t);
  return v && std::abs(*v - target) <= relative_tolerance * std::abs(target);
}

std::optional<ClipBounds> ConstantClipBounds(const GraphIndex& index, const ir::Node& clip, int64_t since) {
  ClipBounds bounds;
  if (since < 11) {
    const double lowest = std::numeric_limits<float>::lowest(), highest = std::numeric_limits<float>::max();
    if (const auto* a = clip.FindAttribute("min")) {
      bounds.lo = a->f;
    } else if (since >= 6) {
      bounds.lo = lowest;
    }
    if (const auto* a = clip.FindAttribute("max")) {
      bounds.hi = a->f;
    } else if (since >= 6) {
      bounds.hi = highest;
    }
    return bounds;
  }
  for (size_t k = 1; k < 3 && k < clip.inputs.size(); ++k) {
    if (clip.inputs[k].empty()) continue;
    auto v = ScalarOf(index.Constant(clip.inputs[k]));
    if (!v) return std::nullopt;
    (k == 1 ? bounds.lo : bounds.hi) = v;
  }
  return bounds;
}

std::string AddInitializer(ir::Graph& graph, const std::string& base, Tensor value) {
  ir::NamedTensor nt;
  nt.name = ir::UniqueValueName(graph, base);
  nt.tensor = std::move(value);
  graph.initializers.push_back(std::move(nt));
  return graph.initializers.back().name;
}

bool RedirectValue(ir::Graph& graph, const GraphIndex& index, const std::string& from, const std::string& to) {
  if (from == to) return true;
  if (!index.IsGraphOutput(from)) {
    ir::ReplaceAllUses(graph, from, to);
    return true;
  }
  // `from` names a graph output: keep that name by renaming `to` (its producer and readers) to `from`.
  const int p = index.Producer(to);
  if (p < 0 || index.IsGraphOutput(to) || index.IsGraphInput(to)) return false;
  for (auto& o : graph.nodes[static_cast<size_t>(p)].outputs) {
    if (o == to) o = from;
  }
  // Readers of `from` would now see the same value; readers of `to` follow the rename. ReplaceAllUses would also
  // rename graph outputs named `to`, and there are none.
  ir::ReplaceAllUses(graph, to, from);
  return true;
}

void EraseNodes(ir::Graph& graph, std::vector<int> indices) {
  if (indices.size() == 1) {
    graph.nodes.erase(graph.nodes.begin() + indices[0]);
    return;
  }
  // One compaction: erasing the nodes one by one moved the rest of the list each time (constant folding's thousands
  // of removals from Swin-T's 6333 nodes: ~10% of its session creation).
  std::vector<bool> erased(graph.nodes.size(), false);
  for (int i : indices) erased[static_cast<size_t>(i)] = true;
  size_t k = 0;
  std::erase_if(graph.nodes, [&](const ir::Node&) { return erased[k++]; });
}

std::string ResolveRename(const std::unordered_map<std::string, std::string>& renames, std::string name) {
  for (auto it = renames.find(name); it != renames.end(); it = renames.find(name)) name = it->second;
  return name;
}

void EraseNodesAndRename(ir::Graph& graph, const std::vector<bool>& erased,
                         std::unordered_map<std::string, std::string> renames) {
  for (auto& [from, to] : renames) to = ResolveRename(renames, to);
  size_t i = 0;
  std::erase_if(graph.nodes, [&](const ir::Node&) { return erased[i++]; });
  ir::ReplaceUses(graph, renames);
}

Result<int> RewriteEachNode(ir::Graph& graph, const PassContext& ctx,
                            const std::function<Result<bool>(const GraphIndex&, int)>& try_rewrite) {
  int rewrites = 0;
  auto index = std::make_unique<GraphIndex>(graph, ctx);
  // Every rewrite removes or shortens something, so this bound is never reached on a correct pass; it keeps a
  // faulty one from looping forever.
  const size_t budget = 4 * graph.nodes.size() + 64;
  size_t steps = 0;
  for (size_t i = 0; i < graph.nodes.size() && steps < budget; ++steps) {
    ONYX_ASSIGN_OR_RETURN(bool changed, try_rewrite(*index, static_cast<int>(i)));
    if (changed) {
      ++rewrites;
      index = std::make_unique<GraphIndex>(graph, ctx);
      continue;  // the node now at position i (maybe rewritten) is looked at again
    }
    ++i;
  }
  return rewrites;
}

std::optional<std::array<const Tensor*, 4>> InferenceBatchNormParams(const GraphIndex& index, const ir::Model& model,
                                                                     const ir::Node& bn) {
  if (!IsOnnxOp(bn, "BatchNormalization") || bn.inputs.size() != 5 || bn.outputs.empty()) return std::nullopt;
  for (size_t k = 1; k < bn.outputs.size(); ++k) {
    if (!bn.outputs[k].empty()) return std::nullopt;  // running statistics requested: training mode
  }
  auto since = NodeSinceVersion(model, bn);
  if (!since || *since < 7 || AttrInt(bn, "training_mode", 0) != 0 || AttrInt(bn, "spatial", 1) != 1) {
    return std::nullopt;
  }
  std::array<const Tensor*, 4> params{};
  for (size_t k = 0; k < 4; ++k) {
    params[k] = index.Constant(bn.inputs[k + 1]);
    if (params[k] == nullptr || params[k]->rank() != 1 || !IsFloatingPoint(params[k]->type()) ||
        params[k]->size() != params[0]->size()) {
      return std::nullopt;
    }
  }
  return params;
}

Tensor FloatTensor(DataType type, const Shape& shape, const std::vector<double>& values) {
  Tensor t = Tensor::Allocate(type, shape);
  (void)Dispatch<FloatTypes>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = FromDouble<T>(values[i]);
    return Status::Ok();
  });
  return t;
}

bool IsFusableFloat(DataType type) { return IsFloatingPoint(type); }

std::vector<double> ScaledPerOutputChannel(const Tensor& weights, const std::vector<double>& scale) {
  const int64_t m = weights.rank() > 0 ? weights.dim(0) : 0;
  const int64_t per_channel = weights.size() / std::max<int64_t>(m, 1);
  std::vector<double> out(static_cast<size_t>(weights.size()));
  for (int64_t k = 0; k < weights.size(); ++k) {
    out[static_cast<size_t>(k)] = weights.DoubleAt(k) * scale[static_cast<size_t>(k / per_channel)];
  }
  return out;
}

std::vector<ScaleOrBiasOf> MatchScaleOrBias(const ir::Graph& graph, const GraphIndex& index, int i,
                                            std::string_view producer_op) {
  std::vector<ScaleOrBiasOf> found;
  const ir::Node& op = graph.nodes[static_cast<size_t>(i)];
  const bool is_add = IsOnnxOp(op, "Add");
  if ((!is_add && !IsOnnxOp(op, "Mul")) || op.inputs.size() != 2 || op.outputs.size() != 1) return found;
  for (size_t side = 0; side < 2; ++side) {
    const std::string& y = op.inputs[side];
    const Tensor* constant = index.Constant(op.inputs[1 - side]);
    const int p = index.Producer(y);
    if (constant == nullptr || p < 0 || !index.HasSingleReader(y)) continue;
    const ir::Node& producer = graph.nodes[static_cast<size_t>(p)];
    if (!IsOnnxOp(producer, producer_op) || producer.inputs.size() < 2 || producer.outputs.size() != 1) continue;
    found.push_back({is_add, constant, p});
  }
  return found;
}

void FoldIntoConv(ir::Graph& graph, int conv, int consumer, const std::string& w_name, DataType type,
                  const std::vector<double>& bias) {
  const std::string out = graph.nodes[static_cast<size_t>(consumer)].outputs[0];
  const std::string b_name =
      AddInitializer(graph, out + "_bias", FloatTensor(type, {static_cast<int64_t>(bias.size())}, bias));
  ir::Node& fused = graph.nodes[static_cast<size_t>(conv)];
  fused.inputs.resize(3);
  fused.inputs[1] = w_name;
  fused.inputs[2] = b_name;
  fused.outputs[0] = out;
  EraseNodes(graph, {consumer});
}

}  // namespace onyx::optimizer
