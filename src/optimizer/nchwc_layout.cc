#include "optimizer/nchwc_layout.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph_edit.h"
#include "ir/session_constants.h"
#include "ops/nchwc/nchwc_names.h"

namespace onyx::optimizer {
namespace {

namespace nchwc = ops::nchwc;

using ir::FloatAttr;
using ir::IntAttr;
using ir::StringAttr;

bool IsOnnx(const ir::Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

// HardSwish arrives in onyx's private domain from the optimizer's fusion when the model predates opset 14.
bool IsHardSwish(const ir::Node& n) {
  return n.op_type == "HardSwish" && (IsOnnx(n) || n.domain == ir::kInternalDomain);
}

struct Blocked {
  std::string name;  // the blocked value's name
  int64_t channels = 0;
  // Whether the channels past `channels` in the last block hold zeros. Convolutions and residual sums need it;
  // ops such as HardSigmoid (f(0) != 0) leave other values there, which a Mul by a zero-padded value clears.
  bool pad_zero = true;
};

// A fused activation: the attributes NchwcConv takes for it.
struct FusedActivation {
  std::string name;
  float alpha = 0;
  float beta = 0;
};

class LayoutRewriter {
 public:
  explicit LayoutRewriter(ir::Model& model) : model_(model), graph_(model.graph) {}

  Result<int> Run() {
    const int64_t opset = model_.OpsetVersion("").value_or(0);
    opset_ = opset;
    constants_ = ir::SessionConstants(graph_);  // the session's rule (KernelInfo::ConstantInput)
    for (const auto& n : graph_.nodes) {
      for (const auto& name : ir::NodeReads(n)) ++uses_[name];
    }
    for (const auto& out : graph_.outputs) {
      ++uses_[out.name];
      graph_outputs_.insert(out.name);
    }
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      for (const auto& name : ir::NodeReads(graph_.nodes[i])) consumers_[name].push_back(i);
      for (const auto& name : graph_.nodes[i].outputs) producer_[name] = i;
    }

    int converted = 0;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (absorbed_.count(i)) continue;
      const ir::Node& n = graph_.nodes[i];
      if (IsOnnx(n) && n.op_type == "Conv" && ConvEligible(n)) {
        EmitConv(i);
        ++converted;
      } else if (!TryBlockedPassThrough(n)) {
        for (const auto& name : ir::NodeReads(n)) EnsurePlain(name);
        out_.push_back(n);
      }
    }
    for (const auto& out : graph_.outputs) EnsurePlain(out.name);
    if (converted == 0) return 0;
    graph_.nodes = std::move(out_);
    for (auto& t : new_initializers_) graph_.initializers.push_back(std::move(t));
    ir::RemoveDeadNodes(graph_);  // e.g. the ConstantOfShape zeros of channel pads now read from blocked buffers
    if (!model_.OpsetVersion(ir::kInternalDomain)) model_.opset_import.push_back({ir::kInternalDomain, 1});
    return converted;
  }

 private:
  const Tensor* Constant(const std::string& name) const {
    auto it = constants_.find(name);
    return it == constants_.end() ? nullptr : it->second;
  }

  bool ConvEligible(const ir::Node& n) const {
    if (n.inputs.size() < 2 || n.outputs.size() != 1 || n.inputs[0].empty()) return false;
    const Tensor* w = Constant(n.inputs[1]);
    if (w == nullptr || w->type() != DataType::kFloat || w->rank() != 4 || w->size() == 0) return false;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor* b = Constant(n.inputs[2]);
      if (b == nullptr || b->type() != DataType::kFloat || b->rank() != 1 || b->dim(0) != w->dim(0)) return false;
    }
    const auto* group = n.FindAttribute("group");
    const int64_t g = group != nullptr ? group->i : 1;
    return g >= 1 && w->dim(0) % g == 0;
  }

  // The scalar value of a constant input, when it is one.
  std::optional<float> ConstantScalar(const ir::Node& n, size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
    const Tensor* t = Constant(n.inputs[i]);
    if (t == nullptr || t->size() != 1 || t->type() != DataType::kFloat) return std::nullopt;
    return t->data<float>()[0];
  }

  // An activation that maps 0 to 0 (the padding channels of blocked values must stay zero), as NchwcConv fuses it.
  std::optional<FusedActivation> ZeroPreservingActivation(const ir::Node& n) const {
    if (IsHardSwish(n) && n.outputs.size() == 1 && n.inputs.size() == 1) return FusedActivation{"HardSwish", 0, 0};
    if (!IsOnnx(n) || n.outputs.size() != 1 || n.inputs.empty()) return std::nullopt;
    if (n.op_type == "Relu") return FusedActivation{"Relu", 0, 0};
    if (n.op_type == "Tanh") return FusedActivation{"Tanh", 0, 0};
    if (n.op_type == "LeakyRelu") {
      const auto* a = n.FindAttribute("alpha");
      return FusedActivation{"LeakyRelu", a != nullptr ? a->f : 0.01f, 0};
    }
    if (n.op_type == "Clip") {
      float lo = std::numeric_limits<float>::lowest();
      float hi = std::numeric_limits<float>::max();
      if (opset_ < 11) {
        if (const auto* a = n.FindAttribute("min")) lo = a->f;
        if (const auto* a = n.FindAttribute("max")) hi = a->f;
      } else {
        if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
          auto v = ConstantScalar(n, 1);
          if (!v) return std::nullopt;
          lo = *v;
        }
        if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
          auto v = ConstantScalar(n, 2);
          if (!v) return std::nullopt;
          hi = *v;
        }
      }
      if (!(lo <= 0 && hi >= 0)) return std::nullopt;
      return FusedActivation{"Clip", lo, hi};
    }
    return std::nullopt;
  }

  // The only node reading `value` (which is not a graph output), if it is not yet absorbed.
  std::optional<size_t> SoleConsumer(const std::string& value) const {
    if (graph_outputs_.count(value)) return std::nullopt;
    auto u = uses_.find(value);
    if (u == uses_.end() || u->second != 1) return std::nullopt;
    auto c = consumers_.find(value);
    if (c == consumers_.end() || c->second.size() != 1 || absorbed_.count(c->second[0])) return std::nullopt;
    return c->second[0];
  }

  const Blocked* BlockedOf(const std::string& name) const {
    auto it = blocked_.find(name);
    return it == blocked_.end() ? nullptr : &it->second;
  }

  // Emits a reorder back to the plain layout under the original name, once, if only the blocked form exists.
  void EnsurePlain(const std::string& name) {
    if (!plain_missing_.count(name)) return;
    const Blocked& b = blocked_.at(name);
    ir::Node r;
    r.op_type = nchwc::kReorder;
    r.domain = ir::kInternalDomain;
    r.name = name + "/to_nchw";
    r.inputs = {b.name};
    r.outputs = {name};
    r.attributes = {IntAttr("to_blocked", 0), IntAttr("channels", b.channels)};
    out_.push_back(std::move(r));
    plain_missing_.erase(name);
  }

  std::string NewBlocked(const std::string& name, int64_t channels, bool pad_zero = true) {
    std::string b = name + "::nchwc16";
    blocked_[name] = Blocked{b, channels, pad_zero};
    plain_missing_.insert(name);
    return b;
  }

  void EmitConv(size_t i) {
    const ir::Node& n = graph_.nodes[i];
    const Tensor* w = Constant(n.inputs[1]);
    const auto* group_attr = n.FindAttribute("group");
    const int64_t group = group_attr != nullptr ? group_attr->i : 1;
    const int64_t in_channels = w->dim(1) * group;
    const int64_t out_channels = w->dim(0);

    ir::Node conv;
    conv.name = n.name;
    conv.op_type = nchwc::kConv;
    conv.domain = ir::kInternalDomain;
    for (const auto& a : n.attributes) conv.attributes.push_back(a);
    std::string x = n.inputs[0];
    bool x_blocked = false;
    std::string suffix = "::nchwc16";
    if (const Blocked* b = BlockedOf(x); b != nullptr && !b->pad_zero) {
      // A blocked copy whose padding is not zero: block the plain form again (a reorder zero-pads), under a name
      // of its own.
      EnsurePlain(x);
      blocked_.erase(x);
      suffix = "::nchwc16z";
    }
    if (const Blocked* b = BlockedOf(x)) {
      x = b->name;
      x_blocked = true;
    } else if (in_channels >= nchwc::kBlock) {
      // Reorder once here; later readers of the same value reuse the blocked copy.
      ir::Node r;
      r.op_type = nchwc::kReorder;
      r.domain = ir::kInternalDomain;
      r.name = x + "/to_nchwc16";
      r.inputs = {x};
      std::string bx = x + suffix;
      blocked_[x] = Blocked{bx, in_channels};
      r.outputs = {bx};
      r.attributes = {IntAttr("to_blocked", 1)};
      out_.push_back(std::move(r));
      x = bx;
      x_blocked = true;
    }
    conv.attributes.push_back(IntAttr("input_blocked", x_blocked ? 1 : 0));
    conv.inputs = {x, n.inputs[1], n.inputs.size() > 2 ? n.inputs[2] : std::string()};

    // Fuse a residual Add (whose other operand is already blocked, with the same channels) and then an activation.
    std::string result = n.outputs[0];
    if (auto c = SoleConsumer(result)) {
      const ir::Node& add = graph_.nodes[*c];
      if (IsOnnx(add) && add.op_type == "Add" && add.inputs.size() == 2 && add.outputs.size() == 1) {
        const std::string& other = add.inputs[0] == result ? add.inputs[1] : add.inputs[0];
        const Blocked* ob = BlockedOf(other);
        if (other != result && ob != nullptr && ob->channels == out_channels && ob->pad_zero) {
          conv.inputs.push_back(ob->name);
          absorbed_.insert(*c);
          result = add.outputs[0];
          conv.name += "+" + add.name;
        }
      }
    }
    if (auto c = SoleConsumer(result)) {
      if (auto act = ZeroPreservingActivation(graph_.nodes[*c])) {
        conv.attributes.push_back(StringAttr("activation", act->name));
        conv.attributes.push_back(FloatAttr("activation_alpha", act->alpha));
        conv.attributes.push_back(FloatAttr("activation_beta", act->beta));
        absorbed_.insert(*c);
        result = graph_.nodes[*c].outputs[0];
        conv.name += "+" + graph_.nodes[*c].op_type;
      }
    }
    // A 3x3 depthwise convolution reading this 1x1 one's result alone (MobileNet's expand + depthwise pairs) runs
    // as NchwcConv's fused depthwise stage, with its own activation.
    if (conv.inputs.size() == 3 && IsPointwise(n, *w) && out_channels % nchwc::kBlock == 0) {
      if (auto c = SoleConsumer(result)) {
        const ir::Node& dw = graph_.nodes[*c];
        if (auto stride = FusableDepthwiseStride(dw, out_channels)) {
          conv.inputs.push_back("");  // no residual Sum
          conv.inputs.push_back(dw.inputs[1]);
          if (dw.inputs.size() > 2 && !dw.inputs[2].empty()) conv.inputs.push_back(dw.inputs[2]);
          conv.attributes.push_back(IntAttr("dw_stride", *stride));
          absorbed_.insert(*c);
          result = dw.outputs[0];
          conv.name += "+" + dw.name;
          if (auto a = SoleConsumer(result)) {
            if (auto act = ZeroPreservingActivation(graph_.nodes[*a])) {
              conv.attributes.push_back(StringAttr("dw_activation", act->name));
              conv.attributes.push_back(FloatAttr("dw_activation_alpha", act->alpha));
              conv.attributes.push_back(FloatAttr("dw_activation_beta", act->beta));
              absorbed_.insert(*a);
              result = graph_.nodes[*a].outputs[0];
              conv.name += "+" + graph_.nodes[*a].op_type;
            }
          }
        }
      }
    }
    conv.outputs = {NewBlocked(result, out_channels)};
    out_.push_back(std::move(conv));
  }

  // Whether Conv n (weights w) is pointwise: 1x1, stride 1, no padding, one group.
  static bool IsPointwise(const ir::Node& n, const Tensor& w) {
    if (w.dim(2) != 1 || w.dim(3) != 1) return false;
    for (const auto& a : n.attributes) {
      if (a.name == "group" && a.i != 1) return false;
      if (a.name == "strides" && a.ints != std::vector<int64_t>{1, 1}) return false;
      if (a.name == "pads" && a.ints != std::vector<int64_t>{0, 0, 0, 0}) return false;
      if (a.name == "auto_pad" && a.s != "NOTSET" && a.s != "VALID") return false;
    }
    return true;
  }

  // The stride of Conv n when it is a 3x3 depthwise convolution over `channels` with pads 1 on every side and
  // stride 1 or 2 (what oneDNN's depthwise post-op computes); nullopt otherwise.
  std::optional<int64_t> FusableDepthwiseStride(const ir::Node& n, int64_t channels) const {
    if (!IsOnnx(n) || n.op_type != "Conv" || !ConvEligible(n)) return std::nullopt;
    const Tensor* w = Constant(n.inputs[1]);
    if (w->shape() != Shape{channels, 1, 3, 3}) return std::nullopt;
    int64_t group = 1, stride = 1;
    bool padded = false;
    for (const auto& a : n.attributes) {
      if (a.name == "group") group = a.i;
      if (a.name == "auto_pad" && a.s != "NOTSET") return std::nullopt;
      if (a.name == "dilations" && a.ints != std::vector<int64_t>{1, 1}) return std::nullopt;
      if (a.name == "kernel_shape" && a.ints != std::vector<int64_t>{3, 3}) return std::nullopt;
      if (a.name == "pads") {
        if (a.ints != std::vector<int64_t>{1, 1, 1, 1}) return std::nullopt;
        padded = true;
      }
      if (a.name == "strides") {
        if (a.ints.size() != 2 || a.ints[0] != a.ints[1] || (a.ints[0] != 1 && a.ints[0] != 2)) return std::nullopt;
        stride = a.ints[0];
      }
    }
    if (group != channels || !padded) return std::nullopt;
    return stride;
  }

  // The shape of `name` when it is a float tensor of zeros known here: a constant, or ConstantOfShape of a constant
  // shape with a zero (or absent) value.
  std::optional<Shape> ZerosShape(const std::string& name) const {
    if (const Tensor* t = Constant(name)) {
      if (t->type() != DataType::kFloat) return std::nullopt;
      const float* v = t->data<float>();
      for (int64_t i = 0; i < t->size(); ++i) {
        if (v[i] != 0 || std::signbit(v[i])) return std::nullopt;
      }
      return t->shape();
    }
    auto p = producer_.find(name);
    if (p == producer_.end()) return std::nullopt;
    const ir::Node& n = graph_.nodes[p->second];
    if (!IsOnnx(n) || n.op_type != "ConstantOfShape" || n.inputs.size() != 1) return std::nullopt;
    if (const auto* value = n.FindAttribute("value")) {
      const Tensor& v = value->t.tensor;
      if (value->type != ir::AttrType::kTensor || v.type() != DataType::kFloat || v.size() != 1 ||
          v.data<float>()[0] != 0 || std::signbit(v.data<float>()[0])) {
        return std::nullopt;
      }
    } else {
      return std::nullopt;  // without a value ConstantOfShape gives float zeros, but keep to the explicit form
    }
    const Tensor* shape = Constant(n.inputs[0]);
    if (shape == nullptr || shape->type() != DataType::kInt64) return std::nullopt;
    return Shape(shape->data<int64_t>(), shape->data<int64_t>() + shape->size());
  }

  // Concat(x, zeros) on the channel axis (how TF exports channel padding): the blocked form of x already holds
  // zeros past its channels, so the result is x's buffer itself when the block count does not grow, else x's
  // blocks followed by whole zero blocks (a Concat with a blocked zero constant).
  bool TryChannelZeroPad(const ir::Node& n) {
    if (n.inputs.size() < 2) return false;
    const Blocked* x = BlockedOf(n.inputs[0]);
    if (x == nullptr || !x->pad_zero || !plain_missing_.count(n.inputs[0])) return false;
    int64_t channels = x->channels;
    Shape zero_shape;
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      auto z = ZerosShape(n.inputs[k]);
      if (!z || z->size() != 4) return false;
      if (k > 1 && ((*z)[0] != zero_shape[0] || (*z)[2] != zero_shape[2] || (*z)[3] != zero_shape[3])) return false;
      zero_shape = *z;
      channels += (*z)[1];
    }
    const Blocked pad{x->name, channels, true};
    const int64_t blocks_in = (x->channels + nchwc::kBlock - 1) / nchwc::kBlock;
    const int64_t blocks_out = (channels + nchwc::kBlock - 1) / nchwc::kBlock;
    if (blocks_out == blocks_in) {
      blocked_[n.outputs[0]] = pad;  // the same buffer, read with more channels
      plain_missing_.insert(n.outputs[0]);
      return true;
    }
    Tensor zeros = Tensor::Allocate(
        DataType::kFloat, {zero_shape[0], blocks_out - blocks_in, zero_shape[2], zero_shape[3], nchwc::kBlock}, true);
    std::string zname = n.outputs[0] + "::zero_blocks";
    // Added after the rewrite: constants_ points into graph_.initializers, which must not reallocate meanwhile.
    new_initializers_.push_back(ir::NamedTensor{zname, "", std::move(zeros), {}, {}});
    ir::Node m;
    m.name = n.name;
    m.op_type = "Concat";
    m.inputs = {x->name, zname};
    m.attributes = {IntAttr("axis", 1)};
    m.outputs = {NewBlocked(n.outputs[0], channels)};
    out_.push_back(std::move(m));
    return true;
  }

  // Runs n on blocked values when its inputs exist only blocked and it keeps the layout; false otherwise.
  bool TryBlockedPassThrough(const ir::Node& n) {
    if ((!IsOnnx(n) && !IsHardSwish(n)) || n.outputs.size() != 1 || n.inputs.empty()) return false;
    const std::string& op = n.op_type;
    auto only_blocked = [&](const std::string& name) { return plain_missing_.count(name) > 0; };
    if (ZeroPreservingActivation(n) && only_blocked(n.inputs[0])) {
      const Blocked b = *BlockedOf(n.inputs[0]);
      ir::Node m = n;
      m.inputs = {b.name};
      if (op == "Clip") {  // its bounds stay constant inputs (or attributes before opset 11)
        for (size_t k = 1; k < n.inputs.size(); ++k) m.inputs.push_back(n.inputs[k]);
      }
      m.outputs = {NewBlocked(n.outputs[0], b.channels, b.pad_zero)};
      out_.push_back(std::move(m));
      return true;
    }
    // Elementwise functions with f(0) != 0 (squeeze-and-excitation gates) run blocked too; their padding is then
    // not zero.
    if ((op == "Sigmoid" || op == "HardSigmoid") && n.inputs.size() == 1 && only_blocked(n.inputs[0])) {
      const Blocked b = *BlockedOf(n.inputs[0]);
      ir::Node m = n;
      m.inputs = {b.name};
      m.outputs = {NewBlocked(n.outputs[0], b.channels, false)};
      out_.push_back(std::move(m));
      return true;
    }
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && n.inputs.size() == 2) {
      const Blocked* a = BlockedOf(n.inputs[0]);
      const Blocked* b = BlockedOf(n.inputs[1]);
      if (a != nullptr && b != nullptr && op != "Div") {
        // Two blocked values of the same channels broadcast against each other as 5-D tensors.
        if (a->channels != b->channels) return false;
        if (!only_blocked(n.inputs[0]) && !only_blocked(n.inputs[1])) return false;
        ir::Node m = n;
        m.inputs = {a->name, b->name};
        const bool pad_zero = op == "Mul" ? (a->pad_zero || b->pad_zero) : (a->pad_zero && b->pad_zero);
        m.outputs = {NewBlocked(n.outputs[0], a->channels, pad_zero)};
        out_.push_back(std::move(m));
        return true;
      }
      // A blocked value and a constant scalar (a one-element tensor broadcasts over any layout).
      const size_t bi = a != nullptr ? 0 : 1;
      const Blocked* x = a != nullptr ? a : b;
      if (x == nullptr || (a != nullptr && b != nullptr) || !only_blocked(n.inputs[bi])) return false;
      auto c = ConstantScalar(n, 1 - bi);
      if (!c || Constant(n.inputs[1 - bi])->rank() > 4) return false;
      if (op == "Div" && (bi != 0 || *c == 0)) return false;  // x / c only: c / x puts inf in the padding
      const bool keeps_zero = op == "Mul" || op == "Div" || *c == 0;
      ir::Node m = n;
      m.inputs[bi] = x->name;
      m.outputs = {NewBlocked(n.outputs[0], x->channels, x->pad_zero && keeps_zero)};
      out_.push_back(std::move(m));
      return true;
    }
    // Pooling runs blocked whenever a blocked copy of its input exists (oneDNN's pooling is much faster than the
    // reference kernel, and a reorder back is cheaper than pooling plain).
    if ((op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") &&
        BlockedOf(n.inputs[0]) != nullptr) {
      std::string mode = op == "MaxPool"             ? "max"
                         : op == "AveragePool"       ? "avg"
                         : op == "GlobalAveragePool" ? "global_avg"
                                                     : "global_max";
      const auto* ks = n.FindAttribute("kernel_shape");
      if ((op == "MaxPool" || op == "AveragePool") && (ks == nullptr || ks->ints.size() != 2)) return false;
      if (op == "AveragePool") {
        const auto* ceil = n.FindAttribute("ceil_mode");
        const auto* cip = n.FindAttribute("count_include_pad");
        if (ceil != nullptr && ceil->i != 0 && cip != nullptr && cip->i != 0) return false;
      }
      const Blocked b = *BlockedOf(n.inputs[0]);
      ir::Node m;
      m.name = n.name;
      m.op_type = nchwc::kPool;
      m.domain = ir::kInternalDomain;
      m.inputs = {b.name};
      for (const auto& a : n.attributes) {
        if (a.name != "storage_order") m.attributes.push_back(a);
      }
      m.attributes.push_back(StringAttr("mode", mode));
      m.outputs = {NewBlocked(n.outputs[0], b.channels, b.pad_zero)};
      out_.push_back(std::move(m));
      return true;
    }
    if (op == "Concat") {
      const auto* axis = n.FindAttribute("axis");
      if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
      if (TryChannelZeroPad(n)) return true;
      int64_t channels = 0;
      bool any_only_blocked = false;
      std::vector<std::string> ins;
      for (const auto& in : n.inputs) {
        const Blocked* b = BlockedOf(in);
        if (b == nullptr || b->channels % nchwc::kBlock != 0) return false;
        any_only_blocked = any_only_blocked || only_blocked(in);
        channels += b->channels;
        ins.push_back(b->name);
      }
      if (!any_only_blocked) return false;
      ir::Node m = n;
      m.inputs = ins;
      m.attributes = {IntAttr("axis", 1)};
      m.outputs = {NewBlocked(n.outputs[0], channels)};
      out_.push_back(std::move(m));
      return true;
    }
    return false;
  }

  ir::Model& model_;
  ir::Graph& graph_;
  int64_t opset_ = 0;
  std::unordered_map<std::string, const Tensor*> constants_;
  std::unordered_map<std::string, int> uses_;
  std::unordered_map<std::string, std::vector<size_t>> consumers_;
  std::unordered_map<std::string, size_t> producer_;
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_map<std::string, Blocked> blocked_;
  std::unordered_set<std::string> plain_missing_;
  std::unordered_set<size_t> absorbed_;
  std::vector<ir::Node> out_;
  std::vector<ir::NamedTensor> new_initializers_;
};

}  // namespace

Result<int> ApplyNchwcLayout(ir::Model& model) { return LayoutRewriter(model).Run(); }

}  // namespace onyx::optimizer
