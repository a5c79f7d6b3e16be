#include "schema/op_schema.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace onyx::schema {
namespace {

// The generated text: a sequence of adjacent string literals.
constexpr const char kSchemaText[] =
#include "schema/op_schemas.inc"
    ;

ir::AttrType AttrTypeFromName(std::string_view name) {
  static const std::unordered_map<std::string_view, ir::AttrType> kNames = {
      {"float", ir::AttrType::kFloat},
      {"int", ir::AttrType::kInt},
      {"string", ir::AttrType::kString},
      {"tensor", ir::AttrType::kTensor},
      {"graph", ir::AttrType::kGraph},
      {"floats", ir::AttrType::kFloats},
      {"ints", ir::AttrType::kInts},
      {"strings", ir::AttrType::kStrings},
      {"tensors", ir::AttrType::kTensors},
      {"graphs", ir::AttrType::kGraphs},
      {"sparse_tensor", ir::AttrType::kSparseTensor},
      {"sparse_tensors", ir::AttrType::kSparseTensors},
      {"type_proto", ir::AttrType::kTypeProto},
      {"type_protos", ir::AttrType::kTypeProtos},
  };
  auto it = kNames.find(name);
  return it == kNames.end() ? ir::AttrType::kUndefined : it->second;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

FormalParameter ParseFormal(const std::vector<std::string>& w) {
  FormalParameter f;
  f.name = w.at(1);
  f.type_str = w.at(2);
  for (size_t i = 3; i < w.size(); ++i) {
    if (w[i] == "opt") f.option = FormalParameter::Option::kOptional;
    if (w[i] == "var") f.option = FormalParameter::Option::kVariadic;
    if (w[i] == "het") f.homogeneous = false;
    if (w[i].rfind("min=", 0) == 0) f.min_arity = std::stoi(w[i].substr(4));
  }
  return f;
}

// The counts a list of formals implies, as ONNX computes them: a variadic formal adds its min arity to
// everything before it (optional ones included).
std::pair<int, int> ImpliedCounts(const std::vector<FormalParameter>& formals) {
  int lo = 0, hi = 0;
  for (const auto& f : formals) {
    switch (f.option) {
      case FormalParameter::Option::kSingle:
        lo = ++hi;
        break;
      case FormalParameter::Option::kOptional:
        ++hi;
        break;
      case FormalParameter::Option::kVariadic:
        lo = hi + f.min_arity;
        hi = OpSchema::kUnbounded;
        break;
    }
  }
  return {lo, hi};
}

void AddTypes(const std::vector<std::string>& words, size_t first,
              const std::unordered_map<std::string, std::vector<std::string>>& sets, std::vector<std::string>& out) {
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w[0] == '$') {
      auto it = sets.find(w.substr(1));
      if (it != sets.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    } else if (w.find('(') != std::string::npos) {
      out.push_back(w);
    } else {
      out.push_back("tensor(" + w + ")");
    }
  }
}

std::vector<OpSchema> Parse() {
  std::vector<OpSchema> schemas;
  std::unordered_map<std::string, std::vector<std::string>> sets;
  bool arity_given = false;
  auto finish = [&] {
    if (schemas.empty() || arity_given) return;
    OpSchema& s = schemas.back();
    std::tie(s.min_inputs, s.max_inputs) = ImpliedCounts(s.inputs);
    std::tie(s.min_outputs, s.max_outputs) = ImpliedCounts(s.outputs);
  };
  std::istringstream in(kSchemaText);
  for (std::string line; std::getline(in, line);) {
    auto w = Words(line);
    if (w.empty()) continue;
    const std::string& kind = w[0];
    if (kind == "set") {
      std::vector<std::string> types;
      AddTypes(w, 2, sets, types);
      sets[w[1]] = std::move(types);
      continue;
    }
    if (kind == "op") {
      finish();
      arity_given = false;
      OpSchema s;
      s.domain = w.at(1);
      s.name = w.at(2);
      s.since_version = std::stoi(w.at(3));
      s.deprecated = w.size() > 4 && w[4] == "deprecated";
      schemas.push_back(std::move(s));
      continue;
    }
    if (schemas.empty()) continue;
    OpSchema& s = schemas.back();
    if (kind == "in") {
      s.inputs.push_back(ParseFormal(w));
    } else if (kind == "out") {
      s.outputs.push_back(ParseFormal(w));
    } else if (kind == "attr") {
      s.attributes.push_back({w.at(1), AttrTypeFromName(w.at(2)), w.size() > 3 && w[3] == "req"});
    } else if (kind == "type") {
      TypeConstraint tc;
      tc.param = w.at(1);
      AddTypes(w, 2, sets, tc.allowed);
      s.type_constraints.push_back(std::move(tc));
    } else if (kind == "arity") {
      auto count = [](const std::string& v) { return v == "-1" ? OpSchema::kUnbounded : std::stoi(v); };
      s.min_inputs = count(w.at(1));
      s.max_inputs = count(w.at(2));
      s.min_outputs = count(w.at(3));
      s.max_outputs = count(w.at(4));
      arity_given = true;
    }
  }
  finish();
  std::sort(schemas.begin(), schemas.end(), [](const OpSchema& a, const OpSchema& b) {
    return std::tie(a.domain, a.name, a.since_version) < std::tie(b.domain, b.name, b.since_version);
  });
  return schemas;
}

struct Index {
  std::vector<OpSchema> schemas;
  // (domain, name) -> indices into schemas, ascending by since_version.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>, std::less<>> by_op;
};

const Index& GetIndex() {
  static const Index* index = [] {
    auto* idx = new Index{Parse(), {}};
    for (size_t i = 0; i < idx->schemas.size(); ++i) {
      idx->by_op[{idx->schemas[i].domain, idx->schemas[i].name}].push_back(i);
    }
    return idx;
  }();
  return *index;
}

const std::vector<size_t>* Versions(std::string_view domain, std::string_view op_type) {
  const Index& idx = GetIndex();
  auto it = idx.by_op.find(std::make_pair(std::string(ir::CanonicalDomain(domain)), std::string(op_type)));
  return it == idx.by_op.end() ? nullptr : &it->second;
}

}  // namespace

bool TypeConstraint::Allows(std::string_view type) const {
  return std::find(allowed.begin(), allowed.end(), type) != allowed.end();
}

const AttributeSpec* OpSchema::FindAttribute(std::string_view attr_name) const {
  for (const auto& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

const TypeConstraint* OpSchema::FindConstraint(std::string_view param) const {
  for (const auto& tc : type_constraints) {
    if (tc.param == param) return &tc;
  }
  return nullptr;
}

static const FormalParameter* FormalAt(const std::vector<FormalParameter>& formals, size_t index) {
  if (index < formals.size()) return &formals[index];
  if (!formals.empty() && formals.back().option == FormalParameter::Option::kVariadic) return &formals.back();
  return nullptr;
}

const FormalParameter* OpSchema::InputFormal(size_t index) const { return FormalAt(inputs, index); }
const FormalParameter* OpSchema::OutputFormal(size_t index) const { return FormalAt(outputs, index); }

std::string OpSchema::VersionedName() const { return name + "-" + std::to_string(since_version); }

const OpSchema* FindSchema(std::string_view domain, std::string_view op_type, int since_version) {
  const auto* versions = Versions(domain, op_type);
  if (versions == nullptr) return nullptr;
  for (size_t i : *versions) {
    if (GetIndex().schemas[i].since_version == since_version) return &GetIndex().schemas[i];
  }
  return nullptr;
}

const OpSchema* ResolveSchema(std::string_view domain, std::string_view op_type, int64_t opset) {
  const auto* versions = Versions(domain, op_type);
  if (versions == nullptr) return nullptr;
  const OpSchema* best = nullptr;
  for (size_t i : *versions) {
    if (GetIndex().schemas[i].since_version <= opset) best = &GetIndex().schemas[i];
  }
  return best;
}

const std::vector<OpSchema>& AllSchemas() { return GetIndex().schemas; }

}  // namespace onyx::schema
