#include "convert/tf/tensor_arrays.h"

#include <algorithm>

#include "convert/tf/functions.h"

namespace onyx::convert::tf {
namespace {

ir::Attribute TypeAttr(const std::string& name, DataType t) { return ir::IntAttr(name, static_cast<int64_t>(t)); }

Result<Functions*> FunctionsOf(OpContext& ctx) {
  if (ctx.functions == nullptr) return Internal(ctx.node.Where() + ": no conversion state at hand");
  return ctx.functions;
}

// The array as it stands: the sequence the flow input carries.
Result<TfValue> Flow(OpContext& ctx, size_t i) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
  if (!fns->env().sequences.count(v.name)) {
    return Unsupported(ctx.node.Where() + ": input " + std::to_string(i) +
                       " is not the flow of a TensorArray this converter made (TensorArrayV3 and the ops writing it)");
  }
  return v;
}

Status SetFlow(OpContext& ctx, int port, const std::string& seq, DataType elem) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  fns->env().sequences.insert(seq);
  ctx.SetOutput(port, seq, elem);
  return Status::Ok();
}

// Whether the array behind handle input `i` may grow past its size (unknown handles are assumed to).
bool Dynamic(OpContext& ctx, size_t i) {
  auto handle = ctx.Input(i);
  if (!handle.ok() || ctx.functions == nullptr) return true;
  auto it = ctx.functions->env().tensor_arrays.find(handle->name);
  return it == ctx.functions->env().tensor_arrays.end() || it->second;
}

// An index as an int64 value (scalar or not as given).
std::string Int64(GraphBuilder& b, const TfValue& v, const std::string& name) {
  if (v.type == DataType::kInt64) return v.name;
  return b.Op1("Cast", {v.name}, name, {TypeAttr("to", DataType::kInt64)});
}

// `seq` with `item` at position `pos` (an int64 scalar): replaced where the array has that element; for an array
// that may grow, appended when `pos` is its length.
Result<std::string> Write(OpContext& ctx, GraphBuilder& b, const std::string& seq, const std::string& pos,
                          const TfValue& item, bool dynamic, const std::string& name) {
  if (!dynamic) {
    const std::string erased = b.Op1("SequenceErase", {seq, pos}, name + "/erase");
    return b.Op1("SequenceInsert", {erased, item.name, pos}, name);
  }
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ConvertEnv& env = fns->env();
  const std::string length = b.Op1("SequenceLength", {seq}, name + "/length");
  const std::string inside = b.Op1("Less", {pos, length}, name + "/inside");
  auto branch = [&](bool replace) {
    return fns->Subgraph(name + (replace ? "/replace" : "/append"), [&](GraphBuilder& sb) -> Status {
      std::string out;
      if (replace) {
        const std::string erased = sb.Op1("SequenceErase", {seq, pos}, name + "/erase");
        out = sb.Op1("SequenceInsert", {erased, item.name, pos}, name + "/replaced");
      } else {
        out = sb.Op1("SequenceInsert", {seq, item.name}, name + "/appended");
      }
      env.sequences.insert(out);
      AddGraphOutput(env, sb, {out, item.type, nullptr}, name + "/written");
      return Status::Ok();
    });
  };
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> replace, branch(true));
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> append, branch(false));
  return b.Op1("If", {inside}, name, {GraphAttr("then_branch", replace), GraphAttr("else_branch", append)});
}

// TensorArrayV3(size) -> (handle, flow): `size` placeholder elements, zeros of the element shape (dims TF leaves
// unknown are 0: an element is written before it is read).
Status TensorArrayV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(DataType elem, ctx.node.Type("dtype"));
  if (elem == DataType::kString) return Unsupported(ctx.node.Where() + ": a TensorArray of strings");
  bool known = false;
  std::vector<int64_t> shape;
  if (ctx.node.Has("element_shape")) {
    ONYX_ASSIGN_OR_RETURN(shape, ctx.node.Shape("element_shape", &known));
  }
  if (!known) shape.clear();
  for (auto& d : shape) d = std::max<int64_t>(d, 0);
  ONYX_ASSIGN_OR_RETURN(TfValue size, ctx.Input(0));
  const std::string count = ctx.b.Op1(
      "Reshape", {Int64(ctx.b, size, ctx.Name("size64")), ctx.b.ConstInts(ctx.Name("one"), {1})}, ctx.Name("count"));
  const std::string full = ctx.b.Op1("Concat", {count, ctx.b.ConstInts(ctx.Name("element_shape"), shape)},
                                     ctx.Name("shape"), {ir::IntAttr("axis", 0)});
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  ONYX_ASSIGN_OR_RETURN(value.t.tensor, Tensor::Create(elem, {1}, /*zero=*/true));
  const std::string zeros = ctx.b.Op1("ConstantOfShape", {full}, ctx.Name("zeros"), {value});
  const std::string handle = ctx.b.Constant(ctx.Name("handle"), Tensor::Scalar<int32_t>(0));
  fns->env().tensor_arrays[handle] = ctx.node.BoolOr("dynamic_size", false);
  ctx.SetOutput(0, handle, DataType::kInt32);
  return SetFlow(
      ctx, 1,
      ctx.b.Op1("SplitToSequence", {zeros}, ctx.Name("flow"), {ir::IntAttr("axis", 0), ir::IntAttr("keepdims", 0)}),
      elem);
}

// TensorArrayWriteV3(handle, index, value, flow_in) -> flow_out.
Status TensorArrayWriteV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 3));
  ONYX_ASSIGN_OR_RETURN(TfValue index, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue item, ctx.Input(2));
  if (item.type != flow.type) {
    return InvalidArgument(ctx.node.Where() + ": writes a " + std::string(DataTypeName(item.type)) +
                           " into a TensorArray of " + std::string(DataTypeName(flow.type)));
  }
  ONYX_ASSIGN_OR_RETURN(std::string out, Write(ctx, ctx.b, flow.name, Int64(ctx.b, index, ctx.Name("index64")), item,
                                               Dynamic(ctx, 0), ctx.Name()));
  return SetFlow(ctx, 0, out, flow.type);
}

// TensorArrayReadV3(handle, index, flow_in).
Status TensorArrayReadV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 2));
  ONYX_ASSIGN_OR_RETURN(TfValue index, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("SequenceAt", {flow.name, Int64(ctx.b, index, ctx.Name("index64"))}, ctx.Name()),
                flow.type);
  return Status::Ok();
}

// The elements stacked along a new axis 0. With the element shape known, a zero element is appended first (and
// never gathered) so that an empty array stacks too.
std::string Stacked(OpContext& ctx, const TfValue& flow) {
  std::string seq = flow.name;
  bool known = false;
  auto shape = ctx.node.Has("element_shape") ? ctx.node.Shape("element_shape", &known)
                                             : Result<std::vector<int64_t>>(std::vector<int64_t>{});
  if (shape.ok() && known && std::all_of(shape->begin(), shape->end(), [](int64_t d) { return d >= 0; })) {
    auto zero = Tensor::Create(flow.type, *shape, /*zero=*/true);
    if (zero.ok()) {
      seq = ctx.b.Op1("SequenceInsert", {seq, ctx.b.Constant(ctx.Name("pad"), std::move(zero).value())},
                      ctx.Name("padded"));
    }
  }
  return ctx.b.Op1("ConcatFromSequence", {seq}, ctx.Name("stacked"),
                   {ir::IntAttr("axis", 0), ir::IntAttr("new_axis", 1)});
}

// TensorArrayGatherV3(handle, indices, flow_in): the elements at `indices`, stacked.
Status TensorArrayGatherV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 2));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Gather", {Stacked(ctx, flow), indices.name}, ctx.Name(), {ir::IntAttr("axis", 0)}),
                flow.type);
  return Status::Ok();
}

// TensorArrayScatterV3(handle, indices, value, flow_in) -> flow_out: value[k] written at indices[k], by an ONNX
// Loop over k.
Status TensorArrayScatterV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 3));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue value, ctx.Input(2));
  if (value.type != flow.type) {
    return InvalidArgument(ctx.node.Where() + ": scatters a " + std::string(DataTypeName(value.type)) +
                           " into a TensorArray of " + std::string(DataTypeName(flow.type)));
  }
  ConvertEnv& env = fns->env();
  const bool dynamic = Dynamic(ctx, 0);
  const std::string positions = Int64(ctx.b, indices, ctx.Name("indices64"));
  const std::string count = ctx.b.Op1(
      "Squeeze", {ctx.b.Op1("Shape", {positions}, ctx.Name("indices_shape")), ctx.b.ConstInts(ctx.Name("axis0"), {0})},
      ctx.Name("count"));
  ONYX_ASSIGN_OR_RETURN(
      std::shared_ptr<ir::Graph> body, fns->Subgraph(ctx.Name("body"), [&](GraphBuilder& sb) -> Status {
        const std::string k = sb.Input(ctx.Name("k"), ir::TypeInfo::Tensor(DataType::kInt64, std::vector<ir::Dim>{}));
        const std::string cond =
            sb.Input(ctx.Name("cond_in"), ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{}));
        const std::string seq = sb.Input(ctx.Name("array"), ir::TypeInfo::Sequence(ir::TypeInfo::Tensor(flow.type)));
        const std::string pos = sb.Op1("Gather", {positions, k}, ctx.Name("position"), {ir::IntAttr("axis", 0)});
        const TfValue item{sb.Op1("Gather", {value.name, k}, ctx.Name("item"), {ir::IntAttr("axis", 0)}), value.type,
                           nullptr};
        ONYX_ASSIGN_OR_RETURN(std::string written, Write(ctx, sb, seq, pos, item, dynamic, ctx.Name("write")));
        env.sequences.insert(written);
        AddGraphOutput(env, sb, {cond, DataType::kBool, nullptr}, ctx.Name("cond_out"));
        AddGraphOutput(env, sb, {written, flow.type, nullptr}, ctx.Name("array_out"));
        return Status::Ok();
      }));
  const std::string out = ctx.b.Op1("Loop", {count, "", flow.name}, ctx.Name(), {GraphAttr("body", body)});
  return SetFlow(ctx, 0, out, flow.type);
}

// TensorArraySplitV3(handle, value, lengths, flow_in) -> flow_out: the array becomes value's pieces along axis 0.
Status TensorArraySplitV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 3));
  ONYX_ASSIGN_OR_RETURN(TfValue value, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue lengths, ctx.Input(2));
  return SetFlow(ctx, 0,
                 ctx.b.Op1("SplitToSequence", {value.name, Int64(ctx.b, lengths, ctx.Name("lengths64"))}, ctx.Name(),
                           {ir::IntAttr("axis", 0)}),
                 flow.type);
}

// TensorArrayConcatV3(handle, flow_in) -> (value, lengths): the elements joined along axis 0, and each one's
// length along it.
Status TensorArrayConcatV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 1));
  ctx.SetOutput(0, ctx.b.Op1("ConcatFromSequence", {flow.name}, ctx.Name(), {ir::IntAttr("axis", 0)}), flow.type);
  // lengths: SequenceMap of Shape(start 0, end 1) over the elements, joined.
  ONYX_ASSIGN_OR_RETURN(
      std::shared_ptr<ir::Graph> body, fns->Subgraph(ctx.Name("length_of"), [&](GraphBuilder& sb) -> Status {
        ir::ValueInfo in;
        in.name = sb.Fresh(ctx.Name("element"));
        in.type = ir::TypeInfo::Tensor(flow.type);
        sb.graph().inputs.push_back(in);
        const std::string dim0 =
            sb.Op1("Shape", {in.name}, ctx.Name("dim0"), {ir::IntAttr("start", 0), ir::IntAttr("end", 1)});
        AddGraphOutput(fns->env(), sb, {dim0, DataType::kInt64, nullptr}, ctx.Name("element_length"));
        return Status::Ok();
      }));
  const std::string lengths = ctx.b.Op1("SequenceMap", {flow.name}, ctx.Name("length_seq"), {GraphAttr("body", body)});
  ctx.SetOutput(1, ctx.b.Op1("ConcatFromSequence", {lengths}, ctx.Name("lengths"), {ir::IntAttr("axis", 0)}),
                DataType::kInt64);
  return Status::Ok();
}

// TensorArraySizeV3(handle, flow_in): the number of elements (TensorFlow's size, written or not), int32.
Status TensorArraySizeV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue flow, Flow(ctx, 1));
  const std::string n = ctx.b.Op1("SequenceLength", {flow.name}, ctx.Name("length64"));
  ctx.SetOutput(0, ctx.b.Op1("Cast", {n}, ctx.Name(), {TypeAttr("to", DataType::kInt32)}), DataType::kInt32);
  return Status::Ok();
}

// TensorArrayCloseV3(handle): nothing to compute.
Status TensorArrayCloseV3(OpContext&) { return Status::Ok(); }

}  // namespace

void AddTensorArrayOps(std::map<std::string, OpFn>& table) {
  table["TensorArrayV3"] = TensorArrayV3;
  table["TensorArrayWriteV3"] = TensorArrayWriteV3;
  table["TensorArrayReadV3"] = TensorArrayReadV3;
  table["TensorArrayGatherV3"] = TensorArrayGatherV3;
  table["TensorArrayScatterV3"] = TensorArrayScatterV3;
  table["TensorArraySplitV3"] = TensorArraySplitV3;
  table["TensorArrayConcatV3"] = TensorArrayConcatV3;
  table["TensorArraySizeV3"] = TensorArraySizeV3;
  table["TensorArrayCloseV3"] = TensorArrayCloseV3;
}

}  // namespace onyx::convert::tf
