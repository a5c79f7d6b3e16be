// The TensorFlow converter's entry points: model.json (or a GraphDef printed as JSON) is read, the outputs chosen
// (the signature's, else every tensor no node reads), and the graph walk (graph_walk.h) converts what they need,
// with the graph's function library at hand for calls and control flow (functions.h). A field of the wrong JSON
// type is an error naming the file (and the node, where the walk meets it), never an exception out of here.
#include "convert/tf/converter.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <optional>
#include <set>

#include "convert/common/converted_model.h"
#include "convert/common/json_limits.h"
#include "convert/common/tfjs_weights.h"
#include "convert/tf/fold_dilated_conv.h"
#include "convert/tf/functions.h"
#include "convert/tf/graph_walk.h"
#include "convert/tf/tables.h"
#include "convert/tf/tf1_control.h"
#include "core/mapped_file.h"

namespace onyx::convert::tf {
namespace {

using nlohmann::json;

Result<json> ParseJsonText(const std::string& text, const std::string& where) {
  // Copies and walks of the parsed value recurse once per level: deeper text is refused before parsing.
  ONYX_RETURN_IF_ERROR(CheckJsonDepth(text, where));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(where + ": not valid JSON");
  return j;
}

// The signature's tensors ("inputs"/"outputs": {"key": {"name": "node:0", ...}}), in the order stored (nlohmann's
// ordered_json is not used, so the keys' order is recovered from the text: see SignatureOrder).
Result<std::vector<std::string>> SignatureTensors(const json& root, const char* which, const std::string& path) {
  std::vector<std::string> out;
  if (!root.contains("signature")) return out;
  const json& sig = root["signature"];
  if (!sig.is_object()) return InvalidArgument(path + ": 'signature' is not an object");
  if (!sig.contains(which)) return out;
  if (!sig[which].is_object()) return InvalidArgument(path + ": 'signature." + which + "' is not an object");
  for (const auto& [key, v] : sig[which].items()) {
    if (!v.is_object()) return InvalidArgument(path + ": signature entry '" + key + "' is not an object");
    if (v.contains("name") && !v["name"].is_string()) {
      return InvalidArgument(path + ": signature entry '" + key + "' has a 'name' that is not a string");
    }
    out.push_back(v.value("name", key));
  }
  return out;
}

// Whether a node of `g` or of its subgraphs is of `domain`.
bool UsesDomain(const ir::Graph& g, const std::string& domain) {
  for (const auto& n : g.nodes) {
    if (n.domain == domain) return true;
    for (const auto& a : n.attributes) {
      if (a.g && UsesDomain(*a.g, domain)) return true;
      for (const auto& sub : a.graphs) {
        if (sub && UsesDomain(*sub, domain)) return true;
      }
    }
  }
  return false;
}

// Operators that are never a model's output even when nothing reads them: side effects and initialization.
bool IsSideEffectOp(const std::string& op) {
  static const std::set<std::string> ops = {"Const",
                                            "NoOp",
                                            "Assert",
                                            "Print",
                                            "PrintV2",
                                            "SaveV2",
                                            "RestoreV2",
                                            "Save",
                                            "Restore",
                                            "AssignVariableOp",
                                            "VarHandleOp",
                                            "VarIsInitializedOp",
                                            "LookupTableImportV2",
                                            "LookupTableImport",
                                            "InitializeTableV2",
                                            "InitializeTable",
                                            "InitializeTableFromTextFileV2",
                                            "HashTableV2",
                                            "HashTable",
                                            "MutableHashTableV2",
                                            "Placeholder",
                                            "PlaceholderWithDefault",
                                            "TensorArrayCloseV3",
                                            "ControlTrigger"};
  return ops.count(op) > 0;
}

}  // namespace

bool IsTfjsGraphModel(const std::string& path) {
  if (!path.ends_with(".json")) return false;
  auto text = ReadFileToString(path);
  if (!text.ok() || !CheckJsonDepth(*text, path).ok()) return false;
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return false;
  // Detection runs outside the converter's guard against wrongly typed fields: nothing here may throw.
  if (j.contains("format") && j["format"].is_string() && j["format"] == "graph-model") return true;
  return j.contains("modelTopology") && j["modelTopology"].is_object() && j["modelTopology"].contains("node");
}

namespace {

// The integer values of the Const node `name` of `nodes` (from the weights or the node's own value); nullopt for
// anything else.
std::optional<std::vector<int64_t>> ConstIntsOf(const json& nodes, const std::map<std::string, Tensor>& weights,
                                                const std::string& name) {
  auto integers = [](const Tensor& t) -> std::optional<std::vector<int64_t>> {
    if (t.type() != DataType::kInt32 && t.type() != DataType::kInt64) return std::nullopt;
    return t.ToInt64Vector();
  };
  for (const auto& nj : nodes) {
    if (!nj.is_object() || nj.value("name", std::string()) != name) continue;
    if (nj.value("op", std::string()) != "Const") return std::nullopt;
    auto w = weights.find(name);
    if (w != weights.end()) return integers(w->second);
    auto n = ParseNode(nj);
    if (!n.ok()) return std::nullopt;
    auto t = ConstFromAttr(*n);
    return t.ok() ? integers(*t) : std::nullopt;
  }
  return std::nullopt;
}

// ConvertGraphJson; `output_order` (when given) lists the signature's outputs in the order model.json stores them
// (nlohmann::json keeps an object's keys sorted).
Result<ir::Model> ConvertGraph(const json& root, std::map<std::string, Tensor> weights, const std::string& path,
                               const TfConvertOptions& options, TfConvertReport* report,
                               const std::vector<std::string>* output_order) {
  if (options.opset < 13 || options.opset > 21) {
    return InvalidArgument("opset " + std::to_string(options.opset) + " is outside 13..21");
  }
  if (!root.is_object() || !root.contains("modelTopology") || !root["modelTopology"].is_object() ||
      !root["modelTopology"].contains("node") || !root["modelTopology"]["node"].is_array()) {
    return InvalidArgument(path + ": no 'modelTopology.node' list: not a TF.js graph-model");
  }
  const json& graph_json = root["modelTopology"];
  ConvertEnv env;
  env.path = path;
  env.weights = std::move(weights);
  if (graph_json.contains("library")) {
    const json& lib = graph_json["library"];
    if (!lib.is_object()) return InvalidArgument(path + ": 'modelTopology.library' is not an object");
    if (lib.contains("function")) {
      if (!lib["function"].is_array()) return InvalidArgument(path + ": 'library.function' is not a list");
      for (const auto& f : lib["function"]) {
        if (!f.is_object() || !f.contains("signature") || !f["signature"].is_object() ||
            !f["signature"].contains("name") || !f["signature"]["name"].is_string()) {
          return InvalidArgument(path + ": a library function has no 'signature.name'");
        }
        env.library[f["signature"]["name"].get<std::string>()] = &f;
      }
    }
  }

  // Dilated convolutions written as SpaceToBatchND -> conv -> BatchToSpaceND become one convolution (on a copy of
  // the node list: the parsed nodes below point into whichever list is used).
  const json* node_list = &graph_json["node"];
  json folded_nodes;
  int dilated_convs = 0;
  if (std::any_of(node_list->begin(), node_list->end(),
                  [](const json& n) { return n.is_object() && n.value("op", std::string()) == "SpaceToBatchND"; })) {
    folded_nodes = *node_list;
    dilated_convs = FoldDilatedConvolutions(
        folded_nodes, [&](const std::string& name) { return ConstIntsOf(folded_nodes, env.weights, name); });
    if (dilated_convs > 0) node_list = &folded_nodes;
  }

  // Nodes by name, and their control inputs (TF1 loops and conditionals tie their constants to them so).
  std::vector<TfNode> nodes;
  std::set<std::string> names;
  ControlInputs control;
  for (const auto& nj : *node_list) {
    auto n = ParseNode(nj);
    if (!n.ok()) return n.status().WithContext(path);
    if (!names.insert(n->name).second) return InvalidArgument(path + ": two nodes are named '" + n->name + "'");
    if (nj.contains("input") && nj["input"].is_array()) {
      for (const auto& in : nj["input"]) {
        if (in.is_string() && in.get_ref<const std::string&>().starts_with("^")) {
          control[n->name].push_back(in.get<std::string>().substr(1));
        }
      }
    }
    nodes.push_back(std::move(n).value());
  }

  // Lookup tables are filled by nodes off the outputs' path, in the graph or in TF.js's modelInitializer graph.
  std::vector<TfNode> init_nodes;
  if (root.contains("modelInitializer")) {
    const json& init = root["modelInitializer"];
    if (!init.is_object()) return InvalidArgument(path + ": 'modelInitializer' is not an object");
    if (init.contains("node")) {
      if (!init["node"].is_array()) return InvalidArgument(path + ": 'modelInitializer.node' is not a list");
      for (const auto& nj : init["node"]) {
        auto n = ParseNode(nj);
        if (!n.ok()) return n.status().WithContext(path + ": modelInitializer");
        init_nodes.push_back(std::move(n).value());
      }
    }
  }
  ONYX_RETURN_IF_ERROR(FindTableInits(env, init_nodes));
  ONYX_RETURN_IF_ERROR(FindTableInits(env, nodes));

  // Outputs: the signature's; without one, every tensor that no node reads (side effects and initialization
  // excluded), port 0 of each node.
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> outputs, SignatureTensors(root, "outputs", path));
  if (output_order != nullptr && output_order->size() == outputs.size()) outputs = *output_order;
  std::string rule = "the signature's outputs";
  if (outputs.empty()) {
    rule = "the tensors no node reads (no signature)";
    std::set<std::string> read;
    for (const auto& n : nodes) {
      for (const auto& in : n.inputs) read.insert(SplitTensorName(in).first);
    }
    // Tensors inside a TF1 loop (an inner loop's Exit, a body's dead end) are no model outputs.
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
    ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Tf1Graph> tf1, Tf1Graph::Analyze(nodes, index, &control, path));
    for (size_t i = 0; i < nodes.size(); ++i) {
      const TfNode& n = nodes[i];
      if (tf1 && tf1->FrameOf(i) >= 0) continue;
      if (!read.count(n.name) && !IsSideEffectOp(n.op)) outputs.push_back(n.name + ":0");
    }
  }
  if (outputs.empty()) return InvalidArgument(path + ": the graph has no outputs");

  std::string graph_name = std::filesystem::path(path).parent_path().filename().string();
  ir::Model model = NewConvertedModel(graph_name.empty() ? "tensorflow_graph" : graph_name);
  model.graph.doc_string = "outputs: " + rule;
  GraphBuilder b(&model.graph);
  for (const auto& n : nodes) b.Reserve(n.name);  // ONNX values named after TF nodes stay recognizable
  for (const auto& out : outputs) {
    auto [producer, port] = SplitTensorName(out);
    b.Reserve(TensorKey(producer, port));
  }

  env.scopes.push_back(&b);
  Functions functions(env);
  std::map<std::string, TfValue> values;  // TF tensor ("node:port") -> ONNX value
  ONYX_RETURN_IF_ERROR(ConvertNodes(env, &functions, b, nodes, outputs, values, &control));

  // Graph inputs in the order of the Placeholders (the walk meets them in dependency order).
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < nodes.size(); ++i) position[nodes[i].name + ":0"] = i;
  std::stable_sort(
      model.graph.inputs.begin(), model.graph.inputs.end(), [&](const ir::ValueInfo& a, const ir::ValueInfo& b) {
        auto pa = position.find(a.name), pb = position.find(b.name);
        return (pa == position.end() ? nodes.size() : pa->second) < (pb == position.end() ? nodes.size() : pb->second);
      });

  std::set<std::string> seen;
  for (const auto& out : outputs) {
    auto [producer, port] = SplitTensorName(out);
    const std::string name = TensorKey(producer, port);
    if (!seen.insert(name).second) continue;  // a tensor named twice by the signature is one output
    auto v = values.find(name);
    if (v == values.end()) return InvalidArgument(path + ": output '" + out + "' is not computed by its node");
    if (v->second.type == DataType::kComplex64) {
      return Unsupported(path + ": output '" + out +
                         "' is complex, which ONNX graphs cannot output (end the graph "
                         "with Real/Imag/ComplexAbs)");
    }
    if (v->second.name != name) b.OpTo("Identity", {v->second.name}, {name}, name);
    ir::ValueInfo vi;
    vi.name = name;
    vi.type = ir::TypeInfo::Tensor(v->second.type);
    model.graph.outputs.push_back(vi);
  }

  if (UsesDomain(model.graph, "ai.onnx.ml")) model.opset_import.push_back({"ai.onnx.ml", 2});  // LabelEncoder 2
  ONYX_ASSIGN_OR_RETURN(const TransposeStats stats, FinishConvertedModel(model, options.opset));
  if (report) {
    report->tf_nodes = env.converted;
    report->outputs_rule = rule;
    report->dilated_convolutions_folded = dilated_convs;
    report->nodes = static_cast<int>(model.graph.nodes.size());
    report->transposes_before = stats.before;
    report->transposes_after = stats.after;
  }
  return model;
}

}  // namespace

Result<ir::Model> ConvertGraphJson(const nlohmann::json& root, std::map<std::string, Tensor> weights,
                                   const std::string& path, const TfConvertOptions& options, TfConvertReport* report) {
  try {
    return ConvertGraph(root, std::move(weights), path, options, report, nullptr);
  } catch (const json::exception& e) {
    // A field of the wrong JSON type that no check caught: an error, never an abort.
    return InvalidArgument(path + ": a field has the wrong JSON type (" + std::string(e.what()) + ")");
  }
}

Result<ir::Model> ConvertTfjsGraphModel(const std::string& path, const TfConvertOptions& options,
                                        TfConvertReport* report) {
  ONYX_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  ONYX_ASSIGN_OR_RETURN(json root, ParseJsonText(text, path));
  try {
    std::map<std::string, Tensor> weights;
    if (root.is_object() && root.contains("weightsManifest")) {
      ONYX_ASSIGN_OR_RETURN(std::vector<NamedWeight> list, ReadTfjsWeights(root["weightsManifest"], path));
      for (auto& w : list) weights[w.name] = std::move(w.tensor);
    }
    // The signature's outputs in the order stored, as TF.js reads them.
    std::vector<std::string> order;
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (ordered.is_object() && ordered.contains("signature") && ordered["signature"].is_object() &&
        ordered["signature"].contains("outputs") && ordered["signature"]["outputs"].is_object()) {
      for (const auto& [key, v] : ordered["signature"]["outputs"].items()) {
        order.push_back(v.is_object() && v.contains("name") && v["name"].is_string() ? v["name"].get<std::string>()
                                                                                     : key);
      }
    }
    return ConvertGraph(root, std::move(weights), path, options, report, &order);
  } catch (const json::exception& e) {
    return InvalidArgument(path + ": a field has the wrong JSON type (" + std::string(e.what()) + ")");
  } catch (const std::bad_alloc&) {
    // A size taken from the file (a shape, an fft_length) that no converter bounded: an error, not an abort.
    return InvalidArgument(path + ": out of memory while converting (a size in the model is too large)");
  }
}

}  // namespace onyx::convert::tf
