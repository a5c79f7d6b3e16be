// TensorFlow operators of the control flow family (see op_context.h): TF2 function calls (inlined), StatelessIf/If
// (ONNX If, branches converted from the functions) and StatelessWhile/While (ONNX Loop); the lookup tables of
// tables.cc, TF1 frames' nodes (tf1_control.h) and TensorArrays (tensor_arrays.h) are registered here too.
#include <memory>

#include "convert/tf/functions.h"
#include "convert/tf/op_context.h"
#include "convert/tf/tables.h"
#include "convert/tf/tensor_arrays.h"
#include "convert/tf/tensor_lists.h"

namespace onyx::convert::tf {
namespace {

Result<Functions*> FunctionsOf(OpContext& ctx) {
  if (ctx.functions == nullptr) return Internal(ctx.node.Where() + ": no function library at hand");
  return ctx.functions;
}

std::vector<TfValue> AllInputs(const OpContext& ctx, size_t first) {
  std::vector<TfValue> out;
  for (size_t i = first; i < ctx.num_inputs(); ++i) out.push_back(*ctx.Input(i));
  return out;
}

// PartitionedCall / StatefulPartitionedCall: the function's body in place of the call.
Status Call(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(const TfFunction* fn, fns->FromAttr(ctx.node, "f"));
  ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> results, fns->Inline(ctx.b, *fn, AllInputs(ctx, 0), ctx.node));
  for (size_t i = 0; i < results.size(); ++i) ctx.SetOutputValue(static_cast<int>(i), results[i]);
  return Status::Ok();
}

// StatelessIf / If (cond, inputs...): ONNX If whose branches read the inputs from the outer scope. A constant
// condition inlines the branch taken.
Status If(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue cond, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(const TfFunction* then_fn, fns->FromAttr(ctx.node, "then_branch"));
  ONYX_ASSIGN_OR_RETURN(const TfFunction* else_fn, fns->FromAttr(ctx.node, "else_branch"));
  const std::vector<TfValue> args = AllInputs(ctx, 1);
  if (cond.constant != nullptr && cond.constant->size() == 1 &&
      (cond.type == DataType::kBool || cond.type == DataType::kInt32 || cond.type == DataType::kInt64 ||
       cond.type == DataType::kFloat)) {
    const bool taken = cond.constant->DoubleAt(0) != 0;
    ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> results,
                          fns->Inline(ctx.b, taken ? *then_fn : *else_fn, args, ctx.node));
    for (size_t i = 0; i < results.size(); ++i) ctx.SetOutputValue(static_cast<int>(i), results[i]);
    return Status::Ok();
  }
  std::vector<DataType> types;
  auto branch = [&](const TfFunction& fn, const char* which) {
    return fns->Subgraph(ctx.Name(which), [&](GraphBuilder& sb) -> Status {
      ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> results, fns->Inline(sb, fn, args, ctx.node));
      if (types.empty()) {
        for (const auto& r : results) types.push_back(r.type);
      } else if (results.size() != types.size()) {
        return InvalidArgument(ctx.node.Where() + ": the branches return " + std::to_string(types.size()) + " and " +
                               std::to_string(results.size()) + " values");
      }
      for (size_t i = 0; i < results.size(); ++i) {
        if (results[i].type != types[i]) {
          return InvalidArgument(ctx.node.Where() + ": result " + std::to_string(i) +
                                 " of the branches differs in type");
        }
        AddGraphOutput(fns->env(), sb, results[i], ctx.node.name + "/" + which + "_out");
      }
      return Status::Ok();
    });
  };
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> then_graph, branch(*then_fn, "then"));
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<ir::Graph> else_graph, branch(*else_fn, "else"));
  const TfValue c = AsBool(ctx.b, cond, ctx.Name("cond"));
  if (types.empty()) return Status::Ok();  // nothing returned: nothing to compute
  std::vector<std::string> outs =
      ctx.b.Op("If", {c.name}, ctx.Name(), {GraphAttr("then_branch", then_graph), GraphAttr("else_branch", else_graph)},
               static_cast<int>(types.size()));
  for (size_t i = 0; i < outs.size(); ++i) ctx.SetOutput(static_cast<int>(i), outs[i], types[i]);
  const ir::Graph& g = *then_graph;
  for (size_t i = 0; i < outs.size() && i < g.outputs.size(); ++i) {
    if (g.outputs[i].type && g.outputs[i].type->kind == ir::TypeInfo::Kind::kSequence) {
      fns->env().sequences.insert(outs[i]);
    }
  }
  return Status::Ok();
}

// StatelessWhile / While (loop variables...): ONNX Loop. The condition function runs once before the loop and, in
// the body, on the body's results for the next iteration. Variables the body returns unchanged (TF2 passes captured
// tensors so) are not carried: the body reads them from the outer scope, constants stay constants.
Status While(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(Functions * fns, FunctionsOf(ctx));
  ONYX_ASSIGN_OR_RETURN(const TfFunction* cond_fn, fns->FromAttr(ctx.node, "cond"));
  ONYX_ASSIGN_OR_RETURN(const TfFunction* body_fn, fns->FromAttr(ctx.node, "body"));
  const std::vector<TfValue> init = AllInputs(ctx, 0);
  if (body_fn->results.size() != init.size()) {
    return InvalidArgument(ctx.node.Where() + ": the body returns " + std::to_string(body_fn->results.size()) +
                           " values for " + std::to_string(init.size()) + " loop variables");
  }
  const std::vector<bool> invariant = fns->PassThrough(*body_fn);
  ConvertEnv& env = fns->env();

  ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> first, fns->Inline(ctx.b, *cond_fn, init, ctx.node));
  if (first.size() != 1) return InvalidArgument(ctx.node.Where() + ": the condition function must return one value");
  const TfValue cond_init = AsBool(ctx.b, first[0], ctx.Name("cond_init"));

  std::vector<size_t> carried;
  for (size_t i = 0; i < init.size(); ++i) {
    if (!invariant[i]) carried.push_back(i);
  }
  ONYX_ASSIGN_OR_RETURN(
      std::shared_ptr<ir::Graph> body, fns->Subgraph(ctx.Name("body"), [&](GraphBuilder& sb) -> Status {
        sb.Input(ctx.node.name + "/iteration", ir::TypeInfo::Tensor(DataType::kInt64, std::vector<ir::Dim>{}));
        sb.Input(ctx.node.name + "/cond_in", ir::TypeInfo::Tensor(DataType::kBool, std::vector<ir::Dim>{}));
        std::vector<TfValue> args = init;
        for (size_t i : carried) {
          const bool list = env.sequences.count(init[i].name) > 0;
          args[i] = {sb.Input(ctx.node.name + "/var" + std::to_string(i), TypeOf(env, init[i])), init[i].type,
                     nullptr};
          if (list) env.sequences.insert(args[i].name);
        }
        ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> next, fns->Inline(sb, *body_fn, args, ctx.node));
        for (size_t i = 0; i < next.size(); ++i) {
          if (invariant[i]) next[i] = init[i];
          if (next[i].type != init[i].type) {
            return InvalidArgument(ctx.node.Where() + ": loop variable " + std::to_string(i) + " changes type");
          }
        }
        ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> again, fns->Inline(sb, *cond_fn, next, ctx.node));
        if (again.size() != 1) return InvalidArgument(ctx.node.Where() + ": the condition must return one value");
        AddGraphOutput(env, sb, AsBool(sb, again[0], ctx.node.name + "/cond_next"), ctx.node.name + "/cond_out");
        for (size_t i : carried) {
          if (env.sequences.count(init[i].name) != env.sequences.count(next[i].name)) {
            return InvalidArgument(ctx.node.Where() + ": loop variable " + std::to_string(i) +
                                   " is a TensorList before the loop and not after the body, or the reverse");
          }
          AddGraphOutput(env, sb, next[i], ctx.node.name + "/var" + std::to_string(i) + "_out");
        }
        return Status::Ok();
      }));
  std::vector<std::string> loop_ins = {"", cond_init.name};
  for (size_t i : carried) loop_ins.push_back(init[i].name);
  // A loop that changes nothing computes nothing visible: no Loop node then.
  std::vector<std::string> outs;
  if (!carried.empty()) {
    outs = ctx.b.Op("Loop", loop_ins, ctx.Name(), {GraphAttr("body", body)}, static_cast<int>(carried.size()));
  }
  for (size_t k = 0; k < carried.size(); ++k) {
    ctx.SetOutput(static_cast<int>(carried[k]), outs[k], init[carried[k]].type);
    if (env.sequences.count(init[carried[k]].name)) env.sequences.insert(outs[k]);
  }
  for (size_t i = 0; i < init.size(); ++i) {
    if (invariant[i]) ctx.SetOutputValue(static_cast<int>(i), init[i]);
  }
  return Status::Ok();
}

// TF1 control flow (tf1_control.h): the walk converts loops and conditionals as a whole; inside them, Enter gives
// its input (a loop invariant, read from the outer scope), LoopCond its predicate, and a conditional's Switch its
// data on both outputs (the ONNX If branch that reads an output is the one its predicate chose).
Status PassOn(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutputValue(0, x);
  return Status::Ok();
}

Status Switch(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutputValue(0, x);
  ctx.SetOutputValue(1, x);
  return Status::Ok();
}

// Merge, Exit and NextIteration only make sense as parts of a loop or a conditional the walk recognized.
Status FrameOnly(OpContext& ctx) {
  return Unsupported(ctx.node.Where() + ": not part of a TF1 while loop or conditional that onyx recognizes");
}

}  // namespace

void AddControlFlowOps(std::map<std::string, OpFn>& table) {
  table["PartitionedCall"] = Call;
  table["StatefulPartitionedCall"] = Call;
  table["StatelessIf"] = If;
  table["If"] = If;
  table["StatelessWhile"] = While;
  table["While"] = While;
  for (const char* op : {"Enter", "RefEnter", "LoopCond"}) table[op] = PassOn;
  table["Switch"] = Switch;
  table["RefSwitch"] = Switch;
  for (const char* op : {"Merge", "RefMerge", "Exit", "RefExit", "NextIteration", "RefNextIteration"}) {
    table[op] = FrameOnly;
  }
  AddTableOps(table);
  AddTensorListOps(table);
  AddTensorArrayOps(table);
}

}  // namespace onyx::convert::tf
