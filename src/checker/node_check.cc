#include "checker/node_check.h"

#include <map>
#include <set>

namespace onyx::checker {
namespace {

using schema::FormalParameter;

std::string CountRange(int lo, int hi) {
  if (hi == schema::OpSchema::kUnbounded) return "at least " + std::to_string(lo);
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

std::string AllowedList(const schema::TypeConstraint& tc) {
  std::string s;
  for (const auto& t : tc.allowed) s += (s.empty() ? "" : ", ") + t;
  return s;
}

const char* OptionName(FormalParameter::Option o) {
  switch (o) {
    case FormalParameter::Option::kSingle:
      return "required";
    case FormalParameter::Option::kOptional:
      return "optional";
    case FormalParameter::Option::kVariadic:
      return "variadic";
  }
  return "";
}

class NodeChecker {
 public:
  NodeChecker(const NodeContext& ctx, std::vector<Problem>& problems)
      : ctx_(ctx), node_(ctx.node), schema_(ctx.schema), problems_(problems) {}

  void Run() {
    CheckCounts();
    CheckOmitted(node_.inputs, /*is_input=*/true);
    CheckOmitted(node_.outputs, /*is_input=*/false);
    CheckAttributes();
    CheckTypes(node_.inputs, true);
    CheckTypes(node_.outputs, false);
  }

 private:
  void Add(const std::string& rule, const std::string& message) { problems_.push_back({ctx_.where, rule, message}); }
  std::string Op() const { return schema_.VersionedName(); }

  void CheckCounts() {
    int n_in = static_cast<int>(node_.inputs.size());
    int n_out = static_cast<int>(node_.outputs.size());
    if (n_in < schema_.min_inputs || n_in > schema_.max_inputs) {
      Add("input-count", "has " + std::to_string(n_in) + " input" + (n_in == 1 ? "" : "s") + ", " + Op() + " takes " +
                             CountRange(schema_.min_inputs, schema_.max_inputs));
    }
    if (n_out < schema_.min_outputs || n_out > schema_.max_outputs) {
      Add("output-count", "has " + std::to_string(n_out) + " output" + (n_out == 1 ? "" : "s") + ", " + Op() +
                              " produces " + CountRange(schema_.min_outputs, schema_.max_outputs));
    }
  }

  // A required (single) formal may not be given as "": only optional ones can be omitted.
  void CheckOmitted(const std::vector<std::string>& actual, bool is_input) {
    for (size_t i = 0; i < actual.size(); ++i) {
      if (!actual[i].empty()) continue;
      const FormalParameter* f = is_input ? schema_.InputFormal(i) : schema_.OutputFormal(i);
      if (f == nullptr || f->option == FormalParameter::Option::kOptional) continue;
      Add(is_input ? "required-input-missing" : "required-output-missing",
          std::string(is_input ? "input " : "output ") + std::to_string(i) + " ('" + f->name + "') of " + Op() +
              " is " + OptionName(f->option) + " but is given as ''");
    }
  }

  void CheckAttributes() {
    std::set<std::string> seen;
    for (const auto& a : node_.attributes) {
      if (a.name.empty()) continue;  // reported by the graph checker
      seen.insert(a.name);
      const schema::AttributeSpec* spec = schema_.FindAttribute(a.name);
      if (spec == nullptr) {
        // ONNX reserves names starting with "__" for internal use; they are not checked against the schema.
        if (a.name.rfind("__", 0) == 0) continue;
        std::string known;
        for (const auto& s : schema_.attributes) known += (known.empty() ? "" : ", ") + s.name;
        Add("unknown-attribute", "attribute '" + a.name + "' is not an attribute of " + Op() +
                                     (known.empty() ? " (it has none)" : " (it has: " + known + ")"));
        continue;
      }
      if (!a.ref_attr_name.empty()) {
        if (ctx_.function_attributes == nullptr) {
          Add("attribute-reference-outside-function", "attribute '" + a.name + "' refers to '" + a.ref_attr_name +
                                                          "', but only nodes inside a function " +
                                                          "may refer to attributes");
        } else if (!ctx_.function_attributes->count(a.ref_attr_name)) {
          Add("attribute-reference-unknown", "attribute '" + a.name + "' refers to '" + a.ref_attr_name +
                                                 "', which is not an attribute of the enclosing function");
        }
        if (a.type != ir::AttrType::kUndefined && a.type != spec->type) TypeMismatch(a, *spec);
        continue;
      }
      if (a.type != ir::AttrType::kUndefined && a.type != spec->type) TypeMismatch(a, *spec);
    }
    for (const auto& spec : schema_.attributes) {
      if (spec.required && !seen.count(spec.name)) {
        Add("required-attribute-missing", "required attribute '" + spec.name + "' of " + Op() + " is missing");
      }
    }
  }

  void TypeMismatch(const ir::Attribute& a, const schema::AttributeSpec& spec) {
    Add("attribute-type", "attribute '" + a.name + "' has type " + std::string(ir::AttrTypeName(a.type)) + ", " + Op() +
                              " expects " + std::string(ir::AttrTypeName(spec.type)));
  }

  // Every value whose type is declared must be allowed by its formal's constraint, and values bound to one
  // type parameter must agree (except in heterogeneous variadic lists).
  void CheckTypes(const std::vector<std::string>& actual, bool is_input) {
    if (!ctx_.types) return;
    for (size_t i = 0; i < actual.size(); ++i) {
      if (actual[i].empty()) continue;
      const FormalParameter* f = is_input ? schema_.InputFormal(i) : schema_.OutputFormal(i);
      if (f == nullptr) continue;
      const ir::TypeInfo* type = ctx_.types(actual[i]);
      if (type == nullptr) continue;
      std::string t = KnownTypeString(*type);
      if (t.empty()) continue;
      std::string what = std::string(is_input ? "input " : "output ") + std::to_string(i) + " '" + actual[i] + "'";
      if (f->type_str.find('(') != std::string::npos) {
        if (t != f->type_str) {
          Add("type-constraint",
              what + " has type " + t + ", " + Op() + " expects " + f->type_str + " for '" + f->name + "'");
        }
        continue;
      }
      const schema::TypeConstraint* tc = schema_.FindConstraint(f->type_str);
      if (tc == nullptr) continue;
      if (!tc->Allows(t)) {
        Add("type-constraint", what + " has type " + t + ", which " + Op() + " does not allow for " + tc->param +
                                   " (allowed: " + AllowedList(*tc) + ")");
        continue;
      }
      bool heterogeneous = f->option == FormalParameter::Option::kVariadic && !f->homogeneous;
      if (heterogeneous) continue;
      auto [it, inserted] = bound_.emplace(tc->param, std::make_pair(t, what));
      if (!inserted && it->second.first != t) {
        Add("type-mismatch", what + " has type " + t + ", but " + tc->param + " is " + it->second.first + " (from " +
                                 it->second.second + ")");
      }
    }
  }

  const NodeContext& ctx_;
  const ir::Node& node_;
  const schema::OpSchema& schema_;
  std::vector<Problem>& problems_;
  std::map<std::string, std::pair<std::string, std::string>> bound_;  // type parameter -> (type, bound by)
};

}  // namespace

std::string KnownTypeString(const ir::TypeInfo& type) {
  switch (type.kind) {
    case ir::TypeInfo::Kind::kTensor:
    case ir::TypeInfo::Kind::kSparseTensor:
      return type.elem_type == DataType::kUndefined ? "" : type.ToString();
    case ir::TypeInfo::Kind::kSequence:
    case ir::TypeInfo::Kind::kOptional:
    case ir::TypeInfo::Kind::kMap:
      if (!type.elem || KnownTypeString(*type.elem).empty()) return "";
      return type.ToString();
    case ir::TypeInfo::Kind::kOpaque:
      return type.ToString();
    case ir::TypeInfo::Kind::kUndefined:
      break;
  }
  return "";
}

void CheckNodeAgainstSchema(const NodeContext& ctx, std::vector<Problem>& problems) {
  NodeChecker(ctx, problems).Run();
}

}  // namespace onyx::checker
