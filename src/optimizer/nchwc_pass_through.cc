// The blocked-layout pass's other operators: activations, pooling, elementwise ops of blocked values, channel
// Concats of whole blocks and TensorFlow's channel zero-padding (Concat with zeros, or Pad), run on blocked values.
#include <cmath>

#include "optimizer/graph_index.h"
#include "optimizer/nchwc_rewriter.h"

namespace onyx::optimizer::nchwc_layout {

using ir::FloatAttr;
using ir::IntAttr;
using ir::StringAttr;

std::optional<Shape> LayoutRewriter::ZerosShape(const std::string& name) const {
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

bool LayoutRewriter::TryChannelZeroPad(const ir::Node& n) {
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
  const int64_t blocks_in = (x->channels + block_ - 1) / block_;
  const int64_t blocks_out = (channels + block_ - 1) / block_;
  if (blocks_out == blocks_in) {
    blocked_[n.outputs[0]] = pad;  // the same buffer, read with more channels
    plain_missing_.insert(n.outputs[0]);
    return true;
  }
  Tensor zeros = Tensor::Allocate(DataType::kFloat,
                                  {zero_shape[0], blocks_out - blocks_in, zero_shape[2], zero_shape[3], block_}, true);
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

bool LayoutRewriter::TryChannelPadNode(const ir::Node& n) {
  // Pad (constant 0, opset >= 11 inputs) that only appends channels: pads [0,0,0,0, 0,c,0,0] (TFLite's channel
  // padding of residual branches). Within the last block it only widens the view; past it, whole zero blocks are
  // padded onto the blocked value's block axis.
  if (!IsOnnx(n) || n.op_type != "Pad" || n.outputs.size() != 1 || n.inputs.size() < 2) return false;
  const auto* mode = n.FindAttribute("mode");
  if (mode != nullptr && mode->s != "constant") return false;
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) return false;  // axes
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* value = Constant(n.inputs[2]);
    if (value == nullptr || value->size() != 1 || value->DoubleAt(0) != 0.0) return false;
  }
  const Tensor* pads = Constant(n.inputs[1]);
  if (pads == nullptr || pads->type() != DataType::kInt64 || pads->size() != 8) return false;
  const std::vector<int64_t> p = pads->ToInt64Vector();
  for (size_t k = 0; k < 8; ++k) {
    if (k != 5 && p[k] != 0) return false;
  }
  if (p[5] < 0) return false;
  const Blocked* x = BlockedOf(n.inputs[0]);
  if (x == nullptr || !x->pad_zero || !plain_missing_.count(n.inputs[0])) return false;
  const int64_t channels = x->channels + p[5];
  const int64_t blocks_in = (x->channels + block_ - 1) / block_;
  const int64_t blocks_out = (channels + block_ - 1) / block_;
  if (blocks_out == blocks_in) {
    blocked_[n.outputs[0]] = Blocked{x->name, channels, true};  // the same buffer, read with more channels
    plain_missing_.insert(n.outputs[0]);
    return true;
  }
  std::string pads_name = n.outputs[0] + "::block_pads";
  new_initializers_.push_back(ir::NamedTensor{
      pads_name, "", Tensor::FromVector<int64_t>({0, 0, 0, 0, 0, 0, blocks_out - blocks_in, 0, 0, 0}, {10}), {}, {}});
  ir::Node m;
  m.name = n.name;
  m.op_type = "Pad";
  m.inputs = {x->name, pads_name};
  m.outputs = {NewBlocked(n.outputs[0], channels)};
  out_.push_back(std::move(m));
  return true;
}

std::optional<int> LayoutRewriter::BlockedResizeVersion(const ir::Node& n, int64_t channels) const {
  const auto since = NodeSinceVersion(model_, n);
  if (!since || n.outputs.size() != 1) return std::nullopt;
  const bool resize_11 = n.op_type == "Resize" && *since >= 11;
  const auto* mode = n.FindAttribute("mode");
  const std::string m = mode != nullptr ? mode->s : "nearest";
  if (m != "nearest" && m != "linear" && !(m == "bilinear" && n.op_type == "Upsample" && *since == 1)) {
    return std::nullopt;
  }
  // Scales or sizes per axis: those of N and C (axes 0 and 1) must keep them where they are known here; the kernel
  // checks the rest at run time.
  std::vector<int64_t> axes{0, 1, 2, 3};
  if (resize_11) {
    const auto* coord = n.FindAttribute("coordinate_transformation_mode");
    if (coord != nullptr && coord->s == "tf_crop_and_resize") return std::nullopt;
    const auto* antialias = n.FindAttribute("antialias");
    if (antialias != nullptr && antialias->i != 0) return std::nullopt;
    if (const auto* a = n.FindAttribute("axes")) {
      axes.clear();
      for (int64_t v : a->ints) {
        if (v < -4 || v > 3) return std::nullopt;
        axes.push_back(v < 0 ? v + 4 : v);
        if (axes.back() < 2) return std::nullopt;
      }
    }
  }
  const size_t scales_input = resize_11 ? 2 : 1;
  if (n.inputs.size() > scales_input && !n.inputs[scales_input].empty()) {
    const Tensor* scales = Constant(n.inputs[scales_input]);
    if (scales != nullptr && scales->size() > 0) {  // empty: absent (sizes given instead)
      if (scales->size() != static_cast<int64_t>(axes.size())) return std::nullopt;
      for (size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] < 2 && scales->DoubleAt(static_cast<int64_t>(i)) != 1.0) return std::nullopt;
      }
    }
  }
  if (n.op_type == "Upsample" && *since == 7) {
    const auto* scales = n.FindAttribute("scales");
    if (scales == nullptr || scales->floats.size() != 4 || scales->floats[0] != 1.0f || scales->floats[1] != 1.0f) {
      return std::nullopt;
    }
  }
  if (resize_11 && n.inputs.size() > 3 && !n.inputs[3].empty()) {
    const Tensor* sizes = Constant(n.inputs[3]);
    if (sizes != nullptr && sizes->size() > 0) {
      if (sizes->size() != static_cast<int64_t>(axes.size())) return std::nullopt;
      for (size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] == 1 && sizes->DoubleAt(static_cast<int64_t>(i)) != static_cast<double>(channels)) {
          return std::nullopt;
        }
      }
    }
  }
  return *since;
}

std::optional<std::string> LayoutRewriter::BlockedChannelConstant(const std::string& name, int64_t channels,
                                                                  const std::string& blocked_name, bool allow_scalar) {
  const Tensor* t = Constant(name);
  if (t == nullptr || t->type() != DataType::kFloat) return std::nullopt;
  const bool scalar = t->size() == 1;
  if (scalar && !allow_scalar) return std::nullopt;
  if (!scalar) {
    // [C, 1, 1] or [1, C, 1, 1] (right-aligned to NCHW; a 1-D [C] would align with W).
    if (t->size() != channels || t->rank() < 3 || t->rank() > 4) return std::nullopt;
    for (int64_t d = 0; d < t->rank(); ++d) {
      const int64_t axis = d + 4 - t->rank();
      if (t->dim(d) != (axis == 1 ? channels : 1)) return std::nullopt;
    }
  }
  const int64_t blocks = (channels + block_ - 1) / block_;
  Tensor blocked = Tensor::Allocate(DataType::kFloat, {1, blocks, 1, 1, block_}, true);
  for (int64_t c = 0; c < channels; ++c) blocked.data<float>()[c] = t->data<float>()[scalar ? 0 : c];
  new_initializers_.push_back(ir::NamedTensor{blocked_name, "", std::move(blocked), {}, {}});
  return blocked_name;
}

bool LayoutRewriter::TryBlockedQdqPair(const ir::Node& q) {
  auto c = SoleConsumer(q.outputs[0]);
  if (!c) return false;
  const ir::Node& dq = graph_.nodes[*c];
  if (!IsOnnx(dq) || dq.op_type != "DequantizeLinear" || dq.outputs.size() != 1 || dq.inputs.empty() ||
      dq.inputs[0] != q.outputs[0]) {
    return false;
  }
  if (q.FindAttribute("block_size") != nullptr || dq.FindAttribute("block_size") != nullptr) return false;
  // The same one-value scale, and the same zero point (one value of the same type, or none on both sides).
  auto scale = ConstantScalar(q, 1);
  if (!scale || ConstantScalar(dq, 1) != scale) return false;
  auto zero_point = [&](const ir::Node& n) -> std::optional<std::pair<DataType, double>> {
    if (n.inputs.size() < 3 || n.inputs[2].empty()) return std::make_pair(DataType::kUndefined, 0.0);
    const Tensor* z = Constant(n.inputs[2]);
    if (z == nullptr || z->size() != 1) return std::nullopt;
    return std::make_pair(z->type(), z->DoubleAt(0));
  };
  const auto qz = zero_point(q), dqz = zero_point(dq);
  if (!qz || !dqz || *qz != *dqz) return false;
  if (qz->first != DataType::kUndefined && qz->first != DataType::kUint8 && qz->first != DataType::kInt8) return false;
  const Blocked x = *BlockedOf(q.inputs[0]);
  ir::Node mq = q;
  mq.inputs[0] = x.name;
  const std::string q_blocked = q.outputs[0] + BlockedSuffix();  // 8-bit, read by the DQ below alone
  mq.outputs = {q_blocked};
  out_.push_back(std::move(mq));
  ir::Node mdq = dq;
  mdq.inputs[0] = q_blocked;
  mdq.outputs = {NewBlocked(dq.outputs[0], x.channels, x.pad_zero)};
  out_.push_back(std::move(mdq));
  absorbed_.insert(*c);
  return true;
}

// A Split of a blocked value along its channels into parts of whole blocks (YOLOv8's C2f modules chunk a convolution's
// output into two halves for the next ones): the same Split on the blocked buffer, along its block axis with the
// sizes counted in blocks, instead of a reorder to the plain layout and one back per part.
bool LayoutRewriter::TryBlockedSplit(const ir::Node& n) {
  const Blocked* b = BlockedOf(n.inputs.empty() ? std::string() : n.inputs[0]);
  if (b == nullptr || plain_missing_.count(n.inputs[0]) == 0 || n.outputs.empty()) return false;
  const auto* axis = n.FindAttribute("axis");
  if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
  for (const auto& out : n.outputs) {
    if (out.empty()) return false;
  }
  // The channel counts of the parts: the `split` input (opset 13 on) or attribute, else equal parts.
  std::vector<int64_t> sizes;
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = Constant(n.inputs[1]);
    if (t == nullptr || t->type() != DataType::kInt64) return false;
    sizes.assign(t->data<int64_t>(), t->data<int64_t>() + t->size());
  } else if (const auto* attr = n.FindAttribute("split"); attr != nullptr) {
    sizes = attr->ints;
  } else {
    const int64_t parts = static_cast<int64_t>(n.outputs.size());
    if (b->channels % parts != 0) return false;
    sizes.assign(static_cast<size_t>(parts), b->channels / parts);
  }
  if (sizes.size() != n.outputs.size()) return false;
  int64_t total = 0;
  std::vector<int64_t> blocks;
  for (int64_t size : sizes) {
    if (size <= 0 || size % block_ != 0) return false;
    total += size;
    blocks.push_back(size / block_);
  }
  if (total != b->channels) return false;
  ir::Node m;
  m.name = n.name;
  m.op_type = "Split";
  m.inputs = {b->name};
  m.attributes = {IntAttr("axis", 1)};
  if (opset_ >= 13) {  // the sizes as an input from opset 13, an attribute before
    const std::string sizes_name = n.outputs[0] + "::block_split";
    new_initializers_.push_back(ir::NamedTensor{
        sizes_name, "", Tensor::FromVector<int64_t>(blocks, {static_cast<int64_t>(blocks.size())}), {}, {}});
    m.inputs.push_back(sizes_name);
  } else {
    m.attributes.push_back(ir::IntsAttr("split", blocks));
  }
  for (size_t k = 0; k < n.outputs.size(); ++k) m.outputs.push_back(NewBlocked(n.outputs[k], sizes[k]));
  out_.push_back(std::move(m));
  return true;
}

bool LayoutRewriter::TryBlockedPassThrough(const ir::Node& n) {
  if (IsOnnx(n) && n.op_type == "Split") return TryBlockedSplit(n);
  if ((!IsOnnx(n) && !IsHardSwish(n) && !IsGelu(n)) || n.outputs.size() != 1 || n.inputs.empty()) return false;
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
  // Gelu, elementwise with Gelu(0) = 0 (either form): MaxViT's MBConv blocks apply it between their 1x1 and depthwise
  // convolutions, each side of it reordered (4 of its 10 ms of reorders at 1 thread).
  if (IsGelu(n) && n.inputs.size() == 1 && only_blocked(n.inputs[0])) {
    const Blocked b = *BlockedOf(n.inputs[0]);
    ir::Node m = n;
    m.inputs = {b.name};
    m.outputs = {NewBlocked(n.outputs[0], b.channels, b.pad_zero)};
    out_.push_back(std::move(m));
    return true;
  }
  // PRelu with one constant slope per channel (or one for all): the slope is laid out in blocks once
  // ([1, blocks, 1, 1, block], zero past the channels); PRelu(0) = 0 keeps the padding zero.
  if (op == "PRelu" && n.inputs.size() == 2 && only_blocked(n.inputs[0])) {
    const Blocked b = *BlockedOf(n.inputs[0]);
    auto slope_name = BlockedChannelConstant(n.inputs[1], b.channels, n.outputs[0] + "::blocked_slope", true);
    if (!slope_name) return false;
    ir::Node m = n;
    m.inputs = {b.name, *slope_name};
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
    const size_t bi = a != nullptr ? 0 : 1;
    const Blocked* x = a != nullptr ? a : b;
    if (x == nullptr || (a != nullptr && b != nullptr) || !only_blocked(n.inputs[bi])) return false;
    // A blocked value and a constant per channel ([C, 1, 1] or [1, C, 1, 1]: TF's BiasAdd, and the Mul and Add of a
    // BatchNormalization the converters write after a residual sum), laid out in blocks once with zeros past the
    // channels: Add, Sub and Mul keep the padding zero.
    if (op != "Div") {
      if (auto k = BlockedChannelConstant(n.inputs[1 - bi], x->channels, n.outputs[0] + "::blocked_operand", false)) {
        ir::Node m = n;
        m.inputs[bi] = x->name;
        m.inputs[1 - bi] = *k;
        m.outputs = {NewBlocked(n.outputs[0], x->channels, x->pad_zero)};
        out_.push_back(std::move(m));
        return true;
      }
    }
    // A blocked value and a constant scalar (a one-element tensor broadcasts over any layout).
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
    m.attributes.push_back(IntAttr(nchwc::kBlockAttr, block_));
    m.outputs = {NewBlocked(n.outputs[0], b.channels, b.pad_zero)};
    out_.push_back(std::move(m));
    return true;
  }
  // Shape of a value that exists only blocked (the size input of a Resize after it, say): read from the blocked
  // tensor, without a reorder back.
  if (op == "Shape" && n.inputs.size() == 1 && only_blocked(n.inputs[0])) {
    const Blocked b = *BlockedOf(n.inputs[0]);
    ir::Node m = n;
    m.domain = ir::kInternalDomain;
    m.op_type = nchwc::kShape;
    m.inputs = {b.name};
    m.attributes.push_back(IntAttr("channels", b.channels));
    out_.push_back(std::move(m));
    return true;
  }
  // Upsampling (FPN and segmentation decoders) on blocked images: nearest and linear over H and W, b channels at a
  // time, instead of reordering to the plain layout and back around it.
  if ((op == "Resize" || op == "Upsample") && BlockedOf(n.inputs[0]) != nullptr) {
    const Blocked b = *BlockedOf(n.inputs[0]);
    const auto since = BlockedResizeVersion(n, b.channels);
    if (!since) return false;
    ir::Node m = n;
    m.domain = ir::kInternalDomain;
    m.op_type = nchwc::kResize;
    m.inputs[0] = b.name;
    m.attributes.push_back(StringAttr("onnx_op", op));
    m.attributes.push_back(IntAttr("onnx_version", *since));
    m.attributes.push_back(IntAttr("channels", b.channels));
    m.attributes.push_back(IntAttr(nchwc::kBlockAttr, block_));
    m.outputs = {NewBlocked(n.outputs[0], b.channels, b.pad_zero)};
    out_.push_back(std::move(m));
    return true;
  }
  // A QuantizeLinear whose 8-bit result only its DequantizeLinear reads, both with the same one-value scale and zero
  // point (the activations of a QDQ model whose convolutions stay in float: int8 activations on x86-64): the pair
  // runs on the blocked buffers, elementwise as in the plain layout. Padding: Q(0) is the zero point, which the DQ
  // maps back to 0.
  if (op == "QuantizeLinear" && only_blocked(n.inputs[0]) && n.inputs.size() >= 2 && TryBlockedQdqPair(n)) {
    return true;
  }
  // Sum of blocked values of the same channels (TF's AddN): elementwise on the blocked buffers.
  if (op == "Sum" && n.inputs.size() >= 2) {
    ir::Node m = n;
    bool any_only_blocked = false, pad_zero = true;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const Blocked* b = BlockedOf(n.inputs[k]);
      if (b == nullptr || b->channels != BlockedOf(n.inputs[0])->channels) return false;
      any_only_blocked = any_only_blocked || only_blocked(n.inputs[k]);
      pad_zero = pad_zero && b->pad_zero;
      m.inputs[k] = b->name;
    }
    if (!any_only_blocked) return false;
    m.outputs = {NewBlocked(n.outputs[0], BlockedOf(n.inputs[0])->channels, pad_zero)};
    out_.push_back(std::move(m));
    return true;
  }
  if (op == "Pad" && TryChannelPadNode(n)) return true;
  if (op == "Concat") {
    const auto* axis = n.FindAttribute("axis");
    if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
    if (TryChannelZeroPad(n)) return true;
    int64_t channels = 0;
    bool any_only_blocked = false;
    std::vector<std::string> ins;
    for (const auto& in : n.inputs) {
      const Blocked* b = BlockedOf(in);
      if (b == nullptr || b->channels % block_ != 0) return false;
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

}  // namespace onyx::optimizer::nchwc_layout
