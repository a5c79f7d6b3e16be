#include "visualize/graph_dot.h"

#include <cstdio>
#include <deque>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "schema/op_schema.h"
#include "visualize/dot_text.h"
#include "visualize/op_category.h"
#include "visualize/value_types.h"

namespace onyx::visualize {

namespace {

// Small text under a node's operator: its name, domain, attributes and weights.
constexpr const char* kSmallFont = R"(<FONT POINT-SIZE="9" COLOR="#444444">)";
constexpr size_t kMaxNameChars = 40;
constexpr size_t kMaxAttributeLines = 6;
constexpr size_t kMaxListElements = 8;
constexpr size_t kMaxWeightLines = 6;
constexpr int64_t kMaxShownValues = 6;  // tensors this small show their values instead of their shape

std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

template <typename T, typename F>
std::string FormatList(const std::vector<T>& values, F format) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i == kMaxListElements) {
      s += ",…(" + std::to_string(values.size()) + ")";
      break;
    }
    if (i) s += ",";
    s += format(values[i]);
  }
  return s + "]";
}

std::string DimsText(const Shape& shape) {
  std::string s = "⟨";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "×";
    s += std::to_string(shape[i]);
  }
  return s + "⟩";
}

bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}
bool IsIntType(DataType t) {
  return t == DataType::kInt64 || t == DataType::kInt32 || t == DataType::kInt16 || t == DataType::kInt8 ||
         t == DataType::kUint8 || t == DataType::kUint16 || t == DataType::kUint32 || t == DataType::kBool;
}

// "⟨64×3×7×7⟩" for weights, "=[0,0,12,64]" or "=0.5" for the small constants that shape computations read.
std::string TensorText(const Tensor& t) {
  const bool numeric = IsFloatType(t.type()) || IsIntType(t.type());
  // External data the parser left unloaded has no bytes to show.
  if (!numeric || t.raw() == nullptr || t.size() > kMaxShownValues || t.rank() > 1) return DimsText(t.shape());
  std::vector<std::string> values;
  for (int64_t i = 0; i < t.size(); ++i) {
    values.push_back(IsFloatType(t.type()) ? FormatDouble(t.DoubleAt(i)) : std::to_string(t.IntAt(i)));
  }
  if (t.rank() == 0) return "=" + values[0];
  return "=" + FormatList(values, [](const std::string& v) { return v; });
}

std::string AttributeText(const ir::Attribute& a) {
  switch (a.type) {
    case ir::AttrType::kInt:
      return std::to_string(a.i);
    case ir::AttrType::kFloat:
      return FormatDouble(a.f);
    case ir::AttrType::kString:
      return Truncate(SanitizeUtf8(a.s), 24);
    case ir::AttrType::kInts:
      return FormatList(a.ints, [](int64_t v) { return std::to_string(v); });
    case ir::AttrType::kFloats:
      return FormatList(a.floats, [](float v) { return FormatDouble(v); });
    case ir::AttrType::kStrings:
      return FormatList(a.strings, [](const std::string& v) { return Truncate(SanitizeUtf8(v), 12); });
    case ir::AttrType::kTensor:
      return TensorText(a.t.tensor);
    default:
      return "(" + std::string(ir::AttrTypeName(a.type)) + ")";
  }
}

bool HasSubgraphs(const ir::Node& node) {
  for (const auto& a : node.attributes) {
    if (a.g || !a.graphs.empty()) return true;
  }
  return false;
}

struct Edge {
  std::string from, to, value;
  bool outer = false;  // a subgraph reading a value of an enclosing graph
};

// One graph's names: which DOT node produces each value, which values are initializers.
struct Scope {
  const Scope* parent = nullptr;
  std::unordered_map<std::string, std::string> producers;
  std::unordered_map<std::string, const ir::NamedTensor*> initializers;
};

// A Constant node's value, when the picture shows it inside its consumers' boxes as Netron does (one box per Constant
// turned PP-OCR's 471-node graph into a PNG 4,481 px wide): a numeric value_* form whose output is not a graph output.
std::optional<Tensor> FoldableConstant(const ir::Node& node, const std::unordered_set<std::string>& graph_outputs) {
  if (node.op_type != "Constant" || !node.domain.empty() || node.outputs.size() != 1 ||
      graph_outputs.count(node.outputs[0])) {
    return std::nullopt;
  }
  for (const auto& a : node.attributes) {
    if (a.name == "value" && a.type == ir::AttrType::kTensor) return a.t.tensor;
    if (a.name == "value_float" && a.type == ir::AttrType::kFloat) return Tensor::Scalar<float>(a.f);
    if (a.name == "value_int" && a.type == ir::AttrType::kInt) return Tensor::Scalar<int64_t>(a.i);
    if (a.name == "value_floats" && a.type == ir::AttrType::kFloats) {
      return Tensor::FromVector<float>(a.floats, {static_cast<int64_t>(a.floats.size())});
    }
    if (a.name == "value_ints" && a.type == ir::AttrType::kInts) {
      return Tensor::FromVector<int64_t>(a.ints, {static_cast<int64_t>(a.ints.size())});
    }
  }
  return std::nullopt;
}

class DotWriter {
 public:
  DotWriter(const ir::Model& model, const DotOptions& options,
            const std::unordered_map<std::string, std::string>* types)
      : model_(model), options_(options), types_(types) {}

  std::string Write() {
    out_ += "digraph onyx {\n";
    out_ += "  graph [rankdir=" + options_.rankdir +
            R"(, charset="UTF-8", fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, )"
            R"(bgcolor="white", labelloc="t")";
    if (!model_.graph.name.empty()) out_ += ", label=<<B>" + HtmlText(model_.graph.name, 80) + "</B>>";
    out_ += "];\n";
    out_ += R"(  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, )"
            R"(margin="0.12,0.04", height=0.3, penwidth=1];)"
            "\n";
    out_ += R"(  edge [color="#555555", arrowsize=0.6, fontname="Helvetica", fontsize=9, fontcolor="#444444"];)"
            "\n";
    WriteGraph(model_.graph, nullptr, 1);
    for (const auto& e : edges_) {
      out_ += "  " + e.from + " -> " + e.to + " [tooltip=" + Quoted(e.value);
      if (const std::string* type = TypeOf(e.value)) out_ += ", label=" + Quoted(" " + *type + " ");
      if (e.outer) out_ += R"(, style=dashed, color="#8a7fa8")";
      out_ += "];\n";
    }
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // The type to label `value` with (--shapes); null when unknown or not asked for.
  const std::string* TypeOf(const std::string& value) const {
    if (!types_) return nullptr;
    auto it = types_->find(value);
    return it == types_->end() ? nullptr : &it->second;
  }

  std::string NewId(const char* prefix) { return prefix + std::to_string(next_id_++); }

  void Line(int depth, const std::string& text) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }

  // The DOT node producing `name` and whether it lies in an enclosing graph; or the initializer it names.
  struct Source {
    std::string producer;
    const ir::NamedTensor* initializer = nullptr;
    bool outer = false;
  };
  static Source Resolve(const Scope& scope, const std::string& name) {
    bool outer = false;
    for (const Scope* s = &scope; s; s = s->parent, outer = true) {
      if (auto it = s->producers.find(name); it != s->producers.end()) return {it->second, nullptr, outer};
      if (auto it = s->initializers.find(name); it != s->initializers.end()) return {"", it->second, outer};
    }
    return {};
  }

  std::string ValueLabel(const ir::ValueInfo& vi) {
    // Inference merges what it finds into the declared type, so its version is the more specific one.
    std::string type;
    if (const std::string* inferred = TypeOf(vi.name)) {
      type = *inferred;
    } else if (vi.type && vi.type->kind != ir::TypeInfo::Kind::kUndefined) {
      type = vi.type->ToShortString();
    }
    std::string label = "<<B>" + HtmlText(vi.name, kMaxNameChars) + "</B>";
    if (!type.empty()) label += "<BR/>" + std::string(kSmallFont) + HtmlText(type, 60) + "</FONT>";
    return label + ">";
  }

  void WriteValueNode(int depth, const std::string& id, const ir::ValueInfo& vi, bool input) {
    Line(depth, id + " [shape=ellipse, style=filled, fillcolor=\"" + (input ? "#e3efe0" : "#f6ecd6") + "\", color=\"" +
                    (input ? "#4a7a3a" : "#8a6d2a") + "\", label=" + ValueLabel(vi) +
                    ", tooltip=" + Quoted(std::string(input ? "input " : "output ") + vi.name) + "];");
  }

  // The formal name of a node's index-th input ("W" for Conv's second) for labelling weights.
  std::string FormalInputName(const ir::Node& node, size_t index) {
    auto version = model_.OpsetVersion(node.domain);
    if (!version) return "";
    const schema::OpSchema* s = schema::ResolveSchema(ir::CanonicalDomain(node.domain), node.op_type, *version);
    if (!s) return "";
    const schema::FormalParameter* f = s->InputFormal(index);
    return f ? f->name : "";
  }

  std::string NodeLabel(const ir::Node& node, const std::vector<std::pair<size_t, const ir::NamedTensor*>>& weights) {
    std::string label = "<<B>" + HtmlText(node.op_type, kMaxNameChars) + "</B>";
    auto small = [&](const std::string& escaped) { label += "<BR/>" + std::string(kSmallFont) + escaped + "</FONT>"; };
    if (ir::CanonicalDomain(node.domain) != "ai.onnx") small("<I>" + HtmlText(node.domain, kMaxNameChars) + "</I>");
    if (!node.name.empty()) small(HtmlText(node.name, kMaxNameChars));
    size_t shown = 0, skipped = 0;
    for (const auto& a : node.attributes) {
      if (a.type == ir::AttrType::kGraph || a.type == ir::AttrType::kGraphs) continue;  // drawn as clusters
      if (shown == kMaxAttributeLines) {
        ++skipped;
        continue;
      }
      std::string value = a.ref_attr_name.empty() ? AttributeText(a) : "@" + a.ref_attr_name;
      small(HtmlText(a.name, 24) + "=" + HtmlText(value, 48));
      ++shown;
    }
    if (skipped) small("… " + std::to_string(skipped) + " more attributes");
    for (size_t k = 0; k < weights.size(); ++k) {
      if (k == kMaxWeightLines) {
        small("… " + std::to_string(weights.size() - k) + " more weights");
        break;
      }
      const auto& [index, t] = weights[k];
      std::string name = FormalInputName(node, index);
      if (name.empty()) name = t->name;
      small(HtmlText(name, 24) + HtmlText(TensorText(t->tensor), 48));
    }
    return label + ">";
  }

  std::string NodeTooltip(const ir::Node& node) {
    std::string tip = node.name.empty() ? node.op_type : node.name + " (" + node.op_type + ")";
    auto list = [&](const char* title, const std::vector<std::string>& names) {
      tip += std::string("\n") + title;
      for (size_t i = 0; i < names.size(); ++i) {
        if (i == 16) {
          tip += " …";
          break;
        }
        tip += (i ? ", " : " ") + (names[i].empty() ? std::string("(none)") : Truncate(names[i], 80));
      }
    };
    list("in:", node.inputs);
    list("out:", node.outputs);
    return tip;
  }

  void WriteNode(const ir::Node& node, const std::string& id, Scope& scope, int depth) {
    std::vector<std::pair<size_t, const ir::NamedTensor*>> weights;
    std::unordered_set<std::string> linked;  // Add(x, x) draws one edge
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& in = node.inputs[i];
      if (in.empty()) continue;
      Source src = Resolve(scope, in);
      if (src.initializer) {
        if (options_.initializers) weights.emplace_back(i, src.initializer);
        continue;
      }
      if (src.producer.empty()) src.producer = Missing(scope, in, depth);
      if (linked.insert(in).second) edges_.push_back({src.producer, id, in, src.outer});
    }
    CategoryStyle style = StyleOf(CategoryOf(node.op_type));
    Line(depth, id + " [label=" + NodeLabel(node, weights) + ", fillcolor=\"" + style.fill + "\", color=\"" +
                    style.border + "\", tooltip=" + Quoted(NodeTooltip(node)) + "];");
  }

  // A value nothing in scope produces (a broken model, or a parser-built test graph): drawn as a dashed box so
  // that the problem shows instead of vanishing.
  std::string Missing(Scope& scope, const std::string& name, int depth) {
    std::string id = NewId("x");
    scope.producers[name] = id;
    Line(depth, id + R"( [shape=box, style=dashed, color="#aa3333", fontcolor="#aa3333", label=<)" +
                    HtmlText(name, kMaxNameChars) + "<BR/>" + kSmallFont + "(no producer)</FONT>>];");
    return id;
  }

  // A node with subgraphs: a cluster holding the node's box and one cluster per body.
  void WriteControlNode(const ir::Node& node, const std::string& id, Scope& scope, int depth) {
    CategoryStyle style = StyleOf(CategoryOf(node.op_type));
    Line(depth, "subgraph cluster_" + id + " {");
    Line(depth + 1, std::string(R"(style="rounded,filled"; fillcolor="#faf8fd"; color=")") + style.border +
                        R"("; penwidth=1; fontsize=10; label="";)");
    WriteNode(node, id, scope, depth + 1);
    for (const auto& a : node.attributes) {
      std::vector<const ir::Graph*> bodies;
      if (a.g) bodies.push_back(a.g.get());
      for (const auto& g : a.graphs) {
        if (g) bodies.push_back(g.get());
      }
      for (size_t k = 0; k < bodies.size(); ++k) {
        std::string title = a.name + (bodies.size() > 1 ? "[" + std::to_string(k) + "]" : "");
        Line(depth + 1, "subgraph cluster_" + id + "_" + std::to_string(cluster_count_++) + " {");
        std::string label = "label=<<I>" + HtmlText(title, kMaxNameChars) + "</I>>;";
        Line(depth + 2, R"(style="rounded,dashed"; color="#8a7fa8"; fillcolor="#ffffff"; fontsize=10; )" + label);
        WriteGraph(*bodies[k], &scope, depth + 2);
        Line(depth + 1, "}");
      }
    }
    Line(depth, "}");
  }

  void WriteGraph(const ir::Graph& graph, const Scope* parent, int depth) {
    Scope scope;
    scope.parent = parent;
    for (const auto& t : graph.initializers) scope.initializers[t.name] = &t;
    for (const auto& vi : graph.inputs) {
      if (scope.initializers.count(vi.name)) continue;  // IR < 4 lists initializers as inputs too
      std::string id = NewId("i");
      scope.producers[vi.name] = id;
      WriteValueNode(depth, id, vi, /*input=*/true);
    }
    // Constants are drawn inside their consumers' boxes, like initializers (unless initializers are hidden).
    std::unordered_set<std::string> graph_outputs;
    for (const auto& vi : graph.outputs) graph_outputs.insert(vi.name);
    std::vector<bool> folded(graph.nodes.size(), false);
    if (options_.initializers) {
      for (size_t k = 0; k < graph.nodes.size(); ++k) {
        if (auto value = FoldableConstant(graph.nodes[k], graph_outputs)) {
          ir::NamedTensor& c = constants_.emplace_back();
          c.name = graph.nodes[k].outputs[0];
          c.tensor = std::move(*value);
          scope.initializers[c.name] = &c;
          folded[k] = true;
        }
      }
    }
    // Ids first, so that edges resolve whatever order the nodes come in.
    std::vector<std::string> ids;
    ids.reserve(graph.nodes.size());
    for (size_t k = 0; k < graph.nodes.size(); ++k) {
      ids.push_back(NewId("n"));
      if (folded[k]) continue;
      for (const auto& out : graph.nodes[k].outputs) {
        if (!out.empty()) scope.producers[out] = ids.back();
      }
    }
    for (size_t k = 0; k < graph.nodes.size(); ++k) {
      if (folded[k]) continue;
      if (HasSubgraphs(graph.nodes[k])) {
        WriteControlNode(graph.nodes[k], ids[k], scope, depth);
      } else {
        WriteNode(graph.nodes[k], ids[k], scope, depth);
      }
    }
    for (const auto& vi : graph.outputs) {
      std::string id = NewId("o");
      WriteValueNode(depth, id, vi, /*input=*/false);
      Source src = Resolve(scope, vi.name);
      if (!src.producer.empty()) edges_.push_back({src.producer, id, vi.name, src.outer});
    }
  }

  const ir::Model& model_;
  const DotOptions& options_;
  const std::unordered_map<std::string, std::string>* types_;
  std::string out_;
  std::vector<Edge> edges_;
  std::deque<ir::NamedTensor> constants_;  // folded Constant values (stable addresses for Scope::initializers)
  int next_id_ = 0;
  int cluster_count_ = 0;
};

}  // namespace

size_t CountNodes(const ir::Graph& graph) {
  size_t n = graph.nodes.size();
  for (const auto& node : graph.nodes) {
    for (const auto& a : node.attributes) {
      if (a.g) n += CountNodes(*a.g);
      for (const auto& g : a.graphs) {
        if (g) n += CountNodes(*g);
      }
    }
  }
  return n;
}

Result<std::string> ModelToDot(const ir::Model& model, const DotOptions& options) {
  const std::string& r = options.rankdir;
  if (r != "TB" && r != "LR" && r != "BT" && r != "RL") {
    return InvalidArgument("rankdir '" + r + "' is not one of TB, LR, BT, RL");
  }
  std::unordered_map<std::string, std::string> types;
  if (options.shapes) types = CollectValueTypes(model, options.warnings);
  DotWriter writer(model, options, options.shapes ? &types : nullptr);
  return writer.Write();
}

}  // namespace onyx::visualize
