// Stateful operators: resource variables (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE) and hash tables
// (HASHTABLE / HASHTABLE_IMPORT / HASHTABLE_FIND / HASHTABLE_SIZE). A converted model is one invocation of the
// TFLite model, so state is followed at conversion: a variable read gives the value last assigned before it (the
// constants a CALL_ONCE initialization subgraph assigns, typically), a table holds the constant keys and values
// imported into it and a lookup becomes ai.onnx.ml LabelEncoder. Assignments that would have to outlive the
// invocation (the next run's state) have no ONNX counterpart: they are dropped once nothing reads them.
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// CALL_ONCE subgraphs are inlined into the main graph: their values are visible to everything after them. A WHILE
// or IF body is its own ONNX graph, whose values the main graph cannot read.
Status RequireMainGraph(OpContext& c, const std::string& what) {
  if (&c.b != c.state->main) return c.Unsupported(what + " inside a WHILE / IF body");
  return Status::Ok();
}

// VAR_HANDLE; VarHandleOptions: container 0, shared_name 1. Handles with the same names are one variable.
Status VarHandle(OpContext& c) {
  std::string container, shared;
  if (c.options().valid()) {
    ONYX_ASSIGN_OR_RETURN(container, c.options().String(0));
    ONYX_ASSIGN_OR_RETURN(shared, c.options().String(1));
  }
  if (shared.empty()) {
    // An unnamed handle is private to this operator.
    ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
    shared = c.prefix() + "#" + t->name;
  }
  return c.SetResource(container + "/" + shared);
}

// ASSIGN_VARIABLE(resource, value).
Status AssignVariable(OpContext& c) {
  ONYX_RETURN_IF_ERROR(RequireMainGraph(c, "an assignment to a variable"));
  ONYX_ASSIGN_OR_RETURN(std::string key, c.ResourceInput(0));
  ONYX_ASSIGN_OR_RETURN(std::string value, c.RawInput(1));
  c.state->variables[key] = value;
  return Status::Ok();
}

// READ_VARIABLE(resource) -> value.
Status ReadVariable(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string key, c.ResourceInput(0));
  auto it = c.state->variables.find(key);
  if (it == c.state->variables.end()) {
    return c.Unsupported("variable '" + key + "' is read before any assignment (no CALL_ONCE initializes it)");
  }
  return c.SetRawOutput(c.b.Op1("Identity", {it->second}, c.Name("read")));
}

// HASHTABLE; HashtableOptions: table_id 0, key_dtype 1, value_dtype 2.
Status Hashtable(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t id, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(int8_t key_type, c.OptByte(1));
  ONYX_ASSIGN_OR_RETURN(int8_t value_type, c.OptByte(2));
  const std::string key = "table " + std::to_string(id);
  ConversionState::Table& t = c.state->tables[key];
  t.key_type = static_cast<TensorType>(key_type);
  t.value_type = static_cast<TensorType>(value_type);
  return c.SetResource(key);
}

bool IsStringOrInt(TensorType t) {
  return t == TensorType::kString || t == TensorType::kInt64 || t == TensorType::kInt32;
}

// Strings or integers of a constant, as the table keeps them.
Status ReadTableColumn(OpContext& c, size_t k, const std::string& what, std::vector<std::string>* strings,
                       std::vector<int64_t>* ints) {
  ONYX_ASSIGN_OR_RETURN(Tensor t, c.ConstInput(k, what));
  strings->clear();
  ints->clear();
  if (t.type() == DataType::kString) {
    strings->assign(t.data<std::string>(), t.data<std::string>() + t.size());
  } else if (t.type() == DataType::kInt64 || t.type() == DataType::kInt32) {
    *ints = t.ToInt64Vector();
  } else {
    return c.Unsupported("table " + what + " of type " + std::string(DataTypeName(t.type())));
  }
  return Status::Ok();
}

// HASHTABLE_IMPORT(resource, keys, values): constant keys and values only.
Status HashtableImport(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string key, c.ResourceInput(0));
  ConversionState::Table& t = c.state->tables[key];
  if (!IsStringOrInt(t.key_type) || !IsStringOrInt(t.value_type)) return c.Unsupported("table types");
  ONYX_RETURN_IF_ERROR(ReadTableColumn(c, 1, "keys", &t.string_keys, &t.int_keys));
  ONYX_RETURN_IF_ERROR(ReadTableColumn(c, 2, "values", &t.string_values, &t.int_values));
  const size_t keys = t.string_keys.size() + t.int_keys.size();
  const size_t values = t.string_values.size() + t.int_values.size();
  if (keys != values) {
    return c.Error(std::to_string(keys) + " keys but " + std::to_string(values) + " values");
  }
  t.imported = true;
  return Status::Ok();
}

Result<const ConversionState::Table*> ImportedTable(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string key, c.ResourceInput(0));
  const ConversionState::Table& t = c.state->tables[key];
  if (!t.imported) return c.Unsupported(key + " is looked up before HASHTABLE_IMPORT fills it");
  return &t;
}

// HASHTABLE_FIND(resource, keys, default_value) -> LabelEncoder (ai.onnx.ml 2).
Status HashtableFind(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const ConversionState::Table* t, ImportedTable(c));
  if (t->string_keys.empty() && t->int_keys.empty()) return c.Unsupported("an empty table");
  ONYX_ASSIGN_OR_RETURN(std::string keys, c.RawInput(1));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* key_tensor, c.InTensor(1));
  ONYX_ASSIGN_OR_RETURN(Tensor fallback, c.ConstInput(2, "default value"));
  if (fallback.size() != 1) return c.Unsupported("a default value of more than one element");
  std::vector<ir::Attribute> attrs;
  if (!t->string_keys.empty()) {
    attrs.push_back(ir::StringsAttr("keys_strings", t->string_keys));
  } else {
    attrs.push_back(ir::IntsAttr("keys_int64s", t->int_keys));
    if (key_tensor->type != TensorType::kInt64) {
      keys = c.b.Op1("Cast", {keys}, c.Name("keys64"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
    }
  }
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* out, c.OutTensor());
  if (!t->string_values.empty()) {
    if (fallback.type() != DataType::kString) return c.Error("the default value is not a string");
    attrs.push_back(ir::StringsAttr("values_strings", t->string_values));
    attrs.push_back(ir::StringAttr("default_string", fallback.data<std::string>()[0]));
  } else {
    if (fallback.type() == DataType::kString) return c.Error("the default value is a string");
    attrs.push_back(ir::IntsAttr("values_int64s", t->int_values));
    attrs.push_back(ir::IntAttr("default_int64", fallback.IntAt(0)));
  }
  std::string y = c.b.Op1("LabelEncoder", {keys}, c.Name("lookup"), std::move(attrs));
  c.b.graph().nodes.back().domain = "ai.onnx.ml";
  c.state->uses_ml = true;
  if (t->string_values.empty() && out->type != TensorType::kInt64) {
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(out->type));
    y = c.b.Op1("Cast", {y}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(type))});
  }
  return c.SetRawOutput(y);
}

// HASHTABLE_SIZE(resource) -> int64 [1].
Status HashtableSize(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const ConversionState::Table* t, ImportedTable(c));
  const int64_t n = static_cast<int64_t>(t->string_keys.size() + t->int_keys.size());
  return c.SetRawOutput(c.b.ConstInts(c.Name("size"), {n}));
}

}  // namespace

void AddStateOps(std::map<int32_t, OpFn>& t) {
  t[op::kVarHandle] = VarHandle;
  t[op::kAssignVariable] = AssignVariable;
  t[op::kReadVariable] = ReadVariable;
  t[op::kHashtable] = Hashtable;
  t[op::kHashtableImport] = HashtableImport;
  t[op::kHashtableFind] = HashtableFind;
  t[op::kHashtableSize] = HashtableSize;
}

}  // namespace onyx::convert::tflite
