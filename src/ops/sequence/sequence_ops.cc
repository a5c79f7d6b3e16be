// The basic sequence operators: SequenceEmpty, SequenceConstruct, SequenceAt, SequenceInsert, SequenceErase,
// SequenceLength. Sequences are values: every operator returns a new sequence (its items share storage with the
// input's), never modifying its input.
#include "ops/sequence/sequence.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::sequence {

Result<const SequenceValue*> SequenceInput(const KernelContext& ctx, size_t i, const std::string& what) {
  if (!ctx.has_input(i)) return InvalidArgument("input " + what + " is missing");
  const Value& v = ctx.input_value(i);
  if (!v.is_sequence()) return InvalidArgument("input " + what + " must be a sequence, got a " + v.KindName());
  return &v.sequence();
}

Result<size_t> PositionInput(const KernelContext& ctx, size_t i, size_t size, bool allow_end) {
  const std::string what = "input 'position' (" + std::to_string(i) + ")";
  ONYX_ASSIGN_OR_RETURN(const Tensor* p, ctx.TensorInput(i));
  if ((p->type() != DataType::kInt32 && p->type() != DataType::kInt64) || p->size() != 1) {
    return InvalidArgument(what + " must be an int32 or int64 scalar, got " + TensorTypeString(p->type()) + " " +
                           ShapeToString(p->shape()));
  }
  const int64_t n = static_cast<int64_t>(size);
  const int64_t pos = p->IntAt(0);
  const int64_t hi = allow_end ? n : n - 1;
  if (pos < -n || pos > hi) {
    return InvalidArgument(what + " is " + std::to_string(pos) + ", outside [" + std::to_string(-n) + ", " +
                           std::to_string(hi) + "] for a sequence of " + std::to_string(n) + " items");
  }
  return static_cast<size_t>(pos < 0 ? pos + n : pos);
}

Status CheckElementType(DataType seq_type, const Tensor& t, const std::string& what) {
  if (seq_type != DataType::kUndefined && t.type() != seq_type) {
    return InvalidArgument(what + " is " + TensorTypeString(t.type()) + " but the sequence holds " +
                           TensorTypeString(seq_type));
  }
  return Status::Ok();
}

namespace {

class SequenceEmptyKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const int64_t dtype = info.GetInt("dtype", static_cast<int64_t>(DataType::kFloat));
    if (dtype > INT32_MAX || dtype < 0 || !IsValidDataType(static_cast<int32_t>(dtype)) ||
        dtype == static_cast<int64_t>(DataType::kUndefined)) {
      return info.Error("attribute 'dtype' is " + std::to_string(dtype) + ", not a tensor element type");
    }
    type_ = static_cast<DataType>(dtype);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ctx.SetOutput(0, SequenceValue{type_, {}});
    return Status::Ok();
  }

 private:
  DataType type_ = DataType::kFloat;
};

Status SequenceConstruct(const KernelInfo&, KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return InvalidArgument("SequenceConstruct needs at least one input");
  SequenceValue seq;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(i));
    if (i == 0) seq.elem_type = t->type();
    ONYX_RETURN_IF_ERROR(CheckElementType(seq.elem_type, *t, "input " + std::to_string(i)));
    seq.items.emplace_back(*t);
  }
  ctx.SetOutput(0, std::move(seq));
  return Status::Ok();
}

Status SequenceAt(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const SequenceValue* seq, SequenceInput(ctx, 0, "'input_sequence' (0)"));
  ONYX_ASSIGN_OR_RETURN(size_t pos, PositionInput(ctx, 1, seq->items.size(), /*allow_end=*/false));
  ctx.SetOutput(0, seq->items[pos]);
  return Status::Ok();
}

Status SequenceInsert(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const SequenceValue* seq, SequenceInput(ctx, 0, "'input_sequence' (0)"));
  ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(1));
  ONYX_RETURN_IF_ERROR(CheckElementType(seq->elem_type, *t, "input 'tensor' (1)"));
  size_t pos = seq->items.size();
  if (ctx.has_input(2)) {
    ONYX_ASSIGN_OR_RETURN(pos, PositionInput(ctx, 2, seq->items.size(), /*allow_end=*/true));
  }
  SequenceValue out;
  out.elem_type = t->type();
  out.items.reserve(seq->items.size() + 1);
  out.items.insert(out.items.end(), seq->items.begin(), seq->items.begin() + static_cast<ptrdiff_t>(pos));
  out.items.emplace_back(*t);
  out.items.insert(out.items.end(), seq->items.begin() + static_cast<ptrdiff_t>(pos), seq->items.end());
  ctx.SetOutput(0, std::move(out));
  return Status::Ok();
}

Status SequenceErase(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const SequenceValue* seq, SequenceInput(ctx, 0, "'input_sequence' (0)"));
  if (seq->items.empty()) return InvalidArgument("input 'input_sequence' (0) is empty; there is nothing to erase");
  size_t pos = seq->items.size() - 1;
  if (ctx.has_input(1)) {
    ONYX_ASSIGN_OR_RETURN(pos, PositionInput(ctx, 1, seq->items.size(), /*allow_end=*/false));
  }
  SequenceValue out;
  out.elem_type = seq->elem_type;
  out.items.reserve(seq->items.size() - 1);
  for (size_t i = 0; i < seq->items.size(); ++i) {
    if (i != pos) out.items.push_back(seq->items[i]);
  }
  ctx.SetOutput(0, std::move(out));
  return Status::Ok();
}

Status SequenceLength(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const SequenceValue* seq, SequenceInput(ctx, 0, "'input_sequence' (0)"));
  ctx.SetOutput(0, Tensor::Scalar<int64_t>(static_cast<int64_t>(seq->items.size())));
  return Status::Ok();
}

}  // namespace

void RegisterSequenceBasicOps(KernelRegistry& registry) {
  registry.Add("", "SequenceEmpty", 11, kLatestVersion, MakeFactory<SequenceEmptyKernel>());
  registry.AddFn("", "SequenceConstruct", 11, kLatestVersion, SequenceConstruct);
  registry.AddFn("", "SequenceAt", 11, kLatestVersion, SequenceAt);
  registry.AddFn("", "SequenceInsert", 11, kLatestVersion, SequenceInsert);
  registry.AddFn("", "SequenceErase", 11, kLatestVersion, SequenceErase);
  registry.AddFn("", "SequenceLength", 11, kLatestVersion, SequenceLength);
}

}  // namespace onyx::ops::sequence
