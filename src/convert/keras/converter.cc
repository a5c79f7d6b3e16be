// The model walk: Sequential and Functional configs (nested models included) are traversed in dependency
// order; every layer call is handed to its family's converter with the ONNX values of its inputs. Before any
// conversion, every layer is checked for a converter, so that one error lists all unsupported layers.
#include "convert/keras/converter.h"

#include <algorithm>
#include <map>
#include <new>
#include <set>

#include "convert/common/tensor_layout.h"
#include "convert/common/transpose_optimizer.h"
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"
#include "convert/keras/limits.h"
#include "ir/graph_edit.h"
#include "onyx_version.h"

namespace onyx::convert::keras {

namespace {

using json = nlohmann::json;

bool IsModelClass(const std::string& c) { return c == "Sequential" || c == "Functional" || c == "Model"; }

std::string ClassOf(const json& layer) {
  return layer.is_object() && layer.contains("class_name") && layer["class_name"].is_string()
             ? layer["class_name"].get<std::string>()
             : std::string();
}

const json& ConfigOf(const json& layer) {
  static const json kEmpty = json::object();
  return layer.is_object() && layer.contains("config") && layer["config"].is_object() ? layer["config"] : kEmpty;
}

std::string NameOf(const json& layer) {
  const json& cfg = ConfigOf(layer);
  if (cfg.contains("name") && cfg["name"].is_string()) return cfg["name"];
  if (layer.is_object() && layer.contains("name") && layer["name"].is_string()) return layer["name"];
  return "";
}

// The layers list of a Sequential or Functional config (old Sequential configs are the list itself).
const json& LayersOf(const json& model) {
  static const json kEmpty = json::array();
  if (model.is_object() && model.contains("config")) {
    const json& c = model["config"];
    if (c.is_array()) return c;
    if (c.is_object() && c.contains("layers") && c["layers"].is_array()) return c["layers"];
  }
  return kEmpty;
}

// `depth`: how many models enclose `model` (0 at the top); the walk refuses nesting over MaxModelNesting() before
// the converter's own recursion over the same models could overflow the stack.
Status CollectUnsupported(const json& model, int64_t depth, std::vector<std::string>* out) {
  ONYX_RETURN_IF_ERROR(CheckModelNesting(depth, "model '" + NameOf(model) + "'"));
  for (const auto& layer : LayersOf(model)) {
    const std::string cls = ClassOf(layer);
    if (IsModelClass(cls)) {
      ONYX_RETURN_IF_ERROR(CollectUnsupported(layer, depth + 1, out));
      continue;
    }
    if (cls == "InputLayer") continue;
    if (!FindLayerConverter(cls)) {
      out->push_back("'" + NameOf(layer) + "' (" + (cls.empty() ? "no class_name" : cls) + ")");
      continue;
    }
    // Wrappers: their inner layer must be convertible too.
    const json& cfg = ConfigOf(layer);
    if ((cls == "Bidirectional" || cls == "TimeDistributed") && cfg.contains("layer")) {
      const std::string inner = ClassOf(cfg["layer"]);
      if (!FindLayerConverter(inner) ||
          (cls == "Bidirectional" && inner != "LSTM" && inner != "GRU" && inner != "SimpleRNN")) {
        out->push_back("'" + NameOf(layer) + "' (" + cls + " of " + (inner.empty() ? "?" : inner) + ")");
      }
    }
  }
  return Status::Ok();
}

struct Ref {
  std::string layer;
  int64_t node = 0;
  int64_t tensor = 0;
};

bool IsKeras3Tensor(const json& j) {
  return j.is_object() && j.contains("class_name") && j["class_name"] == "__keras_tensor__" && j.contains("config") &&
         j["config"].is_object() && j["config"].contains("keras_history") && j["config"]["keras_history"].is_array();
}

std::optional<Ref> RefOf(const json& j) {
  const json* h = nullptr;
  if (IsKeras3Tensor(j)) {
    h = &j["config"]["keras_history"];
  } else if (j.is_array() && j.size() >= 3 && j[0].is_string() && j[1].is_number_integer() &&
             j[2].is_number_integer()) {
    h = &j;
  }
  if (!h || h->size() < 3 || !(*h)[0].is_string() || !(*h)[1].is_number_integer() || !(*h)[2].is_number_integer()) {
    return std::nullopt;
  }
  return Ref{(*h)[0].get<std::string>(), (*h)[1].get<int64_t>(), (*h)[2].get<int64_t>()};
}

// Tensor references found anywhere inside a Keras 3 call argument, in order.
void FindRefs(const json& j, std::vector<Ref>* out) {
  if (auto r = RefOf(j); r && IsKeras3Tensor(j)) {
    out->push_back(*r);
    return;
  }
  if (j.is_array() || j.is_object()) {
    for (const auto& e : j) FindRefs(e, out);
  }
}

struct CallSpec {
  std::vector<Ref> args;
  std::map<std::string, std::vector<Ref>> kwargs;
  json options = json::object();  // keyword arguments that are not tensors (use_causal_mask, ...)
};

Result<CallSpec> ParseInboundNode(const json& node, const std::string& where) {
  CallSpec spec;
  if (node.is_object()) {  // Keras 3: {"args": [...], "kwargs": {...}}
    if (node.contains("args")) FindRefs(node["args"], &spec.args);
    if (node.contains("kwargs") && node["kwargs"].is_object()) {
      for (const auto& [k, v] : node["kwargs"].items()) {
        if (k == "mask" || k == "training") continue;
        std::vector<Ref> refs;
        FindRefs(v, &refs);
        if (!refs.empty()) {
          spec.kwargs[k] = refs;
        } else {
          spec.options[k] = v;
        }
      }
    }
    return spec;
  }
  if (!node.is_array()) return InvalidArgument(where + ": an inbound node is neither a list nor an object");
  for (const auto& entry : node) {  // Keras 2: [[layer, node, tensor, kwargs], ...]
    auto r = RefOf(entry);
    if (!r) return InvalidArgument(where + ": an inbound node entry is not [layer, node, tensor, kwargs]");
    spec.args.push_back(*r);
    if (entry.size() >= 4 && entry[3].is_object()) {
      for (const auto& [k, v] : entry[3].items()) {
        if (k == "mask" || k == "training") continue;
        std::vector<Ref> refs;
        if (auto single = RefOf(v)) {
          refs.push_back(*single);
        } else if (v.is_array()) {
          for (const auto& e : v) {
            if (auto rr = RefOf(e)) refs.push_back(*rr);
          }
        }
        if (refs.empty()) FindRefs(v, &refs);
        if (!refs.empty()) {
          spec.kwargs[k] = refs;
        } else {
          spec.options[k] = v;
        }
      }
    }
  }
  return spec;
}

// input_layers / output_layers: [[name, node, tensor], ...] or a single [name, node, tensor].
std::vector<Ref> EndpointRefs(const json& cfg, const std::string& key) {
  std::vector<Ref> out;
  if (!cfg.contains(key) || !cfg[key].is_array()) return out;
  const json& v = cfg[key];
  if (auto single = RefOf(v)) return {*single};
  for (const auto& e : v) {
    if (auto r = RefOf(e)) out.push_back(*r);
  }
  return out;
}

class Walker {
 public:
  explicit Walker(Context& ctx) : ctx_(ctx) {}

  // Converts a model; `given` are the inputs of a nested model call, null at the top (graph inputs are made).
  Result<std::vector<KTensor>> RunModel(const json& model, const std::vector<KTensor>* given) {
    const std::string cls = ClassOf(model);
    if (cls == "Sequential") return RunSequential(model, given);
    return RunFunctional(model, given);
  }

 private:
  Result<KTensor> MakeGraphInput(const json& layer_cfg, const std::string& name, const std::string& where) {
    std::vector<int64_t> shape;
    const char* keys[] = {"batch_input_shape", "batch_shape"};
    bool found = false;
    for (const char* k : keys) {
      if (HasNonNull(layer_cfg, k)) {
        ONYX_ASSIGN_OR_RETURN(shape, GetIntList(layer_cfg, k, where));
        found = true;
        break;
      }
    }
    if (!found) return InvalidArgument(where + ": the model's input has no batch_input_shape / batch_shape");
    DataType type = DataType::kFloat;
    const std::string dtype = GetStringOr(layer_cfg, "dtype", "float32");
    if (dtype == "int32") {
      type = DataType::kInt32;
    } else if (dtype == "int64") {
      type = DataType::kInt64;
    } else if (dtype != "float32" && layer_cfg.contains("dtype") && layer_cfg["dtype"].is_string()) {
      return Unsupported(where + ": input dtype '" + dtype + "' is not supported");
    }
    ir::ValueInfo vi;
    vi.name = name;
    std::vector<ir::Dim> dims;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i == 0) {
        dims.push_back(ctx_.options.batch ? ir::Dim::Value(*ctx_.options.batch) : ir::Dim::Param("batch"));
        shape[0] = ctx_.options.batch ? *ctx_.options.batch : -1;
      } else if (shape[i] < 0) {
        dims.push_back(ir::Dim::Param(name + "_dim" + std::to_string(i)));
      } else {
        dims.push_back(ir::Dim::Value(shape[i]));
      }
    }
    const auto& nchw = ctx_.options.inputs_as_nchw;
    const bool as_nchw = std::find(nchw.begin(), nchw.end(), name) != nchw.end();
    if (as_nchw) {
      if (shape.size() < 3) {
        return InvalidArgument("--inputs-as-nchw: input '" + name + "' has rank " + std::to_string(shape.size()) +
                               "; only inputs of rank >= 3 have channels to move");
      }
      std::vector<ir::Dim> first;
      for (int64_t p : ToChannelsFirst(static_cast<int64_t>(dims.size()))) first.push_back(dims[size_t(p)]);
      dims = std::move(first);
    }
    vi.type = ir::TypeInfo::Tensor(type, dims);
    ctx_.b.graph().inputs.push_back(vi);
    ctx_.b.Reserve(name);
    nchw_inputs_found_.insert(name);
    if (as_nchw) return KTensor{ToChannelsLastValue(ctx_, name, int64_t(shape.size()), name), shape, type};
    return KTensor{name, shape, type};
  }

  Result<std::vector<KTensor>> RunSequential(const json& model, const std::vector<KTensor>* given) {
    const json& layers = LayersOf(model);
    const std::string where = "model '" + NameOf(model) + "' (Sequential)";
    if (layers.empty()) return InvalidArgument(where + ": no layers");
    std::vector<KTensor> cur;
    size_t first = 0;
    if (given) {
      cur = *given;
    } else {
      const json& l0 = layers[0];
      const json& cfg0 = ConfigOf(l0);
      const bool is_input = ClassOf(l0) == "InputLayer";
      const std::string name = is_input ? NameOf(l0) : NameOf(l0) + "_input";
      ONYX_ASSIGN_OR_RETURN(KTensor in, MakeGraphInput(cfg0, name, where));
      cur = {in};
    }
    for (size_t i = first; i < layers.size(); ++i) {
      if (ClassOf(layers[i]) == "InputLayer") continue;
      ONYX_ASSIGN_OR_RETURN(cur, RunLayer(layers[i], cur, {}, json::object()));
      if (cur.empty()) return Internal(where + ": layer '" + NameOf(layers[i]) + "' produced nothing");
      cur.resize(1);  // a Sequential passes on the first output
    }
    return cur;
  }

  Result<std::vector<KTensor>> RunFunctional(const json& model, const std::vector<KTensor>* given) {
    const json& cfg = ConfigOf(model);
    const json& layers = LayersOf(model);
    const std::string where = "model '" + NameOf(model) + "' (" + ClassOf(model) + ")";
    std::map<std::string, const json*> by_name;
    for (const auto& l : layers) by_name[NameOf(l)] = &l;
    // Which node indices each layer is referenced by; used to map them onto positions in its inbound_nodes list
    // (some writers number the nodes of a shared nested model from 1).
    std::map<std::string, std::set<int64_t>> referenced;
    std::vector<std::vector<CallSpec>> calls(layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
      const json& l = layers[i];
      if (!l.contains("inbound_nodes") || !l["inbound_nodes"].is_array()) continue;
      for (const auto& node : l["inbound_nodes"]) {
        ONYX_ASSIGN_OR_RETURN(CallSpec spec, ParseInboundNode(node, where + ", layer '" + NameOf(l) + "'"));
        for (const auto& r : spec.args) referenced[r.layer].insert(r.node);
        for (const auto& [k, refs] : spec.kwargs) {
          for (const auto& r : refs) referenced[r.layer].insert(r.node);
        }
        calls[i].push_back(std::move(spec));
      }
    }
    const std::vector<Ref> ins = EndpointRefs(cfg, "input_layers"), outs = EndpointRefs(cfg, "output_layers");
    for (const auto& r : outs) referenced[r.layer].insert(r.node);
    std::map<std::string, std::map<int64_t, int64_t>> node_pos;
    for (const auto& [layer, idx] : referenced) {
      auto it = by_name.find(layer);
      if (it == by_name.end()) return InvalidArgument(where + ": a connection refers to unknown layer '" + layer + "'");
      const json& l = *it->second;
      const int64_t count = l.contains("inbound_nodes") && l["inbound_nodes"].is_array()
                                ? static_cast<int64_t>(l["inbound_nodes"].size())
                                : 1;
      int64_t k = 0;
      for (int64_t n : idx) node_pos[layer][n] = (*idx.rbegin() < std::max<int64_t>(count, 1)) ? n : k++;
    }
    std::map<std::pair<std::string, int64_t>, std::vector<KTensor>> produced;
    if (given && given->size() != ins.size()) {
      return InvalidArgument(where + ": called with " + std::to_string(given->size()) + " inputs, has " +
                             std::to_string(ins.size()));
    }
    for (size_t i = 0; i < ins.size(); ++i) {
      auto it = by_name.find(ins[i].layer);
      if (it == by_name.end()) return InvalidArgument(where + ": unknown input layer '" + ins[i].layer + "'");
      if (given) {
        produced[{ins[i].layer, 0}] = {(*given)[i]};
      } else {
        ONYX_ASSIGN_OR_RETURN(KTensor t, MakeGraphInput(ConfigOf(*it->second), ins[i].layer, where));
        produced[{ins[i].layer, 0}] = {t};
      }
    }
    auto lookup = [&](const Ref& r) -> const KTensor* {
      auto np = node_pos[r.layer].find(r.node);
      const int64_t pos = np == node_pos[r.layer].end() ? r.node : np->second;
      auto it = produced.find({r.layer, pos});
      if (it == produced.end() || r.tensor < 0 || r.tensor >= static_cast<int64_t>(it->second.size())) return nullptr;
      return &it->second[static_cast<size_t>(r.tensor)];
    };
    std::vector<std::pair<size_t, size_t>> pending;
    for (size_t i = 0; i < layers.size(); ++i) {
      if (ClassOf(layers[i]) == "InputLayer") continue;
      for (size_t n = 0; n < calls[i].size(); ++n) pending.emplace_back(i, n);
    }
    while (!pending.empty()) {
      bool progress = false;
      for (auto it = pending.begin(); it != pending.end();) {
        const auto [li, ni] = *it;
        const CallSpec& spec = calls[li][ni];
        std::vector<KTensor> args;
        std::map<std::string, std::vector<KTensor>> kwargs;
        bool ready = true;
        for (const auto& r : spec.args) {
          const KTensor* t = lookup(r);
          if (!t) {
            ready = false;
            break;
          }
          args.push_back(*t);
        }
        for (const auto& [k, refs] : spec.kwargs) {
          for (const auto& r : refs) {
            const KTensor* t = ready ? lookup(r) : nullptr;
            if (!t) {
              ready = false;
              break;
            }
            kwargs[k].push_back(*t);
          }
        }
        if (!ready) {
          ++it;
          continue;
        }
        ONYX_ASSIGN_OR_RETURN(auto outs_t, RunLayer(layers[li], args, kwargs, spec.options));
        produced[{NameOf(layers[li]), static_cast<int64_t>(ni)}] = std::move(outs_t);
        it = pending.erase(it);
        progress = true;
      }
      if (!progress) {
        return InvalidArgument(where + ": layer '" + NameOf(layers[pending[0].first]) +
                               "' waits for inputs nothing produces (a cycle or a missing layer)");
      }
    }
    std::vector<KTensor> result;
    for (const auto& r : outs) {
      const KTensor* t = lookup(r);
      if (!t) return InvalidArgument(where + ": output '" + r.layer + "' is not produced");
      result.push_back(*t);
    }
    return result;
  }

  Result<std::vector<KTensor>> RunLayer(const json& layer, const std::vector<KTensor>& inputs,
                                        const std::map<std::string, std::vector<KTensor>>& kwargs,
                                        const json& options) {
    const std::string cls = ClassOf(layer);
    if (IsModelClass(cls)) return RunModel(layer, &inputs);
    LayerFn fn = FindLayerConverter(cls);
    const std::string name = NameOf(layer);
    if (!fn) return Unsupported("layer '" + name + "' (" + cls + ") is not supported");
    static const std::vector<Weight> kNoWeights;
    auto w = ctx_.file.weights.find(name);
    LayerCall call{
        cls, name, ConfigOf(layer), inputs, kwargs, w == ctx_.file.weights.end() ? &kNoWeights : &w->second, options};
    ctx_.b.set_doc("Keras layer '" + name + "' (" + cls + ")");
    ctx_.layers_converted++;
    ONYX_ASSIGN_OR_RETURN(std::vector<KTensor> outs, fn(ctx_, call));
    ONYX_RETURN_IF_ERROR(PassOnMask(call, &outs));
    return outs;
  }

  // Keras masks flow from Masking / Embedding(mask_zero) through the layers that keep them (Keras's
  // supports_masking with compute_mask returning the input's mask); merge layers AND them. Layers that use a mask
  // take it from their inputs themselves (recurrent layers, attention, GlobalAveragePooling1D) and refuse what
  // they cannot express; every other layer ends the mask, as in Keras 3.
  Status PassOnMask(const LayerCall& c, std::vector<KTensor>* outs) {
    static const std::set<std::string> kKeep = {"Dense",
                                                "Activation",
                                                "ReLU",
                                                "LeakyReLU",
                                                "PReLU",
                                                "ELU",
                                                "ThresholdedReLU",
                                                "Dropout",
                                                "SpatialDropout1D",
                                                "GaussianDropout",
                                                "GaussianNoise",
                                                "AlphaDropout",
                                                "Rescaling",
                                                "TimeDistributed",
                                                "BatchNormalization",
                                                "LayerNormalization",
                                                "ActivityRegularization"};
    static const std::set<std::string> kMerge = {"Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"};
    // Concatenate on the feature axis combines masks as the merge layers do (an unmasked input counts as all
    // true); on another axis the masks would be concatenated, which is not converted.
    const int64_t concat_axis = GetIntOr(c.config, "axis", -1);
    const bool concat_features = c.class_name == "Concatenate" && !c.inputs.empty() &&
                                 (concat_axis == -1 || concat_axis == c.inputs[0].rank() - 1);
    if (c.class_name == "Concatenate" && !concat_features) {
      for (const auto& in : c.inputs) {
        if (!in.mask.empty()) {
          return Unsupported(c.Where() + ": concatenating along axis " + std::to_string(concat_axis) +
                             " a tensor masked by '" + in.mask_origin + "' is not converted");
        }
      }
    }
    const bool merges = kMerge.count(c.class_name) || concat_features;
    if (!kKeep.count(c.class_name) && !merges) return Status::Ok();  // the layer used the masks itself, or ends them
    std::string mask, origin;
    for (const auto& in : c.inputs) {
      if (in.mask.empty()) continue;
      if (mask.empty()) {
        mask = in.mask;
        origin = in.mask_origin;
      } else if (in.mask != mask) {
        if (!merges) {
          return Unsupported(c.Where() + ": inputs with different Keras masks (from '" + origin + "' and '" +
                             in.mask_origin + "') are not converted");
        }
        mask = ctx_.b.Op1("And", {mask, in.mask}, c.name + "/mask_and");
        origin += "' and '" + in.mask_origin;
      }
    }
    if (mask.empty()) return Status::Ok();
    for (auto& o : *outs) {
      if (o.mask.empty() && o.rank() >= 2 && o.shape[1] == c.inputs[0].shape[1]) {
        o.mask = mask;
        o.mask_origin = origin;
      }
    }
    return Status::Ok();
  }

  Context& ctx_;

 public:
  std::set<std::string> nchw_inputs_found_;  // every graph input made, to check --inputs-as-nchw names
};

// The names the graph outputs get: the output layers' names (made unique).
std::vector<std::string> OutputNames(const json& model) {
  std::vector<std::string> names;
  if (ClassOf(model) == "Sequential") {
    const json& layers = LayersOf(model);
    if (!layers.empty()) names.push_back(NameOf(layers[layers.size() - 1]));
  } else {
    for (const auto& r : EndpointRefs(ConfigOf(model), "output_layers")) {
      names.push_back(r.tensor == 0 ? r.layer : r.layer + "_" + std::to_string(r.tensor));
    }
  }
  std::set<std::string> seen;
  for (auto& n : names) {
    std::string base = n.empty() ? "output" : n;
    n = base;
    for (int k = 1; seen.count(n); ++k) n = base + "_" + std::to_string(k);
    seen.insert(n);
  }
  return names;
}

Status ConvertInto(const KerasModelFile& file, const ConvertOptions& options, ir::Model* m, ConvertReport* report) {
  const std::string cls = ClassOf(file.model);
  if (!IsModelClass(cls)) {
    return Unsupported(file.path + ": the model class '" + cls +
                       "' is not Sequential or Functional (subclassed "
                       "models have no config to convert)");
  }
  std::vector<std::string> unsupported;
  if (Status st = CollectUnsupported(file.model, 0, &unsupported); !st.ok()) return st.WithContext(file.path);
  if (!unsupported.empty()) {
    std::string msg = file.path + ": " + std::to_string(unsupported.size()) + " unsupported layer" +
                      (unsupported.size() > 1 ? "s" : "") + ": ";
    for (size_t i = 0; i < unsupported.size(); ++i) msg += (i ? ", " : "") + unsupported[i];
    return Unsupported(msg);
  }
  GraphBuilder b(&m->graph);
  const std::vector<std::string> out_names = OutputNames(file.model);
  for (const auto& n : out_names) b.Reserve(n);
  Context ctx{b, file, options};
  Walker walker(ctx);
  auto outs = walker.RunModel(file.model, nullptr);
  if (!outs.ok()) return outs.status().WithContext(file.path);
  if (outs->size() != out_names.size()) {
    return Internal(file.path + ": " + std::to_string(outs->size()) + " outputs for " +
                    std::to_string(out_names.size()) + " output layers");
  }
  b.set_doc("");
  std::set<std::string> graph_inputs;
  for (const auto& in : m->graph.inputs) graph_inputs.insert(in.name);
  for (const auto& n : options.inputs_as_nchw) {
    if (!walker.nchw_inputs_found_.count(n)) {
      std::string have;
      for (const auto& in : m->graph.inputs) have += (have.empty() ? "'" : ", '") + in.name + "'";
      return InvalidArgument("--inputs-as-nchw: the model has no input '" + n + "' (inputs: " + have + ")");
    }
  }
  for (const auto& n : options.outputs_as_nchw) {
    if (std::find(out_names.begin(), out_names.end(), n) == out_names.end()) {
      std::string have;
      for (const auto& o : out_names) have += (have.empty() ? "'" : ", '") + o + "'";
      return InvalidArgument("--outputs-as-nchw: the model has no output '" + n + "' (outputs: " + have + ")");
    }
  }
  std::set<std::string> renamed;
  for (size_t i = 0; i < outs->size(); ++i) {
    KTensor t = (*outs)[i];
    const std::string& want = out_names[i];
    const bool as_nchw = std::find(options.outputs_as_nchw.begin(), options.outputs_as_nchw.end(), want) !=
                         options.outputs_as_nchw.end();
    if (as_nchw) {
      if (t.rank() < 3) {
        return InvalidArgument("--outputs-as-nchw: output '" + want + "' has rank " + std::to_string(t.rank()) +
                               "; only outputs of rank >= 3 have channels to move");
      }
      t.value = ToChannelsFirstValue(ctx, t, want);
      std::vector<int64_t> first;
      for (int64_t p : ToChannelsFirst(t.rank())) first.push_back(t.shape[size_t(p)]);
      t.shape = std::move(first);
    }
    const int producer = ir::FindProducer(m->graph, t.value);
    if (producer >= 0 && !graph_inputs.count(t.value) && !renamed.count(t.value) &&
        !m->graph.FindInitializer(t.value)) {
      ir::ReplaceAllUses(m->graph, t.value, want);
      for (auto& o : m->graph.nodes[static_cast<size_t>(producer)].outputs) {
        if (o == t.value) o = want;
      }
      renamed.insert(want);
    } else {
      b.OpTo("Identity", {t.value}, {want}, want);
    }
    ir::ValueInfo vi;
    vi.name = want;
    std::vector<ir::Dim> dims;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (d == 0) {
        dims.push_back(options.batch ? ir::Dim::Value(*options.batch) : ir::Dim::Param("batch"));
      } else {
        dims.push_back(t.shape[d] >= 0 ? ir::Dim::Value(t.shape[d]) : ir::Dim{});
      }
    }
    vi.type = ir::TypeInfo::Tensor(t.type, dims);
    m->graph.outputs.push_back(vi);
  }
  const TransposeStats ts = OptimizeTransposes(m->graph);
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(m->graph));
  if (report) {
    report->layers = ctx.layers_converted;
    report->nodes = static_cast<int>(m->graph.nodes.size());
    report->transposes_before = ts.before;
    report->transposes_after = ts.after;
  }
  return Status::Ok();
}

}  // namespace

Result<ir::Model> ConvertKerasModel(const KerasModelFile& file, const ConvertOptions& options, ConvertReport* report) {
  if (options.opset < 13 || options.opset > 21) {
    return InvalidArgument("opset " + std::to_string(options.opset) + " is outside the supported 13..21");
  }
  if (options.batch && *options.batch <= 0) return InvalidArgument("batch size must be positive");
  ir::Model m;
  m.ir_version = options.opset >= 21 ? 10 : options.opset >= 19 ? 9 : 8;
  m.opset_import.push_back({"", options.opset});
  m.producer_name = "onyx";
  m.producer_version = ONYX_VERSION_STRING;
  m.graph.name = NameOf(file.model).empty() ? "keras_model" : NameOf(file.model);
  m.doc_string = "Converted by onyx from a " + std::string(SourceFormatName(file.format)) +
                 (file.keras_version.empty() ? "" : " (keras_version " + file.keras_version + ")");
  // The configs are checked for types as they are read; this guards the converter against any read that slipped
  // through (nlohmann::json reports a wrong type by throwing).
  try {
    ONYX_RETURN_IF_ERROR(ConvertInto(file, options, &m, report));
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(file.path + ": malformed Keras config (" + e.what() + ")");
  }
  return m;
}

Result<ir::Model> ConvertKerasFile(const std::string& path, const ConvertOptions& options, ConvertReport* report) {
  // The readers check every size a file claims against the bytes it holds before allocating; this is the backstop
  // for an allocation that still fails (a real model larger than this machine's memory): an error, not an abort.
  try {
    ONYX_ASSIGN_OR_RETURN(KerasModelFile file, ReadKerasModel(path));
    return ConvertKerasModel(file, options, report);
  } catch (const std::bad_alloc&) {
    return InvalidArgument(path + ": out of memory while reading or converting the model");
  }
}

}  // namespace onyx::convert::keras
