#include "text/parser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "text/lexer.h"

namespace onyx::text {
namespace {

using ir::AttrType;

bool IsTypeKeyword(std::string_view s) {
  return s == "seq" || s == "map" || s == "optional" || s == "sparse_tensor" || s == "opaque";
}

bool IsPrimTypeName(std::string_view s) { return DataTypeFromName(s).ok(); }

std::optional<DataType> PrimType(const Token& tok) {
  if (tok.kind != TokenKind::kIdentifier) return std::nullopt;
  auto t = DataTypeFromName(tok.text);
  if (!t.ok()) return std::nullopt;
  return *t;
}

bool IsFloatWord(std::string_view s) {
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "inf" || lower == "infinity" || lower == "nan";
}

std::optional<AttrType> AttrTypeFromName(std::string_view name) {
  for (int i = 1; i <= static_cast<int>(AttrType::kTypeProtos); ++i) {
    if (ir::AttrTypeName(static_cast<AttrType>(i)) == name) return static_cast<AttrType>(i);
  }
  return std::nullopt;
}

bool IsListType(AttrType t) {
  return t == AttrType::kFloats || t == AttrType::kInts || t == AttrType::kStrings || t == AttrType::kTensors ||
         t == AttrType::kGraphs || t == AttrType::kSparseTensors || t == AttrType::kTypeProtos;
}

AttrType ElementType(AttrType list) {
  switch (list) {
    case AttrType::kFloats:
      return AttrType::kFloat;
    case AttrType::kInts:
      return AttrType::kInt;
    case AttrType::kStrings:
      return AttrType::kString;
    case AttrType::kTensors:
      return AttrType::kTensor;
    case AttrType::kGraphs:
      return AttrType::kGraph;
    case AttrType::kSparseTensors:
      return AttrType::kSparseTensor;
    case AttrType::kTypeProtos:
      return AttrType::kTypeProto;
    default:
      return list;
  }
}

AttrType ListTypeOf(AttrType single) {
  switch (single) {
    case AttrType::kFloat:
      return AttrType::kFloats;
    case AttrType::kInt:
      return AttrType::kInts;
    case AttrType::kString:
      return AttrType::kStrings;
    case AttrType::kTensor:
      return AttrType::kTensors;
    case AttrType::kGraph:
      return AttrType::kGraphs;
    case AttrType::kSparseTensor:
      return AttrType::kSparseTensors;
    case AttrType::kTypeProto:
      return AttrType::kTypeProtos;
    default:
      return single;
  }
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  Status Model(ir::Model& model);
  Status Graph(ir::Graph& graph);
  Status Node(ir::Node& node);
  Status Function(ir::Function& fn);
  Status Type(ir::TypeInfo& type);
  Status TensorConstant(ir::NamedTensor& tensor);
  Status ExpectEnd(std::string_view after_what);

 private:
  // ---- tokens
  const Token& Peek(size_t k = 0) {
    while (ahead_.size() <= k) ahead_.push_back(lexer_.Next());
    return ahead_[k];
  }
  Token Take() {
    Peek();
    Token t = std::move(ahead_.front());
    ahead_.pop_front();
    return t;
  }
  bool PeekPunct(char c, size_t k = 0) { return Peek(k).Is(c); }
  bool TryPunct(char c) {
    if (!PeekPunct(c)) return false;
    Take();
    return true;
  }
  Status Error(const Token& at, const std::string& message) const {
    return InvalidArgument("line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + ": " +
                           message);
  }
  Status Unexpected(const Token& at, const std::string& expected) const {
    if (at.kind == TokenKind::kError) return Error(at, at.text);
    return Error(at, "expected " + expected + " but found " + at.Describe());
  }
  Status Expect(char c) {
    if (TryPunct(c)) return Status::Ok();
    return Unexpected(Peek(), Quote(std::string(1, c)));
  }
  Status ExpectArrow() {
    if (Peek().kind == TokenKind::kArrow) {
      Take();
      return Status::Ok();
    }
    return Unexpected(Peek(), "'=>'");
  }
  Result<std::string> Identifier(const std::string& what) {
    if (Peek().kind != TokenKind::kIdentifier) return Unexpected(Peek(), what);
    return Take().text;
  }
  bool PeekQuotableId(size_t k = 0) {
    auto kind = Peek(k).kind;
    return kind == TokenKind::kIdentifier || kind == TokenKind::kString;
  }
  Result<std::string> QuotableId(const std::string& what) {
    if (!PeekQuotableId()) return Unexpected(Peek(), what);
    return Take().text;
  }
  Result<std::string> StringLiteral(const std::string& what) {
    if (Peek().kind != TokenKind::kString) return Unexpected(Peek(), what);
    return Take().text;
  }

  // ---- numbers
  Result<int64_t> Int64(const Token& tok, const std::string& what);
  Result<uint64_t> Uint64(const Token& tok, const std::string& what);
  template <typename F>
  Result<F> Floating(const Token& tok, const std::string& what);
  Result<int64_t> TakeInt64(const std::string& what) {
    Token tok = Take();
    return Int64(tok, what);
  }

  // ---- pieces
  bool NextIsType() {
    const Token& t = Peek();
    return t.kind == TokenKind::kIdentifier && (IsPrimTypeName(t.text) || IsTypeKeyword(t.text));
  }
  Status DimList(std::vector<ir::Dim>& dims);
  Status TensorType(DataType elem, ir::TypeInfo& type);
  Status ValueInfo(ir::ValueInfo& vi);
  Status IdList(std::vector<std::string>& ids, char close, const std::string& what);
  Status OpsetList(std::vector<ir::OpsetId>& opsets);
  Status StringPairs(std::vector<std::pair<std::string, std::string>>& pairs);
  Status TensorData(const Token& at, const ir::TypeInfo& type, ir::NamedTensor& tensor);
  Status FillTensor(Tensor& t, const std::vector<Token>& values, const std::string& what);
  Status GraphAfterName(std::string name, ir::Graph& graph);
  Status NodeList(std::vector<ir::Node>& nodes);
  Status AttrList(std::vector<ir::Attribute>& attrs);
  Status Attribute(ir::Attribute& attr);
  Status AttributeAfterName(ir::Attribute& attr);
  Status SingleAttrValue(ir::Attribute& attr, AttrType expected);
  Status FunctionIds(std::vector<std::string>& ids, std::vector<ir::ValueInfo>& value_info);

  // Nesting of types and graphs is bounded so that hostile input cannot exhaust the stack.
  static constexpr int kMaxNesting = 200;
  struct NestingGuard {
    explicit NestingGuard(int& d) : depth(d) { ++depth; }
    ~NestingGuard() { --depth; }
    int& depth;
  };
  Status CheckNesting(const Token& at) const {
    if (nesting_ > kMaxNesting) {
      return Error(at, "types or graphs nested more than " + std::to_string(kMaxNesting) + " levels deep");
    }
    return Status::Ok();
  }

  Lexer lexer_;
  std::deque<Token> ahead_;
  int nesting_ = 0;
};

// ---------------------------------------------------------------------------------------------- numbers

Result<int64_t> Parser::Int64(const Token& tok, const std::string& what) {
  if (tok.kind != TokenKind::kInteger) return Unexpected(tok, what);
  std::string_view s = tok.text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return Error(tok, "integer " + tok.text + " does not fit in int64");
  if (ec != std::errc() || end != s.data() + s.size()) return Error(tok, "malformed integer " + tok.text);
  return v;
}

Result<uint64_t> Parser::Uint64(const Token& tok, const std::string& what) {
  if (tok.kind != TokenKind::kInteger) return Unexpected(tok, what);
  std::string_view s = tok.text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (!s.empty() && s[0] == '-') {
    bool zero = s.find_first_not_of("-0") == std::string_view::npos;
    if (!zero) return Error(tok, "integer " + tok.text + " is negative where an unsigned value is expected");
    return uint64_t{0};
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return Error(tok, "integer " + tok.text + " does not fit in uint64");
  if (ec != std::errc() || end != s.data() + s.size()) return Error(tok, "malformed integer " + tok.text);
  return v;
}

template <typename F>
Result<F> Parser::Floating(const Token& tok, const std::string& what) {
  if (tok.kind != TokenKind::kInteger && tok.kind != TokenKind::kFloat) return Unexpected(tok, what);
  std::string_view s = tok.text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const char* first = s.data();
  const char* last = s.data() + s.size();
  F v = 0;
  auto [end, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && end == last) return v;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow; only overflow is an error (underflow rounds to 0 or to a
    // subnormal, as a compiler reading the literal would).
    if constexpr (std::is_same_v<F, float>) {
      double d = 0;
      auto r = std::from_chars(first, last, d);
      if (r.ec == std::errc() && std::isfinite(static_cast<float>(d))) return static_cast<float>(d);
      if (r.ec == std::errc::result_out_of_range) {
        long double ld = std::strtold(std::string(s).c_str(), nullptr);
        if (std::fabs(ld) < 1) return static_cast<float>(ld);
      }
    } else {
      long double ld = std::strtold(std::string(s).c_str(), nullptr);
      if (std::fabs(ld) < 1) return static_cast<F>(ld);
    }
    return Error(tok, "number " + tok.text + " is out of range for " +
                          (std::is_same_v<F, float> ? std::string("float") : std::string("double")));
  }
  return Error(tok, "malformed number " + tok.text);
}

// ---------------------------------------------------------------------------------------------- types

Status Parser::DimList(std::vector<ir::Dim>& dims) {
  do {
    const Token& tok = Peek();
    if (tok.Is('?')) {
      Take();
      dims.push_back(ir::Dim{});
    } else if (tok.kind == TokenKind::kIdentifier || tok.kind == TokenKind::kString) {
      dims.push_back(ir::Dim::Param(Take().text));
    } else if (tok.kind == TokenKind::kInteger) {
      ONYX_ASSIGN_OR_RETURN(int64_t v, TakeInt64("a dimension"));
      dims.push_back(ir::Dim::Value(v));
    } else {
      return Unexpected(tok, "a dimension (a number, a name or '?')");
    }
  } while (TryPunct(','));
  return Expect(']');
}

// float: rank 0; float[]: rank unknown; float[N, 3]: rank 2.
Status Parser::TensorType(DataType elem, ir::TypeInfo& type) {
  std::optional<std::vector<ir::Dim>> shape = std::vector<ir::Dim>{};
  if (TryPunct('[')) {
    if (TryPunct(']')) {
      shape = std::nullopt;
    } else {
      ONYX_RETURN_IF_ERROR(DimList(*shape));
    }
  }
  type = ir::TypeInfo::Tensor(elem, std::move(shape));
  return Status::Ok();
}

Status Parser::Type(ir::TypeInfo& type) {
  const Token tok = Peek();
  NestingGuard guard(nesting_);
  ONYX_RETURN_IF_ERROR(CheckNesting(tok));
  if (tok.kind != TokenKind::kIdentifier) return Unexpected(tok, "a type");
  Take();
  auto prim = DataTypeFromName(tok.text);
  if (prim.ok()) return TensorType(*prim, type);
  if (tok.text == "seq" || tok.text == "optional") {
    ONYX_RETURN_IF_ERROR(Expect('('));
    ir::TypeInfo elem;
    ONYX_RETURN_IF_ERROR(Type(elem));
    ONYX_RETURN_IF_ERROR(Expect(')'));
    type = tok.text == "seq" ? ir::TypeInfo::Sequence(std::move(elem)) : ir::TypeInfo::Optional(std::move(elem));
    return Status::Ok();
  }
  if (tok.text == "map") {
    ONYX_RETURN_IF_ERROR(Expect('('));
    const Token key = Peek();
    auto key_type = PrimType(key);
    if (!key_type) {
      return Unexpected(key, "a map key type (a primitive type like int64 or string)");
    }
    Take();
    ONYX_RETURN_IF_ERROR(Expect(','));
    ir::TypeInfo value;
    ONYX_RETURN_IF_ERROR(Type(value));
    ONYX_RETURN_IF_ERROR(Expect(')'));
    type = ir::TypeInfo{};
    type.kind = ir::TypeInfo::Kind::kMap;
    type.elem_type = *key_type;
    type.elem = std::make_shared<ir::TypeInfo>(std::move(value));
    return Status::Ok();
  }
  if (tok.text == "sparse_tensor") {
    ONYX_RETURN_IF_ERROR(Expect('('));
    const Token elem = Peek();
    auto elem_type = PrimType(elem);
    if (!elem_type) {
      return Unexpected(elem, "a sparse tensor element type (a primitive type like float)");
    }
    Take();
    ONYX_RETURN_IF_ERROR(TensorType(*elem_type, type));
    type.kind = ir::TypeInfo::Kind::kSparseTensor;
    return Expect(')');
  }
  if (tok.text == "opaque") {
    // opaque(), opaque(name), opaque(domain, name); domain and name may be dotted.
    ONYX_RETURN_IF_ERROR(Expect('('));
    type = ir::TypeInfo{};
    type.kind = ir::TypeInfo::Kind::kOpaque;
    auto qualified = [&](std::string& out) -> Status {
      ONYX_ASSIGN_OR_RETURN(out, Identifier("an opaque type name"));
      while (TryPunct('.')) {
        ONYX_ASSIGN_OR_RETURN(std::string part, Identifier("a name after '.'"));
        out += "." + part;
      }
      return Status::Ok();
    };
    if (!PeekPunct(')')) {
      std::string first;
      ONYX_RETURN_IF_ERROR(qualified(first));
      if (TryPunct(',')) {
        type.opaque_domain = std::move(first);
        ONYX_RETURN_IF_ERROR(qualified(type.opaque_name));
      } else {
        type.opaque_name = std::move(first);
      }
    }
    return Expect(')');
  }
  return Error(tok, "unknown type '" + tok.text + "'");
}

Status Parser::ValueInfo(ir::ValueInfo& vi) {
  if (NextIsType()) {
    ir::TypeInfo type;
    ONYX_RETURN_IF_ERROR(Type(type));
    vi.type = std::move(type);
  }
  const Token name_tok = Peek();
  ONYX_ASSIGN_OR_RETURN(vi.name, QuotableId("a value name"));
  if (!vi.type && name_tok.kind == TokenKind::kIdentifier && (PeekPunct('[') || PeekPunct('(') || PeekQuotableId())) {
    // `flot[2] x` or `flot x`: the first word was meant as a type.
    return Error(name_tok, "unknown type '" + name_tok.text + "'");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------- lists

// Names separated by commas, where a name may be left out to mark an omitted optional value ("" says the same).
// As in ONNX, one trailing comma is ignored: "(x,)" is just x.
Status Parser::IdList(std::vector<std::string>& ids, char close, const std::string& what) {
  if (PeekPunct(close)) return Status::Ok();
  bool last_was_bare = false;
  while (true) {
    if (PeekQuotableId()) {
      ids.push_back(Take().text);
      last_was_bare = false;
    } else if (PeekPunct(',') || PeekPunct(close)) {
      ids.emplace_back();
      last_was_bare = true;
    } else {
      return Unexpected(Peek(), what);
    }
    if (!TryPunct(',')) break;
  }
  if (last_was_bare && !ids.empty()) ids.pop_back();
  return Status::Ok();
}

Status Parser::OpsetList(std::vector<ir::OpsetId>& opsets) {
  ONYX_RETURN_IF_ERROR(Expect('['));
  if (TryPunct(']')) return Status::Ok();
  do {
    ir::OpsetId id;
    ONYX_ASSIGN_OR_RETURN(id.domain, StringLiteral("an opset domain in quotes (\"\" for the default domain)"));
    ONYX_RETURN_IF_ERROR(Expect(':'));
    ONYX_ASSIGN_OR_RETURN(id.version, TakeInt64("an opset version"));
    opsets.push_back(std::move(id));
  } while (TryPunct(','));
  return Expect(']');
}

Status Parser::StringPairs(std::vector<std::pair<std::string, std::string>>& pairs) {
  ONYX_RETURN_IF_ERROR(Expect('['));
  if (TryPunct(']')) return Status::Ok();
  do {
    std::pair<std::string, std::string> kv;
    ONYX_ASSIGN_OR_RETURN(kv.first, StringLiteral("a key in quotes"));
    ONYX_RETURN_IF_ERROR(Expect(':'));
    ONYX_ASSIGN_OR_RETURN(kv.second, StringLiteral("a value in quotes"));
    pairs.push_back(std::move(kv));
  } while (TryPunct(','));
  return Expect(']');
}

// ---------------------------------------------------------------------------------------------- tensors

Status Parser::TensorConstant(ir::NamedTensor& tensor) {
  const Token type_tok = Peek();
  if (!NextIsType()) return Unexpected(type_tok, "a tensor type");
  ir::TypeInfo type;
  ONYX_RETURN_IF_ERROR(Type(type));
  if (PeekQuotableId()) tensor.name = Take().text;
  TryPunct('=');
  return TensorData(type_tok, type, tensor);
}

Status Parser::TensorData(const Token& at, const ir::TypeInfo& type, ir::NamedTensor& tensor) {
  std::string what = tensor.name.empty() ? std::string("tensor") : "tensor '" + tensor.name + "'";
  if (type.kind != ir::TypeInfo::Kind::kTensor) {
    return Error(at, what + " needs a tensor type, not " + type.ToString());
  }
  if (!type.shape) return Error(at, what + " needs a shape with numbers (like float[2, 3]), not float[]");
  Shape shape;
  for (const auto& d : *type.shape) {
    if (!d.is_value() || d.value < 0) {
      return Error(at, what + " needs a shape with numbers, but dimension '" + d.ToString() + "' is not one");
    }
    shape.push_back(d.value);
  }
  auto count = CheckedNumElements(shape);
  if (!count.ok()) return Error(at, what + ": " + count.status().message());
  DataType dtype = type.elem_type;

  if (PeekPunct('[')) {
    ONYX_RETURN_IF_ERROR(StringPairs(tensor.external_data));
    // The bytes stay where they are: the tensor describes them without holding them.
    tensor.tensor = Tensor::Borrow(dtype, std::move(shape), nullptr, nullptr);
    return Status::Ok();
  }
  const Token open = Peek();
  ONYX_RETURN_IF_ERROR(Expect('{'));
  std::vector<Token> values;
  if (!TryPunct('}')) {
    do {
      const Token& tok = Peek();
      if (tok.Is('.')) return Error(tok, "abbreviated tensor data ('...') cannot be parsed");
      if (tok.kind != TokenKind::kInteger && tok.kind != TokenKind::kFloat && tok.kind != TokenKind::kString &&
          tok.kind != TokenKind::kIdentifier) {
        return Unexpected(tok, "a tensor element value");
      }
      values.push_back(Take());
      if (values.back().kind == TokenKind::kIdentifier && IsFloatWord(values.back().text)) {
        values.back().kind = TokenKind::kFloat;  // inf, nan
      }
    } while (TryPunct(','));
    if (PeekPunct('.')) return Error(Peek(), "abbreviated tensor data ('...') cannot be parsed");
    ONYX_RETURN_IF_ERROR(Expect('}'));
  }
  int64_t per_element = (dtype == DataType::kComplex64 || dtype == DataType::kComplex128) ? 2 : 1;
  if (static_cast<int64_t>(values.size()) != *count * per_element) {
    std::string need =
        std::to_string(*count * per_element) + (per_element == 2 ? " numbers (real and imaginary parts)" : " values");
    return Error(open, what + " of shape " + ShapeToString(shape) + " needs " + need + " but " +
                           std::to_string(values.size()) + " are given");
  }
  auto created = Tensor::Create(dtype, std::move(shape), /*zero=*/true);
  if (!created.ok()) return Error(at, what + ": " + created.status().message());
  tensor.tensor = std::move(created).value();
  return FillTensor(tensor.tensor, values, what);
}

Status Parser::FillTensor(Tensor& t, const std::vector<Token>& values, const std::string& what) {
  DataType dtype = t.type();
  std::string tname(DataTypeName(dtype));
  std::string element = "a " + tname + " element of " + what;
  auto int_in_range = [&](const Token& tok, int64_t lo, int64_t hi) -> Result<int64_t> {
    ONYX_ASSIGN_OR_RETURN(int64_t v, Int64(tok, "an integer for " + element));
    if (v < lo || v > hi) {
      return Error(tok, "value " + tok.text + " is out of range for " + tname + " (" + std::to_string(lo) + " to " +
                            std::to_string(hi) + ")");
    }
    return v;
  };
  const size_t n = values.size();

  if (dtype == DataType::kString) {
    auto* out = t.data<std::string>();
    for (size_t i = 0; i < n; ++i) {
      if (values[i].kind != TokenKind::kString) return Unexpected(values[i], "a string in quotes for " + element);
      out[i] = values[i].text;
    }
    return Status::Ok();
  }
  if (dtype == DataType::kBool) {
    auto* out = t.data<bool>();
    for (size_t i = 0; i < n; ++i) {
      const Token& tok = values[i];
      if (tok.IsIdentifier("true") || tok.IsIdentifier("false")) {
        out[i] = tok.text == "true";
        continue;
      }
      ONYX_ASSIGN_OR_RETURN(int64_t v, int_in_range(tok, 0, 1));
      out[i] = v != 0;
    }
    return Status::Ok();
  }
  if (dtype == DataType::kComplex64 || dtype == DataType::kComplex128) {
    for (size_t i = 0; i + 1 < n; i += 2) {
      if (dtype == DataType::kComplex64) {
        ONYX_ASSIGN_OR_RETURN(float re, Floating<float>(values[i], "a number for " + element));
        ONYX_ASSIGN_OR_RETURN(float im, Floating<float>(values[i + 1], "a number for " + element));
        t.data<std::complex<float>>()[i / 2] = {re, im};
      } else {
        ONYX_ASSIGN_OR_RETURN(double re, Floating<double>(values[i], "a number for " + element));
        ONYX_ASSIGN_OR_RETURN(double im, Floating<double>(values[i + 1], "a number for " + element));
        t.data<std::complex<double>>()[i / 2] = {re, im};
      }
    }
    return Status::Ok();
  }
  if (IsFloat8(dtype)) {
    // Written as bit patterns, as ONNX writes them.
    auto* out = static_cast<uint8_t*>(t.raw());
    for (size_t i = 0; i < n; ++i) {
      ONYX_ASSIGN_OR_RETURN(int64_t v, int_in_range(values[i], 0, 255));
      out[i] = static_cast<uint8_t>(v);
    }
    return Status::Ok();
  }
  if (IsSubByte(dtype)) {
    int bits = DataTypeBits(dtype);
    int64_t lo = 0, hi = (int64_t{1} << bits) - 1;
    if (IsSignedInteger(dtype)) {
      lo = -(int64_t{1} << (bits - 1));
      hi = (int64_t{1} << (bits - 1)) - 1;
    }
    auto* out = static_cast<uint8_t*>(t.raw());
    const size_t per_byte = static_cast<size_t>(8 / bits);
    const unsigned mask = (1u << bits) - 1u;
    for (size_t i = 0; i < n; ++i) {
      ONYX_ASSIGN_OR_RETURN(int64_t v, int_in_range(values[i], lo, hi));
      unsigned shift = static_cast<unsigned>((i % per_byte) * static_cast<size_t>(bits));
      out[i / per_byte] = static_cast<uint8_t>(out[i / per_byte] | ((static_cast<unsigned>(v) & mask) << shift));
    }
    return Status::Ok();
  }
  if (IsFloatingPoint(dtype)) {
    return Dispatch<FloatTypes>(dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      T* out = t.data<T>();
      for (size_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, double>) {
          ONYX_ASSIGN_OR_RETURN(out[i], Floating<double>(values[i], "a number for " + element));
        } else {
          ONYX_ASSIGN_OR_RETURN(float f, Floating<float>(values[i], "a number for " + element));
          if constexpr (std::is_same_v<T, float>) {
            out[i] = f;
          } else {
            out[i] = T(f);
            if (std::isfinite(f) && std::isinf(static_cast<float>(out[i]))) {
              return Error(values[i], "number " + values[i].text + " is out of range for " + tname);
            }
          }
        }
      }
      return Status::Ok();
    });
  }
  return Dispatch<IntTypes>(dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (size_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, uint64_t>) {
        ONYX_ASSIGN_OR_RETURN(out[i], Uint64(values[i], "an integer for " + element));
      } else if constexpr (std::is_same_v<T, int64_t>) {
        ONYX_ASSIGN_OR_RETURN(out[i], Int64(values[i], "an integer for " + element));
      } else {
        ONYX_ASSIGN_OR_RETURN(int64_t v, int_in_range(values[i], static_cast<int64_t>(std::numeric_limits<T>::min()),
                                                      static_cast<int64_t>(std::numeric_limits<T>::max())));
        out[i] = static_cast<T>(v);
      }
    }
    return Status::Ok();
  });
}

// ---------------------------------------------------------------------------------------------- attributes

Status Parser::AttrList(std::vector<ir::Attribute>& attrs) {
  ONYX_RETURN_IF_ERROR(Expect('<'));
  if (TryPunct('>')) return Status::Ok();
  do {
    ir::Attribute attr;
    ONYX_RETURN_IF_ERROR(Attribute(attr));
    attrs.push_back(std::move(attr));
  } while (TryPunct(','));
  return Expect('>');
}

Status Parser::Attribute(ir::Attribute& attr) {
  ONYX_ASSIGN_OR_RETURN(attr.name, QuotableId("an attribute name"));
  return AttributeAfterName(attr);
}

Status Parser::AttributeAfterName(ir::Attribute& attr) {
  AttrType declared = AttrType::kUndefined;
  if (TryPunct(':')) {
    const Token tok = Peek();
    ONYX_ASSIGN_OR_RETURN(std::string type_name, Identifier("an attribute type (int, floats, tensor, graph, ...)"));
    auto t = AttrTypeFromName(type_name);
    if (!t) return Error(tok, "unknown attribute type '" + type_name + "'");
    declared = *t;
  }
  ONYX_RETURN_IF_ERROR(Expect('='));
  const Token start = Peek();
  if (TryPunct('@')) {
    ONYX_ASSIGN_OR_RETURN(attr.ref_attr_name, QuotableId("the name of the referenced attribute after '@'"));
    attr.type = declared;
    return Status::Ok();
  }
  if (!PeekPunct('[')) {
    if (IsListType(declared)) {
      return Error(start, "attribute '" + attr.name + "' is declared '" + std::string(ir::AttrTypeName(declared)) +
                              "' but has a single value; write a list in [...]");
    }
    return SingleAttrValue(attr, declared);
  }
  Take();
  if (declared != AttrType::kUndefined && !IsListType(declared)) {
    return Error(start, "attribute '" + attr.name + "' is declared '" + std::string(ir::AttrTypeName(declared)) +
                            "' but has a list value");
  }
  std::vector<ir::Attribute> items;
  std::vector<Token> item_starts;
  if (!TryPunct(']')) {
    do {
      item_starts.push_back(Peek());
      ir::Attribute item;
      item.name = attr.name;
      ONYX_RETURN_IF_ERROR(SingleAttrValue(item, ElementType(declared)));
      items.push_back(std::move(item));
    } while (TryPunct(','));
    ONYX_RETURN_IF_ERROR(Expect(']'));
  }
  AttrType list_type = declared;
  if (list_type == AttrType::kUndefined) {
    if (items.empty()) {
      return Error(start, "the empty list of attribute '" + attr.name + "' needs a type annotation, like '" +
                              attr.name + ": ints = []'");
    }
    // Integers among floats are floats ([1, 2.5]); any other mix is an error below.
    AttrType elem = items[0].type;
    for (const auto& item : items) {
      if (item.type == AttrType::kFloat && elem == AttrType::kInt) elem = AttrType::kFloat;
    }
    list_type = ListTypeOf(elem);
  }
  AttrType elem = ElementType(list_type);
  attr.type = list_type;
  for (size_t i = 0; i < items.size(); ++i) {
    ir::Attribute& item = items[i];
    if (item.type == AttrType::kInt && elem == AttrType::kFloat) {
      item.type = AttrType::kFloat;
      item.f = static_cast<float>(item.i);
    }
    if (item.type != elem) {
      return Error(item_starts[i], "element " + std::to_string(i) + " of attribute '" + attr.name + "' is " +
                                       std::string(ir::AttrTypeName(item.type)) + " but the list holds " +
                                       std::string(ir::AttrTypeName(list_type)));
    }
    switch (elem) {
      case AttrType::kFloat:
        attr.floats.push_back(item.f);
        break;
      case AttrType::kInt:
        attr.ints.push_back(item.i);
        break;
      case AttrType::kString:
        attr.strings.push_back(std::move(item.s));
        break;
      case AttrType::kTensor:
        attr.tensors.push_back(std::move(item.t));
        break;
      case AttrType::kGraph:
        attr.graphs.push_back(std::move(item.g));
        break;
      case AttrType::kSparseTensor:
        attr.sparse_tensors.push_back(std::move(item.sparse_tensor));
        break;
      case AttrType::kTypeProto:
        attr.type_protos.push_back(std::move(*item.tp));
        break;
      default:
        return Error(item_starts[i], "attribute lists cannot hold " + std::string(ir::AttrTypeName(elem)));
    }
  }
  return Status::Ok();
}

// One value: 2, 0.5, "s", float[2] {1.0, 2.0}, float[N] (a type), name (...) => (...) {...} (a graph).
Status Parser::SingleAttrValue(ir::Attribute& attr, AttrType expected) {
  const Token tok = Peek();
  switch (tok.kind) {
    case TokenKind::kInteger: {
      if (expected == AttrType::kFloat) {
        Take();
        attr.type = AttrType::kFloat;
        ONYX_ASSIGN_OR_RETURN(attr.f, Floating<float>(tok, "a number"));
      } else {
        Take();
        attr.type = AttrType::kInt;
        ONYX_ASSIGN_OR_RETURN(attr.i, Int64(tok, "an integer"));
      }
      break;
    }
    case TokenKind::kFloat: {
      Take();
      attr.type = AttrType::kFloat;
      ONYX_ASSIGN_OR_RETURN(attr.f, Floating<float>(tok, "a number"));
      break;
    }
    case TokenKind::kString:
      if (PeekPunct('(', 1)) {  // a graph whose name needs quotes
        attr.type = AttrType::kGraph;
        attr.g = std::make_shared<ir::Graph>();
        ONYX_RETURN_IF_ERROR(Graph(*attr.g));
      } else if (expected == AttrType::kSparseTensor) {
        attr.type = AttrType::kSparseTensor;
        attr.sparse_tensor = Take().text;
      } else {
        attr.type = AttrType::kString;
        attr.s = Take().text;
      }
      break;
    case TokenKind::kIdentifier: {
      bool graph_named_like_type = IsPrimTypeName(tok.text) && PeekPunct('(', 1);
      if ((IsPrimTypeName(tok.text) || IsTypeKeyword(tok.text)) && !graph_named_like_type) {
        ir::TypeInfo type;
        ONYX_RETURN_IF_ERROR(Type(type));
        if (PeekPunct('{') || PeekPunct('=') || PeekQuotableId()) {
          attr.type = AttrType::kTensor;
          if (PeekQuotableId()) attr.t.name = Take().text;
          TryPunct('=');
          ONYX_RETURN_IF_ERROR(TensorData(tok, type, attr.t));
        } else {
          attr.type = AttrType::kTypeProto;
          attr.tp = std::move(type);
        }
      } else if (IsFloatWord(tok.text)) {
        Take();
        attr.type = AttrType::kFloat;
        ONYX_ASSIGN_OR_RETURN(attr.f,
                              Floating<float>(Token{TokenKind::kFloat, tok.text, tok.line, tok.column}, "a number"));
      } else {
        attr.type = AttrType::kGraph;
        attr.g = std::make_shared<ir::Graph>();
        ONYX_RETURN_IF_ERROR(Graph(*attr.g));
      }
      break;
    }
    default:
      return Unexpected(tok, "an attribute value");
  }
  if (expected != AttrType::kUndefined && expected != attr.type) {
    return Error(tok, "attribute '" + attr.name + "' is declared '" + std::string(ir::AttrTypeName(expected)) +
                          "' but its value is " + std::string(ir::AttrTypeName(attr.type)));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------- nodes, graphs

Status Parser::Node(ir::Node& node) {
  if (TryPunct('[')) {
    if (PeekQuotableId()) node.name = Take().text;
    ONYX_RETURN_IF_ERROR(Expect(']'));
  }
  ONYX_RETURN_IF_ERROR(IdList(node.outputs, '=', "an output name or '='"));
  ONYX_RETURN_IF_ERROR(Expect('='));
  ONYX_ASSIGN_OR_RETURN(node.op_type, Identifier("an operator name"));
  while (TryPunct('.')) {
    if (!node.domain.empty()) node.domain += ".";
    node.domain += node.op_type;
    ONYX_ASSIGN_OR_RETURN(node.op_type, Identifier("an operator name after '.'"));
  }
  if (TryPunct(':')) {
    ONYX_ASSIGN_OR_RETURN(node.overload, QuotableId("an overload name after ':'"));
  }
  bool attrs_first = PeekPunct('<');
  if (attrs_first) ONYX_RETURN_IF_ERROR(AttrList(node.attributes));
  ONYX_RETURN_IF_ERROR(Expect('('));
  ONYX_RETURN_IF_ERROR(IdList(node.inputs, ')', "an input name or ')'"));
  ONYX_RETURN_IF_ERROR(Expect(')'));
  if (!attrs_first && PeekPunct('<')) ONYX_RETURN_IF_ERROR(AttrList(node.attributes));
  return Status::Ok();
}

Status Parser::NodeList(std::vector<ir::Node>& nodes) {
  ONYX_RETURN_IF_ERROR(Expect('{'));
  while (!TryPunct('}')) {
    if (Peek().kind == TokenKind::kEnd || Peek().kind == TokenKind::kError) return Unexpected(Peek(), "'}'");
    ir::Node node;
    ONYX_RETURN_IF_ERROR(Node(node));
    nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

Status Parser::Graph(ir::Graph& graph) {
  ONYX_ASSIGN_OR_RETURN(std::string name, QuotableId("a graph name"));
  return GraphAfterName(std::move(name), graph);
}

Status Parser::GraphAfterName(std::string name, ir::Graph& graph) {
  NestingGuard guard(nesting_);
  ONYX_RETURN_IF_ERROR(CheckNesting(Peek()));
  graph.name = std::move(name);
  // Inputs, each optionally with a value: `float[2] w = {1.0, 2.0}` is an input with an initializer.
  ONYX_RETURN_IF_ERROR(Expect('('));
  if (!TryPunct(')')) {
    do {
      const Token start = Peek();
      ir::ValueInfo vi;
      ONYX_RETURN_IF_ERROR(ValueInfo(vi));
      if (TryPunct('=')) {
        if (!vi.type) return Error(start, "input '" + vi.name + "' has a value but no type");
        ir::NamedTensor init;
        init.name = vi.name;
        ONYX_RETURN_IF_ERROR(TensorData(start, *vi.type, init));
        graph.initializers.push_back(std::move(init));
      }
      graph.inputs.push_back(std::move(vi));
    } while (TryPunct(','));
    ONYX_RETURN_IF_ERROR(Expect(')'));
  }
  ONYX_RETURN_IF_ERROR(ExpectArrow());
  ONYX_RETURN_IF_ERROR(Expect('('));
  if (!TryPunct(')')) {
    do {
      ir::ValueInfo vi;
      ONYX_RETURN_IF_ERROR(ValueInfo(vi));
      graph.outputs.push_back(std::move(vi));
    } while (TryPunct(','));
    ONYX_RETURN_IF_ERROR(Expect(')'));
  }
  // Initializers (with '= value') and value infos of intermediate values.
  if (TryPunct('<')) {
    if (!TryPunct('>')) {
      do {
        const Token start = Peek();
        ir::ValueInfo vi;
        ONYX_RETURN_IF_ERROR(ValueInfo(vi));
        if (TryPunct('=')) {
          if (!vi.type) return Error(start, "initializer '" + vi.name + "' needs a type, like float[2] " + vi.name);
          ir::NamedTensor init;
          init.name = vi.name;
          ONYX_RETURN_IF_ERROR(TensorData(start, *vi.type, init));
          graph.initializers.push_back(std::move(init));
        } else {
          graph.value_info.push_back(std::move(vi));
        }
      } while (TryPunct(','));
      ONYX_RETURN_IF_ERROR(Expect('>'));
    }
  }
  return NodeList(graph.nodes);
}

// ---------------------------------------------------------------------------------------------- functions, model

// Function inputs and outputs: names, each optionally typed; the types go to the function's value_info.
Status Parser::FunctionIds(std::vector<std::string>& ids, std::vector<ir::ValueInfo>& value_info) {
  ONYX_RETURN_IF_ERROR(Expect('('));
  if (TryPunct(')')) return Status::Ok();
  do {
    ir::ValueInfo vi;
    ONYX_RETURN_IF_ERROR(ValueInfo(vi));
    ids.push_back(vi.name);
    if (vi.type) value_info.push_back(std::move(vi));
  } while (TryPunct(','));
  return Expect(')');
}

Status Parser::Function(ir::Function& fn) {
  if (TryPunct('<')) {
    if (!TryPunct('>')) {
      do {
        const Token key = Peek();
        ONYX_ASSIGN_OR_RETURN(std::string k, Identifier("a function header key"));
        ONYX_RETURN_IF_ERROR(Expect(':'));
        if (k == "domain") {
          ONYX_ASSIGN_OR_RETURN(fn.domain, StringLiteral("the domain in quotes"));
        } else if (k == "opset_import") {
          ONYX_RETURN_IF_ERROR(OpsetList(fn.opset_import));
        } else if (k == "doc_string") {
          ONYX_ASSIGN_OR_RETURN(fn.doc_string, StringLiteral("the doc string in quotes"));
        } else if (k == "overload") {
          ONYX_ASSIGN_OR_RETURN(fn.overload, StringLiteral("the overload name in quotes"));
        } else if (k == "metadata_props") {
          ONYX_RETURN_IF_ERROR(StringPairs(fn.metadata_props));
        } else {
          return Error(key, "unknown function header key '" + k +
                                "' (expected domain, opset_import, doc_string, overload or metadata_props)");
        }
      } while (TryPunct(','));
      ONYX_RETURN_IF_ERROR(Expect('>'));
    }
  }
  ONYX_ASSIGN_OR_RETURN(fn.name, QuotableId("a function name"));
  // Attributes: bare names, or name = default value.
  if (TryPunct('<')) {
    if (!TryPunct('>')) {
      do {
        ONYX_ASSIGN_OR_RETURN(std::string name, QuotableId("an attribute name"));
        if (PeekPunct(':') || PeekPunct('=')) {
          ir::Attribute attr;
          attr.name = std::move(name);
          ONYX_RETURN_IF_ERROR(AttributeAfterName(attr));
          fn.attribute_defaults.push_back(std::move(attr));
        } else {
          fn.attributes.push_back(std::move(name));
        }
      } while (TryPunct(','));
      ONYX_RETURN_IF_ERROR(Expect('>'));
    }
  }
  ONYX_RETURN_IF_ERROR(FunctionIds(fn.inputs, fn.value_info));
  ONYX_RETURN_IF_ERROR(ExpectArrow());
  ONYX_RETURN_IF_ERROR(FunctionIds(fn.outputs, fn.value_info));
  if (TryPunct('<')) {
    if (!TryPunct('>')) {
      do {
        ir::ValueInfo vi;
        ONYX_RETURN_IF_ERROR(ValueInfo(vi));
        fn.value_info.push_back(std::move(vi));
      } while (TryPunct(','));
      ONYX_RETURN_IF_ERROR(Expect('>'));
    }
  }
  return NodeList(fn.nodes);
}

Status Parser::Model(ir::Model& model) {
  if (TryPunct('<')) {
    if (!TryPunct('>')) {
      do {
        const Token key = Peek();
        ONYX_ASSIGN_OR_RETURN(std::string k, Identifier("a model header key"));
        ONYX_RETURN_IF_ERROR(Expect(':'));
        if (k == "ir_version") {
          ONYX_ASSIGN_OR_RETURN(model.ir_version, TakeInt64("the IR version (an integer)"));
        } else if (k == "opset_import") {
          ONYX_RETURN_IF_ERROR(OpsetList(model.opset_import));
        } else if (k == "producer_name") {
          ONYX_ASSIGN_OR_RETURN(model.producer_name, StringLiteral("the producer name in quotes"));
        } else if (k == "producer_version") {
          ONYX_ASSIGN_OR_RETURN(model.producer_version, StringLiteral("the producer version in quotes"));
        } else if (k == "domain") {
          ONYX_ASSIGN_OR_RETURN(model.domain, StringLiteral("the domain in quotes"));
        } else if (k == "model_version") {
          ONYX_ASSIGN_OR_RETURN(model.model_version, TakeInt64("the model version (an integer)"));
        } else if (k == "doc_string") {
          ONYX_ASSIGN_OR_RETURN(model.doc_string, StringLiteral("the doc string in quotes"));
        } else if (k == "metadata_props") {
          ONYX_RETURN_IF_ERROR(StringPairs(model.metadata_props));
        } else {
          return Error(key, "unknown model header key '" + k +
                                "' (expected ir_version, opset_import, producer_name, producer_version, domain, "
                                "model_version, doc_string or metadata_props)");
        }
      } while (TryPunct(','));
      ONYX_RETURN_IF_ERROR(Expect('>'));
    }
  }
  ONYX_RETURN_IF_ERROR(Graph(model.graph));
  while (Peek().kind != TokenKind::kEnd) {
    ir::Function fn;
    ONYX_RETURN_IF_ERROR(Function(fn));
    model.functions.push_back(std::move(fn));
  }
  return Status::Ok();
}

Status Parser::ExpectEnd(std::string_view after_what) {
  const Token& tok = Peek();
  if (tok.kind == TokenKind::kEnd) return Status::Ok();
  return Unexpected(tok, "end of input after the " + std::string(after_what));
}

template <typename T, typename F>
Result<T> Run(std::string_view text, std::string_view what, F&& parse) {
  Parser parser(text);
  T value;
  ONYX_RETURN_IF_ERROR(parse(parser, value));
  ONYX_RETURN_IF_ERROR(parser.ExpectEnd(what));
  return value;
}

}  // namespace

Result<ir::Model> ParseModel(std::string_view text) {
  return Run<ir::Model>(text, "model", [](Parser& p, ir::Model& m) { return p.Model(m); });
}

Result<ir::Graph> ParseGraph(std::string_view text) {
  return Run<ir::Graph>(text, "graph", [](Parser& p, ir::Graph& g) { return p.Graph(g); });
}

Result<ir::Node> ParseNode(std::string_view text) {
  return Run<ir::Node>(text, "node", [](Parser& p, ir::Node& n) { return p.Node(n); });
}

Result<ir::Function> ParseFunction(std::string_view text) {
  return Run<ir::Function>(text, "function", [](Parser& p, ir::Function& f) { return p.Function(f); });
}

Result<ir::TypeInfo> ParseType(std::string_view text) {
  return Run<ir::TypeInfo>(text, "type", [](Parser& p, ir::TypeInfo& t) { return p.Type(t); });
}

Result<ir::NamedTensor> ParseTensor(std::string_view text) {
  return Run<ir::NamedTensor>(text, "tensor", [](Parser& p, ir::NamedTensor& t) { return p.TensorConstant(t); });
}

}  // namespace onyx::text
