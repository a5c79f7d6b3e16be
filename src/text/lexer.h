// Tokens of the ONNX text syntax (docs/Syntax.md): identifiers, numbers, quoted strings and punctuation, with
// the line and column where each starts so that parse errors can point at them. '#' starts a comment that runs
// to the end of the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace onyx::text {

enum class TokenKind {
  kEnd,         // end of input
  kIdentifier,  // [A-Za-z_][A-Za-z0-9_]*
  kInteger,     // optional sign, digits
  kFloat,       // optional sign, digits with '.' and/or exponent; also [-+](inf|infinity|nan)
  kString,      // "..." with escapes decoded
  kPunct,       // one of ( ) [ ] { } < > , = : @ . ? ;
  kArrow,       // =>
  kError,       // text holds the message (unterminated string, stray character, malformed number)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // identifier, number as written, decoded string, the punctuation character, error message
  int line = 1;
  int column = 1;

  bool Is(char punct) const { return kind == TokenKind::kPunct && text.size() == 1 && text[0] == punct; }
  bool IsIdentifier(std::string_view id) const { return kind == TokenKind::kIdentifier && text == id; }
  // How the token reads in an error message: "')'", "identifier 'foo'", "end of input".
  std::string Describe() const;
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  // The next token; kEnd forever once the input is exhausted. After a kError token the lexer skips the offending
  // text, but parsers stop at the first error anyway.
  Token Next();

 private:
  void SkipSpaceAndComments();
  void Advance();
  char At(size_t offset = 0) const { return pos_ + offset < src_.size() ? src_[pos_ + offset] : '\0'; }
  Token Make(TokenKind kind, std::string text, int line, int column) const;
  Token LexString(int line, int column);
  Token LexNumber(int line, int column);

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// Whether `s` can be written without quotes: [A-Za-z_][A-Za-z0-9_]*.
bool IsIdentifier(std::string_view s);

}  // namespace onyx::text
