#include "convert/tf/tables.h"

#include <set>

#include "convert/tf/functions.h"

namespace onyx::convert::tf {
namespace {

// A table handle travels through the walk as a value of this name prefix and the HashTable node's name: nothing in
// the ONNX graph holds it.
constexpr const char* kTableHandle = "tf_table_handle:";

bool IsTableInit(const std::string& op) {
  return op == "LookupTableImportV2" || op == "LookupTableImport" || op == "InitializeTableV2" ||
         op == "InitializeTable";
}

// The node a tensor comes from, through Identity nodes.
const TfNode* Producer(const std::map<std::string, const TfNode*>& by_name, const std::string& tensor) {
  std::string name = SplitTensorName(tensor).first;
  for (int hops = 0; hops < 64; ++hops) {
    auto it = by_name.find(name);
    if (it == by_name.end()) return nullptr;
    if (it->second->op != "Identity" || it->second->inputs.empty()) return it->second;
    name = SplitTensorName(it->second->inputs[0]).first;
  }
  return nullptr;
}

Result<Tensor> ConstValue(const ConvertEnv& env, const TfNode& n) {
  if (auto w = env.weights.find(n.name); w != env.weights.end()) return w->second;
  return ConstFromAttr(n);
}

Result<ConvertEnv*> EnvOf(OpContext& ctx) {
  if (ctx.functions == nullptr) return Internal(ctx.node.Where() + ": no conversion state at hand");
  return &ctx.functions->env();
}

Status HashTable(OpContext& ctx) {
  ctx.SetOutputValue(0, {kTableHandle + ctx.node.name, DataType::kUndefined, nullptr});
  return Status::Ok();
}

Result<const TableInit*> TableOf(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(ConvertEnv * env, EnvOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue handle, ctx.Input(0));
  const std::string prefix = kTableHandle;
  if (handle.name.rfind(prefix, 0) != 0) {
    return Unsupported(ctx.node.Where() + ": the table (input 0) is not a HashTable node's");
  }
  const std::string table = handle.name.substr(prefix.size());
  auto it = env->tables.find(table);
  if (it == env->tables.end()) {
    return Unsupported(ctx.node.Where() + ": table '" + table +
                       "' is not filled with constant keys and values by any LookupTableImportV2 or "
                       "InitializeTableV2 node of the graph");
  }
  return &it->second;
}

// LookupTableFindV2(table, keys, default_value) -> LabelEncoder (ai.onnx.ml 2): keys_* / values_* / default_*.
Status LookupTableFind(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const TableInit* table, TableOf(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue keys, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(Tensor fallback, ctx.ConstInput(2, "default value"));
  if (fallback.size() != 1) {
    return Unsupported(ctx.node.Where() + ": a default value of more than one element is not supported");
  }
  std::vector<ir::Attribute> attrs;
  const Tensor& k = table->keys;
  const Tensor& v = table->values;
  std::string input = keys.name;
  switch (k.type()) {
    case DataType::kString: {
      std::vector<std::string> list(k.data<std::string>(), k.data<std::string>() + k.size());
      attrs.push_back(ir::StringsAttr("keys_strings", std::move(list)));
      break;
    }
    case DataType::kInt32:
    case DataType::kInt64:
      attrs.push_back(ir::IntsAttr("keys_int64s", k.ToInt64Vector()));
      if (keys.type != DataType::kInt64) {
        input = ctx.b.Op1("Cast", {keys.name}, ctx.Name("keys64"),
                          {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
      }
      break;
    case DataType::kFloat:
      attrs.push_back(ir::FloatsAttr("keys_floats", std::vector<float>(k.data<float>(), k.data<float>() + k.size())));
      break;
    default:
      return Unsupported(ctx.node.Where() + ": table keys of type " + std::string(DataTypeName(k.type())));
  }
  // TF's value type: the node's Tout (TF.js stores int64 weights as int32).
  DataType out_type = v.type();
  if (ctx.node.Has("Tout")) {
    ONYX_ASSIGN_OR_RETURN(out_type, ctx.node.Type("Tout"));
  }
  DataType encoded = out_type;
  switch (v.type()) {
    case DataType::kString: {
      std::vector<std::string> list(v.data<std::string>(), v.data<std::string>() + v.size());
      attrs.push_back(ir::StringsAttr("values_strings", std::move(list)));
      if (fallback.type() != DataType::kString)
        return InvalidArgument(ctx.node.Where() + ": the default is not a string");
      attrs.push_back(ir::StringAttr("default_string", fallback.data<std::string>()[0]));
      encoded = DataType::kString;
      break;
    }
    case DataType::kInt32:
    case DataType::kInt64:
      attrs.push_back(ir::IntsAttr("values_int64s", v.ToInt64Vector()));
      attrs.push_back(ir::IntAttr("default_int64", static_cast<int64_t>(fallback.DoubleAt(0))));
      encoded = DataType::kInt64;
      break;
    case DataType::kFloat:
      attrs.push_back(ir::FloatsAttr("values_floats", std::vector<float>(v.data<float>(), v.data<float>() + v.size())));
      attrs.push_back(ir::FloatAttr("default_float", static_cast<float>(fallback.DoubleAt(0))));
      encoded = DataType::kFloat;
      break;
    default:
      return Unsupported(ctx.node.Where() + ": table values of type " + std::string(DataTypeName(v.type())));
  }
  if (k.size() != v.size()) {
    return InvalidArgument(ctx.node.Where() + ": the table has " + std::to_string(k.size()) + " keys and " +
                           std::to_string(v.size()) + " values");
  }
  // LabelEncoder 2 wants at least one key.
  if (k.size() == 0) return Unsupported(ctx.node.Where() + ": an empty table");
  std::string out = ctx.b.Op1("LabelEncoder", {input}, ctx.Name(), std::move(attrs));
  ctx.b.graph().nodes.back().domain = "ai.onnx.ml";
  if (out_type != encoded) {
    out = ctx.b.Op1("Cast", {out}, ctx.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(out_type))});
  }
  ctx.SetOutput(0, out, out_type);
  return Status::Ok();
}

// LookupTableSizeV2: the number of keys, an int64 scalar.
Status LookupTableSize(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const TableInit* table, TableOf(ctx));
  ctx.SetOutput(0, ctx.b.Constant(ctx.Name(), Tensor::Scalar<int64_t>(table->keys.size())), DataType::kInt64);
  return Status::Ok();
}

}  // namespace

Status FindTableInits(ConvertEnv& env, const std::vector<TfNode>& nodes) {
  std::map<std::string, const TfNode*> by_name;
  for (const auto& n : nodes) by_name[n.name] = &n;
  for (const auto& n : nodes) {
    if (!IsTableInit(n.op) || n.inputs.size() < 3) continue;
    const TfNode* table = Producer(by_name, n.inputs[0]);
    const TfNode* keys = Producer(by_name, n.inputs[1]);
    const TfNode* values = Producer(by_name, n.inputs[2]);
    if (table == nullptr || keys == nullptr || values == nullptr || keys->op != "Const" || values->op != "Const") {
      continue;  // not constant: a LookupTableFind of this table says so
    }
    auto k = ConstValue(env, *keys);
    if (!k.ok()) return k.status().WithContext(env.path + ": " + n.Where() + " keys");
    auto v = ConstValue(env, *values);
    if (!v.ok()) return v.status().WithContext(env.path + ": " + n.Where() + " values");
    env.tables[table->name] = {std::move(k).value(), std::move(v).value()};
  }
  return Status::Ok();
}

void AddTableOps(std::map<std::string, OpFn>& table) {
  table["HashTableV2"] = HashTable;
  table["HashTable"] = HashTable;
  table["LookupTableFindV2"] = LookupTableFind;
  table["LookupTableFind"] = LookupTableFind;
  table["LookupTableSizeV2"] = LookupTableSize;
  table["LookupTableSize"] = LookupTableSize;
}

}  // namespace onyx::convert::tf
