// The graph walk: TF nodes are visited in dependency order from the model's outputs; Placeholders become graph
// inputs, Consts initializers, and every other node is handed to its operator's converter with its inputs as ONNX
// values. Every operator is checked for a converter before anything is converted, so one error lists them all.
#include "convert/tf/converter.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "convert/common/converted_model.h"
#include "convert/common/tfjs_weights.h"
#include "convert/tf/op_context.h"
#include "core/mapped_file.h"

namespace onyx::convert::tf {
namespace {

using nlohmann::json;

Result<json> ParseJsonText(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(where + ": not valid JSON");
  return j;
}

// "node:1" -> ("node", 1); "node" -> ("node", 0).
std::pair<std::string, int> SplitTensorName(const std::string& tensor) {
  const size_t colon = tensor.rfind(':');
  if (colon != std::string::npos && colon + 1 < tensor.size() &&
      tensor.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    return {tensor.substr(0, colon), std::atoi(tensor.c_str() + colon + 1)};
  }
  return {tensor, 0};
}

std::string TensorKey(const std::string& node, int port) { return node + ":" + std::to_string(port); }

// A Const whose value is stored in the node (graph-models move most into the weights): proto3-JSON TensorProto with
// floatVal / intVal / int64Val / boolVal (one value broadcast when fewer are given) or base64 tensorContent.
Result<Tensor> ConstFromAttr(const TfNode& n) {
  if (!n.Has("value") || !(*n.attr)["value"].contains("tensor")) {
    return InvalidArgument(n.Where() + ": a Const with neither a weight nor a 'value' tensor");
  }
  const json& t = (*n.attr)["value"]["tensor"];
  ONYX_ASSIGN_OR_RETURN(DataType type, DataTypeFromTf(t.value("dtype", std::string("DT_FLOAT"))));
  Shape shape;
  if (t.contains("tensorShape") && t["tensorShape"].contains("dim")) {
    for (const auto& d : t["tensorShape"]["dim"]) {
      const json& size = d.value("size", json("0"));
      shape.push_back(size.is_string() ? std::atoll(size.get<std::string>().c_str()) : size.get<int64_t>());
    }
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(type, shape));
  const int64_t count = out.size();
  if (t.contains("tensorContent")) {
    ONYX_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(t["tensorContent"].get<std::string>()));
    if (bytes.size() != out.nbytes() || type == DataType::kString) {
      return InvalidArgument(n.Where() + ": tensorContent has " + std::to_string(bytes.size()) + " bytes, the shape " +
                             ShapeToString(shape) + " needs " + std::to_string(out.nbytes()));
    }
    if (!bytes.empty()) std::memcpy(out.raw(), bytes.data(), bytes.size());
    return out;
  }
  const char* field = type == DataType::kFloat ? "floatVal"
                      : type == DataType::kInt64 ? "int64Val"
                      : type == DataType::kBool  ? "boolVal"
                                                 : "intVal";
  if (!t.contains(field) || !t[field].is_array() || t[field].empty()) {
    if (count == 0) return out;
    return Unsupported(n.Where() + ": Const value without '" + field + "' or tensorContent");
  }
  const json& vals = t[field];
  for (int64_t i = 0; i < count; ++i) {
    const json& v = vals[std::min<size_t>(static_cast<size_t>(i), vals.size() - 1)];
    double d = v.is_string() ? std::atof(v.get<std::string>().c_str()) : v.is_boolean() ? v.get<bool>() : v.get<double>();
    switch (type) {
      case DataType::kFloat: out.data<float>()[i] = static_cast<float>(d); break;
      case DataType::kInt32: out.data<int32_t>()[i] = static_cast<int32_t>(d); break;
      case DataType::kInt64: out.data<int64_t>()[i] = static_cast<int64_t>(d); break;
      case DataType::kBool: out.data<bool>()[i] = d != 0; break;
      default: return Unsupported(n.Where() + ": Const of type " + std::string(DataTypeName(type)));
    }
  }
  return out;
}

// The signature's tensors ("inputs"/"outputs": {"name:0": {...}}), in the order stored.
std::vector<std::string> SignatureTensors(const json& root, const char* which) {
  std::vector<std::string> out;
  if (!root.contains("signature") || !root["signature"].is_object()) return out;
  const json& sig = root["signature"];
  if (!sig.contains(which) || !sig[which].is_object()) return out;
  for (const auto& [key, v] : sig[which].items()) out.push_back(v.value("name", key));
  return out;
}

}  // namespace

bool IsTfjsGraphModel(const std::string& path) {
  if (!path.ends_with(".json")) return false;
  auto text = ReadFileToString(path);
  if (!text.ok()) return false;
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return false;
  if (j.value("format", std::string()) == "graph-model") return true;
  return j.contains("modelTopology") && j["modelTopology"].is_object() && j["modelTopology"].contains("node");
}

Result<ir::Model> ConvertTfjsGraphModel(const std::string& path, const TfConvertOptions& options,
                                        TfConvertReport* report) {
  ONYX_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  ONYX_ASSIGN_OR_RETURN(json root, ParseJsonText(text, path));
  std::map<std::string, Tensor> weights;
  if (root.is_object() && root.contains("weightsManifest")) {
    ONYX_ASSIGN_OR_RETURN(std::vector<NamedWeight> list, ReadTfjsWeights(root["weightsManifest"], path));
    for (auto& w : list) weights[w.name] = std::move(w.tensor);
  }
  return ConvertGraphJson(root, std::move(weights), path, options, report);
}

Result<ir::Model> ConvertGraphJson(const nlohmann::json& root, std::map<std::string, Tensor> weights,
                                   const std::string& path, const TfConvertOptions& options,
                                   TfConvertReport* report) {
  if (options.opset < 13 || options.opset > 21) {
    return InvalidArgument("opset " + std::to_string(options.opset) + " is outside 13..21");
  }
  if (!root.is_object() || !root.contains("modelTopology") || !root["modelTopology"].is_object() ||
      !root["modelTopology"].contains("node") || !root["modelTopology"]["node"].is_array()) {
    return InvalidArgument(path + ": no 'modelTopology.node' list: not a TF.js graph-model");
  }
  const json& graph_json = root["modelTopology"];
  if (graph_json.contains("library") && graph_json["library"].contains("function") &&
      !graph_json["library"]["function"].empty()) {
    return Unsupported(path + ": the graph calls TensorFlow functions (control flow), which are not supported yet");
  }

  // Nodes by name.
  std::vector<TfNode> nodes;
  std::map<std::string, size_t> index;
  for (const auto& nj : graph_json["node"]) {
    auto n = ParseNode(nj);
    if (!n.ok()) return n.status().WithContext(path);
    if (index.count(n->name)) return InvalidArgument(path + ": two nodes are named '" + n->name + "'");
    index[n->name] = nodes.size();
    nodes.push_back(std::move(n).value());
  }

  // Outputs: the signature's, else the Identity nodes nothing reads, else every non-Const node nothing reads.
  std::vector<std::string> outputs = SignatureTensors(root, "outputs");
  if (outputs.empty()) {
    std::set<std::string> read;
    for (const auto& n : nodes) {
      for (const auto& in : n.inputs) read.insert(SplitTensorName(in).first);
    }
    for (const auto& n : nodes) {
      if (!read.count(n.name) && n.op == "Identity") outputs.push_back(n.name + ":0");
    }
    if (outputs.empty()) {
      for (const auto& n : nodes) {
        if (!read.count(n.name) && n.op != "Const" && n.op != "NoOp") outputs.push_back(n.name + ":0");
      }
    }
  }
  if (outputs.empty()) return InvalidArgument(path + ": the graph has no outputs");

  // Dependency order from the outputs (iterative: graphs can be deep).
  std::vector<size_t> order;
  {
    std::vector<int> state(nodes.size(), 0);  // 0 unvisited, 1 on the stack, 2 done
    std::vector<std::pair<size_t, size_t>> stack;
    for (const auto& out : outputs) {
      auto it = index.find(SplitTensorName(out).first);
      if (it == index.end()) return InvalidArgument(path + ": output '" + out + "' names no node");
      if (state[it->second] == 0) stack.push_back({it->second, 0});
      while (!stack.empty()) {
        auto& [i, next] = stack.back();
        state[i] = 1;
        if (next < nodes[i].inputs.size()) {
          const std::string producer = SplitTensorName(nodes[i].inputs[next++]).first;
          auto p = index.find(producer);
          if (p == index.end()) {
            return InvalidArgument(path + ": " + nodes[i].Where() + " reads '" + producer + "', which no node defines");
          }
          if (state[p->second] == 1) return InvalidArgument(path + ": the graph has a cycle through " + nodes[i].Where());
          if (state[p->second] == 0) stack.push_back({p->second, 0});
        } else {
          state[i] = 2;
          order.push_back(i);
          stack.pop_back();
        }
      }
    }
  }

  // Every operator must have a converter.
  const auto& table = OpTable();
  std::set<std::string> missing;
  for (size_t i : order) {
    const std::string& op = nodes[i].op;
    if (op != "Const" && op != "Placeholder" && !table.count(op)) missing.insert(op);
  }
  ONYX_RETURN_IF_ERROR(MissingOperators(path, "TensorFlow", missing));

  std::string graph_name = std::filesystem::path(path).parent_path().filename().string();
  ir::Model model = NewConvertedModel(graph_name.empty() ? "tensorflow_graph" : graph_name);
  GraphBuilder b(&model.graph);
  for (const auto& n : nodes) b.Reserve(n.name);  // ONNX values named after TF nodes stay recognizable

  std::map<std::string, TfValue> values;  // TF tensor ("node:port") -> ONNX value
  std::map<std::string, Tensor> constants;  // Const values (map nodes stay put: TfValue::constant points here)
  for (size_t i : order) {
    const TfNode& n = nodes[i];
    b.set_doc(n.op + " " + n.name);
    if (n.op == "Placeholder") {
      ONYX_ASSIGN_OR_RETURN(DataType type, n.Type("dtype"));
      bool known = false;
      ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.Shape("shape", &known));
      ir::ValueInfo in;
      in.name = n.name + ":0";
      std::optional<std::vector<ir::Dim>> shape;
      if (known) {
        shape.emplace();
        for (size_t d = 0; d < dims.size(); ++d) {
          shape->push_back(dims[d] >= 0 ? ir::Dim::Value(dims[d])
                                        : ir::Dim::Param(d == 0 ? "batch" : "unk__" + std::to_string(d)));
        }
      }
      in.type = ir::TypeInfo::Tensor(type, shape);
      b.Reserve(in.name);
      model.graph.inputs.push_back(in);
      values[TensorKey(n.name, 0)] = {in.name, type, nullptr};
      continue;
    }
    if (n.op == "Const") {
      auto w = weights.find(n.name);
      Tensor t;
      if (w != weights.end()) {
        t = w->second;
      } else {
        ONYX_ASSIGN_OR_RETURN(t, ConstFromAttr(n));
      }
      const std::string name = b.Constant(n.name, t);
      const Tensor& kept = constants[TensorKey(n.name, 0)] = t;
      values[TensorKey(n.name, 0)] = {name, t.type(), &kept};
      continue;
    }
    std::vector<TfValue> ins;
    for (const auto& in : n.inputs) {
      auto [producer, port] = SplitTensorName(in);
      auto v = values.find(TensorKey(producer, port));
      if (v == values.end()) {
        return InvalidArgument(path + ": " + n.Where() + " reads '" + in + "', which its producer does not output");
      }
      ins.push_back(v->second);
    }
    OpContext ctx(b, n, std::move(ins));
    Status st = table.at(n.op)(ctx);
    if (!st.ok()) {
      if (st.message().rfind("node '", 0) == 0) return st;
      return st.WithContext(n.Where());
    }
    for (const auto& [port, v] : ctx.outputs()) values[TensorKey(n.name, port)] = v;
  }
  b.set_doc("");

  for (const auto& out : outputs) {
    auto [producer, port] = SplitTensorName(out);
    auto v = values.find(TensorKey(producer, port));
    if (v == values.end()) return InvalidArgument(path + ": output '" + out + "' is not computed by its node");
    const std::string name = producer + ":" + std::to_string(port);
    b.Reserve(name);
    b.OpTo("Identity", {v->second.name}, {name}, name);
    ir::ValueInfo vi;
    vi.name = name;
    vi.type = ir::TypeInfo::Tensor(v->second.type);
    model.graph.outputs.push_back(vi);
  }

  ONYX_ASSIGN_OR_RETURN(const TransposeStats stats, FinishConvertedModel(model, options.opset));
  if (report) {
    report->tf_nodes = static_cast<int>(order.size());
    report->nodes = static_cast<int>(model.graph.nodes.size());
    report->transposes_before = stats.before;
    report->transposes_after = stats.after;
  }
  return model;
}

}  // namespace onyx::convert::tf
