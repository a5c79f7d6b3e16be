#include "text/lexer.h"

#include <cctype>

namespace onyx::text {
namespace {

bool IsIdStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsIdStart(s[0])) return false;
  for (char c : s) {
    if (!IsIdChar(c)) return false;
  }
  return true;
}

std::string Token::Describe() const {
  switch (kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kIdentifier:
      return "identifier '" + text + "'";
    case TokenKind::kInteger:
    case TokenKind::kFloat:
      return "number " + text;
    case TokenKind::kString: {
      std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
      return "string \"" + shown + "\"";
    }
    case TokenKind::kPunct:
      return "'" + text + "'";
    case TokenKind::kArrow:
      return "'=>'";
    case TokenKind::kError:
      return text;
  }
  return text;
}

void Lexer::Advance() {
  if (pos_ >= src_.size()) return;
  if (src_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      Advance();
    } else if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') Advance();
    } else {
      return;
    }
  }
}

Token Lexer::Make(TokenKind kind, std::string text, int line, int column) const {
  Token t;
  t.kind = kind;
  t.text = std::move(text);
  t.line = line;
  t.column = column;
  return t;
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  int line = line_, column = column_;
  if (pos_ >= src_.size()) return Make(TokenKind::kEnd, "", line, column);
  char c = src_[pos_];
  if (IsIdStart(c)) {
    size_t start = pos_;
    while (pos_ < src_.size() && IsIdChar(src_[pos_])) Advance();
    return Make(TokenKind::kIdentifier, std::string(src_.substr(start, pos_ - start)), line, column);
  }
  if (c == '"') return LexString(line, column);
  if (IsDigit(c) || ((c == '-' || c == '+') && (IsDigit(At(1)) || IsIdStart(At(1))))) return LexNumber(line, column);
  if (c == '=' && At(1) == '>') {
    Advance();
    Advance();
    return Make(TokenKind::kArrow, "=>", line, column);
  }
  static constexpr std::string_view kPunct = "()[]{}<>,=:@.?;";
  if (kPunct.find(c) != std::string_view::npos) {
    Advance();
    return Make(TokenKind::kPunct, std::string(1, c), line, column);
  }
  Advance();
  std::string shown = std::isprint(static_cast<unsigned char>(c))
                          ? std::string("'") + c + "'"
                          : "byte 0x" + std::string(1, "0123456789abcdef"[(c >> 4) & 0xf]) +
                                std::string(1, "0123456789abcdef"[c & 0xf]);
  return Make(TokenKind::kError, "unexpected character " + shown, line, column);
}

Token Lexer::LexString(int line, int column) {
  Advance();  // opening quote
  std::string value;
  while (true) {
    if (pos_ >= src_.size()) return Make(TokenKind::kError, "unterminated string literal", line, column);
    char c = src_[pos_];
    if (c == '"') {
      Advance();
      return Make(TokenKind::kString, std::move(value), line, column);
    }
    if (c != '\\') {
      value.push_back(c);
      Advance();
      continue;
    }
    Advance();
    if (pos_ >= src_.size()) return Make(TokenKind::kError, "unterminated string literal", line, column);
    char e = src_[pos_];
    switch (e) {
      case 'n':
        value.push_back('\n');
        break;
      case 't':
        value.push_back('\t');
        break;
      case 'r':
        value.push_back('\r');
        break;
      case '0':
        value.push_back('\0');
        break;
      case 'x': {
        int hi = HexValue(At(1)), lo = HexValue(At(2));
        if (hi < 0 || lo < 0) {
          return Make(TokenKind::kError, "bad escape sequence in string: '\\x' needs two hex digits", line_,
                      column_ - 1);
        }
        value.push_back(static_cast<char>(hi * 16 + lo));
        Advance();
        Advance();
        break;
      }
      default:
        value.push_back(e);
        break;  // \" \\ and, as in ONNX, any other escaped character as itself
    }
    Advance();
  }
}

Token Lexer::LexNumber(int line, int column) {
  size_t start = pos_;
  if (src_[pos_] == '-' || src_[pos_] == '+') Advance();
  if (IsIdStart(At())) {
    size_t word = pos_;
    while (pos_ < src_.size() && IsIdChar(src_[pos_])) Advance();
    std::string_view w = src_.substr(word, pos_ - word);
    if (EqualsIgnoreCase(w, "inf") || EqualsIgnoreCase(w, "infinity") || EqualsIgnoreCase(w, "nan")) {
      return Make(TokenKind::kFloat, std::string(src_.substr(start, pos_ - start)), line, column);
    }
    return Make(TokenKind::kError, "malformed number '" + std::string(src_.substr(start, pos_ - start)) + "'", line,
                column);
  }
  bool is_float = false;
  while (IsDigit(At())) Advance();
  if (At() == '.' && IsDigit(At(1))) {
    is_float = true;
    Advance();
    while (IsDigit(At())) Advance();
  } else if (At() == '.' && !IsIdStart(At(1))) {
    // "1." is a float; "1.x" is left alone so that the '.' stays a separator.
    is_float = true;
    Advance();
  }
  if ((At() == 'e' || At() == 'E') && (IsDigit(At(1)) || ((At(1) == '-' || At(1) == '+') && IsDigit(At(2))))) {
    is_float = true;
    Advance();
    if (At() == '-' || At() == '+') Advance();
    while (IsDigit(At())) Advance();
  }
  if (IsIdChar(At()) || (At() == '.' && IsDigit(At(1)))) {
    while (pos_ < src_.size() && (IsIdChar(src_[pos_]) || src_[pos_] == '.')) Advance();
    return Make(TokenKind::kError, "malformed number '" + std::string(src_.substr(start, pos_ - start)) + "'", line,
                column);
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInteger, std::string(src_.substr(start, pos_ - start)), line,
              column);
}

}  // namespace onyx::text
