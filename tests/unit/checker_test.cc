// The checker: one hand-written invalid model per rule (in the ONNX text syntax), each asserting that exactly
// that rule is reported with the node and operator named; valid models pass; the schema table covers ops.tsv.
#include "checker/checker.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "schema/op_schema.h"
#include "schema/op_versions.h"
#include "text/parser.h"

namespace onyx::checker {
namespace {

std::vector<Problem> Check(std::string_view text) {
  auto model = text::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status().message() << "\n" << text;
  if (!model.ok()) return {{"", "parse", model.status().message()}};
  return CheckModel(*model);
}

// A model in the text syntax of IR version 8 importing only the default domain, at `opset`, around `graph`: the
// header most cases share, so that each case shows just the graph that breaks (or keeps) its rule.
std::string ModelText(int opset, std::string_view graph) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + std::string(graph);
}

std::string All(const std::vector<Problem>& problems) {
  std::string s;
  for (const auto& p : problems) s += p.ToString() + "\n";
  return s;
}

// Asserts that exactly one problem is reported, for `rule`, and that its text contains every piece of `needles`.
void ExpectOnly(std::string_view text, const std::string& rule, std::vector<std::string> needles) {
  auto problems = Check(text);
  ASSERT_EQ(problems.size(), 1u) << All(problems);
  EXPECT_EQ(problems[0].rule, rule) << All(problems);
  std::string s = problems[0].ToString();
  for (const auto& n : needles) EXPECT_NE(s.find(n), std::string::npos) << "missing '" << n << "' in: " << s;
}

TEST(CheckerTest, ValidModelHasNoProblems) {
  auto problems = Check(ModelText(13, R"(
    g (float[N, 4] x, float[4] b) => (float[N, 4] y) {
      [add] t = Add(x, b)
      [relu] y = Relu(t)
    })"));
  EXPECT_TRUE(problems.empty()) << All(problems);
}

TEST(CheckerTest, ValidModelWithSubgraphAndOptionalInput) {
  auto problems = Check(ModelText(16, R"(
    g (bool c, float[2] x) => (float[2] y) {
      [clip] z = Clip(x, , )
      [branch] y = If(c) <then_branch = t () => (float[2] a) { [n1] a = Neg(z) },
                          else_branch = e () => (float[2] b) { [n2] b = Abs(x) }>
    })"));
  EXPECT_TRUE(problems.empty()) << All(problems);
}

TEST(CheckerTest, IrVersionMissing) {
  ExpectOnly(R"(
    <opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { [r] y = Relu(x) })",
             "ir-version", {"ir_version"});
}

TEST(CheckerTest, OpsetImportMissing) {
  auto problems = Check(R"(
    <ir_version: 8>
    g (float[2] x) => (float[2] y) { [r] y = Relu(x) })");
  ASSERT_GE(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "opset-import-missing") << All(problems);
}

TEST(CheckerTest, DomainNotImported) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [scaler] y = ai.onnx.ml.Scaler(x) })"),
             "domain-not-imported", {"node 'scaler'", "ai.onnx.ml.Scaler", "not imported"});
}

TEST(CheckerTest, OperatorNotInOpset) {
  ExpectOnly(ModelText(12, R"(
    g (float[2] x) => (float[2] y) { [h] y = HardSwish(x) })"),
             "operator-not-in-opset", {"node 'h'", "HardSwish, opset 12", "added in opset 14"});
}

TEST(CheckerTest, UnknownOperator) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [f] y = Frobnicate(x) })"),
             "unknown-operator", {"node 'f'", "Frobnicate", "ai.onnx"});
}

TEST(CheckerTest, CustomDomainIsNotChecked) {
  auto problems = Check(R"(
    <ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
    g (float[2] x) => (float[2] y) { [f] y = com.example.Frobnicate <anything = 3> (x, x, x) })");
  EXPECT_TRUE(problems.empty()) << All(problems);
}

TEST(CheckerTest, DeprecatedOperator) {
  ExpectOnly(ModelText(10, R"(
    g (float[1, 1, 2, 2] x, float[4] s) => (float[1, 1, 4, 4] y) { [up] y = Upsample(x, s) })"),
             "deprecated-operator", {"node 'up'", "Upsample-10", "deprecated"});
}

TEST(CheckerTest, TooManyInputs) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [r] y = Relu(x, x) })"),
             "input-count", {"node 'r'", "Relu-", "2 inputs", "takes 1"});
}

TEST(CheckerTest, TooFewOutputs) {
  ExpectOnly(ModelText(13, R"(
    g (float[2, 3] x, int64[1] k) => (float[2] v) { [top] v = TopK <axis = 1> (x, k) })"),
             "output-count", {"node 'top'", "TopK-11", "1 output", "produces 2"});
}

TEST(CheckerTest, RequiredInputOmitted) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [a] y = Add(, x) })"),
             "required-input-missing", {"node 'a'", "Add-13", "input 0 ('A')"});
}

TEST(CheckerTest, VariadicInputMayNotBeEmpty) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [s] y = Sum(x, , x) })"),
             "required-input-missing", {"node 's'", "Sum-13", "variadic"});
}

TEST(CheckerTest, UnknownAttribute) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [r] y = Relu <alpha = 0.5> (x) })"),
             "unknown-attribute", {"node 'r'", "attribute 'alpha'", "Relu-"});
}

TEST(CheckerTest, AttributeOfWrongType) {
  ExpectOnly(ModelText(13, R"(
    g (float[2, 3] x) => (float[6] y) { [f] y = Flatten <axis = 1.5> (x) })"),
             "attribute-type", {"node 'f'", "attribute 'axis'", "Flatten-13", "has type float", "expects int"});
}

TEST(CheckerTest, RequiredAttributeMissing) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (int64[2] y) { [c] y = Cast(x) })"),
             "required-attribute-missing", {"node 'c'", "Cast-13", "'to'"});
}

TEST(CheckerTest, DuplicateAttribute) {
  ExpectOnly(ModelText(13, R"(
    g (float[2, 3] x) => (float[6] y) { [f] y = Flatten <axis = 1, axis = 0> (x) })"),
             "attribute-duplicate", {"node 'f'", "attribute 'axis'"});
}

TEST(CheckerTest, TypeNotAllowedByConstraint) {
  ExpectOnly(ModelText(13, R"(
    g (int32[2] x) => (float[2] y) { [e] y = Exp(x) })"),
             "type-constraint", {"node 'e'", "Exp-13", "tensor(int32)", "'x'"});
}

TEST(CheckerTest, TypeParameterBoundTwice) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] a, double[2] b) => (float[2] y) { [add] y = Add(a, b) })"),
             "type-mismatch", {"node 'add'", "input 1 'b'", "tensor(double)", "tensor(float)"});
}

TEST(CheckerTest, LiteralInputType) {
  ExpectOnly(ModelText(13, R"(
    g (float[2, 3] x, int32[2] s) => (float[3, 2] y) { [rs] y = Reshape(x, s) })"),
             "type-constraint", {"node 'rs'", "Reshape-", "tensor(int32)", "tensor(int64)"});
}

TEST(CheckerTest, DeclaredOutputTypeIsChecked) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (double[2] y) { [r] y = Relu(x) })"),
             "type-mismatch", {"node 'r'", "output 0 'y'", "tensor(double)"});
}

TEST(CheckerTest, NotTopologicallySorted) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) {
      [second] y = Relu(t)
      [first] t = Neg(x)
    })"),
             "not-topological", {"node 'second'", "Relu, opset 13", "input 0 't'"});
}

TEST(CheckerTest, OutputNameReused) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) {
      [n1] y = Relu(x)
      [n2] y = Neg(x)
    })"),
             "ssa", {"node 'n2'", "Neg, opset 13", "'y'"});
}

TEST(CheckerTest, SubgraphMayNotRedefineOuterName) {
  auto problems = Check(ModelText(16, R"(
    g (bool c, float[2] x) => (float[2] y) {
      [z] z = Neg(x)
      [branch] y = If(c) <then_branch = t () => (float[2] z) { [inner] z = Abs(x) },
                          else_branch = e () => (float[2] b) { [n2] b = Abs(x) }>
    })"));
  ASSERT_EQ(problems.size(), 1u) << All(problems);
  EXPECT_EQ(problems[0].rule, "ssa");
  EXPECT_NE(problems[0].where.find("node 'branch'"), std::string::npos) << All(problems);
  EXPECT_NE(problems[0].where.find("node 'inner'"), std::string::npos) << All(problems);
}

TEST(CheckerTest, SubgraphReadsUndefinedOuterName) {
  ExpectOnly(ModelText(16, R"(
    g (bool c, float[2] x) => (float[2] y) {
      [branch] y = If(c) <then_branch = t () => (float[2] a) { [inner] a = Abs(nowhere) },
                          else_branch = e () => (float[2] b) { [n2] b = Abs(x) }>
    })"),
             "not-topological", {"node 'branch'", "node 'inner' (Abs, opset 16)", "'nowhere'"});
}

TEST(CheckerTest, GraphOutputNeverComputed) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y, float[2] z) { [r] y = Relu(x) })"),
             "output-not-computed", {"graph 'g'", "'z'"});
}

TEST(CheckerTest, MainGraphInputNeedsType) {
  auto model = text::ParseModel(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [r] y = Relu(x) })"));
  ASSERT_TRUE(model.ok());
  model->graph.inputs[0].type.reset();
  auto problems = CheckModel(*model);
  ASSERT_EQ(problems.size(), 1u) << All(problems);
  EXPECT_EQ(problems[0].rule, "value-type-missing");
  EXPECT_NE(problems[0].message.find("'x'"), std::string::npos);
}

TEST(CheckerTest, InitializerMustBeInputBeforeIr4) {
  ExpectOnly(R"(
    <ir_version: 3, opset_import: ["" : 8]>
    g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> { [a] y = Add(x, w) })",
             "initializer-not-input", {"'w'", "IR version 4"});
}

TEST(CheckerTest, ElementTypeNewerThanIrVersion) {
  ExpectOnly(ModelText(19, R"(
    g (float8e4m3fn[2] x) => (float[2] y) { [c] y = Cast <to = 1> (x) })"),
             "element-type-ir-version", {"'x'", "float8e4m3fn", "IR version 9"});
}

TEST(CheckerTest, EveryProblemIsListed) {
  auto problems = Check(ModelText(13, R"(
    g (float[2] x) => (float[2] y) {
      [a] t = Relu <alpha = 1.0> (x)
      [b] y = Cast(t, t)
    })"));
  ASSERT_EQ(problems.size(), 3u) << All(problems);
  EXPECT_EQ(problems[0].rule, "unknown-attribute");
  EXPECT_EQ(problems[1].rule, "input-count");
  EXPECT_EQ(problems[2].rule, "required-attribute-missing");
}

TEST(CheckerTest, FunctionAttributeReferenceMustExist) {
  ExpectOnly(R"(
    <ir_version: 8, opset_import: ["" : 13, "local" : 1]>
    g (float[2] x) => (float[2] y) { [call] y = local.Scale <f = 2.0> (x) }
    <domain: "local", opset_import: ["" : 13]>
    Scale <f> (a) => (b) {
      [lr] b = LeakyRelu <alpha: float = @g> (a)
    })",
             "attribute-reference-unknown", {"function 'local.Scale'", "node 'lr'", "'g'"});
}

TEST(CheckerTest, FunctionBodyIsCheckedAgainstSchemas) {
  ExpectOnly(R"(
    <ir_version: 8, opset_import: ["" : 13, "local" : 1]>
    g (float[2] x) => (float[2] y) { [call] y = local.F(x) }
    <domain: "local", opset_import: ["" : 13]>
    F (a) => (b) {
      [r] b = Relu(a, a)
    })",
             "input-count", {"function 'local.F'", "node 'r' (Relu, opset 13)"});
}

TEST(CheckerTest, FunctionOpsetMustBeCompatible) {
  auto problems = Check(R"(
    <ir_version: 8, opset_import: ["" : 13, "local" : 1]>
    g (float[2, 3] x) => (float[2, 3] y) { [call] y = local.F(x) }
    <domain: "local", opset_import: ["" : 12]>
    F (a) => (b) {
      [s] b = Softmax(a)
    })");
  ASSERT_EQ(problems.size(), 1u) << All(problems);
  EXPECT_EQ(problems[0].rule, "function-opset-incompatible");
  EXPECT_NE(problems[0].message.find("Softmax"), std::string::npos);
}

TEST(CheckerTest, ExternalDataMustStayInModelFolder) {
  ExpectOnly(ModelText(13, R"(
    g (float[2] x) => (float[2] y) <float[2] w = ["location": "../secret.bin"]> { [a] y = Add(x, w) })"),
             "external-data-location", {"'w'", "leaves the model's folder"});
}

TEST(CheckerTest, ExternalDataFileMustExist) {
  auto model = text::ParseModel(ModelText(13, R"(
    g (float[2] x) => (float[2] y) <float[2] w = ["location": "no_such_file.bin"]> { [a] y = Add(x, w) })"));
  ASSERT_TRUE(model.ok()) << model.status().message();
  CheckOptions options;
  options.model_dir = ::testing::TempDir();
  auto problems = CheckModel(*model, options);
  ASSERT_EQ(problems.size(), 1u) << All(problems);
  EXPECT_EQ(problems[0].rule, "external-data-missing");
}

TEST(CheckerTest, FullCheckRunsTheRegisteredPass) {
  auto model = text::ParseModel(ModelText(13, R"(
    g (float[2] x) => (float[2] y) { [r] y = Relu(x) })"));
  ASSERT_TRUE(model.ok());
  SetFullCheckPass([](const ir::Model&, std::vector<Problem>& p) { p.push_back({"", "inference", "ran"}); });
  EXPECT_TRUE(CheckModel(*model).empty());
  CheckOptions full;
  full.full = true;
  auto problems = CheckModel(*model, full);
  SetFullCheckPass(nullptr);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "inference");
}

// Every (operator, version) of ONNX's operator list has a schema, and nothing else does.
TEST(OpSchemaTest, CoversEveryOperatorVersion) {
  std::ifstream tsv(std::string(ONYX_SHARED_DIR) + "/onnx-spec/ops.tsv");
  if (!tsv) GTEST_SKIP() << "ops.tsv not found";
  std::string line;
  std::getline(tsv, line);
  int pairs = 0;
  while (std::getline(tsv, line)) {
    std::istringstream cols(line);
    std::string op, domain, latest, versions;
    std::getline(cols, op, '\t');
    std::getline(cols, domain, '\t');
    std::getline(cols, latest, '\t');
    std::getline(cols, versions, '\t');
    std::istringstream vs(versions);
    for (std::string v; std::getline(vs, v, ',');) {
      ++pairs;
      EXPECT_NE(schema::FindSchema(domain, op, std::stoi(v)), nullptr) << domain << " " << op << "-" << v;
    }
  }
  EXPECT_EQ(pairs, static_cast<int>(schema::AllSchemas().size()));
}

TEST(OpSchemaTest, AgreesWithOpVersions) {
  for (const auto& s : schema::AllSchemas()) {
    const OpVersionInfo* info = FindOpVersions(s.domain, s.name);
    ASSERT_NE(info, nullptr) << s.domain << " " << s.name;
    EXPECT_NE(std::find(info->since_versions.begin(), info->since_versions.end(), s.since_version),
              info->since_versions.end())
        << s.VersionedName();
    for (const auto& f : s.inputs) {
      if (f.type_str.find('(') == std::string::npos) {
        EXPECT_NE(s.FindConstraint(f.type_str), nullptr) << s.VersionedName() << " input " << f.name;
      }
    }
  }
}

TEST(OpSchemaTest, ResolvesTheVersionInForce) {
  const auto* conv = schema::ResolveSchema("", "Conv", 13);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->since_version, 11);
  EXPECT_EQ(conv->min_inputs, 2);
  EXPECT_EQ(conv->max_inputs, 3);
  const auto* pad = schema::ResolveSchema("ai.onnx", "Pad", 25);
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->since_version, 25);
  ASSERT_NE(pad->FindConstraint("T"), nullptr);
  EXPECT_TRUE(pad->FindConstraint("T")->Allows("tensor(int2)"));
  EXPECT_EQ(schema::ResolveSchema("", "HardSwish", 13), nullptr);
}

}  // namespace
}  // namespace onyx::checker
