// BitCast (opset 26): the input's bytes reinterpreted as another element type of the same bit width (packed
// sub-byte types included), shape unchanged. Every type but string; complex types too.
#include <cstring>
#include <string>

#include "ops/conversion/conversion.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::conversion {
namespace {

class BitCastKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const ir::Attribute* to = info.node().FindAttribute("to");
    if (to == nullptr) return info.Error("attribute 'to' is required");
    if (to->type != ir::AttrType::kInt) {
      return info.Error("attribute 'to' must be an INT, not " + std::string(ir::AttrTypeName(to->type)));
    }
    if (!IsValidDataType(static_cast<int32_t>(to->i)) || to->i > kMaxDataType) {
      return info.Error("attribute 'to' (" + std::to_string(to->i) + ") is not an element type");
    }
    to_ = static_cast<DataType>(to->i);
    if (to_ == DataType::kString) return info.Error("attribute 'to' is string, which BitCast does not support");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() == DataType::kString) return InvalidArgument("input 'input' (0) is a string tensor");
    if (DataTypeBits(x->type()) != DataTypeBits(to_)) {
      return InvalidArgument("input 'input' (0) has element type " + std::string(DataTypeName(x->type())) + " (" +
                             std::to_string(DataTypeBits(x->type())) + " bits), 'to' is " +
                             std::string(DataTypeName(to_)) + " (" + std::to_string(DataTypeBits(to_)) + " bits)");
    }
    Tensor& y = ctx.AllocateOutput(0, to_, x->shape());
    if (x->nbytes() > 0) std::memcpy(y.raw(), x->raw(), x->nbytes());
    return Status::Ok();
  }

 private:
  DataType to_ = DataType::kUndefined;
};

}  // namespace

void RegisterBitCastOp(KernelRegistry& registry) {
  registry.Add("", "BitCast", 26, kLatestVersion, MakeFactory<BitCastKernel>());
}

}  // namespace onyx::ops::conversion
