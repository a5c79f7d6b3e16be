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

// The elements stacked along a new axis 0 (they must share one shape, as TF requires of the ops using this).
std::string Stacked(OpContext& ctx, const TfValue& list) {
  return ctx.b.Op1("ConcatFromSequence", {list.name}, ctx.Name("stacked"),
                   {ir::IntAttr("axis", 0), ir::IntAttr("new_axis", 1)});
}

// A tensor's slices along axis 0 as a list.
Status SetUnstacked(OpContext& ctx, const std::string& tensor, DataType elem) {
  return SetList(
      ctx, 0, ctx.b.Op1("SplitToSequence", {tensor}, ctx.Name(), {ir::IntAttr("axis", 0), ir::IntAttr("keepdims", 0)}),
      elem);
}

// Zeros of `type` and the shape [count] + Shape(like)[1:] (count: a 1-element int64 tensor); TF's unset elements,
// which read as zeros.
Result<std::string> ZerosLike(OpContext& ctx, const std::string& count, const std::string& like, DataType type) {
  const std::string element = ctx.b.Op1("Shape", {like}, ctx.Name("element_shape"), {ir::IntAttr("start", 1)});
  const std::string shape = ctx.b.Op1("Concat", {count, element}, ctx.Name("zeros_shape"), {ir::IntAttr("axis", 0)});
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  ONYX_ASSIGN_OR_RETURN(value.t.tensor, Tensor::Create(type, {1}, /*zero=*/true));
  return ctx.b.Op1("ConstantOfShape", {shape}, ctx.Name("zeros"), {value});
}

// An int32/int64 tensor as int64, with `suffix` naming the Cast.
std::string Int64(OpContext& ctx, const TfValue& v, const std::string& suffix) {
  if (v.type == DataType::kInt64) return v.name;
  return ctx.b.Op1("Cast", {v.name}, ctx.Name(suffix), {TypeAttr("to", DataType::kInt64)});
}

// TensorListConcat(list) / TensorListConcatV2(list, element_shape, leading_dims) -> (tensor, lengths): the elements
// joined along axis 0, and each one's length along it (int64). The list must not be empty (TF then gives a tensor
// of 0 rows, which ONNX's ConcatFromSequence cannot).
Status TensorListConcat(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(ConvertEnv * env, EnvOf(ctx));
  ctx.SetOutput(0, ctx.b.Op1("ConcatFromSequence", {list.name}, ctx.Name(), {ir::IntAttr("axis", 0)}), list.type);
  // lengths: SequenceMap of Shape(start 0, end 1) over the elements, joined.
  ONYX_ASSIGN_OR_RETURN(
      std::shared_ptr<ir::Graph> body, ctx.functions->Subgraph(ctx.Name("length_of"), [&](GraphBuilder& sb) -> Status {
        ir::ValueInfo in;
        in.name = sb.Fresh(ctx.Name("element"));
        in.type = ir::TypeInfo::Tensor(list.type);
        sb.graph().inputs.push_back(in);
        const std::string dim0 =
            sb.Op1("Shape", {in.name}, ctx.Name("dim0"), {ir::IntAttr("start", 0), ir::IntAttr("end", 1)});
        AddGraphOutput(*env, sb, {dim0, DataType::kInt64, nullptr}, ctx.Name("element_length"));
        return Status::Ok();
      }));
  const std::string lengths = ctx.b.Op1("SequenceMap", {list.name}, ctx.Name("length_seq"), {GraphAttr("body", body)});
  ctx.SetOutput(1, ctx.b.Op1("ConcatFromSequence", {lengths}, ctx.Name("lengths"), {ir::IntAttr("axis", 0)}),
                DataType::kInt64);
  return Status::Ok();
}

// TensorListSplit(tensor, element_shape, lengths): the tensor's pieces of lengths[i] rows each.
Status TensorListSplit(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue lengths, ctx.Input(2));
  return SetList(
      ctx, 0,
      ctx.b.Op1("SplitToSequence", {x.name, Int64(ctx, lengths, "lengths64")}, ctx.Name(), {ir::IntAttr("axis", 0)}),
      x.type);
}

// TensorListScatter(tensor, indices, element_shape) / TensorListScatterV2(..., num_elements): a list of
// max(max(indices) + 1, num_elements) elements (num_elements -1: no minimum) where element indices[i] is tensor[i]
// and the others are unset (zeros). Built as a ScatterND into zeros, then unstacked.
Status TensorListScatter(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  const std::string at = Int64(ctx, indices, "indices64");
  // max(indices) + 1, or 0 for no indices: -1 joins them so that ReduceMax never sees an empty tensor.
  const std::string padded = ctx.b.Op1("Concat", {at, ctx.b.ConstInts(ctx.Name("none"), {-1})},
                                       ctx.Name("indices_or_none"), {ir::IntAttr("axis", 0)});
  std::string count = ctx.b.Op1("Add",
                                {ctx.b.Op1("ReduceMax", {padded}, ctx.Name("max_index"), {ir::IntAttr("keepdims", 1)}),
                                 ctx.b.ConstInts(ctx.Name("one"), {1})},
                                ctx.Name("count_from_indices"));
  if (ctx.node.op == "TensorListScatterV2") {
    ONYX_ASSIGN_OR_RETURN(TfValue n, ctx.Input(3));
    const std::string n1 =
        ctx.b.Op1("Reshape", {Int64(ctx, n, "num_elements64"), ctx.b.ConstInts(ctx.Name("shape1"), {1})},
                  ctx.Name("num_elements"));
    count = ctx.b.Op1("Max", {count, n1}, ctx.Name("count"));
  }
  ONYX_ASSIGN_OR_RETURN(std::string zeros, ZerosLike(ctx, count, x.name, x.type));
  const std::string scattered = ctx.b.Op1(
      "ScatterND",
      {zeros, ctx.b.Op1("Unsqueeze", {at, ctx.b.ConstInts(ctx.Name("index_axis"), {-1})}, ctx.Name("at")), x.name},
      ctx.Name("scattered"));
  return SetUnstacked(ctx, scattered, x.type);
}

// TensorListScatterIntoExistingList(list, tensor, indices): elements indices[i] replaced by tensor[i] (the
// elements must share one shape: the list is stacked, scattered into and unstacked).
Status TensorListScatterIntoExistingList(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(2));
  const std::string at = ctx.b.Op1(
      "Unsqueeze", {Int64(ctx, indices, "indices64"), ctx.b.ConstInts(ctx.Name("index_axis"), {-1})}, ctx.Name("at"));
  return SetUnstacked(ctx, ctx.b.Op1("ScatterND", {Stacked(ctx, list), at, x.name}, ctx.Name("scattered")), list.type);
}

// TensorListGather(list, indices, element_shape): elements indices[i] stacked.
Status TensorListGather(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Gather", {Stacked(ctx, list), indices.name}, ctx.Name(), {ir::IntAttr("axis", 0)}),
                list.type);
  return Status::Ok();
}

// TensorListResize(list, size): the first `size` elements, with unset (zero) elements added past the end. The
// list is stacked (its elements must share one shape, and it must not be empty), padded with `size` zero rows
// and cut to `size` rows.
Status TensorListResize(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(TfValue size, ctx.Input(1));
  const std::string n =
      ctx.b.Op1("Reshape", {Int64(ctx, size, "size64"), ctx.b.ConstInts(ctx.Name("shape1"), {1})}, ctx.Name("size"));
  const std::string stacked = Stacked(ctx, list);
  ONYX_ASSIGN_OR_RETURN(std::string zeros, ZerosLike(ctx, n, stacked, list.type));
  const std::string padded = ctx.b.Op1("Concat", {stacked, zeros}, ctx.Name("padded"), {ir::IntAttr("axis", 0)});
  const std::string zero = ctx.b.ConstInts(ctx.Name("zero"), {0});
  return SetUnstacked(ctx, ctx.b.Op1("Slice", {padded, zero, n, zero}, ctx.Name("resized")), list.type);
}

// TensorListElementShape(list) -> shape_type: the shape of the list's elements, read from its first element. TF
// gives the shape the list was declared with (-1 where a dim is unknown); the two agree wherever that shape is
// fully defined, which is when TF's own readers can use it. The list must not be empty.
Status TensorListElementShape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue list, ListInput(ctx, 0));
  ONYX_ASSIGN_OR_RETURN(DataType type, ctx.node.Type("shape_type"));
  const std::string first =
      ctx.b.Op1("SequenceAt", {list.name, ctx.b.Constant(ctx.Name("first"), Tensor::Scalar<int64_t>(0))},
                ctx.Name("first_element"));
  std::string shape = ctx.b.Op1("Shape", {first}, ctx.Name(type == DataType::kInt64 ? "" : "shape64"));
  if (type != DataType::kInt64) shape = ctx.b.Op1("Cast", {shape}, ctx.Name(), {TypeAttr("to", type)});
  ctx.SetOutput(0, shape, type);
  return Status::Ok();
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
  table["TensorListConcat"] = TensorListConcat;
  table["TensorListConcatV2"] = TensorListConcat;
  table["TensorListSplit"] = TensorListSplit;
  table["TensorListScatter"] = TensorListScatter;
  table["TensorListScatterV2"] = TensorListScatter;
  table["TensorListScatterIntoExistingList"] = TensorListScatterIntoExistingList;
  table["TensorListGather"] = TensorListGather;
  table["TensorListResize"] = TensorListResize;
  table["TensorListElementShape"] = TensorListElementShape;
}

}  // namespace onyx::convert::tf
