// The blocked-layout pass's convolution rules: which Conv nodes become NchwcConv, and the residual Add,
// activation and depthwise convolution that fuse into them.
#include <limits>

#include "optimizer/nchwc_rewriter.h"

namespace onyx::optimizer::nchwc_layout {

using ir::FloatAttr;
using ir::IntAttr;
using ir::StringAttr;

bool LayoutRewriter::ConvEligible(const ir::Node& n) const {
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

std::optional<float> LayoutRewriter::ConstantScalar(const ir::Node& n, size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
  const Tensor* t = Constant(n.inputs[i]);
  if (t == nullptr || t->size() != 1 || t->type() != DataType::kFloat) return std::nullopt;
  return t->data<float>()[0];
}

std::optional<FusedActivation> LayoutRewriter::ZeroPreservingActivation(const ir::Node& n) const {
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

void LayoutRewriter::EmitConv(size_t i) {
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
  std::string suffix = BlockedSuffix();
  if (const Blocked* b = BlockedOf(x); b != nullptr && !b->pad_zero) {
    // A blocked copy whose padding is not zero: block the plain form again (a reorder zero-pads), under a name
    // of its own.
    EnsurePlain(x);
    blocked_.erase(x);
    suffix += "z";
  }
  if (const Blocked* b = BlockedOf(x)) {
    x = b->name;
    x_blocked = true;
  } else if (in_channels >= block_) {
    // Reorder once here; later readers of the same value reuse the blocked copy.
    ir::Node r;
    r.op_type = nchwc::kReorder;
    r.domain = ir::kInternalDomain;
    r.name = x + "/to_" + BlockedSuffix().substr(2);
    r.inputs = {x};
    std::string bx = x + suffix;
    blocked_[x] = Blocked{bx, in_channels};
    r.outputs = {bx};
    r.attributes = {IntAttr("to_blocked", 1), IntAttr(nchwc::kBlockAttr, block_)};
    out_.push_back(std::move(r));
    x = bx;
    x_blocked = true;
  }
  conv.attributes.push_back(IntAttr("input_blocked", x_blocked ? 1 : 0));
  conv.attributes.push_back(IntAttr(nchwc::kBlockAttr, block_));
  conv.inputs = {x, n.inputs[1], n.inputs.size() > 2 ? n.inputs[2] : std::string()};

  // Fuse a residual Add (whose other operand is already blocked, with the same channels) and then an activation.
  std::string result = n.outputs[0];
  if (auto c = SoleConsumer(result)) {
    const ir::Node& add = graph_.nodes[*c];
    if (IsOnnx(add) && add.op_type == "Add" && add.inputs.size() == 2 && add.outputs.size() == 1) {
      const std::string& other = add.inputs[0] == result ? add.inputs[1] : add.inputs[0];
      // A shortcut computed after this convolution in the graph's order (TFLite's BlazeFace blocks: a channel Pad
      // or a MaxPool of the block's input) is emitted now, when it can run blocked from what exists already.
      if (BlockedOf(other) == nullptr) {
        auto p = producer_.find(other);
        if (p != producer_.end() && p->second > i) EmitEarly(p->second, i, 2);
      }
      const Blocked* ob = BlockedOf(other);
      if (other != result && ob != nullptr && ob->channels == out_channels && ob->pad_zero) {
        conv.inputs.push_back(ob->name);
        absorbed_.insert(*c);
        result = add.outputs[0];
        conv.name += "+" + add.name;
      }
    }
  }
  AbsorbActivation(conv, result, "activation");
  // A 3x3 depthwise convolution reading this 1x1 one's result alone (MobileNet's expand + depthwise pairs) runs
  // as NchwcConv's fused depthwise stage, with its own activation.
  if (conv.inputs.size() == 3 && IsPointwise(n, *w) && out_channels % block_ == 0) {
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
        AbsorbActivation(conv, result, "dw_activation");
      }
    }
  }
  conv.outputs = {NewBlocked(result, out_channels)};
  out_.push_back(std::move(conv));
}

void LayoutRewriter::AbsorbActivation(ir::Node& conv, std::string& result, const std::string& attr) {
  if (AbsorbSwish(conv, result, attr)) return;
  auto c = SoleConsumer(result);
  if (!c) return;
  auto act = ZeroPreservingActivation(graph_.nodes[*c]);
  if (!act) return;
  conv.attributes.push_back(StringAttr(attr, act->name));
  conv.attributes.push_back(FloatAttr(attr + "_alpha", act->alpha));
  conv.attributes.push_back(FloatAttr(attr + "_beta", act->beta));
  absorbed_.insert(*c);
  result = graph_.nodes[*c].outputs[0];
  conv.name += "+" + graph_.nodes[*c].op_type;
}

// SiLU as exporters write it, Mul(x, Sigmoid(x)) (either operand order), x read by those two nodes only and the
// Sigmoid by the Mul only: oneDNN's swish post-op (x * sigmoid(x)). EfficientNet's and MobileNet-v3's convolutions
// ran it as a separate pass over the blocked output (a third of EfficientNet-B0's time).
bool LayoutRewriter::AbsorbSwish(ir::Node& conv, std::string& result, const std::string& attr) {
  if (graph_outputs_.count(result)) return false;
  auto u = uses_.find(result);
  auto cs = consumers_.find(result);
  if (u == uses_.end() || u->second != 2 || cs == consumers_.end() || cs->second.size() != 2) return false;
  for (int first = 0; first < 2; ++first) {
    const size_t si = cs->second[static_cast<size_t>(first)], mi = cs->second[static_cast<size_t>(1 - first)];
    if (absorbed_.count(si) || absorbed_.count(mi)) return false;
    const ir::Node& sig = graph_.nodes[si];
    const ir::Node& mul = graph_.nodes[mi];
    if (!IsOnnx(sig) || sig.op_type != "Sigmoid" || sig.inputs.size() != 1 || sig.outputs.size() != 1) continue;
    if (!IsOnnx(mul) || mul.op_type != "Mul" || mul.inputs.size() != 2 || mul.outputs.size() != 1) continue;
    const std::string& s = sig.outputs[0];
    if (!((mul.inputs[0] == result && mul.inputs[1] == s) || (mul.inputs[1] == result && mul.inputs[0] == s))) continue;
    if (SoleConsumer(s) != mi) continue;
    conv.attributes.push_back(StringAttr(attr, "Swish"));
    conv.attributes.push_back(FloatAttr(attr + "_alpha", 1.0f));
    conv.attributes.push_back(FloatAttr(attr + "_beta", 0.0f));
    absorbed_.insert(si);
    absorbed_.insert(mi);
    result = mul.outputs[0];
    conv.name += "+Swish";
    return true;
  }
  return false;
}

bool LayoutRewriter::IsPointwise(const ir::Node& n, const Tensor& w) {
  if (w.dim(2) != 1 || w.dim(3) != 1) return false;
  for (const auto& a : n.attributes) {
    if (a.name == "group" && a.i != 1) return false;
    if (a.name == "strides" && a.ints != std::vector<int64_t>{1, 1}) return false;
    if (a.name == "pads" && a.ints != std::vector<int64_t>{0, 0, 0, 0}) return false;
    if (a.name == "auto_pad" && a.s != "NOTSET" && a.s != "VALID") return false;
  }
  return true;
}

std::optional<int64_t> LayoutRewriter::FusableDepthwiseStride(const ir::Node& n, int64_t channels) const {
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

}  // namespace onyx::optimizer::nchwc_layout
