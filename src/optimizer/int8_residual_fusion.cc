// The residual-add fusion of the 8-bit layout (optimizer/int8_residual_fusion.h).
#include "optimizer/int8_residual_fusion.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/session_constants.h"

namespace onyx::optimizer {
namespace {

// onyx's operator or ONNX Runtime's com.microsoft one of the same name and arithmetic (a model its optimizer saved at
// level all holds channels-last com.microsoft QLinearConv and QLinearAdd already).
bool IsQOp(const ir::Node& n, const char* op) {
  return n.op_type == op && (n.domain == ir::kInternalDomain || n.domain == "com.microsoft");
}
bool Has(const ir::Node& n, size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); }

int64_t IntAttribute(const ir::Node& n, const char* name, int64_t fallback) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr ? a->i : fallback;
}

class ResidualFuser {
 public:
  explicit ResidualFuser(ir::Graph& graph) : graph_(graph), constants_(ir::SessionConstants(graph)) {}

  int Run() {
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      for (const auto& out : graph_.nodes[i].outputs) producer[out] = i;
    }
    for (const ir::Node& n : graph_.nodes) {
      for (const auto& name : ir::NodeReads(n)) ++reads_[name];
    }
    for (const auto& out : graph_.outputs) ++reads_[out.name];
    std::vector<bool> fused_away(graph_.nodes.size(), false);
    std::vector<ir::Node> out;
    out.reserve(graph_.nodes.size());
    std::vector<std::pair<size_t, ir::Node>> replacements;  // Add's index -> the fused convolution
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const ir::Node& add = graph_.nodes[i];
      if (!AddEligible(add)) continue;
      // Of two eligible operands, the one with the smaller window: the 1x1 kernel adds in its registers (a ResNet-18
      // block's 1x1 projection rather than its 3x3 conv2; of equal windows, A).
      int best = -1;
      int64_t best_window = 0;
      for (int operand = 0; operand < 2; ++operand) {
        const std::string& value = add.inputs[static_cast<size_t>(operand) * 3];
        auto p = producer.find(value);
        if (p == producer.end() || fused_away[p->second] || p->second > i) continue;
        const ir::Node& conv = graph_.nodes[p->second];
        if (!ConvEligible(conv) || reads_[value] != 1 || value == add.inputs[static_cast<size_t>(1 - operand) * 3]) {
          continue;
        }
        const Tensor* w = constants_.at(conv.inputs[3]);
        const int64_t window = w->dim(2) * w->dim(3);
        if (best < 0 || window < best_window) {
          best = operand;
          best_window = window;
        }
      }
      if (best < 0) continue;
      const size_t operand = static_cast<size_t>(best);
      const size_t conv_index = producer.at(add.inputs[operand * 3]);
      ir::Node fused = graph_.nodes[conv_index];
      fused.domain = ir::kInternalDomain;  // ONNX Runtime's com.microsoft form too: the same inputs and attributes
      fused.inputs.resize(9);
      const size_t o = (1 - operand) * 3;
      for (size_t k : {o, o + 1, o + 2, size_t{6}, size_t{7}}) fused.inputs.push_back(Has(add, k) ? add.inputs[k] : "");
      while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
      fused.attributes.push_back(ir::IntAttr("sum_conv_operand", static_cast<int64_t>(operand)));
      fused.outputs = add.outputs;
      fused_away[conv_index] = true;
      replacements.emplace_back(i, std::move(fused));
    }
    if (replacements.empty()) return 0;
    size_t next = 0;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (next < replacements.size() && replacements[next].first == i) {
        out.push_back(std::move(replacements[next].second));
        ++next;
      } else if (!fused_away[i]) {
        out.push_back(std::move(graph_.nodes[i]));
      }
    }
    graph_.nodes = std::move(out);
    return static_cast<int>(replacements.size());
  }

 private:
  bool Constant(const ir::Node& n, size_t i) const { return !Has(n, i) || constants_.count(n.inputs[i]) > 0; }

  // A QLinearAdd of two operands (elementwise: the layout is its operands'), its scales and zero points constants.
  bool AddEligible(const ir::Node& n) const {
    if (!IsQOp(n, "QLinearAdd") || n.outputs.size() != 1 || !Has(n, 0) || !Has(n, 3) || n.inputs.size() > 8) {
      return false;
    }
    for (size_t i : {1, 2, 4, 5, 6, 7}) {
      if (!Constant(n, i)) return false;
    }
    return Has(n, 1) && Has(n, 4) && Has(n, 6);
  }

  // A channels-last 2-D convolution of one group with constant parameters, not fused already: onyx's (the 8-bit layout
  // pass's), or ONNX Runtime's with constant int8 weights of zero points 0 (what ai.onyx.internal.QLinearConv takes).
  bool ConvEligible(const ir::Node& n) const {
    if (!IsQOp(n, "QLinearConv") || IntAttribute(n, "channels_last", 0) != 1 || n.outputs.size() != 1 ||
        n.inputs.size() > 9 || IntAttribute(n, "group", 1) != 1) {
      return false;
    }
    if (!Has(n, 3) || !Has(n, 1) || !Has(n, 4) || !Has(n, 6)) return false;
    auto w = constants_.find(n.inputs[3]);
    if (w == constants_.end() || w->second->rank() != 4) return false;
    for (size_t i : {1, 2, 4, 5, 6, 7, 8}) {
      if (!Constant(n, i)) return false;
    }
    if (n.domain == ir::kInternalDomain) return true;
    if (w->second->type() != DataType::kInt8) return false;
    if (Has(n, 5)) {
      const Tensor* z = constants_.at(n.inputs[5]);
      if (z->type() != DataType::kInt8) return false;
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return false;
      }
    }
    return true;
  }

  ir::Graph& graph_;
  std::unordered_map<std::string, const Tensor*> constants_;
  std::unordered_map<std::string, int> reads_;
};

}  // namespace

Result<int> FuseInt8ResidualAdds(ir::Model& model) {
  // Most graphs have no 8-bit add: no index of their values and constants for them.
  const auto& nodes = model.graph.nodes;
  if (std::none_of(nodes.begin(), nodes.end(), [](const ir::Node& n) { return IsQOp(n, "QLinearAdd"); })) return 0;
  const int fused = ResidualFuser(model.graph).Run();
  // The fused nodes are onyx's (also where the convolution was ONNX Runtime's com.microsoft one).
  if (fused > 0 && !model.OpsetVersion(ir::kInternalDomain)) model.opset_import.push_back({ir::kInternalDomain, 1});
  return fused;
}

}  // namespace onyx::optimizer
