#include "ir/gradient.h"

#include <map>
#include <set>
#include <unordered_map>

#include "ir/graph_edit.h"

namespace onyx::ir {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

class GradientBuilder {
 public:
  GradientBuilder(Graph& graph, const Node& grad, int index)
      : graph_(graph), grad_(grad), prefix_("__grad" + std::to_string(index) + "_") {}

  Result<std::vector<Node>> Build() {
    const Attribute* xs_attr = grad_.FindAttribute("xs");
    const Attribute* y_attr = grad_.FindAttribute("y");
    if (xs_attr == nullptr || y_attr == nullptr) return InvalidArgument(grad_.Describe() + ": attributes 'xs' and 'y' are required");
    const std::vector<std::string>& xs = xs_attr->strings;
    const std::string& y = y_attr->s;
    if (xs.size() != grad_.outputs.size()) {
      return InvalidArgument(grad_.Describe() + ": " + std::to_string(xs.size()) + " xs but " +
                             std::to_string(grad_.outputs.size()) + " outputs");
    }
    // The forward nodes on a path from some x to y, in graph (topological) order.
    std::set<std::string> depends(xs.begin(), xs.end());
    std::vector<const Node*> forward;
    for (const auto& n : graph_.nodes) {
      if (&n == &grad_ || n.domain == kTrainingDomain) continue;
      bool reads = false;
      for (const auto& in : n.inputs) reads |= depends.count(in) > 0;
      if (!reads) continue;
      for (const auto& o : n.outputs) depends.insert(o);
      forward.push_back(&n);
    }
    if (!depends.count(y)) return InvalidArgument(grad_.Describe() + ": y '" + y + "' does not depend on any of xs");
    std::set<std::string> needed = {y};
    std::vector<const Node*> path;
    for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
      const Node* n = *it;
      bool feeds = false;
      for (const auto& o : n->outputs) feeds |= needed.count(o) > 0;
      if (!feeds) continue;
      for (const auto& in : n->inputs) {
        if (depends.count(in)) needed.insert(in);
      }
      path.push_back(n);  // reverse order
    }
    // Seed: dy/dy = ones shaped like y. The helpers come from onyx's internal domain so that the expansion works
    // at any opset the model imports.
    AddContribution(y, Emit("FillLike", {y}, FillValueAttr(1.0f), kInternalDomain));
    for (const Node* n : path) {
      ONYX_RETURN_IF_ERROR(Backward(*n, depends));
    }
    for (size_t i = 0; i < xs.size(); ++i) {
      std::string g = Total(xs[i]);
      if (g.empty()) g = Emit("FillLike", {xs[i]}, FillValueAttr(0.0f), kInternalDomain);  // y ignores this x
      Node id;
      id.op_type = "Identity";
      id.name = grad_.name.empty() ? "" : grad_.name + "/out_" + std::to_string(i);
      id.inputs = {g};
      id.outputs = {grad_.outputs[i]};
      nodes_.push_back(std::move(id));
    }
    return std::move(nodes_);
  }

 private:
  static Attribute FillValueAttr(float v) {
    Attribute a;
    a.name = "value";
    a.type = AttrType::kFloat;
    a.f = v;
    return a;
  }

  std::string Emit(const std::string& op, std::vector<std::string> inputs, std::optional<Attribute> attr = std::nullopt,
                   const std::string& domain = "") {
    Node n;
    n.op_type = op;
    n.domain = domain;
    n.inputs = std::move(inputs);
    n.outputs = {UniqueValueName(graph_, prefix_ + std::to_string(counter_++))};
    if (attr) n.attributes.push_back(*attr);
    nodes_.push_back(n);
    return n.outputs[0];
  }

  void AddContribution(const std::string& value, const std::string& grad) { contributions_[value].push_back(grad); }

  // The gradient of `value` summed over its contributions; "" when there is none.
  std::string Total(const std::string& value) {
    auto it = contributions_.find(value);
    if (it == contributions_.end() || it->second.empty()) return "";
    if (it->second.size() == 1) return it->second[0];
    return Emit("Sum", it->second);
  }

  std::string ToShapeOf(const std::string& g, const std::string& x) { return Emit("SumToShapeOf", {g, x}, std::nullopt, kInternalDomain); }

  Status Backward(const Node& n, const std::set<std::string>& depends) {
    const std::string g = Total(n.outputs.at(0));
    if (g.empty()) return Status::Ok();
    auto wants = [&](size_t i) { return i < n.inputs.size() && depends.count(n.inputs[i]) > 0; };
    const std::string& op = n.op_type;
    if (!n.domain.empty() && n.domain != "ai.onnx") {
      return Unsupported("Gradient: " + n.Describe() + " is not differentiable by onyx");
    }
    if (op == "Add" || op == "Sub") {
      if (wants(0)) AddContribution(n.inputs[0], ToShapeOf(g, n.inputs[0]));
      if (wants(1)) AddContribution(n.inputs[1], ToShapeOf(op == "Add" ? g : Emit("Neg", {g}), n.inputs[1]));
    } else if (op == "Mul") {
      if (wants(0)) AddContribution(n.inputs[0], ToShapeOf(Emit("Mul", {g, n.inputs[1]}), n.inputs[0]));
      if (wants(1)) AddContribution(n.inputs[1], ToShapeOf(Emit("Mul", {g, n.inputs[0]}), n.inputs[1]));
    } else if (op == "Div") {
      if (wants(0)) AddContribution(n.inputs[0], ToShapeOf(Emit("Div", {g, n.inputs[1]}), n.inputs[0]));
      if (wants(1)) {
        // d(a/b)/db = -(a/b)/b
        std::string t = Emit("Div", {Emit("Mul", {g, n.outputs[0]}), n.inputs[1]});
        AddContribution(n.inputs[1], ToShapeOf(Emit("Neg", {t}), n.inputs[1]));
      }
    } else if (op == "Neg") {
      if (wants(0)) AddContribution(n.inputs[0], Emit("Neg", {g}));
    } else if (op == "Identity") {
      if (wants(0)) AddContribution(n.inputs[0], g);
    } else if (op == "Relu") {
      if (wants(0)) AddContribution(n.inputs[0], Emit("ReluGrad", {g, n.inputs[0]}, std::nullopt, kInternalDomain));
    } else if (op == "MatMul") {
      // 2-D only: dA = G·Bᵀ, dB = Aᵀ·G (the kernels reject other ranks at run time through Transpose's perm).
      Attribute perm;
      perm.name = "perm";
      perm.type = AttrType::kInts;
      perm.ints = {1, 0};
      if (wants(0)) AddContribution(n.inputs[0], Emit("MatMul", {g, Emit("Transpose", {n.inputs[1]}, perm)}));
      if (wants(1)) AddContribution(n.inputs[1], Emit("MatMul", {Emit("Transpose", {n.inputs[0]}, perm), g}));
    } else {
      return Unsupported("Gradient: operator " + op + " (" + n.Describe() + ") is not differentiable by onyx yet");
    }
    return Status::Ok();
  }

  Graph& graph_;
  const Node& grad_;
  std::string prefix_;
  std::vector<Node> nodes_;
  std::map<std::string, std::vector<std::string>> contributions_;
  int counter_ = 0;
};

}  // namespace

Status ExpandGradients(Model& model) {
  Graph& g = model.graph;
  bool any = false;
  for (const auto& n : g.nodes) any |= n.domain == kTrainingDomain && n.op_type == "Gradient";
  if (!any) return Status::Ok();
  std::vector<Node> out;
  std::vector<Node> added;
  int index = 0;
  for (const auto& n : g.nodes) {
    if (n.domain == kTrainingDomain && n.op_type == "Gradient") {
      ONYX_ASSIGN_OR_RETURN(std::vector<Node> backward, GradientBuilder(g, n, index++).Build());
      for (auto& b : backward) added.push_back(std::move(b));
      continue;
    }
    out.push_back(n);
  }
  for (auto& b : added) out.push_back(std::move(b));
  g.nodes = std::move(out);
  if (!model.OpsetVersion(kInternalDomain)) model.opset_import.push_back({kInternalDomain, 1});
  return TopologicalSort(g);
}

}  // namespace onyx::ir
