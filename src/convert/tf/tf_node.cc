#include "convert/tf/tf_node.h"

namespace onyx::convert::tf {
namespace {

// proto3-JSON writes int64 as a string; plain numbers are accepted too.
Result<int64_t> JsonInt(const nlohmann::json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0' && errno == 0) return static_cast<int64_t>(n);
  }
  return InvalidArgument(where + ": expected an integer, got " + v.dump());
}

}  // namespace

Result<std::string> DecodeBase64(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) return InvalidArgument("invalid base64 text '" + text.substr(0, 40) + "'");
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

Result<DataType> DataTypeFromTf(const std::string& dt) {
  if (dt == "DT_FLOAT") return DataType::kFloat;
  if (dt == "DT_DOUBLE") return DataType::kDouble;
  if (dt == "DT_HALF") return DataType::kFloat16;
  if (dt == "DT_INT32") return DataType::kInt32;
  if (dt == "DT_INT64") return DataType::kInt64;
  if (dt == "DT_INT8") return DataType::kInt8;
  if (dt == "DT_UINT8") return DataType::kUint8;
  if (dt == "DT_INT16") return DataType::kInt16;
  if (dt == "DT_UINT16") return DataType::kUint16;
  if (dt == "DT_UINT32") return DataType::kUint32;
  if (dt == "DT_UINT64") return DataType::kUint64;
  if (dt == "DT_BFLOAT16") return DataType::kBFloat16;
  if (dt == "DT_BOOL") return DataType::kBool;
  if (dt == "DT_STRING") return DataType::kString;
  return Unsupported("TensorFlow type '" + dt + "' is not supported");
}

Result<TfNode> ParseNode(const nlohmann::json& node) {
  if (!node.is_object() || !node.contains("name") || !node["name"].is_string() || !node.contains("op") ||
      !node["op"].is_string()) {
    return InvalidArgument("a graph node lacks 'name' or 'op'");
  }
  TfNode n;
  n.name = node["name"];
  n.op = node["op"];
  if (auto in = node.find("input"); in != node.end()) {
    if (!in->is_array()) return InvalidArgument(n.Where() + ": 'input' is not a list");
    for (const auto& i : *in) {
      if (!i.is_string()) return InvalidArgument(n.Where() + ": an input is not a string");
      const std::string& s = i.get_ref<const std::string&>();
      if (!s.empty() && s[0] != '^') n.inputs.push_back(s);
    }
  }
  if (auto a = node.find("attr"); a != node.end()) {
    if (!a->is_object()) return InvalidArgument(n.Where() + ": 'attr' is not an object");
    n.attr = &*a;
  }
  return n;
}

bool TfNode::Has(const std::string& key) const { return attr != nullptr && attr->contains(key); }

Result<int64_t> TfNode::Int(const std::string& key) const {
  if (!Has(key) || !(*attr)[key].contains("i"))
    return InvalidArgument(Where() + ": no integer attribute '" + key + "'");
  return JsonInt((*attr)[key]["i"], Where() + " attribute '" + key + "'");
}

int64_t TfNode::IntOr(const std::string& key, int64_t fallback) const {
  auto v = Int(key);
  return v.ok() ? *v : fallback;
}

float TfNode::FloatOr(const std::string& key, float fallback) const {
  if (!Has(key) || !(*attr)[key].contains("f") || !(*attr)[key]["f"].is_number()) return fallback;
  return (*attr)[key]["f"].get<float>();
}

bool TfNode::BoolOr(const std::string& key, bool fallback) const {
  if (!Has(key) || !(*attr)[key].contains("b") || !(*attr)[key]["b"].is_boolean()) return fallback;
  return (*attr)[key]["b"].get<bool>();
}

Result<std::string> TfNode::String(const std::string& key) const {
  if (!Has(key) || !(*attr)[key].contains("s") || !(*attr)[key]["s"].is_string()) {
    return InvalidArgument(Where() + ": no string attribute '" + key + "'");
  }
  auto s = DecodeBase64((*attr)[key]["s"].get<std::string>());
  if (!s.ok()) return s.status().WithContext(Where() + " attribute '" + key + "'");
  return s;
}

std::string TfNode::StringOr(const std::string& key, const std::string& fallback) const {
  auto s = String(key);
  return s.ok() ? *s : fallback;
}

Result<std::vector<int64_t>> TfNode::Ints(const std::string& key) const {
  std::vector<int64_t> out;
  if (!Has(key)) return out;
  const nlohmann::json& a = (*attr)[key];
  if (!a.is_object()) return InvalidArgument(Where() + ": attribute '" + key + "' is not an object");
  if (!a.contains("list")) return out;
  const nlohmann::json& list = a["list"];
  if (!list.is_object())
    return InvalidArgument(Where() + ": attribute '" + key + "' has a 'list' that is not an object");
  if (!list.contains("i")) return out;
  if (!list["i"].is_array()) return InvalidArgument(Where() + ": attribute '" + key + "' is not a list of integers");
  for (const auto& v : list["i"]) {
    ONYX_ASSIGN_OR_RETURN(int64_t i, JsonInt(v, Where() + " attribute '" + key + "'"));
    out.push_back(i);
  }
  return out;
}

Result<std::vector<std::string>> TfNode::Strings(const std::string& key) const {
  std::vector<std::string> out;
  if (!Has(key)) return out;
  const nlohmann::json& a = (*attr)[key];
  if (!a.is_object()) return InvalidArgument(Where() + ": attribute '" + key + "' is not an object");
  if (!a.contains("list")) return out;
  const nlohmann::json& list = a["list"];
  if (!list.is_object())
    return InvalidArgument(Where() + ": attribute '" + key + "' has a 'list' that is not an object");
  if (!list.contains("s")) return out;
  if (!list["s"].is_array()) return InvalidArgument(Where() + ": attribute '" + key + "' is not a list of strings");
  for (const auto& v : list["s"]) {
    if (!v.is_string()) return InvalidArgument(Where() + ": attribute '" + key + "' holds a non-string");
    ONYX_ASSIGN_OR_RETURN(std::string s, DecodeBase64(v.get<std::string>()));
    out.push_back(std::move(s));
  }
  return out;
}

Result<DataType> TfNode::Type(const std::string& key) const {
  if (!Has(key) || !(*attr)[key].contains("type") || !(*attr)[key]["type"].is_string()) {
    return InvalidArgument(Where() + ": no type attribute '" + key + "'");
  }
  auto t = DataTypeFromTf((*attr)[key]["type"].get<std::string>());
  if (!t.ok()) return t.status().WithContext(Where());
  return t;
}

Result<std::vector<int64_t>> TfNode::Shape(const std::string& key, bool* known) const {
  *known = false;
  std::vector<int64_t> dims;
  if (!Has(key) || !(*attr)[key].contains("shape")) return dims;
  const auto& shape = (*attr)[key]["shape"];
  if (!shape.is_object())
    return InvalidArgument(Where() + ": attribute '" + key + "' has a 'shape' that is not an object");
  if (shape.contains("unknownRank")) {
    if (!shape["unknownRank"].is_boolean()) {
      return InvalidArgument(Where() + ": attribute '" + key + "': 'unknownRank' is not a boolean");
    }
    if (shape["unknownRank"].get<bool>()) return dims;
  }
  *known = true;
  if (!shape.contains("dim")) return dims;  // a scalar
  if (!shape["dim"].is_array()) return InvalidArgument(Where() + ": attribute '" + key + "': 'dim' is not a list");
  for (const auto& d : shape["dim"]) {
    if (!d.is_object()) return InvalidArgument(Where() + ": attribute '" + key + "': a dim is not an object");
    ONYX_ASSIGN_OR_RETURN(int64_t size, JsonInt(d.contains("size") ? d["size"] : nlohmann::json("-1"),
                                                Where() + " attribute '" + key + "'"));
    dims.push_back(size);
  }
  return dims;
}

}  // namespace onyx::convert::tf
