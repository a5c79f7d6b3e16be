#include "convert/common/transpose_optimizer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "convert/common/tensor_layout.h"
#include "ir/graph_edit.h"

namespace onyx::convert {

namespace {

const std::set<std::string>& UnaryOps() {
  static const std::set<std::string> ops = {
      "Relu",      "LeakyRelu", "Elu",  "Selu", "Sigmoid",  "HardSigmoid", "Tanh",  "Softplus",   "Softsign",
      "Exp",       "Log",       "Abs",  "Neg",  "Identity", "Erf",         "Sqrt",  "Reciprocal", "ThresholdedRelu",
      "HardSwish", "Gelu",      "Cast", "Not",  "Floor",    "Ceil",        "Round", "Mish",       "Sin",
      "Cos",       "Sign",      "Clip"};  // Clip: its min/max inputs are scalars
  return ops;
}
const std::set<std::string>& BinaryOps() {
  // Elementwise ops whose every input carries the layout (Sum and Mean take any number of them).
  static const std::set<std::string> ops = {
      "Add",         "Sub", "Mul", "Div", "Pow",   "Max", "Min", "PRelu", "Equal", "Greater", "Less", "GreaterOrEqual",
      "LessOrEqual", "And", "Or",  "Xor", "Where", "Sum", "Mean"};
  return ops;
}

// The node's perm, or empty (the Transpose is left alone) when it is not a permutation of 0..rank-1: a converted
// file's perm is data, and the rewrites below index with it (a bad one is reported when the model is checked).
std::vector<int64_t> PermOf(const ir::Node& n) {
  const ir::Attribute* a = n.FindAttribute("perm");
  if (a == nullptr) return {};
  std::vector<bool> seen(a->ints.size(), false);
  for (int64_t p : a->ints) {
    if (p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[static_cast<size_t>(p)]) return {};
    seen[static_cast<size_t>(p)] = true;
  }
  return a->ints;
}

void SetPerm(ir::Node& n, std::vector<int64_t> perm) {
  for (auto& a : n.attributes) {
    if (a.name == "perm") {
      a.ints = std::move(perm);
      return;
    }
  }
}

class Optimizer {
 public:
  explicit Optimizer(ir::Graph& g) : g_(g) {}

  bool Step() {
    Index();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      ir::Node& n = g_.nodes[i];
      if (n.op_type == "Transpose" && n.domain.empty()) {
        if (MergeOrFold(i) || Split(i)) return true;
        continue;
      }
      if (n.domain.empty() && TryPush(i)) return true;
    }
    return false;
  }

 private:
  void Index() {
    producer_.clear();
    consumers_.clear();
    outputs_.clear();
    inits_.clear();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for (const auto& o : g_.nodes[i].outputs) producer_[o] = i;
      for (const auto& in : ir::NodeReads(g_.nodes[i])) consumers_[in].push_back(i);
    }
    for (const auto& o : g_.outputs) outputs_.insert(o.name);
    for (size_t i = 0; i < g_.initializers.size(); ++i) inits_[g_.initializers[i].name] = i;
  }

  // The index of the Transpose producing `value` when it has no other reader, else -1.
  int SoleTranspose(const std::string& value) const {
    auto p = producer_.find(value);
    if (p == producer_.end()) return -1;
    const ir::Node& t = g_.nodes[p->second];
    if (t.op_type != "Transpose" || !t.domain.empty() || PermOf(t).empty()) return -1;
    if (outputs_.count(value)) return -1;
    auto c = consumers_.find(value);
    if (c == consumers_.end() || c->second.size() != 1) return -1;
    return static_cast<int>(p->second);
  }

  const Tensor* ConstantOf(const std::string& value) const {
    auto it = inits_.find(value);
    return it == inits_.end() ? nullptr : &g_.initializers[it->second].tensor;
  }

  // Replaces node i's function by "its output is `value`": rewires readers, or keeps an Identity for outputs.
  void Bypass(size_t i, const std::string& value) {
    ir::Node& n = g_.nodes[i];
    if (outputs_.count(n.outputs[0])) {
      n.op_type = "Identity";
      n.inputs = {value};
      n.attributes.clear();
    } else {
      ir::ReplaceAllUses(g_, n.outputs[0], value);
    }
  }

  bool MergeOrFold(size_t i) {
    ir::Node& n = g_.nodes[i];
    if (n.inputs.empty()) return false;
    std::vector<int64_t> perm = PermOf(n);
    if (perm.empty()) return false;
    if (IsIdentityPerm(perm)) {
      Bypass(i, n.inputs[0]);
      return true;
    }
    if (const Tensor* c = ConstantOf(n.inputs[0])) {
      auto folded = TransposeTensor(*c, perm);
      if (!folded.ok()) return false;
      ir::NamedTensor t;
      t.name = ir::UniqueValueName(g_, n.inputs[0] + "_t");
      t.tensor = std::move(folded).value();
      std::string name = t.name;
      g_.initializers.push_back(std::move(t));
      Bypass(i, name);
      return true;
    }
    auto p = producer_.find(n.inputs[0]);
    if (p == producer_.end()) return false;
    const ir::Node& prev = g_.nodes[p->second];
    if (prev.op_type != "Transpose" || !prev.domain.empty()) return false;
    std::vector<int64_t> p1 = PermOf(prev);
    if (p1.size() != perm.size()) return false;
    std::vector<int64_t> composed(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) composed[k] = p1[static_cast<size_t>(perm[k])];
    std::string src = prev.inputs[0];
    if (IsIdentityPerm(composed)) {
      Bypass(i, src);
    } else {
      n.inputs[0] = src;
      SetPerm(n, composed);
    }
    return true;
  }

  // Whether consumer c can take in a Transpose of `value` with `perm`: another Transpose (they merge), or an op the
  // Transpose can be pushed through, whose other layout inputs are constants or Transposes with the same perm.
  bool Absorbs(const ir::Node& c, const std::string& value, const std::vector<int64_t>& perm) const {
    if (!c.domain.empty()) return false;
    if (c.op_type == "Transpose") return true;
    const bool unary = UnaryOps().count(c.op_type) > 0;
    const bool pad = c.op_type == "Pad";
    const bool binary = BinaryOps().count(c.op_type) > 0;
    if (c.outputs.size() != 1 || c.inputs.empty()) return false;
    if (unary || pad) return c.inputs[0] == value;
    if (!binary && c.op_type != "Concat") return false;
    for (const auto& in : c.inputs) {
      if (in == value) continue;
      if (const Tensor* k = ConstantOf(in)) {
        if (k->rank() > static_cast<int64_t>(perm.size())) return false;
        continue;
      }
      auto p = producer_.find(in);
      if (p == producer_.end()) return false;
      const ir::Node& t = g_.nodes[p->second];
      if (t.op_type != "Transpose" || !t.domain.empty() || PermOf(t) != perm) return false;
    }
    return true;
  }

  // A Transpose read by several nodes that can each absorb it gets one copy per reader, so that each copy merges or
  // moves on by itself (as when an activation is read by both a residual Add and the next convolution's layout
  // change). Never for graph outputs, and only when every reader absorbs, so that the copies cannot pile up.
  bool Split(size_t i) {
    const ir::Node& t = g_.nodes[i];
    const std::string out = t.outputs[0];
    const std::vector<int64_t> perm = PermOf(t);
    auto c = consumers_.find(out);
    if (perm.empty() || outputs_.count(out) || c == consumers_.end() || c->second.size() < 2) return false;
    std::vector<size_t> readers = c->second;
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    if (readers.size() < 2) return false;  // one node reading it twice (x * x): pushed as it is
    for (size_t r : readers) {
      if (!Absorbs(g_.nodes[r], out, perm)) return false;
    }
    // The first reader keeps the original; each other one gets its own copy, placed right after the original.
    std::vector<ir::Node> copies;
    for (size_t k = 1; k < readers.size(); ++k) {
      ir::Node copy = t;
      // Distinct bases: the copies are not in the graph yet when the next name is chosen.
      copy.name = ir::UniqueValueName(g_, t.name + "_copy" + std::to_string(k));
      copy.outputs = {ir::UniqueValueName(g_, out + "_copy" + std::to_string(k))};
      for (auto& in : g_.nodes[readers[k]].inputs) {
        if (in == out) in = copy.outputs[0];
      }
      copies.push_back(std::move(copy));
    }
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1, copies.begin(), copies.end());
    return true;
  }

  // Node i reads Transposes; rewrite op(T(x)...) into T(op(x...)).
  bool TryPush(size_t i) {
    ir::Node& n = g_.nodes[i];
    if (n.outputs.size() != 1 || n.inputs.empty()) return false;
    std::vector<int64_t> perm;
    std::vector<int> transposes;  // per input: index of its sole Transpose, -1 for constants / scalars kept
    const bool unary = UnaryOps().count(n.op_type) > 0;
    const bool binary = BinaryOps().count(n.op_type) > 0;
    const bool concat = n.op_type == "Concat";
    const bool pad = n.op_type == "Pad";
    if (!unary && !binary && !concat && !pad) return false;
    // Which inputs carry the layout: all of them for binary ops and Concat; the first for unary ops and Pad.
    const size_t layout_inputs = (unary || pad) ? 1 : n.inputs.size();
    for (size_t k = 0; k < layout_inputs; ++k) {
      int t = SoleTranspose(n.inputs[k]);
      if (t >= 0) {
        std::vector<int64_t> p = PermOf(g_.nodes[static_cast<size_t>(t)]);
        if (!perm.empty() && p != perm) return false;
        perm = p;
      }
      transposes.push_back(t);
    }
    if (perm.empty()) return false;
    const int64_t rank = static_cast<int64_t>(perm.size());
    const std::vector<int64_t> inv = InversePerm(perm);
    // Every other layout input must be a constant we can re-lay.
    std::vector<std::string> new_inputs = n.inputs;
    for (size_t k = 0; k < layout_inputs; ++k) {
      if (transposes[k] >= 0) {
        new_inputs[k] = g_.nodes[static_cast<size_t>(transposes[k])].inputs[0];
        continue;
      }
      const Tensor* c = ConstantOf(n.inputs[k]);
      if (!c || c->rank() > rank) return false;
      if (c->size() == 1 && !concat) continue;  // a scalar broadcasts the same in any layout
      Shape full(static_cast<size_t>(rank - c->rank()), 1);
      full.insert(full.end(), c->shape().begin(), c->shape().end());
      auto reshaped = c->Reshaped(full);
      if (!reshaped.ok()) return false;
      auto moved = TransposeTensor(*reshaped, inv);
      if (!moved.ok()) return false;
      ir::NamedTensor t;
      t.name = ir::UniqueValueName(g_, n.inputs[k] + "_t");
      t.tensor = std::move(moved).value();
      new_inputs[k] = t.name;
      pending_inits_.push_back(std::move(t));
    }
    if (pad) {
      // Pad's pads input lists begins then ends per axis: permute both halves.
      if (n.inputs.size() < 2) return false;
      const Tensor* pads = ConstantOf(n.inputs[1]);
      if (!pads || pads->size() != 2 * rank || (n.inputs.size() > 3 && !n.inputs[3].empty())) return false;
      std::vector<int64_t> old = pads->ToInt64Vector(), nw(old.size());
      for (int64_t a = 0; a < rank; ++a) {
        nw[static_cast<size_t>(perm[static_cast<size_t>(a)])] = old[static_cast<size_t>(a)];
        nw[static_cast<size_t>(perm[static_cast<size_t>(a)] + rank)] = old[static_cast<size_t>(a + rank)];
      }
      ir::NamedTensor t;
      t.name = ir::UniqueValueName(g_, n.inputs[1] + "_t");
      t.tensor = Tensor::FromVector<int64_t>(nw, {2 * rank});
      new_inputs[1] = t.name;
      pending_inits_.push_back(std::move(t));
    }
    if (concat) {
      for (auto& a : n.attributes) {
        if (a.name == "axis") {
          int64_t axis = a.i < 0 ? a.i + rank : a.i;
          if (axis < 0 || axis >= rank) return false;
          a.i = perm[static_cast<size_t>(axis)];
        }
      }
    }
    for (auto& t : pending_inits_) g_.initializers.push_back(std::move(t));
    pending_inits_.clear();
    n.inputs = new_inputs;
    const std::string old_out = n.outputs[0];
    const std::string inner = ir::UniqueValueName(g_, old_out + "_pre");
    n.outputs[0] = inner;
    ir::Node t;
    t.name = ir::UniqueValueName(g_, old_out + "_transpose");
    t.op_type = "Transpose";
    t.inputs = {inner};
    t.outputs = {old_out};
    t.doc_string = n.doc_string;
    ir::Attribute pa;
    pa.name = "perm";
    pa.type = ir::AttrType::kInts;
    pa.ints = perm;
    t.attributes.push_back(pa);
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(t));
    return true;
  }

  ir::Graph& g_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> consumers_;
  std::set<std::string> outputs_;
  std::map<std::string, size_t> inits_;
  std::vector<ir::NamedTensor> pending_inits_;
};

int CountTransposes(const ir::Graph& g) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [](const ir::Node& n) { return n.op_type == "Transpose"; }));
}

}  // namespace

TransposeStats OptimizeTransposes(ir::Graph& graph) {
  TransposeStats stats;
  stats.before = CountTransposes(graph);
  Optimizer opt(graph);
  // Every step removes a Transpose or moves one further down; the bound only guards against a rewrite cycle.
  const size_t limit = 20 * (graph.nodes.size() + 10);
  for (size_t k = 0; k < limit && opt.Step(); ++k) {
    ir::RemoveDeadNodes(graph);
  }
  ir::RemoveDeadNodes(graph);
  stats.after = CountTransposes(graph);
  return stats;
}

}  // namespace onyx::convert
