#include "convert/tf/graph_walk.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include "convert/common/converted_model.h"
#include "convert/tf/tf1_control.h"

namespace onyx::convert::tf {

using nlohmann::json;

std::pair<std::string, int> SplitTensorName(const std::string& tensor) {
  const size_t colon = tensor.rfind(':');
  if (colon != std::string::npos && colon + 1 < tensor.size() && tensor.size() - colon <= 9 &&
      tensor.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    return {tensor.substr(0, colon), std::atoi(tensor.c_str() + colon + 1)};
  }
  return {tensor, 0};
}

namespace {

// A JSON number or a number in a string (proto3-JSON writes int64 and non-finite floats as strings).
Result<double> JsonNumber(const json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == '\0') return d;
  }
  return InvalidArgument(where + ": expected a number, got " + v.dump().substr(0, 40));
}

}  // namespace

Result<Tensor> ConstFromAttr(const TfNode& n) {
  const json* value = n.Has("value") ? &(*n.attr)["value"] : nullptr;
  if (value == nullptr || !value->is_object() || !value->contains("tensor") || !(*value)["tensor"].is_object()) {
    return InvalidArgument(n.Where() + ": a Const with neither a weight nor a 'value' tensor");
  }
  const json& t = (*value)["tensor"];
  std::string dtype = "DT_FLOAT";
  if (t.contains("dtype")) {
    if (!t["dtype"].is_string()) return InvalidArgument(n.Where() + ": the value's 'dtype' is not a string");
    dtype = t["dtype"].get<std::string>();
  }
  auto type_or = DataTypeFromTf(dtype);
  if (!type_or.ok()) return type_or.status().WithContext(n.Where());
  const DataType type = *type_or;
  Shape shape;
  if (t.contains("tensorShape")) {
    const json& ts = t["tensorShape"];
    if (!ts.is_object()) return InvalidArgument(n.Where() + ": the value's 'tensorShape' is not an object");
    if (ts.contains("dim")) {
      if (!ts["dim"].is_array()) return InvalidArgument(n.Where() + ": the value's 'tensorShape.dim' is not a list");
      for (const auto& d : ts["dim"]) {
        if (!d.is_object()) return InvalidArgument(n.Where() + ": a dim of the value's shape is not an object");
        ONYX_ASSIGN_OR_RETURN(double size, JsonNumber(d.value("size", json("0")), n.Where() + " value shape"));
        if (size < 0 || size > 1e15) return InvalidArgument(n.Where() + ": the value's shape has a negative dim");
        shape.push_back(static_cast<int64_t>(size));
      }
    }
  }
  auto created = Tensor::Create(type, shape);
  if (!created.ok()) return created.status().WithContext(n.Where());
  Tensor out = std::move(created).value();
  const int64_t count = out.size();
  if (t.contains("tensorContent")) {
    if (!t["tensorContent"].is_string()) return InvalidArgument(n.Where() + ": 'tensorContent' is not a string");
    ONYX_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(t["tensorContent"].get<std::string>()));
    if (bytes.size() != out.nbytes() || type == DataType::kString) {
      return InvalidArgument(n.Where() + ": tensorContent has " + std::to_string(bytes.size()) + " bytes, the shape " +
                             ShapeToString(shape) + " needs " + std::to_string(out.nbytes()));
    }
    if (!bytes.empty()) std::memcpy(out.raw(), bytes.data(), bytes.size());
    return out;
  }
  const char* field = type == DataType::kFloat    ? "floatVal"
                      : type == DataType::kDouble ? "doubleVal"
                      : type == DataType::kInt64  ? "int64Val"
                      : type == DataType::kBool   ? "boolVal"
                      : type == DataType::kString ? "stringVal"
                                                  : "intVal";
  if (!t.contains(field) || !t[field].is_array() || t[field].empty()) {
    if (count == 0) return out;
    return Unsupported(n.Where() + ": Const value without '" + field + "' or tensorContent");
  }
  const json& vals = t[field];
  for (int64_t i = 0; i < count; ++i) {
    const json& v = vals[std::min<size_t>(static_cast<size_t>(i), vals.size() - 1)];
    if (type == DataType::kString) {
      if (!v.is_string()) return InvalidArgument(n.Where() + ": a stringVal is not a string");
      ONYX_ASSIGN_OR_RETURN(out.data<std::string>()[i], DecodeBase64(v.get<std::string>()));
      continue;
    }
    ONYX_ASSIGN_OR_RETURN(double d, JsonNumber(v, n.Where() + " value"));
    switch (type) {
      case DataType::kFloat:
        out.data<float>()[i] = static_cast<float>(d);
        break;
      case DataType::kDouble:
        out.data<double>()[i] = d;
        break;
      case DataType::kInt32:
        out.data<int32_t>()[i] = static_cast<int32_t>(d);
        break;
      case DataType::kInt64:
        out.data<int64_t>()[i] = static_cast<int64_t>(d);
        break;
      case DataType::kBool:
        out.data<bool>()[i] = d != 0;
        break;
      default:
        return Unsupported(n.Where() + ": Const of type " + std::string(DataTypeName(type)));
    }
  }
  return out;
}

Status ConvertNodes(ConvertEnv& env, Functions* functions, GraphBuilder& b, const std::vector<TfNode>& nodes,
                    const std::vector<std::string>& outputs, std::map<std::string, TfValue>& values,
                    const ControlInputs* control) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Tf1Graph> tf1, Tf1Graph::Analyze(nodes, index, control, env.path));
  const Walk w{env, functions, nodes, index, tf1.get()};
  return WalkNodes(w, b, -1, outputs, values);
}

namespace {

// Converts one node with its operator's converter (Placeholder and Const here).
// The operators whose converters read complex values (ops_spectral.cc) or pass any value through unchanged.
bool TakesComplex(const std::string& op) {
  static const std::set<std::string> ops = {
      "Real",   "Imag",   "ComplexAbs", "Conj",  "FFT",    "IFFT",     "FFT2D",   "IFFT2D",   "FFT3D",
      "IFFT3D", "IRFFT",  "IRFFT2D",    "IRFFT3D", "Identity", "IdentityN", "Snapshot", "StopGradient"};
  return ops.count(op) > 0;
}

Status ConvertNode(const Walk& w, GraphBuilder& b, const TfNode& n, std::map<std::string, TfValue>& values) {
  ConvertEnv& env = w.env;
  if (n.op == "Placeholder") {
    if (!env.scopes.empty() && &b != env.scopes.front()) {
      return Unsupported(n.Where() + ": a graph input read only inside a loop or a branch");
    }
    ONYX_ASSIGN_OR_RETURN(DataType type, n.Type("dtype"));
    bool has_shape = false;
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.Shape("shape", &has_shape));
    ir::ValueInfo in;
    in.name = n.name + ":0";
    std::optional<std::vector<ir::Dim>> shape;
    if (has_shape) {
      shape.emplace();
      for (size_t d = 0; d < dims.size(); ++d) {
        shape->push_back(dims[d] >= 0 ? ir::Dim::Value(dims[d])
                                      : ir::Dim::Param(d == 0 ? "batch" : "unk__" + std::to_string(d)));
      }
    }
    in.type = ir::TypeInfo::Tensor(type, shape);
    b.Reserve(in.name);
    b.graph().inputs.push_back(in);
    values[TensorKey(n.name, 0)] = {in.name, type, nullptr};
    return Status::Ok();
  }
  if (n.op == "Const") {
    auto wt = env.weights.find(n.name);
    Tensor t;
    if (wt != env.weights.end()) {
      t = wt->second;
    } else {
      ONYX_ASSIGN_OR_RETURN(t, ConstFromAttr(n));
    }
    const std::string name = b.Constant(n.name, t);
    const Tensor& kept = env.constants.emplace_back(std::move(t));
    values[TensorKey(n.name, 0)] = {name, kept.type(), &kept};
    return Status::Ok();
  }
  std::vector<TfValue> ins;
  for (const auto& in : n.inputs) {
    auto [producer, port] = SplitTensorName(in);
    auto v = values.find(TensorKey(producer, port));
    if (v == values.end()) {
      return InvalidArgument(env.path + ": " + n.Where() + " reads '" + in + "', which its producer does not output");
    }
    ins.push_back(v->second);
  }
  // Complex tensors are float tensors with a trailing (real, imaginary) axis; only the operators that know it may
  // read them, else a wrongly shaped float tensor would flow on silently.
  if (!TakesComplex(n.op)) {
    for (size_t i = 0; i < ins.size(); ++i) {
      if (ins[i].type == DataType::kComplex64) {
        return Unsupported(env.path + ": " + n.Where() + ": input " + std::to_string(i) +
                           " is complex, which this operator's converter does not handle");
      }
    }
  }
  OpContext ctx(b, n, std::move(ins));
  ctx.functions = w.functions;
  Status st = OpTable().at(n.op)(ctx);
  if (!st.ok() && st.message().rfind("node '", 0) != 0 && st.message().rfind(env.path + ": ", 0) != 0) {
    return st.WithContext(n.Where());
  }
  ONYX_RETURN_IF_ERROR(st);
  for (const auto& [port, v] : ctx.outputs()) values[TensorKey(n.name, port)] = v;
  return Status::Ok();
}

}  // namespace

Status WalkNodes(const Walk& w, GraphBuilder& b, int scope, const std::vector<std::string>& outputs,
                 std::map<std::string, TfValue>& values) {
  ConvertEnv& env = w.env;
  const std::vector<TfNode>& nodes = w.nodes;
  // A tensor known beforehand (an argument, a loop variable, an outer value) needs no node.
  auto known = [&](const std::string& tensor) {
    auto [producer, port] = SplitTensorName(tensor);
    return values.count(TensorKey(producer, port)) > 0;
  };
  // The units of the walk: a node, or (with TF1 control flow) a whole loop frame or conditional. Keys: the node's
  // index, or nodes.size() + the frame's index.
  using Unit = Tf1Graph::Unit;
  using Kind = Tf1Graph::Kind;
  auto key_of = [&](const Unit& u) { return u.kind == Kind::kFrame ? nodes.size() + u.id : u.id; };
  auto unit_of = [&](size_t i) -> Result<Unit> {
    if (w.tf1 == nullptr) return Unit{Kind::kNode, i};
    return w.tf1->UnitOf(i, scope);
  };
  auto deps_of = [&](const Unit& u) -> Result<std::vector<std::string>> {
    if (u.kind == Kind::kNode) return nodes[u.id].inputs;
    return w.tf1->Deps(u);
  };
  auto where_of = [&](const Unit& u) { return u.kind == Kind::kFrame ? w.tf1->FrameWhere(u.id) : nodes[u.id].Where(); };

  // Dependency order from the outputs (iterative: graphs can be deep).
  std::vector<Unit> order;
  {
    std::map<size_t, int> state;  // 1 on the stack, 2 done
    struct Entry {
      Unit unit;
      std::vector<std::string> deps;
      size_t next = 0;
    };
    std::vector<Entry> stack;
    auto push = [&](const std::string& tensor, const std::string& reader) -> Status {
      const std::string producer = SplitTensorName(tensor).first;
      auto p = w.index.find(producer);
      if (p == w.index.end()) {
        return InvalidArgument(env.path + ": " +
                               (reader.empty() ? "output '" + tensor + "' names no node"
                                               : reader + " reads '" + producer + "', which no node defines"));
      }
      ONYX_ASSIGN_OR_RETURN(Unit u, unit_of(p->second));
      const size_t key = key_of(u);
      auto st = state.find(key);
      if (st != state.end() && st->second == 1) {
        return InvalidArgument(env.path + ": the graph has a cycle through " +
                               (reader.empty() ? nodes[p->second].Where() : reader) + " and " +
                               nodes[p->second].Where() +
                               " (not a TF1 while loop of Enter/Merge/Switch/LoopCond/NextIteration/Exit nodes)");
      }
      if (st != state.end()) return Status::Ok();
      state[key] = 1;
      ONYX_ASSIGN_OR_RETURN(std::vector<std::string> deps, deps_of(u));
      stack.push_back({u, std::move(deps), 0});
      return Status::Ok();
    };
    for (const auto& out : outputs) {
      if (known(out)) continue;
      ONYX_RETURN_IF_ERROR(push(out, ""));
      while (!stack.empty()) {
        Entry& top = stack.back();
        if (top.next < top.deps.size()) {
          const std::string input = top.deps[top.next++];
          if (known(input)) continue;
          ONYX_RETURN_IF_ERROR(push(input, where_of(top.unit)));
        } else {
          state[key_of(top.unit)] = 2;
          order.push_back(top.unit);
          stack.pop_back();
        }
      }
    }
  }

  // Every operator must have a converter.
  const auto& table = OpTable();
  std::set<std::string> missing;
  for (const Unit& u : order) {
    if (u.kind != Kind::kNode) continue;
    const std::string& op = nodes[u.id].op;
    if (op != "Const" && op != "Placeholder" && !table.count(op)) missing.insert(op);
  }
  ONYX_RETURN_IF_ERROR(MissingOperators(env.path, "TensorFlow", missing));

  for (const Unit& u : order) {
    ++env.converted;
    if (u.kind == Kind::kNode) b.set_doc(nodes[u.id].op + " " + nodes[u.id].name);
    // One unit; its errors name the node and the file.
    auto convert = [&]() -> Status {
      if (u.kind == Kind::kFrame) return w.tf1->ConvertFrame(w, b, u.id, values);
      if (u.kind == Kind::kCond) return w.tf1->ConvertCond(w, b, u.id, scope, values);
      return ConvertNode(w, b, nodes[u.id], values);
    };
    try {
      Status st = convert();
      if (!st.ok()) return st.message().rfind(env.path + ": ", 0) == 0 ? st : st.WithContext(env.path);
    } catch (const json::exception& e) {
      // A field of the wrong JSON type that an accessor did not check: one line, naming the node.
      return InvalidArgument(env.path + ": " + where_of(u) + ": a field has the wrong JSON type (" + e.what() + ")");
    }
  }
  b.set_doc("");
  return Status::Ok();
}

}  // namespace onyx::convert::tf
