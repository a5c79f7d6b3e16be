// Cast and CastLike kernels. The conversions themselves live in cast.cc; here: the attributes.
// Cast-1 names the destination type by its TensorProto name ("FLOAT"); later versions by its number. `saturate`
// exists from version 19, `round_mode` from 25; before that the defaults (saturate, round up) apply.
#include <string>

#include "ops/conversion/cast.h"
#include "ops/conversion/conversion.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::conversion {
namespace {

Status ParseCastOptions(const KernelInfo& info, CastOptions& options) {
  if (info.since_version() >= 19) options.saturate = info.GetInt("saturate", 1) != 0;
  if (info.since_version() >= 25) {
    const std::string mode = info.GetString("round_mode", "up");
    auto parsed = E8M0RoundingFromName(mode);
    if (!parsed.ok()) return info.Error("attribute " + parsed.status().message());
    options.round_mode = *parsed;
  }
  return Status::Ok();
}

Result<DataType> ParseTo(const KernelInfo& info) {
  const ir::Attribute* to = info.node().FindAttribute("to");
  if (to == nullptr) return info.Error("attribute 'to' is required");
  if (to->type == ir::AttrType::kString) {
    std::string name = to->s;
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    auto t = DataTypeFromName(name);
    if (!t.ok()) return info.Error("attribute 'to' ('" + to->s + "') is not an element type");
    if (!IsCastableType(*t)) return info.Error("attribute 'to' names " + to->s + ", which Cast does not support");
    return *t;
  }
  if (to->type != ir::AttrType::kInt) {
    return info.Error("attribute 'to' must be an INT, not " + std::string(ir::AttrTypeName(to->type)));
  }
  if (!IsValidDataType(static_cast<int32_t>(to->i)) || to->i > kMaxDataType) {
    return info.Error("attribute 'to' (" + std::to_string(to->i) + ") is not an element type");
  }
  const auto t = static_cast<DataType>(to->i);
  if (!IsCastableType(t)) {
    return info.Error("attribute 'to' is " + std::string(DataTypeName(t)) + ", which Cast does not support");
  }
  return t;
}

class CastKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(to_, ParseTo(info));
    return ParseCastOptions(info, options_);
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    Tensor& y = ctx.AllocateOutput(0, to_, x->shape());
    return CastInto(*x, options_, y);
  }

 private:
  DataType to_ = DataType::kUndefined;
  CastOptions options_;
};

class CastLikeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override { return ParseCastOptions(info, options_); }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* target, ctx.TensorInput(1));
    if (!IsCastableType(target->type())) {
      return Unsupported("input 'target_type' (1) has element type " + std::string(DataTypeName(target->type())) +
                         ", which CastLike does not support");
    }
    Tensor& y = ctx.AllocateOutput(0, target->type(), x->shape());
    return CastInto(*x, options_, y);
  }

 private:
  CastOptions options_;
};

}  // namespace

void RegisterCastOps(KernelRegistry& registry) {
  // One kernel reads every version's attributes (versions 1, 6, 9, 13, 19, 21, 23, 24, 25 of Cast; 15, 19, 21,
  // 23, 24, 25 of CastLike differ only in attributes and allowed types).
  registry.Add("", "Cast", 1, kLatestVersion, MakeFactory<CastKernel>());
  registry.Add("", "CastLike", 15, kLatestVersion, MakeFactory<CastLikeKernel>());
}

}  // namespace onyx::ops::conversion
