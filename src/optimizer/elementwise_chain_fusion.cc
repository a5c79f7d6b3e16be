// The chain fusion (elementwise_chain_fusion.h). A chain is grown backwards from its last node: a producer joins when
// it is fusible and every reader of its output is already in the chain, so that no intermediate value is needed
// outside. The chain fuses when it has at least two nodes and reads exactly one tensor besides its constants. A
// QuantizeLinear -> DequantizeLinear pair with one scale and zero point (the activations of a QDQ model whose
// convolutions stay in float: S8S8 on CPUs without VNNI) counts as one member of two nodes.
#include "optimizer/elementwise_chain_fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/fused_elementwise.h"
#include "kernels/elementwise_program.h"  // kMaxElementwiseSteps
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// One operand of a step: a value of the graph, a constant, or the previous step of the same node (Clip's two).
struct Operand {
  enum class Kind { kValue, kConstant, kPrevious } kind = Kind::kValue;
  std::string value;
  float constant = 0;
  int64_t rank = 0;  // a constant's rank
};

struct NodeStep {
  std::string op;  // the FusedElementwise step name
  Operand a, b;
  bool unary = false;  // Sigmoid, Tanh: b unused
};

// A one-element float32 constant as an operand.
std::optional<Operand> ConstantOperand(const GraphIndex& index, const std::string& name) {
  const Tensor* t = index.Constant(name);
  if (t == nullptr) return std::nullopt;
  if (t->type() != DataType::kFloat || t->size() != 1) return std::nullopt;
  Operand o;
  o.kind = Operand::Kind::kConstant;
  o.constant = t->data<float>()[0];
  o.rank = t->rank();
  return o;
}

Operand ValueOperand(const std::string& name) {
  Operand o;
  o.value = name;
  return o;
}

// A constant the step itself brings (a bound, a quantization parameter): it does not broadcast the result.
Operand StepConstant(float v) { return Operand{Operand::Kind::kConstant, "", v, 0}; }

// The result of the step before, within one node's steps.
const Operand kPreviousStep{Operand::Kind::kPrevious, "", 0, 0};

// The steps node `n` computes, or nullopt when it is not fusible. `has_float_constant` is set when a float32
// constant operand fixes the element type of the values it meets.
std::optional<std::vector<NodeStep>> StepsOf(const GraphIndex& index, const ir::Model& model, const ir::Node& n,
                                             bool* has_float_constant) {
  if (!IsOnnxOp(n, n.op_type) || n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0].empty()) {
    return std::nullopt;
  }
  const auto since = NodeSinceVersion(model, n);
  if (!since) return std::nullopt;
  const std::string& op = n.op_type;
  std::vector<NodeStep> steps;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    // Before opset 7 the broadcast rule was an attribute (elementwise.h); those graphs are left alone.
    if (n.inputs.size() != 2 || *since < 7) return std::nullopt;
    NodeStep s{op, {}, {}};
    Operand* sides[2] = {&s.a, &s.b};
    int constants = 0;
    for (int k = 0; k < 2; ++k) {
      const std::string& name = n.inputs[static_cast<size_t>(k)];
      if (index.Constant(name) != nullptr) {
        auto c = ConstantOperand(index, name);
        if (!c) return std::nullopt;
        *sides[k] = *c;
        ++constants;
      } else {
        *sides[k] = ValueOperand(name);
      }
    }
    if (constants == 2) return std::nullopt;  // constant folding's work
    if (constants > 0) *has_float_constant = true;
    steps.push_back(s);
    return steps;
  }
  if (n.inputs.size() != 1 && op != "Clip") return std::nullopt;
  if (op == "Relu") {
    steps.push_back({"ClampBelow", ValueOperand(n.inputs[0]), StepConstant(0.0f)});
    return steps;
  }
  if (op == "Sigmoid" || op == "Tanh") {
    steps.push_back({op, ValueOperand(n.inputs[0]), {}, true});
    return steps;
  }
  if (op == "Clip") {
    const auto bounds = ConstantClipBounds(index, n, *since);
    if (!bounds) return std::nullopt;
    if (*since >= 11) {  // the bounds have the input's type: float32 ones only
      for (size_t k = 1; k < 3 && k < n.inputs.size(); ++k) {
        if (!n.inputs[k].empty() && index.Constant(n.inputs[k])->type() != DataType::kFloat) return std::nullopt;
      }
      *has_float_constant = bounds->lo.has_value() || bounds->hi.has_value();
    }
    Operand input = ValueOperand(n.inputs[0]);
    if (bounds->lo) {
      steps.push_back({"ClampBelow", input, StepConstant(static_cast<float>(*bounds->lo))});
      input = kPreviousStep;
    }
    if (bounds->hi) steps.push_back({"ClampAbove", input, StepConstant(static_cast<float>(*bounds->hi))});
    if (steps.empty()) return std::nullopt;  // no bound: an identity, not worth a chain
    return steps;
  }
  return std::nullopt;
}

// A node as a chain member: its steps, the tensors they read (constants aside) and, for a DequantizeLinear whose
// QuantizeLinear fuses with it, that node (erased with the chain).
struct Fusible {
  std::vector<NodeStep> steps;
  std::vector<std::string> inputs;
  int absorbed = -1;
  bool has_float_constant = false;
};

// The one-element float32 scale of a quantization node: positive and finite (what the 8-bit kernels assume).
std::optional<float> ScalarScale(const GraphIndex& index, const ir::Node& n) {
  if (n.inputs.size() < 2) return std::nullopt;
  auto c = ConstantOperand(index, n.inputs[1]);
  if (!c || !(c->constant > 0) || !std::isfinite(c->constant)) return std::nullopt;
  return c->constant;
}

// The zero point of a quantization node as (type, value): uint8 0 when absent; nullopt unless one 8-bit constant.
std::optional<std::pair<DataType, int32_t>> ScalarZeroPoint(const GraphIndex& index, const ir::Node& n) {
  if (n.inputs.size() < 3 || n.inputs[2].empty()) return std::make_pair(DataType::kUint8, 0);
  const Tensor* z = index.Constant(n.inputs[2]);
  if (z == nullptr || z->size() != 1) return std::nullopt;
  if (z->type() == DataType::kUint8) return std::make_pair(DataType::kUint8, int32_t{z->data<uint8_t>()[0]});
  if (z->type() == DataType::kInt8) return std::make_pair(DataType::kInt8, int32_t{z->data<int8_t>()[0]});
  return std::nullopt;
}

// DequantizeLinear(QuantizeLinear(x, s, z), s, z) with one scale and zero point, nothing else reading the 8-bit
// value: x / s, a NaN to the zero point, saturated to the 8-bit range, rounded half to even, back times s
// (kernels/int8_quantize.h computes the quantization that way; the dequantization is (q - z) * s).
std::optional<Fusible> QuantizeDequantizePair(const GraphIndex& index, const ir::Model& model, const ir::Node& dq) {
  if (dq.inputs.empty() || dq.FindAttribute("block_size") != nullptr) return std::nullopt;
  const ir::Node* q = index.ProducerOp(dq.inputs[0], "QuantizeLinear");
  if (q == nullptr || q->inputs.empty() || q->outputs.size() != 1 || !index.HasSingleReader(dq.inputs[0]) ||
      q->FindAttribute("block_size") != nullptr || q->FindAttribute("output_dtype") != nullptr) {
    return std::nullopt;
  }
  const auto scale = ScalarScale(index, *q);
  const auto zero_point = ScalarZeroPoint(index, *q);
  if (!scale || !zero_point || ScalarScale(index, dq) != scale || ScalarZeroPoint(index, dq) != zero_point) {
    return std::nullopt;
  }
  // From opset 19 x has the scale's type; before, QuantizeLinear also takes int32 x.
  const std::string& x = q->inputs[0];
  const auto since = NodeSinceVersion(model, *q);
  if (!since || (*since < 19 && index.ElemType(x) != DataType::kFloat)) return std::nullopt;
  const bool is_signed = zero_point->first == DataType::kInt8;
  const int32_t z = zero_point->second;
  Fusible f;
  f.steps = {{"Div", ValueOperand(x), StepConstant(*scale)},
             {"ReplaceNaN", kPreviousStep, StepConstant(0.0f)},
             {"ClampBelow", kPreviousStep, StepConstant(static_cast<float>((is_signed ? -128 : 0) - z))},
             {"ClampAbove", kPreviousStep, StepConstant(static_cast<float>((is_signed ? 127 : 255) - z))},
             {"RoundEven", kPreviousStep, {}, true},
             {"Mul", kPreviousStep, StepConstant(*scale)}};
  f.inputs = {x};
  f.absorbed = index.Producer(dq.inputs[0]);
  f.has_float_constant = true;
  return f;
}

std::optional<Fusible> FusibleOf(const GraphIndex& index, const ir::Model& model, const ir::Node& n) {
  if (IsOnnxOp(n, "DequantizeLinear")) return QuantizeDequantizePair(index, model, n);
  Fusible f;
  auto steps = StepsOf(index, model, n, &f.has_float_constant);
  if (!steps) return std::nullopt;
  f.steps = std::move(*steps);
  for (const std::string& in : n.inputs) {
    if (!in.empty() && index.Constant(in) == nullptr) f.inputs.push_back(in);
  }
  return f;
}

// A chain found in the graph: its nodes (graph indices, ascending) and the one tensor it reads.
struct Chain {
  std::vector<int> nodes;
  std::string input;
};

ir::Node BuildFusedNode(const ir::Graph& graph, const std::vector<std::optional<Fusible>>& fusible,
                        const Chain& chain) {
  std::vector<std::string> step_names;
  std::vector<int64_t> operands;
  std::vector<float> constants;
  int64_t rank = 0;
  std::unordered_map<std::string, int64_t> registers{{chain.input, 0}};
  auto operand = [&](const Operand& o, int64_t previous) -> int64_t {
    switch (o.kind) {
      case Operand::Kind::kValue:
        return registers.at(o.value);
      case Operand::Kind::kPrevious:
        return previous;
      case Operand::Kind::kConstant:
        rank = std::max(rank, o.rank);
        constants.push_back(o.constant);
        return -static_cast<int64_t>(constants.size());
    }
    return 0;
  };
  for (int i : chain.nodes) {
    for (const NodeStep& s : fusible[static_cast<size_t>(i)]->steps) {
      const int64_t previous = static_cast<int64_t>(step_names.size());  // the register of the step before
      step_names.push_back(s.op);
      operands.push_back(operand(s.a, previous));
      operands.push_back(s.unary ? 0 : operand(s.b, previous));
    }
    registers[graph.nodes[static_cast<size_t>(i)].outputs[0]] = static_cast<int64_t>(step_names.size());
  }
  const ir::Node& last = graph.nodes[static_cast<size_t>(chain.nodes.back())];
  ir::Node fused;
  fused.name = last.name;
  fused.op_type = ir::fused::kFusedElementwise;
  fused.domain = ir::kInternalDomain;
  fused.inputs = {chain.input};
  fused.outputs = {last.outputs[0]};
  fused.attributes = {ir::StringsAttr("steps", std::move(step_names)), ir::IntsAttr("operands", std::move(operands)),
                      ir::FloatsAttr("constants", std::move(constants)), ir::IntAttr("rank", rank)};
  return fused;
}

}  // namespace

Result<int> FuseElementwiseChains(ir::Model& model) {
  ir::Graph& graph = model.graph;
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(graph));
  OptimizerOptions options;
  PassContext ctx{model, options, true};
  GraphIndex index(graph, ctx);
  const int count = static_cast<int>(graph.nodes.size());
  std::vector<std::optional<Fusible>> fusible(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    fusible[static_cast<size_t>(i)] = FusibleOf(index, model, graph.nodes[static_cast<size_t>(i)]);
  auto is_fusible = [&](int i) { return fusible[static_cast<size_t>(i)].has_value(); };
  std::vector<bool> taken(static_cast<size_t>(count), false);
  std::vector<Chain> chains;
  for (int last = count - 1; last >= 0; --last) {
    if (!is_fusible(last) || taken[static_cast<size_t>(last)]) continue;
    std::set<int> members{last};
    for (bool grew = true; grew;) {
      grew = false;
      const std::vector<int> current(members.begin(), members.end());
      for (int m : current) {
        for (const std::string& in : fusible[static_cast<size_t>(m)]->inputs) {
          const int p = index.Producer(in);
          if (p < 0 || members.count(p) > 0 || !is_fusible(p) || taken[static_cast<size_t>(p)] ||
              index.IsGraphOutput(in)) {
            continue;
          }
          const auto& readers = index.Consumers(in);
          if (std::all_of(readers.begin(), readers.end(), [&](int r) { return members.count(r) > 0; })) {
            members.insert(p);
            grew = true;
          }
        }
      }
    }
    // The tensors the chain reads from outside, whether a float32 constant fixes their type, and its size.
    std::set<std::string> inputs;
    bool typed = false;
    size_t steps = 0, nodes = 0;
    for (int m : members) {
      const Fusible& f = *fusible[static_cast<size_t>(m)];
      for (const std::string& in : f.inputs) {
        const int p = index.Producer(in);
        if (p < 0 || members.count(p) == 0) inputs.insert(in);
      }
      typed = typed || f.has_float_constant;
      steps += f.steps.size();
      nodes += f.absorbed >= 0 ? 2 : 1;
    }
    if (nodes < 2 || inputs.size() != 1 || steps > static_cast<size_t>(kernels::kMaxElementwiseSteps)) continue;
    const std::string& input = *inputs.begin();
    if (!typed && index.ElemType(input) != DataType::kFloat) continue;
    for (int m : members) taken[static_cast<size_t>(m)] = true;
    chains.push_back(Chain{std::vector<int>(members.begin(), members.end()), input});
  }
  if (chains.empty()) return 0;
  std::vector<ir::Node> fused;
  std::vector<int> erase;
  for (const Chain& c : chains) {
    fused.push_back(BuildFusedNode(graph, fusible, c));
    for (int m : c.nodes) {
      erase.push_back(m);
      if (const int q = fusible[static_cast<size_t>(m)]->absorbed; q >= 0) erase.push_back(q);
    }
  }
  EraseNodes(graph, erase);
  for (ir::Node& n : fused) graph.nodes.push_back(std::move(n));
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(graph));
  if (!model.OpsetVersion(ir::kInternalDomain)) model.opset_import.push_back({ir::kInternalDomain, 1});
  return static_cast<int>(chains.size());
}

}  // namespace onyx::optimizer
