// Unit tests of the String family (StringNormalizer, TfIdfVectorizer, RegexFullMatch, StringConcat, StringSplit):
// what the ONNX backend suite leaves out: UTF-8 casing beyond ASCII and malformed UTF-8, case-insensitive stop
// words, every TfIdf mode with weights and string pools, skip-grams counted once, RE2 constructs translated for
// std::regex and rejected ones, inputs long enough to overflow a recursive matcher, broadcasting, Python split
// semantics (maxsplit, whitespace runs, multi-character delimiters), empty tensors, and bad attributes and inputs
// giving an error rather than a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers
using testing::S;         // with the one-dimensional form below

Tensor S(std::vector<std::string> values) {
  Shape s = {static_cast<int64_t>(values.size())};
  return S(std::move(values), s);
}

using Strs = std::vector<std::string>;

// ---- StringNormalizer ----

TEST(StringNormalizer, Utf8CasingOfLatinGreekCyrillic) {
  const Strs in = {"Straße", "ÉCOLE", "über", "ĲssEL Łódź", "ΣΟΦΊΑ", "Москва", "ÿ", "abc-123"};
  Tensor lower = RunOk(Op("StringNormalizer").Attr("case_change_action", std::string("LOWER")).Input(S(in)));
  EXPECT_EQ(Values<std::string>(lower), (Strs{"straße", "école", "über", "ĳssel łódź", "σοφία", "москва", "ÿ", "abc-123"}));
  Tensor upper = RunOk(Op("StringNormalizer").Attr("case_change_action", std::string("UPPER")).Input(S(in)));
  // Sharp s has no one-letter capital and stays; y with diaeresis becomes U+0178.
  EXPECT_EQ(Values<std::string>(upper), (Strs{"STRAßE", "ÉCOLE", "ÜBER", "ĲSSEL ŁÓDŹ", "ΣΟΦΊΑ", "МОСКВА", "Ÿ", "ABC-123"}));
}

TEST(StringNormalizer, MalformedUtf8PassesThrough) {
  const std::string bad = std::string("A\xC3") + "B\xFF\xE2\x82" + "c";  // truncated sequences and a stray byte
  Tensor lower = RunOk(Op("StringNormalizer").Attr("case_change_action", std::string("LOWER")).Input(S({bad})));
  EXPECT_EQ(Values<std::string>(lower)[0], std::string("a\xC3") + "b\xFF\xE2\x82" + "c");
}

TEST(StringNormalizer, StopWordsCaseInsensitiveAndSensitive) {
  OpTest t = Op("StringNormalizer").Attr("case_change_action", std::string("UPPER")).Input(S({"Monday", "ÉTÉ", "x", "MONDAY"}, {1, 4}));
  StringsAttr(t, "stopwords", {"monday", "été"});
  Tensor out = RunOk(t);
  EXPECT_EQ(out.shape(), (Shape{1, 1}));
  EXPECT_EQ(Values<std::string>(out), (Strs{"X"}));

  OpTest sensitive = Op("StringNormalizer").Attr("is_case_sensitive", int64_t{1}).Input(S({"Monday", "monday", "Tuesday"}));
  StringsAttr(sensitive, "stopwords", {"monday"});
  EXPECT_EQ(Values<std::string>(RunOk(sensitive)), (Strs{"Monday", "Tuesday"}));
}

TEST(StringNormalizer, AllRemovedOrEmptyGivesOneEmptyString) {
  OpTest t = Op("StringNormalizer").Input(S({"a", "A"}));
  StringsAttr(t, "stopwords", {"a"});
  Tensor out = RunOk(t);
  EXPECT_EQ(out.shape(), (Shape{1}));
  EXPECT_EQ(Values<std::string>(out), (Strs{""}));
  Tensor empty = RunOk(Op("StringNormalizer").Input(S({}, {1, 0})));
  EXPECT_EQ(empty.shape(), (Shape{1, 1}));
}

TEST(StringNormalizer, Errors) {
  ExpectError(Op("StringNormalizer").Attr("case_change_action", std::string("lower")).Input(S({"a"})), "case_change_action");
  ExpectError(Op("StringNormalizer").Input(S({"a", "b"}, {2, 1})), "[C] or [1, C]");
  ExpectError(Op("StringNormalizer").Input(Tensor::FromVector<float>({1}, {1})), "string");
}

// ---- TfIdfVectorizer ----

// A TfIdfVectorizer with these settings and no n-gram pool yet.
OpTest TfidfWithoutPool(const std::string& mode, int64_t min_gram, int64_t max_gram, int64_t skip) {
  OpTest t = Op("TfIdfVectorizer");
  t.Attr("mode", mode).Attr("min_gram_length", min_gram).Attr("max_gram_length", max_gram).Attr("max_skip_count", skip);
  return t;
}

// Pool: unigrams {a, b, c} (ids 1-3), bigrams {(a, b), (b, a)} (ids 4-5); output columns = ids - 1.
OpTest Tfidf(const std::string& mode, int64_t min_gram, int64_t max_gram, int64_t skip) {
  OpTest t = TfidfWithoutPool(mode, min_gram, max_gram, skip);
  t.Attr("ngram_counts", std::vector<int64_t>{0, 3}).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4});
  StringsAttr(t, "pool_strings", {"a", "b", "c", "a", "b", "b", "a"});
  return t;
}

TEST(TfIdfVectorizer, StringPoolCountsUnigramsOnceAcrossSkips) {
  OpTest t = Tfidf("TF", 1, 2, 2);
  t.Input(S({"a", "c", "b", "a", "a", "x"}, {1, 6}));
  Tensor out = RunOk(t);
  ASSERT_EQ(out.shape(), (Shape{1, 5}));
  // Unigrams a:3 b:1 c:1. (a, b) with gaps 1..3: positions (0, 2) only. (b, a): (2, 3) and (2, 4).
  EXPECT_EQ(Values<float>(out), (std::vector<float>{3, 1, 1, 1, 2}));

  OpTest bigrams_only = Tfidf("TF", 2, 2, 0);
  bigrams_only.Input(S({"a", "b", "a", "b"}));
  Tensor b = RunOk(bigrams_only);
  EXPECT_EQ(b.shape(), (Shape{5}));
  EXPECT_EQ(Values<float>(b), (std::vector<float>{0, 0, 0, 2, 1}));
}

TEST(TfIdfVectorizer, IdfAndTfidfUseWeightsByColumn) {
  for (const std::string mode : {"IDF", "TFIDF"}) {
    OpTest t = Tfidf(mode, 1, 2, 0);
    t.Attr("weights", std::vector<float>{0.5f, 2.0f, 3.0f, 4.0f, 5.0f});
    t.Input(S({"a", "a", "b", "z", "z", "z"}, {2, 3}));
    Tensor out = RunOk(t);
    ASSERT_EQ(out.shape(), (Shape{2, 5}));
    if (mode == "IDF") {
      EXPECT_EQ(Values<float>(out), (std::vector<float>{0.5f, 2, 0, 4, 0, 0, 0, 0, 0, 0}));
    } else {
      EXPECT_EQ(Values<float>(out), (std::vector<float>{1.0f, 2, 0, 4, 0, 0, 0, 0, 0, 0}));
    }
  }
  // IDF without weights marks presence.
  OpTest t = Tfidf("IDF", 1, 1, 0);
  t.Input(S({"c", "c"}));
  EXPECT_EQ(Values<float>(RunOk(t)), (std::vector<float>{0, 0, 1, 0, 0}));
}

TEST(TfIdfVectorizer, IntegerPoolWithInt32AndInt64InputsAndEmptyRows) {
  OpTest base = TfidfWithoutPool("TF", 1, 2, 0);
  base.Attr("ngram_counts", std::vector<int64_t>{0, 2})
      .Attr("ngram_indexes", std::vector<int64_t>{3, 0, 1})  // columns need not follow pool order
      .Attr("pool_int64s", std::vector<int64_t>{7, -1, 7, -1});
  OpTest i32 = base;
  i32.Input(Tensor::FromVector<int32_t>({7, -1, 7, -1}, {4}));
  EXPECT_EQ(Values<float>(RunOk(i32)), (std::vector<float>{2, 2, 0, 2}));
  OpTest i64 = base;
  i64.Input(Tensor::FromVector<int64_t>({-1, 5, 7}, {1, 3}));
  EXPECT_EQ(Values<float>(RunOk(i64)), (std::vector<float>{1, 0, 0, 1}));
  OpTest empty = base;
  empty.Input(Tensor::FromVector<int64_t>({}, {3, 0}));
  Tensor e = RunOk(empty);
  EXPECT_EQ(e.shape(), (Shape{3, 4}));
  EXPECT_EQ(Values<float>(e), std::vector<float>(12, 0.0f));
  OpTest wrong = base;
  wrong.Input(S({"7"}));
  ExpectError(wrong, "pool");
}

TEST(TfIdfVectorizer, Errors) {
  ExpectError(Tfidf("COUNT", 1, 2, 0).Input(S({"a"})), "mode");
  ExpectError(Tfidf("TF", 2, 1, 0).Input(S({"a"})), "min_gram_length");
  ExpectError(Tfidf("TF", 1, 2, -1).Input(S({"a"})), "max_skip_count");
  OpTest short_weights = Tfidf("TFIDF", 1, 2, 0);
  short_weights.Attr("weights", std::vector<float>{1.0f});
  ExpectError(short_weights.Input(S({"a"})), "weights");
  OpTest t = TfidfWithoutPool("TF", 1, 1, 0);
  t.Attr("ngram_counts", std::vector<int64_t>{0})
      .Attr("ngram_indexes", std::vector<int64_t>{0})
      .Attr("pool_int64s", std::vector<int64_t>{1, 2, 3});
  ExpectError(t.Input(Tensor::FromVector<int64_t>({1}, {1})), "ngram_indexes");
  OpTest bad_counts = TfidfWithoutPool("TF", 1, 1, 0);
  bad_counts.Attr("ngram_counts", std::vector<int64_t>{0, 5})
      .Attr("ngram_indexes", std::vector<int64_t>{0, 1})
      .Attr("pool_int64s", std::vector<int64_t>{1, 2});
  ExpectError(bad_counts.Input(Tensor::FromVector<int64_t>({1}, {1})), "ngram_counts");
  OpTest rank3 = Tfidf("TF", 1, 2, 0);
  ExpectError(rank3.Input(S({"a"}, {1, 1, 1})), "[B, C]");
}

// ---- RegexFullMatch ----

Tensor Match(const std::string& pattern, const Strs& in) {
  return RunOk(Op("RegexFullMatch").Attr("pattern", pattern).Input(S(in)));
}

TEST(RegexFullMatch, WholeStringOnly) {
  EXPECT_EQ(Bools(Match("a|ab", {"a", "ab", "abc", ""})), (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(Bools(Match("\\d{3}-\\w+?", {"123-x", "123-", "12-ab", "123-ab_9"})), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(Bools(Match("[[:alpha:]]+\\s(?:x|y)", {"ab y", "ab z", "a1 x"})), (std::vector<bool>{true, false, false}));
}

TEST(RegexFullMatch, Re2ConstructsAreTranslated) {
  EXPECT_EQ(Bools(Match("(?i)hello [a-z]+", {"HeLLo World", "hello"})), (std::vector<bool>{true, false}));
  EXPECT_EQ(Bools(Match("(?P<user>\\w+)@(?<host>[a-z.]+)", {"bob@x.org", "@x.org"})), (std::vector<bool>{true, false}));
  EXPECT_EQ(Bools(Match("\\Aab+\\z", {"abbb", "a"})), (std::vector<bool>{true, false}));
  // A ']' first in a class is a literal, and '(' inside a class starts no group.
  EXPECT_EQ(Bools(Match("[]a(]+", {"]a(", "b"})), (std::vector<bool>{true, false}));
  EXPECT_EQ(Bools(Match("x\\Q.*(é)\\Ey", {"x.*(é)y", "xabcy"})), (std::vector<bool>{true, false}));
}

TEST(RegexFullMatch, ShapesAndLongInput) {
  Tensor empty = RunOk(Op("RegexFullMatch").Attr("pattern", std::string("a")).Input(S({}, {2, 0})));
  EXPECT_EQ(empty.shape(), (Shape{2, 0}));
  EXPECT_EQ(empty.type(), DataType::kBool);
  Tensor two = RunOk(Op("RegexFullMatch").Attr("pattern", std::string("x*")).Input(S({"xx", "", "xy", "x"}, {2, 2})));
  EXPECT_EQ(two.shape(), (Shape{2, 2}));
  EXPECT_EQ(Bools(two), (std::vector<bool>{true, true, false, true}));
  // A recursive matcher overflows its stack here; the polynomial one must not.
  const std::string big(1 << 20, 'a');
  EXPECT_EQ(Bools(Match("(a|b)*", {big, big + "c"})), (std::vector<bool>{true, false}));
}

TEST(RegexFullMatch, Errors) {
  ExpectError(Op("RegexFullMatch").Attr("pattern", std::string("(a")).Input(S({"a"})), "pattern");
  // RE2 has no back-references.
  ExpectError(Op("RegexFullMatch").Attr("pattern", std::string("(a)\\1")).Input(S({"aa"})), "pattern");
  ExpectError(Op("RegexFullMatch").Input(S({"a"})), "pattern");
  // Unicode classes would silently mean the letters "pL" to std::regex.
  ExpectError(Op("RegexFullMatch").Attr("pattern", std::string("\\pL+")).Input(S({"a"})), "Unicode");
  ExpectError(Op("RegexFullMatch").Attr("pattern", std::string("a")).Input(Tensor::FromVector<int64_t>({1}, {1})), "string");
}

// ---- StringConcat ----

TEST(StringConcat, BroadcastsBothWays) {
  Tensor out = RunOk(Op("StringConcat").Input(S({"a", "b"}, {2, 1})).Input(S({"x", "yy", ""}, {3})));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<std::string>(out), (Strs{"ax", "ayy", "a", "bx", "byy", "b"}));
  Tensor scalar = RunOk(Op("StringConcat").Input(S({"é"}, {})).Input(S({"t", "ü"})));
  EXPECT_EQ(Values<std::string>(scalar), (Strs{"ét", "éü"}));
  Tensor empty = RunOk(Op("StringConcat").Input(S({}, {0, 2})).Input(S({"q"}, {1})));
  EXPECT_EQ(empty.shape(), (Shape{0, 2}));
}

TEST(StringConcat, Errors) {
  ExpectError(Op("StringConcat").Input(S({"a", "b"})).Input(S({"x", "y", "z"})));
  ExpectError(Op("StringConcat").Input(S({"a"})).Input(Tensor::FromVector<float>({1}, {1})), "string");
}

// ---- StringSplit ----

std::vector<Value> Split(const Strs& in, Shape shape, const std::string* delimiter, int64_t maxsplit = -2) {
  OpTest t = Op("StringSplit");
  t.num_outputs = 2;
  if (delimiter != nullptr) t.Attr("delimiter", *delimiter);
  if (maxsplit != -2) t.Attr("maxsplit", maxsplit);
  t.Input(S(in, std::move(shape)));
  return RunAll(t);
}

TEST(StringSplit, DelimiterKeepsEmptyPieces) {
  const std::string comma = ",";
  auto out = Split({",a,,b,", "", "c"}, {3}, &comma);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 5}));
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (Strs{"", "a", "", "b", "", "", "", "", "", "", "c", "", "", "", ""}));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{5, 1, 1}));
}

TEST(StringSplit, MultiCharacterDelimiterAndMaxsplit) {
  const std::string sep = "<>";
  auto out = Split({"a<>b<>c<>d", "<><>"}, {2}, &sep, 2);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (Strs{"a", "b", "c<>d", "", "", ""}));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{3, 3}));
  auto none = Split({"a<>b"}, {1}, &sep, 0);
  EXPECT_EQ(Values<std::string>(none[0].tensor()), (Strs{"a<>b"}));
}

TEST(StringSplit, WhitespaceRunsLikePython) {
  const std::string empty;
  auto out = Split({"  one\ttwo \n three  ", "   ", ""}, {3}, &empty);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (Strs{"one", "two", "three", "", "", "", "", "", ""}));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{3, 0, 0}));
  // After maxsplit splits the rest is kept, trailing whitespace included.
  auto limited = Split({"  a  b  c  "}, {1}, nullptr, 1);
  EXPECT_EQ(Values<std::string>(limited[0].tensor()), (Strs{"a", "b  c  "}));
}

TEST(StringSplit, EmptyTensorsAndHigherRank) {
  auto out = Split({}, {2, 0}, nullptr);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 0, 0}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{2, 0}));
  const std::string dot = ".";
  auto grid = Split({"a.b", "c", "d.e.f", ""}, {2, 2}, &dot);
  EXPECT_EQ(grid[0].tensor().shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(Values<int64_t>(grid[1].tensor()), (std::vector<int64_t>{2, 1, 3, 1}));
  ExpectError(Op("StringSplit").Input(Tensor::FromVector<int32_t>({1}, {1})), "string");
}

}  // namespace
}  // namespace onyx
