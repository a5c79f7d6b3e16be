// The blocked-layout pass (optimizer/nchwc_layout.h): the walk over the graph and the books of blocked values.
#include "optimizer/nchwc_layout.h"

#include "ir/graph_edit.h"
#include "ir/session_constants.h"
#include "kernels/cpu_isa.h"
#include "optimizer/nchwc_rewriter.h"

namespace onyx::optimizer::nchwc_layout {

using ir::FloatAttr;
using ir::IntAttr;
using ir::StringAttr;

Result<int> LayoutRewriter::Run() {
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

bool LayoutRewriter::EmitEarly(size_t p, size_t current, int depth) {
  if (p <= current || absorbed_.count(p)) return false;
  const ir::Node& n = graph_.nodes[p];
  for (const auto& name : ir::NodeReads(n)) {
    auto q = producer_.find(name);
    if (q == producer_.end() || q->second < current || absorbed_.count(q->second)) continue;
    if (depth <= 1 || !EmitEarly(q->second, current, depth - 1)) return false;
  }
  if (!TryBlockedPassThrough(n)) return false;
  absorbed_.insert(p);
  return true;
}

const Tensor* LayoutRewriter::Constant(const std::string& name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : it->second;
}

std::optional<size_t> LayoutRewriter::SoleConsumer(const std::string& value) const {
  if (graph_outputs_.count(value)) return std::nullopt;
  auto u = uses_.find(value);
  if (u == uses_.end() || u->second != 1) return std::nullopt;
  auto c = consumers_.find(value);
  if (c == consumers_.end() || c->second.size() != 1 || absorbed_.count(c->second[0])) return std::nullopt;
  return c->second[0];
}

const Blocked* LayoutRewriter::BlockedOf(const std::string& name) const {
  auto it = blocked_.find(name);
  return it == blocked_.end() ? nullptr : &it->second;
}

void LayoutRewriter::EnsurePlain(const std::string& name) {
  if (!plain_missing_.count(name)) return;
  const Blocked& b = blocked_.at(name);
  ir::Node r;
  r.op_type = nchwc::kReorder;
  r.domain = ir::kInternalDomain;
  r.name = name + "/to_nchw";
  r.inputs = {b.name};
  r.outputs = {name};
  r.attributes = {IntAttr("to_blocked", 0), IntAttr("channels", b.channels), IntAttr(nchwc::kBlockAttr, block_)};
  out_.push_back(std::move(r));
  plain_missing_.erase(name);
}

std::string LayoutRewriter::NewBlocked(const std::string& name, int64_t channels, bool pad_zero) {
  std::string b = name + BlockedSuffix();
  blocked_[name] = Blocked{b, channels, pad_zero};
  plain_missing_.insert(name);
  return b;
}

}  // namespace onyx::optimizer::nchwc_layout

namespace onyx::optimizer {

Result<int> ApplyNchwcLayout(ir::Model& model, int block) {
  if (block == 0) block = kernels::NchwcBlockSize();
  if (!ir::nchwc::IsValidBlock(block)) {
    return InvalidArgument("the blocked layout's channel block is " + std::to_string(block) + ", expected 8 or 16");
  }
  return nchwc_layout::LayoutRewriter(model, block).Run();
}

}  // namespace onyx::optimizer
