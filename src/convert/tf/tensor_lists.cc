// TensorLists (TF2's lists of tensors, as tf.map_fn and tf.while_loop accumulate them) as ONNX sequences: the
// list's TfValue is the sequence, its type the element type, and ConvertEnv::sequences marks it (the While
// converter declares sequence loop variables from it).
#include "convert/tf/tensor_lists.h"

#include "convert/tf/functions.h"

namespace onyx::convert::tf {
namespace {

Result<ConvertEnv*> EnvOf(OpContext& ctx) {
  if (ctx.functions == nullptr) return Internal(ctx.node.Where() + ": no conversion state at hand");
  return &ctx.functions->env();
}

ir::Attribute TypeAttr(const std::string& name, DataType t) { return ir::IntAttr(name, static_cast<int64_t>(t)); }

Status SetList(OpContext& ctx, int port, const std::string& seq, DataType elem) {
  ONYX_ASSIGN_OR_RETURN(ConvertEnv * env, EnvOf(ctx));
  env->sequences.insert(seq);
  ctx.SetOutput(port, seq, elem);
  return Status::Ok();
}

Result<TfValue> ListInput(OpContext& ctx, size_t i) {
  ONYX_ASSIGN_OR_RETURN(ConvertEnv * env, EnvOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
  if (!env->sequences.count(v.name)) {
    return Unsupported(ctx.node.Where() + ": input " + std::to_string(i) +
                       " is not a TensorList this converter made (TensorListReserve, TensorListFromTensor, "
                       "EmptyTensorList)");
  }
  return v;
}

// An index as an int64 scalar (ONNX positions take int32 too, but one type keeps the graph simple).
std::string Position(OpContext& ctx, const TfValue& v) {
  if (v.type == DataType::kInt64) return v.name;
  return ctx.b.Op1("Cast", {v.name}, ctx.Name("position"), {TypeAttr("to", DataType::kInt64)});
}

// EmptyTensorList(element_shape, max_num_elements): an empty sequence of element_dtype.
Status EmptyTensorList(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(DataType elem, ctx.node.Type("element_dtype"));
  return SetList(ctx, 0, ctx.b.Op1("SequenceEmpty", {}, ctx.Name(), {TypeAttr("dtype", elem)}), elem);
}

// TensorListReserve(element_shape, num_elements): num_elements zeros of the element shape (dims TF leaves unknown
// are 0: every element is meant to be set before it is read).
Status TensorListReserve(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(DataType elem, ctx.node.Type("element_dtype"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(0, "element shape"));
  ONYX_ASSIGN_OR_RETURN(Tensor shape_tensor, ctx.ConstInput(0, "element shape"));
  if (shape_tensor.rank() == 0) shape.clear();  // -1 alone: the rank is unknown
  for (auto& d : shape) d = std::max<int64_t>(d, 0);
  ONYX_ASSIGN_OR_RETURN(TfValue n, ctx.Input(1));
  std::string count = n.type == DataType::kInt64
                          ? n.name
                          : ctx.b.Op1("Cast", {n.name}, ctx.Name("count64"), {TypeAttr("to", DataType::kInt64)});
  count = ctx.b.Op1("Reshape", {count, ctx.b.ConstInts(ctx.Name("one"), {1})}, ctx.Name("count"));
  const std::string full = ctx.b.Op1("Concat", {count, ctx.b.ConstInts(ctx.Name("element_shape"), shape)},
                                     ctx.Name("shape"), {ir::IntAttr("axis", 0)});
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  ONYX_ASSIGN_OR_RETURN(value.t.tensor, Tensor::Create(elem, {1}, /*zero=*/true));
  const std::string zeros = ctx.b.Op1("ConstantOfShape", {full}, ctx.Name("zeros"), {value});
  return SetList(
      ctx, 0, ctx.b.Op1("SplitToSequence", {zeros}, ctx.Name(), {ir::IntAttr("axis", 0), ir::IntAttr("keepdims", 0)}),
      elem);
}

// TensorListFromTensor(tensor, element_shape): the tensor's slices along axis 0.
Status TensorListFromTensor(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  return SetList(
      ctx, 0, ctx.b.Op1("SplitToSequence", {x.name}, ctx.Name(), {ir::IntAttr("axis", 0), ir::IntAttr("keepdims", 0)}),
      x.type);
}

// TensorListSetItem(list, index, item): the element at index replaced.
Status TensorListSetItem(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue index, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue item, ctx.Input(2));
  const std::string at = Position(ctx, index);
  const std::string erased = ctx.b.Op1("SequenceErase", {list.name, at}, ctx.Name("erase"));
  return SetList(ctx, 0, ctx.b.Op1("SequenceInsert", {erased, item.name, at}, ctx.Name()), list.type);
}

// TensorListGetItem(list, index, element_shape).
Status TensorListGetItem(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue index, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("SequenceAt", {list.name, Position(ctx, index)}, ctx.Name()), list.type);
  return Status::Ok();
}

// TensorListStack(list, element_shape): the elements stacked along a new axis 0.
Status TensorListStack(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ctx.SetOutput(
      0, ctx.b.Op1("ConcatFromSequence", {list.name}, ctx.Name(), {ir::IntAttr("axis", 0), ir::IntAttr("new_axis", 1)}),
      list.type);
  return Status::Ok();
}

// TensorListLength(list): an int32 scalar, as TF gives it.
Status TensorListLength(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  const std::string n = ctx.b.Op1("SequenceLength", {list.name}, ctx.Name("length64"));
  ctx.SetOutput(0, ctx.b.Op1("Cast", {n}, ctx.Name(), {TypeAttr("to", DataType::kInt32)}), DataType::kInt32);
  return Status::Ok();
}

// TensorListPushBack(list, tensor).
Status TensorListPushBack(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue item, ctx.Input(1));
  return SetList(ctx, 0, ctx.b.Op1("SequenceInsert", {list.name, item.name}, ctx.Name()), list.type);
}

// TensorListPopBack(list, element_shape) -> (list without its last element, that element).
Status TensorListPopBack(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  const std::string last = ctx.b.ConstInts(ctx.Name("last"), {-1});
  const std::string at = ctx.b.Op1("Squeeze", {last}, ctx.Name("last_scalar"));
  ctx.SetOutput(1, ctx.b.Op1("SequenceAt", {list.name, at}, ctx.Name("tensor")), list.type);
  return SetList(ctx, 0, ctx.b.Op1("SequenceErase", {list.name, at}, ctx.Name()), list.type);
}

}  // namespace

void AddTensorListOps(std::map<std::string, OpFn>& table) {
  table["EmptyTensorList"] = EmptyTensorList;
  table["TensorListReserve"] = TensorListReserve;
  table["TensorListFromTensor"] = TensorListFromTensor;
  table["TensorListSetItem"] = TensorListSetItem;
  table["TensorListGetItem"] = TensorListGetItem;
  table["TensorListStack"] = TensorListStack;
  table["TensorListLength"] = TensorListLength;
  table["TensorListPushBack"] = TensorListPushBack;
  table["TensorListPopBack"] = TensorListPopBack;
}

}  // namespace onyx::convert::tf
