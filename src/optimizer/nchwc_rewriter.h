// The blocked-layout pass's rewriter (optimizer/nchwc_layout.h), shared by the pass's three files:
// nchwc_layout.cc walks the graph and keeps the books (which values exist blocked, which still need their plain
// form), nchwc_conv_rules.cc decides which convolutions go blocked and what fuses into them, and
// nchwc_pass_through.cc handles the other operators that run on blocked values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "ir/model.h"
#include "ir/nchwc_ops.h"

namespace onyx::optimizer::nchwc_layout {

namespace nchwc = ir::nchwc;

inline bool IsOnnx(const ir::Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

// HardSwish arrives in onyx's private domain from the optimizer's fusion when the model predates opset 14.
inline bool IsHardSwish(const ir::Node& n) {
  return n.op_type == "HardSwish" && (IsOnnx(n) || n.domain == ir::kInternalDomain);
}

// ONNX's Gelu (opset 20) or the one the Gelu fusion writes for older opsets (optimizer/gelu_fusion.cc).
inline bool IsGelu(const ir::Node& n) { return n.op_type == "Gelu" && (IsOnnx(n) || n.domain == ir::kInternalDomain); }

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
  // `block`: the channel block of the blocked values it creates (ir/nchwc_ops.h), 8 or 16.
  LayoutRewriter(ir::Model& model, int block) : model_(model), graph_(model.graph), block_(block) {}

  // Rewrites the main graph; returns how many Conv nodes now run blocked.
  Result<int> Run();

 private:
  // The books (nchwc_layout.cc).
  const Tensor* Constant(const std::string& name) const;
  // The only node reading `value` (which is not a graph output), if it is not yet absorbed.
  std::optional<size_t> SoleConsumer(const std::string& value) const;
  const Blocked* BlockedOf(const std::string& name) const;
  // Emits a reorder back to the plain layout under the original name, once, if only the blocked form exists.
  void EnsurePlain(const std::string& name);
  // Records that `name` now exists blocked (only), returning the blocked value's name.
  std::string NewBlocked(const std::string& name, int64_t channels, bool pad_zero = true);
  // What blocked values' names get appended: "::nchwc16" or "::nchwc8".
  std::string BlockedSuffix() const { return "::nchwc" + std::to_string(block_); }

  // Walking node p (not yet walked: p > current) ahead of its turn, while the walk is at node `current`: when each
  // value p reads exists already (its producer walked, or emitted early itself, up to `depth` levels) and p runs on
  // blocked values (TryBlockedPassThrough). Returns whether p was emitted (it is then skipped in its turn).
  bool EmitEarly(size_t p, size_t current, int depth);

  // Convolutions and what fuses into them (nchwc_conv_rules.cc).
  // Whether Conv n has what NchwcConv needs: constant float32 4-D weights (and bias) and a valid group.
  bool ConvEligible(const ir::Node& n) const;
  // The scalar value of a constant input, when it is one.
  std::optional<float> ConstantScalar(const ir::Node& n, size_t i) const;
  // An activation that maps 0 to 0 (the padding channels of blocked values must stay zero), as NchwcConv fuses it.
  std::optional<FusedActivation> ZeroPreservingActivation(const ir::Node& n) const;
  // Emits node i (an eligible Conv) as NchwcConv, absorbing the residual Add, activation and depthwise
  // convolution that read its result alone.
  void EmitConv(size_t i);
  // When `result` (the fused node's output so far) is read alone by a zero-preserving activation, absorbs it into
  // `conv` as attributes `attr`, `attr`_alpha and `attr`_beta, and moves `result` to the activation's output.
  void AbsorbActivation(ir::Node& conv, std::string& result, const std::string& attr);
  // Mul(x, Sigmoid(x)) reading `result`, absorbed as the activation "Swish"; false (nothing changed) where it does
  // not match.
  bool AbsorbSwish(ir::Node& conv, std::string& result, const std::string& attr);
  // Whether Conv n (weights w) is pointwise: 1x1, stride 1, no padding, one group.
  static bool IsPointwise(const ir::Node& n, const Tensor& w);
  // The stride of Conv n when it is a 3x3 depthwise convolution over `channels` with pads 1 on every side and
  // stride 1 or 2 (what oneDNN's depthwise post-op computes); nullopt otherwise.
  std::optional<int64_t> FusableDepthwiseStride(const ir::Node& n, int64_t channels) const;

  // Other operators on blocked values (nchwc_pass_through.cc).
  // The shape of `name` when it is a float tensor of zeros known here: a constant, or ConstantOfShape of a constant
  // shape with a zero (or absent) value.
  std::optional<Shape> ZerosShape(const std::string& name) const;
  // Concat(x, zeros) on the channel axis (how TF exports channel padding): the blocked form of x already holds
  // zeros past its channels, so the result is x's buffer itself when the block count does not grow, else x's
  // blocks followed by whole zero blocks (a Concat with a blocked zero constant).
  bool TryChannelZeroPad(const ir::Node& n);
  // A Pad that only appends zero channels, kept blocked.
  bool TryChannelPadNode(const ir::Node& n);
  // The since_version of Resize/Upsample n when it can run on a blocked input of `channels` channels (NchwcResize:
  // nearest or linear over H and W only, as far as its constant scales or sizes tell).
  std::optional<int> BlockedResizeVersion(const ir::Node& n, int64_t channels) const;
  // A constant `name` of one value per channel (or, with allow_scalar, one value), laid out in blocks as
  // [1, blocks, 1, 1, block] with zeros past the channels, added to the initializers as `blocked_name`; nullopt when
  // it is not such a float constant.
  std::optional<std::string> BlockedChannelConstant(const std::string& name, int64_t channels,
                                                    const std::string& blocked_name, bool allow_scalar);
  // QuantizeLinear q and the DequantizeLinear that alone reads it, with equal one-value parameters, on blocked
  // values (the DQ is absorbed); false when they are not such a pair.
  bool TryBlockedQdqPair(const ir::Node& q);
  // Runs n on blocked values when its inputs exist only blocked and it keeps the layout; false otherwise.
  bool TryBlockedPassThrough(const ir::Node& n);
  bool TryBlockedSplit(const ir::Node& n);

  ir::Model& model_;
  ir::Graph& graph_;
  const int block_;
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

}  // namespace onyx::optimizer::nchwc_layout
