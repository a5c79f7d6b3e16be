#include "convert/tf/functions.h"

#include <algorithm>
#include <set>

namespace onyx::convert::tf {
namespace {

using nlohmann::json;

// The output arguments of operators with more than one, in order (TensorFlow's op definitions): inside a function,
// "node:indices:0" of a TopKV2 is its port 1. Operators with a single output argument (a list or not) are absent:
// their port is the index.
const std::map<std::string, std::vector<std::string>>& OutputArgs() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"TopKV2", {"values", "indices"}},
      {"TopK", {"values", "indices"}},
      {"Unique", {"y", "idx"}},
      {"UniqueV2", {"y", "idx"}},
      {"UniqueWithCounts", {"y", "idx", "count"}},
      {"Switch", {"output_false", "output_true"}},
      {"RefSwitch", {"output_false", "output_true"}},
      {"Merge", {"output", "value_index"}},
      {"FusedBatchNorm", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
      {"FusedBatchNormV2", {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}},
      {"FusedBatchNormV3",
       {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2", "reserve_space_3"}},
      {"TensorListPopBack", {"output_handle", "tensor"}},
      {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
      {"NonMaxSuppressionV5", {"selected_indices", "selected_scores", "valid_outputs"}},
      {"ListDiff", {"out", "idx"}},
      {"SparseFillEmptyRows", {"output_indices", "output_values", "empty_row_indicator", "reverse_index_map"}},
      {"BroadcastGradientArgs", {"r0", "r1"}},
      {"StringSplit", {"indices", "values", "shape"}},
      {"LookupTableExportV2", {"keys", "values"}},
      {"Lu", {"lu", "p"}},
      {"Qr", {"q", "r"}},
      {"Svd", {"s", "u", "v"}},
      {"Eig", {"e", "v"}},
      {"SelfAdjointEigV2", {"e", "v"}},
  };
  return table;
}

// "node:out_arg:2" -> "node:port"; "arg" -> "arg:0"; "node:1" as it is.
Result<std::string> NormalizeInput(const std::string& input, const std::map<std::string, std::string>& op_of,
                                   const std::string& where) {
  const size_t first = input.find(':');
  if (first == std::string::npos) return input + ":0";
  const size_t second = input.find(':', first + 1);
  if (second == std::string::npos) return input;
  const std::string node = input.substr(0, first);
  const std::string arg = input.substr(first + 1, second - first - 1);
  const std::string index_text = input.substr(second + 1);
  if (index_text.empty() || index_text.size() > 6 || index_text.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument(where + ": input '" + input + "' is not 'node:output:index'");
  }
  int port = std::atoi(index_text.c_str());
  auto op = op_of.find(node);
  if (op != op_of.end()) {
    auto args = OutputArgs().find(op->second);
    if (args != OutputArgs().end()) {
      auto pos = std::find(args->second.begin(), args->second.end(), arg);
      if (pos == args->second.end()) {
        return InvalidArgument(where + ": input '" + input + "': " + op->second + " has no output '" + arg + "'");
      }
      port += static_cast<int>(pos - args->second.begin());
    }
  }
  return TensorKey(node, port);
}

Result<std::vector<std::string>> ArgNames(const json& signature, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!signature.contains(key)) return out;
  if (!signature[key].is_array()) return InvalidArgument(where + ": signature '" + key + "' is not a list");
  for (const auto& a : signature[key]) {
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string()) {
      return InvalidArgument(where + ": an argument of signature '" + key + "' has no name");
    }
    out.push_back(a["name"].get<std::string>());
  }
  return out;
}

Result<std::unique_ptr<TfFunction>> ParseFunction(const json& f, const std::string& name, const std::string& path) {
  const std::string where = path + ": function '" + name + "'";
  if (!f.is_object() || !f.contains("signature") || !f["signature"].is_object()) {
    return InvalidArgument(where + ": no 'signature'");
  }
  auto fn = std::make_unique<TfFunction>();
  fn->name = name;
  ONYX_ASSIGN_OR_RETURN(fn->args, ArgNames(f["signature"], "inputArg", where));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> outs, ArgNames(f["signature"], "outputArg", where));
  std::map<std::string, std::string> op_of;
  if (f.contains("nodeDef")) {
    if (!f["nodeDef"].is_array()) return InvalidArgument(where + ": 'nodeDef' is not a list");
    std::set<std::string> names;
    for (const auto& nj : f["nodeDef"]) {
      auto n = ParseNode(nj);
      if (!n.ok()) return n.status().WithContext(where);
      if (!names.insert(n->name).second) return InvalidArgument(where + ": two nodes are named '" + n->name + "'");
      op_of[n->name] = n->op;
      fn->nodes.push_back(std::move(n).value());
    }
  }
  for (auto& n : fn->nodes) {
    for (auto& in : n.inputs) {
      ONYX_ASSIGN_OR_RETURN(in, NormalizeInput(in, op_of, where + " " + n.Where()));
    }
  }
  const json* ret = f.contains("ret") ? &f["ret"] : nullptr;
  if (ret != nullptr && !ret->is_object()) return InvalidArgument(where + ": 'ret' is not an object");
  for (const auto& o : outs) {
    if (ret == nullptr || !ret->contains(o) || !(*ret)[o].is_string()) {
      return InvalidArgument(where + ": output '" + o + "' has no string entry in 'ret'");
    }
    ONYX_ASSIGN_OR_RETURN(std::string r, NormalizeInput((*ret)[o].get<std::string>(), op_of, where + " ret"));
    fn->results.push_back(std::move(r));
  }
  return fn;
}

// Every value and node name of `g` and of the graphs inside it.
void CollectNames(const ir::Graph& g, std::vector<std::string>& out) {
  for (const auto& v : g.inputs) out.push_back(v.name);
  for (const auto& t : g.initializers) out.push_back(t.name);
  for (const auto& n : g.nodes) {
    out.push_back(n.name);
    for (const auto& o : n.outputs) out.push_back(o);
    for (const auto& a : n.attributes) {
      if (a.g) CollectNames(*a.g, out);
      for (const auto& sub : a.graphs) {
        if (sub) CollectNames(*sub, out);
      }
    }
  }
}

}  // namespace

Result<const TfFunction*> Functions::FromAttr(const TfNode& caller, const std::string& attr) {
  if (!caller.Has(attr)) return InvalidArgument(caller.Where() + ": no function attribute '" + attr + "'");
  const json& a = (*caller.attr)[attr];
  if (!a.is_object() || !a.contains("func") || !a["func"].is_object() || !a["func"].contains("name") ||
      !a["func"]["name"].is_string()) {
    return InvalidArgument(caller.Where() + ": attribute '" + attr + "' is not a function ({\"func\": {\"name\"}})");
  }
  return Find(a["func"]["name"].get<std::string>(), caller);
}

Result<const TfFunction*> Functions::Find(const std::string& name, const TfNode& caller) {
  if (auto it = parsed_.find(name); it != parsed_.end()) return it->second.get();
  auto it = env_.library.find(name);
  if (it == env_.library.end()) {
    return InvalidArgument(env_.path + ": " + caller.Where() + " calls function '" + name +
                           "', which the graph's library does not define");
  }
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<TfFunction> fn, ParseFunction(*it->second, name, env_.path));
  return (parsed_[name] = std::move(fn)).get();
}

Result<std::vector<TfValue>> Functions::Inline(GraphBuilder& b, const TfFunction& fn, const std::vector<TfValue>& args,
                                               const TfNode& caller) {
  if (args.size() != fn.args.size()) {
    return InvalidArgument(env_.path + ": " + caller.Where() + " passes " + std::to_string(args.size()) +
                           " arguments to function '" + fn.name + "', which takes " + std::to_string(fn.args.size()));
  }
  if (env_.depth >= kMaxFunctionDepth) {
    return InvalidArgument(env_.path + ": " + caller.Where() + ": functions nested more than " +
                           std::to_string(kMaxFunctionDepth) + " deep (does function '" + fn.name + "' call itself?)");
  }
  // Node names get the caller's as a prefix: readable, and unique when a function is called twice.
  const std::string prefix = caller.name + "/";
  std::vector<TfNode> nodes = fn.nodes;
  for (auto& n : nodes) {
    // TF.js stores a function's Consts in the weights under their node names, like the graph's.
    if (n.op == "Const" && !env_.weights.count(prefix + n.name)) {
      if (auto w = env_.weights.find(n.name); w != env_.weights.end()) env_.weights[prefix + n.name] = w->second;
    }
    n.name = prefix + n.name;
    for (auto& in : n.inputs) in = prefix + in;
  }
  std::map<std::string, TfValue> values;
  for (size_t i = 0; i < args.size(); ++i) values[TensorKey(prefix + fn.args[i], 0)] = args[i];
  std::vector<std::string> outputs;
  for (const auto& r : fn.results) outputs.push_back(prefix + r);
  ++env_.depth;
  Status st = ConvertNodes(env_, this, b, nodes, outputs, values);
  --env_.depth;
  ONYX_RETURN_IF_ERROR(st);
  std::vector<TfValue> results;
  for (const auto& out : outputs) {
    auto [producer, port] = SplitTensorName(out);
    auto v = values.find(TensorKey(producer, port));
    if (v == values.end()) {
      return InvalidArgument(env_.path + ": function '" + fn.name + "' returns '" + out.substr(prefix.size()) +
                             "', which its node does not output");
    }
    results.push_back(v->second);
  }
  return results;
}

Result<std::shared_ptr<ir::Graph>> Functions::Subgraph(const std::string& name,
                                                       const std::function<Status(GraphBuilder&)>& build) {
  auto g = std::make_shared<ir::Graph>();
  g->name = name;
  GraphBuilder sb(g.get());
  std::vector<std::string> names;
  for (GraphBuilder* scope : env_.scopes) CollectNames(scope->graph(), names);
  for (const auto& n : names) sb.Reserve(n);
  env_.scopes.push_back(&sb);
  Status st = build(sb);
  env_.scopes.pop_back();
  ONYX_RETURN_IF_ERROR(st);
  names.clear();
  CollectNames(*g, names);
  for (GraphBuilder* scope : env_.scopes) {
    for (const auto& n : names) scope->Reserve(n);
  }
  return g;
}

ir::Attribute GraphAttr(const std::string& name, std::shared_ptr<ir::Graph> g) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kGraph;
  a.g = std::move(g);
  return a;
}

ir::TypeInfo TypeOf(const ConvertEnv& env, const TfValue& v) {
  if (env.sequences.count(v.name)) return ir::TypeInfo::Sequence(ir::TypeInfo::Tensor(v.type));
  return ir::TypeInfo::Tensor(v.type);
}

void AddGraphOutput(ConvertEnv& env, GraphBuilder& sb, const TfValue& v, const std::string& base) {
  const std::string out = sb.Fresh(base);
  sb.OpTo("Identity", {v.name}, {out}, out);
  ir::ValueInfo vi;
  vi.name = out;
  vi.type = TypeOf(env, v);
  sb.graph().outputs.push_back(vi);
}

TfValue AsBool(GraphBuilder& b, const TfValue& v, const std::string& name) {
  if (v.type == DataType::kBool) return v;
  return {b.Op1("Cast", {v.name}, name, {ir::IntAttr("to", static_cast<int64_t>(DataType::kBool))}), DataType::kBool,
          nullptr};
}

std::vector<bool> Functions::PassThrough(const TfFunction& fn) const {
  std::map<std::string, const TfNode*> by_name;
  for (const auto& n : fn.nodes) by_name[n.name] = &n;
  std::vector<bool> out;
  for (size_t i = 0; i < fn.results.size(); ++i) {
    std::string tensor = fn.results[i];
    for (int hops = 0; hops < 64; ++hops) {
      auto [producer, port] = SplitTensorName(tensor);
      auto it = by_name.find(producer);
      if (it == by_name.end() || it->second->op != "Identity" || it->second->inputs.empty() || port != 0) break;
      tensor = it->second->inputs[0];
    }
    out.push_back(i < fn.args.size() && tensor == TensorKey(fn.args[i], 0) && !by_name.count(fn.args[i]));
  }
  return out;
}

}  // namespace onyx::convert::tf
