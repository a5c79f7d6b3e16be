// SavedModel reading: everything is rewritten at the GraphDef level (protobuf messages) and the graph then printed as
// proto3 JSON, the form ConvertGraphJson reads; the function library's bodies (ReadVariableOp, captured argument
// types) are rewritten in that JSON.
#include "convert/tf/saved_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>

#include "convert/tf/graph_walk.h"
#include "convert/tf/tensor_bundle.h"
#include "convert/tf/tf_node.h"
#include "core/mapped_file.h"
#include "ir/graph_edit.h"
#include "proto/tf_saved_model.pb.h"

namespace onyx::convert::tf {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr char kInitOpSignature[] = "__saved_model_init_op";

bool IsVariableOp(const std::string& op) { return op == "VariableV2" || op == "Variable" || op == "VarHandleOp"; }
bool IsCallOp(const std::string& op) { return op == "StatefulPartitionedCall" || op == "PartitionedCall"; }

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Result<tfpb::SavedModel> ParseSavedModelFile(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  tfpb::SavedModel model;
  // A string field holding invalid UTF-8 fails the parse, and libprotobuf would also log it on stderr: the one-line
  // error below is the only report.
  google::protobuf::LogSilencer quiet;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (bytes.size() > INT32_MAX || !model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return InvalidArgument(path + ": not a SavedModel (the protobuf does not parse)");
  }
  if (model.meta_graphs_size() == 0) return InvalidArgument(path + ": a SavedModel without meta graphs");
  return model;
}

Result<const tfpb::MetaGraphDef*> PickMetaGraph(const tfpb::SavedModel& model, const std::string& tag,
                                                const std::string& path) {
  std::vector<std::string> sets;
  for (const auto& mg : model.meta_graphs()) {
    std::vector<std::string> tags(mg.meta_info_def().tags().begin(), mg.meta_info_def().tags().end());
    for (const auto& t : tags) {
      if (t == tag) return &mg;
    }
    sets.push_back("{" + Join(tags) + "}");
  }
  return NotFound(path + ": no meta graph is tagged '" + tag + "' (tag sets: " + Join(sets) + "; see --tag)");
}

Result<std::string> PickSignature(const tfpb::MetaGraphDef& mg, const SavedModelOptions& options,
                                  const std::string& path) {
  if (mg.signature_def().count(options.signature)) return options.signature;
  std::vector<std::string> names;
  for (const auto& [name, sig] : mg.signature_def()) {
    if (name != kInitOpSignature) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (!options.signature_given && names.size() == 1) return names[0];
  return NotFound(path + ": no signature '" + options.signature +
                  "' (signatures: " + (names.empty() ? std::string("none") : Join(names)) + "; see --signature)");
}

// TF2 checkpoints name a variable by its path in the object graph ("a/.ATTRIBUTES/VARIABLE_VALUE"): the
// checkpoint's TrackableObjectGraph gives each object's keys; objects are matched to the SavedObjectGraph's by their
// path of child names from the root (both graphs list the same objects).
Result<std::map<int, std::string>> VariableKeysByObject(const tfpb::SavedObjectGraph& saved, const TensorBundle& bundle,
                                                        const std::string& path) {
  std::map<int, std::string> keys;
  if (!bundle.Contains(kObjectGraphKey)) return keys;
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> strings, bundle.ReadStrings(kObjectGraphKey));
  tfpb::TrackableObjectGraph ckpt;
  google::protobuf::LogSilencer quiet;  // invalid UTF-8 in a string field: our error only, no libprotobuf log
  if (strings.size() != 1 || !ckpt.ParseFromString(strings[0])) {
    return InvalidArgument(path + ": the checkpoint's object graph does not parse");
  }
  // Paths of both graphs, breadth first from the root (node 0).
  auto paths = [](const auto& nodes) {
    std::map<int, std::string> out;
    std::deque<int> queue;
    if (nodes.size() > 0) {
      out[0] = "";
      queue.push_back(0);
    }
    while (!queue.empty()) {
      const int id = queue.front();
      queue.pop_front();
      for (const auto& child : nodes[id].children()) {
        if (child.node_id() < 0 || child.node_id() >= nodes.size() || out.count(child.node_id())) continue;
        out[child.node_id()] = out[id] + "/" + child.local_name();
        queue.push_back(child.node_id());
      }
    }
    return out;
  };
  std::map<std::string, int> ckpt_ids;
  for (const auto& [id, p] : paths(ckpt.nodes())) ckpt_ids[p] = id;
  for (const auto& [id, p] : paths(saved.nodes())) {
    if (!saved.nodes(id).has_variable()) continue;
    auto c = ckpt_ids.find(p);
    if (c == ckpt_ids.end()) continue;
    for (const auto& attr : ckpt.nodes(c->second).attributes()) {
      if (attr.name() == "VARIABLE_VALUE") keys[id] = attr.checkpoint_key();
    }
  }
  return keys;
}

}  // namespace

bool IsSavedModelDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / "saved_model.pb", ec);
}

Result<SavedModelGraph> ReadSavedModel(const std::string& dir, const SavedModelOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return InvalidArgument(dir + ": not a directory");
  const std::string pb_path = (fs::path(dir) / "saved_model.pb").string();
  if (!fs::exists(pb_path, ec)) {
    return InvalidArgument(dir + ": is a folder without saved_model.pb, not a SavedModel");
  }
  ONYX_ASSIGN_OR_RETURN(tfpb::SavedModel model, ParseSavedModelFile(pb_path));
  ONYX_ASSIGN_OR_RETURN(const tfpb::MetaGraphDef* mg, PickMetaGraph(model, options.tag, pb_path));
  ONYX_ASSIGN_OR_RETURN(std::string sig_name, PickSignature(*mg, options, pb_path));
  const tfpb::SignatureDef& sig = mg->signature_def().at(sig_name);
  const std::string where = pb_path + ", signature '" + sig_name + "'";
  if (sig.outputs().empty()) return InvalidArgument(where + ": the signature has no outputs");

  tfpb::GraphDef graph = mg->graph_def();
  std::map<std::string, int> index;
  for (int i = 0; i < graph.node_size(); ++i) index[graph.node(i).name()] = i;
  SavedModelGraph out;

  // Inputs: the graph is cut at each input tensor, whose producer becomes (or is replaced by) a Placeholder.
  json sig_inputs = json::object(), sig_outputs = json::object();
  for (const auto& [key, info] : sig.inputs()) {
    if (info.name().empty()) return Unsupported(where + ": input '" + key + "' is a sparse or composite tensor");
    auto [node_name, port] = SplitTensorName(info.name());
    auto it = index.find(node_name);
    if (it == index.end())
      return InvalidArgument(where + ": input '" + key + "' names no node ('" + info.name() + "')");
    std::string placeholder = node_name;
    tfpb::NodeDef* node = graph.mutable_node(it->second);
    // The input's shape: the signature's, else the one TensorFlow inferred for that output, else the
    // Placeholder's own.
    std::optional<tfpb::TensorShapeProto> shape;
    if (info.has_tensor_shape()) {
      shape = info.tensor_shape();
    } else if (node->attr().count("_output_shapes") && port < node->attr().at("_output_shapes").list().shape_size()) {
      shape = node->attr().at("_output_shapes").list().shape(port);
    } else if ((node->op() == "Placeholder" || node->op() == "PlaceholderWithDefault") && node->attr().count("shape")) {
      shape = node->attr().at("shape").shape();
    }
    if (port == 0 && (node->op() == "Placeholder" || node->op() == "PlaceholderWithDefault")) {
      node->set_op("Placeholder");  // the default value is not needed: the input is always fed
      node->clear_input();
    } else {
      // A computed tensor (x = Identity(ParseExample:0) in TF1 serving graphs): a new Placeholder takes its
      // readers; the producer is pruned below unless something else needs it.
      placeholder = key;
      for (int k = 1; index.count(placeholder); ++k) placeholder = key + "_" + std::to_string(k);
      index[placeholder] = graph.node_size();
      for (auto& n : *graph.mutable_node()) {
        for (auto& in : *n.mutable_input()) {
          if (!in.empty() && in[0] != '^' && SplitTensorName(in) == std::make_pair(node_name, port)) in = placeholder;
        }
      }
      node = graph.add_node();
      node->set_name(placeholder);
      node->set_op("Placeholder");
    }
    auto& attr = *node->mutable_attr();
    attr["dtype"].set_type(static_cast<tfpb::DataType>(info.dtype() % 100));
    if (shape) {
      *attr["shape"].mutable_shape() = *shape;
    } else {
      attr["shape"].mutable_shape()->set_unknown_rank(true);
    }
    sig_inputs[key] = {{"name", placeholder + ":0"}};
    out.input_keys[placeholder + ":0"] = key;
  }
  std::vector<std::string> roots;
  std::set<std::string> output_tensors;
  for (const auto& [key, info] : sig.outputs()) {
    if (info.name().empty()) return Unsupported(where + ": output '" + key + "' is a sparse or composite tensor");
    auto [node_name, port] = SplitTensorName(info.name());
    if (!index.count(node_name)) {
      return InvalidArgument(where + ": output '" + key + "' names no node ('" + info.name() + "')");
    }
    const std::string tensor = node_name + ":" + std::to_string(port);
    if (!output_tensors.insert(tensor).second) continue;  // two keys for one tensor: the first names it
    sig_outputs[key] = {{"name", tensor}};
    out.output_keys[tensor] = key;
    roots.push_back(node_name);
  }

  // Pruning: only what the outputs read (data inputs; control dependencies are dropped).
  std::set<std::string> keep;
  std::vector<std::string> stack = roots;
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (!keep.insert(name).second) continue;
    auto it = index.find(name);
    if (it == index.end()) return InvalidArgument(where + ": the graph reads '" + name + "', which no node defines");
    for (const auto& in : graph.node(it->second).input()) {
      if (!in.empty() && in[0] != '^') stack.push_back(SplitTensorName(in).first);
    }
  }
  tfpb::GraphDef pruned;
  *pruned.mutable_versions() = graph.versions();
  *pruned.mutable_library() = graph.library();
  for (const auto& n : graph.node()) {
    if (!keep.count(n.name())) continue;
    tfpb::NodeDef* copy = pruned.add_node();
    *copy = n;
    copy->clear_input();
    for (const auto& in : n.input()) {
      if (!in.empty() && in[0] != '^') copy->add_input(in);
    }
  }

  // Variables: the checkpoint's values, under the variable's name (TF1) or its object-graph path (TF2, found through
  // the function calls that capture it).
  std::optional<TensorBundle> bundle;
  const std::string prefix = (fs::path(dir) / "variables" / "variables").string();
  std::map<std::string, std::string> var_keys;                                       // variable node -> checkpoint key
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> captured_args;  // function -> (arg, variable)
  bool has_variables = false;
  for (const auto& n : pruned.node()) has_variables |= IsVariableOp(n.op());
  if (has_variables) {
    if (!fs::exists(prefix + ".index", ec)) {
      return InvalidArgument(where + ": the graph reads variables, but there is no variables/variables.index");
    }
    ONYX_ASSIGN_OR_RETURN(TensorBundle b, TensorBundle::Open(prefix));
    bundle = std::move(b);
    ONYX_ASSIGN_OR_RETURN(auto by_object, VariableKeysByObject(mg->object_graph_def(), *bundle, pb_path));
    const auto& functions = mg->object_graph_def().concrete_functions();
    for (const auto& n : pruned.node()) {
      if (!IsCallOp(n.op()) || !n.attr().count("f")) continue;
      const std::string& f = n.attr().at("f").func().name();
      auto cf = functions.find(f);
      if (cf == functions.end()) continue;
      const auto& bound = cf->second.bound_inputs();
      if (bound.size() > n.input_size()) {
        return InvalidArgument(where + ": node '" + n.name() + "' calls '" + f +
                               "' with fewer inputs than it captures");
      }
      const size_t first = n.input_size() - bound.size();  // captures come after the caller's arguments
      for (int k = 0; k < bound.size(); ++k) {
        auto key = by_object.find(bound[k]);
        if (key == by_object.end()) continue;  // an asset or resource, not a variable
        const std::string var = SplitTensorName(n.input(first + k)).first;
        auto [it, added] = var_keys.emplace(var, key->second);
        if (!added && it->second != key->second) {
          return InvalidArgument(where + ": variable node '" + var + "' is captured as both '" + it->second +
                                 "' and '" + key->second + "'");
        }
        captured_args[f].push_back({first + k, var});
      }
    }
  }
  std::map<std::string, tfpb::DataType> var_types;
  for (auto& n : *pruned.mutable_node()) {
    if (!IsVariableOp(n.op())) continue;
    auto k = var_keys.find(n.name());
    const std::string key = k != var_keys.end() ? k->second : n.name();
    if (!bundle->Contains(key)) {
      return NotFound(where + ": variable '" + n.name() + "' (" + n.op() + ") has no value in " + prefix +
                      ".index (looked for '" + key + "')");
    }
    auto value = bundle->Read(key);
    if (!value.ok()) return value.status().WithContext("variable '" + n.name() + "'");
    const tfpb::DataType dtype = static_cast<tfpb::DataType>(bundle->entries().at(key).dtype % 100);
    var_types[n.name()] = dtype;
    out.weights[n.name()] = std::move(value).value();
    n.set_op("Const");
    n.clear_input();
    n.clear_attr();
    (*n.mutable_attr())["dtype"].set_type(dtype);
  }
  // Reading a variable that is now a constant: an Identity. The calls' input types follow the captured values.
  for (auto& n : *pruned.mutable_node()) {
    if (n.op() == "ReadVariableOp") {
      tfpb::AttrValue dtype = n.attr().count("dtype") ? n.attr().at("dtype") : tfpb::AttrValue();
      n.set_op("Identity");
      n.clear_attr();
      (*n.mutable_attr())["T"] = dtype;
    } else if (IsCallOp(n.op()) && n.attr().count("Tin")) {
      auto* types = (*n.mutable_attr())["Tin"].mutable_list()->mutable_type();
      for (int k = 0; k < n.input_size() && k < types->size(); ++k) {
        auto t = var_types.find(SplitTensorName(n.input(k)).first);
        if (t != var_types.end()) types->Set(k, t->second);
      }
    }
  }

  std::string text;
  if (!google::protobuf::util::MessageToJsonString(pruned, &text, {}).ok()) {
    return Internal(pb_path + ": the graph cannot be printed as JSON");
  }
  json topology = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (topology.is_discarded()) return Internal(pb_path + ": the graph's JSON does not parse back");
  // Function bodies: ReadVariableOp -> Identity, and the captured arguments typed as the values they now receive.
  if (topology.contains("library") && topology["library"].contains("function") &&
      topology["library"]["function"].is_array()) {
    for (auto& f : topology["library"]["function"]) {
      if (!f.is_object()) continue;
      if (f.contains("nodeDef") && f["nodeDef"].is_array()) {
        for (auto& n : f["nodeDef"]) {
          if (!n.is_object() || n.value("op", std::string()) != "ReadVariableOp") continue;
          json attr = json::object();
          if (n.contains("attr") && n["attr"].contains("dtype")) attr["T"] = n["attr"]["dtype"];
          n["op"] = "Identity";
          n["attr"] = attr;
        }
      }
      if (!f.contains("signature") || !f["signature"].is_object()) continue;
      auto captured = captured_args.find(f["signature"].value("name", std::string()));
      if (captured == captured_args.end() || !f["signature"].contains("inputArg")) continue;
      json& args = f["signature"]["inputArg"];
      for (const auto& [pos, var] : captured->second) {
        if (args.is_array() && pos < args.size() && args[pos].is_object()) {
          args[pos]["type"] = tfpb::DataType_Name(var_types.at(var));
        }
      }
    }
  }
  out.root = {{"format", "graph-model"},
              {"modelTopology", std::move(topology)},
              {"signature", {{"inputs", sig_inputs}, {"outputs", sig_outputs}}}};
  return out;
}

namespace {

// Renames value `from` to `to` everywhere in `graph` (producer, readers, graph inputs/outputs, initializers, value
// infos); a value already named `to` is first moved to a fresh name.
void RenameValue(ir::Graph& graph, const std::string& from, const std::string& to) {
  if (from == to) return;
  auto rename = [&graph](const std::string& a, const std::string& b) {
    ir::ReplaceAllUses(graph, a, b);
    for (auto& n : graph.nodes) {
      for (auto& o : n.outputs) {
        if (o == a) o = b;
      }
    }
    for (auto* list : {&graph.inputs, &graph.outputs, &graph.value_info}) {
      for (auto& vi : *list) {
        if (vi.name == a) vi.name = b;
      }
    }
    for (auto& t : graph.initializers) {
      if (t.name == a) t.name = b;
    }
  };
  if (ir::UniqueValueName(graph, to) != to) rename(to, ir::UniqueValueName(graph, to + "_"));
  rename(from, to);
}

}  // namespace

Result<ir::Model> ConvertSavedModel(const std::string& dir, const SavedModelOptions& options, TfConvertReport* report) {
  ONYX_ASSIGN_OR_RETURN(SavedModelGraph g, ReadSavedModel(dir, options));
  ONYX_ASSIGN_OR_RETURN(ir::Model model, ConvertGraphJson(g.root, std::move(g.weights), dir, {options.opset}, report));
  // Inputs and outputs named by the signature's keys, as TensorFlow Serving names them (a key that would take a
  // name already given to another input or output leaves that one its TensorFlow name).
  std::set<std::string> given;
  for (const auto* keys : {&g.input_keys, &g.output_keys}) {
    for (const auto& [tensor, key] : *keys) {
      if (given.count(key) || given.count(tensor)) continue;
      RenameValue(model.graph, tensor, key);
      given.insert(key);
    }
  }
  return model;
}

}  // namespace onyx::convert::tf
