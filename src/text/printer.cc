#include "text/printer.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <string_view>

#include "text/lexer.h"

namespace onyx::text {
namespace {

using ir::AttrType;

// Names that read as something else where a name may stand are quoted: type names (an untyped value named
// "float" would read as a type) and the float words (a graph attribute named "inf" would read as a number).
bool NeedsQuotes(std::string_view s) {
  if (!IsIdentifier(s)) return true;
  if (DataTypeFromName(s).ok()) return true;
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "seq" || lower == "map" || lower == "optional" || lower == "sparse_tensor" || lower == "opaque" ||
         lower == "inf" || lower == "infinity" || lower == "nan" || lower == "true" || lower == "false";
}

template <typename F>
std::string FormatFloat(F v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  // A '.' keeps the value a float when read back without a type ("alpha = 2.0", not the integer 2).
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool IsListAttr(AttrType t) {
  return t == AttrType::kFloats || t == AttrType::kInts || t == AttrType::kStrings || t == AttrType::kTensors ||
         t == AttrType::kGraphs || t == AttrType::kSparseTensors || t == AttrType::kTypeProtos;
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string Take() { return std::move(out_); }

  void Id(std::string_view s) {
    if (NeedsQuotes(s)) {
      Quoted(s);
    } else {
      out_ += s;
    }
  }

  void Quoted(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ += '"';
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\r':
          out_ += "\\r";
          break;
        default:
          if (u < 0x20 || u == 0x7f) {
            out_ += "\\x";
            out_ += kHex[u >> 4];
            out_ += kHex[u & 0xf];
          } else {
            out_ += c;
          }
      }
    }
    out_ += '"';
  }

  void Indent(int depth) { out_.append(static_cast<size_t>(depth) * 2, ' '); }

  template <typename Seq, typename F>
  void Join(const Seq& items, std::string_view sep, F&& each) {
    bool first = true;
    for (const auto& item : items) {
      if (!first) out_ += sep;
      first = false;
      each(item);
    }
  }

  void Dim(const ir::Dim& d) {
    if (d.is_value()) {
      out_ += std::to_string(d.value);
    } else if (d.is_param()) {
      Id(d.param);
    } else {
      out_ += '?';
    }
  }

  void TensorTypeTail(const std::optional<std::vector<ir::Dim>>& shape) {
    if (!shape) {
      out_ += "[]";
    } else if (!shape->empty()) {
      out_ += '[';
      Join(*shape, ", ", [&](const ir::Dim& d) { Dim(d); });
      out_ += ']';
    }
  }

  void Type(const ir::TypeInfo& t) {
    using Kind = ir::TypeInfo::Kind;
    auto elem = [&] {
      if (t.elem) {
        Type(*t.elem);
      } else {
        out_ += "undefined";
      }
    };
    switch (t.kind) {
      case Kind::kTensor:
        out_ += DataTypeName(t.elem_type);
        TensorTypeTail(t.shape);
        return;
      case Kind::kSparseTensor:
        out_ += "sparse_tensor(";
        out_ += DataTypeName(t.elem_type);
        TensorTypeTail(t.shape);
        out_ += ')';
        return;
      case Kind::kSequence:
        out_ += "seq(";
        elem();
        out_ += ')';
        return;
      case Kind::kOptional:
        out_ += "optional(";
        elem();
        out_ += ')';
        return;
      case Kind::kMap:
        out_ += "map(";
        out_ += DataTypeName(t.elem_type);
        out_ += ", ";
        elem();
        out_ += ')';
        return;
      case Kind::kOpaque:
        out_ += "opaque(";
        if (!t.opaque_domain.empty()) out_ += t.opaque_domain + ", ";
        out_ += t.opaque_name;
        out_ += ')';
        return;
      case Kind::kUndefined:
        break;
    }
    out_ += "undefined";
  }

  void TensorValues(const Tensor& t) {
    const int64_t n = t.size();
    if (n > 0 && t.raw() == nullptr) {
      out_ += "{...}";
      return;
    }
    int64_t shown = n;
    if (options_.max_elements >= 0 && n > options_.max_elements) shown = options_.max_elements;
    out_ += '{';
    for (int64_t i = 0; i < shown; ++i) {
      if (i) out_ += ", ";
      Element(t, i);
    }
    if (shown < n) out_ += shown > 0 ? ", ..." : "...";
    out_ += '}';
  }

  void Element(const Tensor& t, int64_t i) {
    const auto k = static_cast<size_t>(i);
    DataType dtype = t.type();
    switch (dtype) {
      case DataType::kString:
        Quoted(t.data<std::string>()[k]);
        return;
      case DataType::kBool:
        out_ += t.data<bool>()[k] ? '1' : '0';
        return;
      case DataType::kFloat:
        out_ += FormatFloat(t.data<float>()[k]);
        return;
      case DataType::kDouble:
        out_ += FormatFloat(t.data<double>()[k]);
        return;
      case DataType::kFloat16:
        out_ += FormatFloat(static_cast<float>(t.data<Float16>()[k]));
        return;
      case DataType::kBFloat16:
        out_ += FormatFloat(static_cast<float>(t.data<BFloat16>()[k]));
        return;
      case DataType::kComplex64: {
        auto c = t.data<std::complex<float>>()[k];
        out_ += FormatFloat(c.real()) + ", " + FormatFloat(c.imag());
        return;
      }
      case DataType::kComplex128: {
        auto c = t.data<std::complex<double>>()[k];
        out_ += FormatFloat(c.real()) + ", " + FormatFloat(c.imag());
        return;
      }
      case DataType::kInt8:
        out_ += std::to_string(t.data<int8_t>()[k]);
        return;
      case DataType::kInt16:
        out_ += std::to_string(t.data<int16_t>()[k]);
        return;
      case DataType::kInt32:
        out_ += std::to_string(t.data<int32_t>()[k]);
        return;
      case DataType::kInt64:
        out_ += std::to_string(t.data<int64_t>()[k]);
        return;
      case DataType::kUint8:
        out_ += std::to_string(t.data<uint8_t>()[k]);
        return;
      case DataType::kUint16:
        out_ += std::to_string(t.data<uint16_t>()[k]);
        return;
      case DataType::kUint32:
        out_ += std::to_string(t.data<uint32_t>()[k]);
        return;
      case DataType::kUint64:
        out_ += std::to_string(t.data<uint64_t>()[k]);
        return;
      default:
        break;
    }
    const auto* bytes = static_cast<const uint8_t*>(t.raw());
    if (IsSubByte(dtype)) {
      int bits = DataTypeBits(dtype);
      size_t per_byte = static_cast<size_t>(8 / bits);
      unsigned shift = static_cast<unsigned>((k % per_byte) * static_cast<size_t>(bits));
      int v = (bytes[k / per_byte] >> shift) & ((1 << bits) - 1);
      if (IsSignedInteger(dtype) && v >= (1 << (bits - 1))) v -= (1 << bits);
      out_ += std::to_string(v);
      return;
    }
    // float8 types and anything else one byte wide: the bit pattern.
    out_ += std::to_string(bytes[k]);
  }

  // `float[2] name = {...}` for initializers, `float[2] name {...}` / `float[2] {...}` in attributes.
  void TensorLiteral(const ir::NamedTensor& nt, bool initializer) {
    const onyx::Tensor& t = nt.tensor;
    out_ += DataTypeName(t.type());
    if (t.rank() > 0) {
      out_ += '[';
      Join(t.shape(), ", ", [&](int64_t d) { out_ += std::to_string(d); });
      out_ += ']';
    }
    if (!nt.name.empty()) {
      out_ += ' ';
      Id(nt.name);
    }
    out_ += initializer ? " = " : " ";
    if (!nt.external_data.empty()) {
      StringPairs(nt.external_data);
    } else {
      TensorValues(t);
    }
  }

  void StringPairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
    out_ += '[';
    Join(pairs, ", ", [&](const auto& kv) {
      Quoted(kv.first);
      out_ += ": ";
      Quoted(kv.second);
    });
    out_ += ']';
  }

  void Opsets(const std::vector<ir::OpsetId>& opsets) {
    out_ += '[';
    Join(opsets, ", ", [&](const ir::OpsetId& o) {
      Quoted(o.domain);
      out_ += " : " + std::to_string(o.version);
    });
    out_ += ']';
  }

  void ValueInfo(const ir::ValueInfo& vi) {
    if (vi.type && vi.type->kind != ir::TypeInfo::Kind::kUndefined) {
      Type(*vi.type);
      out_ += ' ';
    }
    Id(vi.name);
  }

  void Attribute(const ir::Attribute& a, int depth) {
    Id(a.name);
    bool empty_list = IsListAttr(a.type) && a.floats.empty() && a.ints.empty() && a.strings.empty() &&
                      a.tensors.empty() && a.graphs.empty() && a.sparse_tensors.empty() && a.type_protos.empty();
    bool annotate = !a.ref_attr_name.empty()
                        ? a.type != AttrType::kUndefined
                        : empty_list || a.type == AttrType::kSparseTensor || a.type == AttrType::kSparseTensors;
    if (annotate) {
      out_ += ": ";
      out_ += ir::AttrTypeName(a.type);
    }
    out_ += " = ";
    if (!a.ref_attr_name.empty()) {
      out_ += '@';
      Id(a.ref_attr_name);
      return;
    }
    auto list = [&](const auto& items, auto&& each) {
      out_ += '[';
      Join(items, ", ", each);
      out_ += ']';
    };
    switch (a.type) {
      case AttrType::kFloat:
        out_ += FormatFloat(a.f);
        return;
      case AttrType::kInt:
        out_ += std::to_string(a.i);
        return;
      case AttrType::kString:
        Quoted(a.s);
        return;
      case AttrType::kTensor:
        TensorLiteral(a.t, false);
        return;
      case AttrType::kGraph:
        Graph(a.g ? *a.g : ir::Graph{}, depth, true);
        return;
      case AttrType::kSparseTensor:
        Quoted(a.sparse_tensor);
        return;
      case AttrType::kTypeProto:
        Type(a.tp ? *a.tp : ir::TypeInfo{});
        return;
      case AttrType::kFloats:
        list(a.floats, [&](float f) { out_ += FormatFloat(f); });
        return;
      case AttrType::kInts:
        list(a.ints, [&](int64_t i) { out_ += std::to_string(i); });
        return;
      case AttrType::kStrings:
        list(a.strings, [&](const std::string& s) { Quoted(s); });
        return;
      case AttrType::kTensors:
        list(a.tensors, [&](const ir::NamedTensor& t) { TensorLiteral(t, false); });
        return;
      case AttrType::kGraphs:
        list(a.graphs, [&](const std::shared_ptr<ir::Graph>& g) { Graph(g ? *g : ir::Graph{}, depth, true); });
        return;
      case AttrType::kSparseTensors:
        list(a.sparse_tensors, [&](const std::string& s) { Quoted(s); });
        return;
      case AttrType::kTypeProtos:
        list(a.type_protos, [&](const ir::TypeInfo& t) { Type(t); });
        return;
      case AttrType::kUndefined:
        break;
    }
    out_ += "undefined";
  }

  // One node without indentation or newline; `depth` is the indentation of its line (for subgraphs).
  void Node(const ir::Node& n, int depth) {
    if (!n.name.empty()) {
      out_ += '[';
      Id(n.name);
      out_ += "] ";
    }
    Join(n.outputs, ", ", [&](const std::string& o) { Id(o); });
    out_ += n.outputs.empty() ? "= " : " = ";
    if (!n.domain.empty()) out_ += n.domain + ".";
    out_ += n.op_type;
    if (!n.overload.empty()) {
      out_ += ':';
      Id(n.overload);
    }
    bool has_graph = false;
    for (const auto& a : n.attributes) has_graph |= a.type == AttrType::kGraph || a.type == AttrType::kGraphs;
    auto attrs = [&] {
      out_ += '<';
      Join(n.attributes, ", ", [&](const ir::Attribute& a) { Attribute(a, depth); });
      out_ += '>';
    };
    if (!has_graph && !n.attributes.empty()) attrs();
    out_ += '(';
    Join(n.inputs, ", ", [&](const std::string& i) { Id(i); });
    out_ += ')';
    if (has_graph) {
      out_ += ' ';
      attrs();
    }
  }

  void Nodes(const std::vector<ir::Node>& nodes, int depth) {
    if (nodes.empty()) {
      out_ += "{}";
      return;
    }
    out_ += "{\n";
    for (const auto& n : nodes) {
      Indent(depth + 1);
      Node(n, depth + 1);
      out_ += '\n';
    }
    Indent(depth);
    out_ += '}';
  }

  // Nested graphs (attribute values) open their node list on the same line; top-level ones on the next.
  void Graph(const ir::Graph& g, int depth, bool nested) {
    Id(g.name);
    out_ += " (";
    Join(g.inputs, ", ", [&](const ir::ValueInfo& vi) { ValueInfo(vi); });
    out_ += ") => (";
    Join(g.outputs, ", ", [&](const ir::ValueInfo& vi) { ValueInfo(vi); });
    out_ += ')';
    bool has_list = !g.initializers.empty() || !g.value_info.empty();
    if (has_list) {
      if (nested) {
        out_ += ' ';
      } else {
        out_ += '\n';
        Indent(depth + 1);
      }
      out_ += '<';
      Join(g.initializers, ", ", [&](const ir::NamedTensor& t) { TensorLiteral(t, true); });
      if (!g.initializers.empty() && !g.value_info.empty()) out_ += ", ";
      Join(g.value_info, ", ", [&](const ir::ValueInfo& vi) { ValueInfo(vi); });
      out_ += '>';
    }
    if (nested) {
      out_ += ' ';
    } else {
      out_ += '\n';
      Indent(depth);
    }
    Nodes(g.nodes, depth);
  }

  void Function(const ir::Function& f) {
    out_ += "<\n  domain: ";
    Quoted(f.domain);
    if (!f.overload.empty()) {
      out_ += ",\n  overload: ";
      Quoted(f.overload);
    }
    out_ += ",\n  opset_import: ";
    Opsets(f.opset_import);
    if (!f.doc_string.empty()) {
      out_ += ",\n  doc_string: ";
      Quoted(f.doc_string);
    }
    if (!f.metadata_props.empty()) {
      out_ += ",\n  metadata_props: ";
      StringPairs(f.metadata_props);
    }
    out_ += "\n>\n";
    Id(f.name);
    out_ += ' ';
    if (!f.attributes.empty() || !f.attribute_defaults.empty()) {
      out_ += '<';
      Join(f.attributes, ", ", [&](const std::string& a) { Id(a); });
      if (!f.attributes.empty() && !f.attribute_defaults.empty()) out_ += ", ";
      Join(f.attribute_defaults, ", ", [&](const ir::Attribute& a) { Attribute(a, 0); });
      out_ += "> ";
    }
    out_ += '(';
    Join(f.inputs, ", ", [&](const std::string& i) { Id(i); });
    out_ += ") => (";
    Join(f.outputs, ", ", [&](const std::string& o) { Id(o); });
    out_ += ")\n";
    if (!f.value_info.empty()) {
      out_ += "  <";
      Join(f.value_info, ", ", [&](const ir::ValueInfo& vi) { ValueInfo(vi); });
      out_ += ">\n";
    }
    Nodes(f.nodes, 0);
    out_ += '\n';
  }

  void Model(const ir::Model& m) {
    out_ += "<\n  ir_version: " + std::to_string(m.ir_version) + ",\n  opset_import: ";
    Opsets(m.opset_import);
    auto str = [&](const char* key, const std::string& v) {
      if (v.empty()) return;
      out_ += ",\n  ";
      out_ += key;
      out_ += ": ";
      Quoted(v);
    };
    str("producer_name", m.producer_name);
    str("producer_version", m.producer_version);
    str("domain", m.domain);
    if (m.model_version != 0) out_ += ",\n  model_version: " + std::to_string(m.model_version);
    str("doc_string", m.doc_string);
    if (!m.metadata_props.empty()) {
      out_ += ",\n  metadata_props: ";
      StringPairs(m.metadata_props);
    }
    out_ += "\n>\n";
    Graph(m.graph, 0, false);
    out_ += '\n';
    for (const auto& f : m.functions) {
      out_ += '\n';
      Function(f);
    }
  }

 private:
  PrintOptions options_;
  std::string out_;
};

}  // namespace

std::string PrintModel(const ir::Model& model, const PrintOptions& options) {
  Printer p(options);
  p.Model(model);
  return p.Take();
}

std::string PrintGraph(const ir::Graph& graph, const PrintOptions& options) {
  Printer p(options);
  p.Graph(graph, 0, false);
  return p.Take() + "\n";
}

std::string PrintNode(const ir::Node& node, const PrintOptions& options) {
  Printer p(options);
  p.Node(node, 0);
  return p.Take();
}

std::string PrintFunction(const ir::Function& function, const PrintOptions& options) {
  Printer p(options);
  p.Function(function);
  return p.Take();
}

std::string PrintType(const ir::TypeInfo& type) {
  Printer p(PrintOptions{});
  p.Type(type);
  return p.Take();
}

std::string PrintTensor(const ir::NamedTensor& tensor, const PrintOptions& options) {
  Printer p(options);
  p.TensorLiteral(tensor, !tensor.name.empty());
  return p.Take();
}

}  // namespace onyx::text
