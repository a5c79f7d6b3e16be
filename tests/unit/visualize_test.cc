// onyx visualize (src/visualize): the DOT text of small models (labels, folded initializers, escaping, inputs and
// outputs, If bodies as clusters, edge shapes) and Graphviz rendering to SVG, PNG and PDF.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "format/model_io.h"
#include "text/parser.h"
#include "visualize/dot_text.h"
#include "visualize/graph_dot.h"
#include "visualize/render.h"

namespace onyx::visualize {
namespace {

ir::Model Parse(const std::string& text) {
  auto model = text::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? std::move(*model) : ir::Model{};
}

std::string Dot(const ir::Model& model, const DotOptions& options = {}) {
  auto dot = ModelToDot(model, options);
  EXPECT_TRUE(dot.ok()) << dot.status().message();
  return dot.ok() ? *dot : "";
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

// The DOT statement (one line) that declares node `id`.
std::string NodeLine(const std::string& dot, const std::string& id) {
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, id.size() + 2, id + " [") == 0) return line;
  }
  return "";
}

// The ids of the nodes whose label starts with `<B>op</B>`, in order.
std::vector<std::string> IdsOf(const std::string& dot, const std::string& op) {
  std::vector<std::string> ids;
  std::regex re("^ *([a-z]+[0-9]+) \\[label=<<B>" + op + "</B>");
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, re)) ids.push_back(m[1]);
  }
  return ids;
}

bool HasEdge(const std::string& dot, const std::string& from, const std::string& to) {
  return dot.find("  " + from + " -> " + to + " [") != std::string::npos;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class VisualizeTempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onyx_visualize_test_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

constexpr const char* kConvModel = R"(<ir_version: 8, opset_import: ["" : 17]>
convnet (float[N, 3, 8, 8] image) => (float[N, 2] logits)
    <float[2, 3, 1, 1] conv_w = {1, 2, 3, 4, 5, 6}, float[2] conv_b = {0.5, -0.5}, int64[2] new_shape = {0, -1}> {
  [conv_1] c = Conv <kernel_shape = [1, 1], strides = [1, 1], pads = [0, 0, 0, 0]> (image, conv_w, conv_b)
  r = Relu(c)
  p = GlobalAveragePool(r)
  logits = Reshape(p, new_shape)
}
)";

TEST(VisualizeDot, NodesInputsOutputsAndEdges) {
  std::string dot = Dot(Parse(kConvModel));
  ASSERT_EQ(dot.rfind("digraph onyx {", 0), 0u) << dot;
  EXPECT_EQ(dot.back(), '\n');
  EXPECT_NE(dot.find("rankdir=TB"), std::string::npos);
  // One box per node, in their categories' colours.
  auto conv = IdsOf(dot, "Conv"), relu = IdsOf(dot, "Relu"), pool = IdsOf(dot, "GlobalAveragePool"),
       reshape = IdsOf(dot, "Reshape");
  ASSERT_EQ(conv.size(), 1u);
  ASSERT_EQ(relu.size(), 1u);
  ASSERT_EQ(pool.size(), 1u);
  ASSERT_EQ(reshape.size(), 1u);
  EXPECT_NE(NodeLine(dot, conv[0]).find("#335588"), std::string::npos);     // layer blue
  EXPECT_NE(NodeLine(dot, relu[0]).find("#702921"), std::string::npos);     // activation red
  EXPECT_NE(NodeLine(dot, reshape[0]).find("#6c4f47"), std::string::npos);  // shape brown
  // The node's name and its attributes in small text.
  std::string conv_line = NodeLine(dot, conv[0]);
  EXPECT_NE(conv_line.find(">conv_1</FONT>"), std::string::npos) << conv_line;
  EXPECT_NE(conv_line.find("kernel_shape=[1,1]"), std::string::npos) << conv_line;
  EXPECT_NE(conv_line.find("pads=[0,0,0,0]"), std::string::npos) << conv_line;
  // Input and output as ellipses with their types.
  std::regex input_re(R"(^ *(i[0-9]+) \[shape=ellipse.*<B>image</B>.*float\[N,3,8,8\])");
  std::regex output_re(R"(^ *(o[0-9]+) \[shape=ellipse.*<B>logits</B>.*float\[N,2\])");
  std::string input_id, output_id;
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, input_re)) input_id = m[1];
    if (std::regex_search(line, m, output_re)) output_id = m[1];
  }
  ASSERT_FALSE(input_id.empty()) << dot;
  ASSERT_FALSE(output_id.empty()) << dot;
  // Producer -> consumer, and nothing more (the weights are not boxes, so no edges come from them).
  EXPECT_TRUE(HasEdge(dot, input_id, conv[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, conv[0], relu[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, relu[0], pool[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, pool[0], reshape[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, reshape[0], output_id)) << dot;
  EXPECT_EQ(Count(dot, " -> "), 5u) << dot;
  // Without --shapes the edges carry no labels.
  EXPECT_EQ(dot.find("label=\" "), std::string::npos);
}

TEST(VisualizeDot, InitializersAreFoldedIntoTheirConsumer) {
  ir::Model model = Parse(kConvModel);
  std::string dot = Dot(model);
  auto conv = IdsOf(dot, "Conv");
  ASSERT_EQ(conv.size(), 1u);
  std::string conv_line = NodeLine(dot, conv[0]);
  // Named by the operator's formal input (Conv's W and B), with the shape.
  EXPECT_NE(conv_line.find("W⟨2×3×1×1⟩"), std::string::npos) << conv_line;
  // A 1-D tensor this small shows its values.
  EXPECT_NE(conv_line.find("B=[0.5,-0.5]"), std::string::npos) << conv_line;
  auto reshape = IdsOf(dot, "Reshape");
  ASSERT_EQ(reshape.size(), 1u);
  EXPECT_NE(NodeLine(dot, reshape[0]).find("shape=[0,-1]"), std::string::npos) << NodeLine(dot, reshape[0]);
  // No box of their own.
  EXPECT_EQ(dot.find("<B>conv_w</B>"), std::string::npos);
  EXPECT_EQ(dot.find("<B>new_shape</B>"), std::string::npos);

  DotOptions hide;
  hide.initializers = false;
  std::string hidden = Dot(model, hide);
  EXPECT_EQ(hidden.find("⟨2×3×1×1⟩"), std::string::npos) << hidden;
  EXPECT_EQ(hidden.find("shape=[0,-1]"), std::string::npos);
  EXPECT_EQ(Count(hidden, " -> "), 5u);
}

TEST(VisualizeDot, ConstantNodesAreFoldedLikeInitializersUnlessTheyAreOutputs) {
  ir::Model model = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y, float[2] c2) {
  c1 = Constant<value = float[2] {1.5, 2.5}>()
  k = Constant<value_ints = [0, -1]>()
  t = Add(x, c1)
  r = Reshape(t, k)
  y = Identity(r)
  c2 = Constant<value_float = 3.0>()
}
)");
  std::string dot = Dot(model);
  auto add = IdsOf(dot, "Add");
  ASSERT_EQ(add.size(), 1u);
  // c1 is shown inside Add's box with its values, k inside Reshape's; neither has a box of its own.
  EXPECT_NE(NodeLine(dot, add[0]).find("[1.5,2.5]"), std::string::npos) << NodeLine(dot, add[0]);
  auto reshape = IdsOf(dot, "Reshape");
  ASSERT_EQ(reshape.size(), 1u);
  EXPECT_NE(NodeLine(dot, reshape[0]).find("[0,-1]"), std::string::npos) << NodeLine(dot, reshape[0]);
  // c2 is a graph output: it keeps its box and its edge.
  EXPECT_EQ(IdsOf(dot, "Constant").size(), 1u) << dot;
  // Hidden initializers hide nothing else: the Constants are then drawn as boxes.
  DotOptions hide;
  hide.initializers = false;
  EXPECT_EQ(IdsOf(Dot(model, hide), "Constant").size(), 3u);
}

TEST(VisualizeDot, OldStyleInitializersListedAsInputsAreStillFolded) {
  // IR < 4: initializers appear among the graph inputs too; they are weights, not inputs to draw.
  ir::Model model = Parse(kConvModel);
  ir::ValueInfo w;
  w.name = "conv_w";
  w.type = ir::TypeInfo::Tensor(DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Value(2), ir::Dim::Value(3),
                                                                       ir::Dim::Value(1), ir::Dim::Value(1)});
  model.graph.inputs.push_back(w);
  std::string dot = Dot(model);
  EXPECT_EQ(dot.find("<B>conv_w</B>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("W⟨2×3×1×1⟩"), std::string::npos);
}

TEST(VisualizeDot, LongListsAndOtherDomainsAreShortened) {
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
g (float[4] x) => (y) {
  y = com.example.Custom <many = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5,
                          a6 = 6, a7 = 7, mode = "a very long string attribute value that goes on"> (x)
}
)");
  std::string dot = Dot(model);
  auto custom = IdsOf(dot, "Custom");
  ASSERT_EQ(custom.size(), 1u) << dot;
  std::string line = NodeLine(dot, custom[0]);
  EXPECT_NE(line.find("<I>com.example</I>"), std::string::npos) << line;
  EXPECT_NE(line.find("many=[1,2,3,4,5,6,7,8,…(12)]"), std::string::npos) << line;
  // Six attribute lines at most, then a count of the rest.
  EXPECT_NE(line.find("… 3 more attributes"), std::string::npos) << line;
  EXPECT_EQ(line.find("a7="), std::string::npos) << line;
}

TEST_F(VisualizeTempDir, EscapesEverythingGraphvizReads) {
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (y) {
  y = Relu(x)
}
)");
  // Names from a hostile or merely creative exporter.
  const std::string weird = "a\"b<c>{d}|e\\f&g ünï ⟨x⟩ \\N\x01\xff";
  model.graph.nodes[0].name = weird;
  model.graph.inputs[0].name = weird + "_in";
  model.graph.nodes[0].inputs[0] = weird + "_in";
  std::string dot = Dot(model);
  auto relu = IdsOf(dot, "Relu");
  ASSERT_EQ(relu.size(), 1u);
  std::string line = NodeLine(dot, relu[0]);
  // HTML-like label: entities for & < > ", the rest (backslash, braces, bar, unicode) as is; the control character
  // becomes a space and the invalid byte U+FFFD.
  EXPECT_NE(line.find("a&quot;b&lt;c&gt;{d}|e\\f&amp;g ünï ⟨x⟩ \\N \xEF\xBF\xBD</FONT>"), std::string::npos) << line;
  // Quoted tooltip: quotes and backslashes escaped (so \N stays literal text).
  EXPECT_NE(line.find("tooltip=\"a\\\"b<c>{d}|e\\\\f&g ünï ⟨x⟩ \\\\N \xEF\xBF\xBD (Relu)\\nin: "), std::string::npos)
      << line;
  // No raw control or invalid byte anywhere.
  EXPECT_EQ(dot.find('\x01'), std::string::npos);
  EXPECT_EQ(dot.find('\xff'), std::string::npos);
  // And Graphviz agrees that it is well formed.
  Status rendered = RenderDot(dot, "svg", (dir_ / "escape.svg").string());
  EXPECT_TRUE(rendered.ok()) << rendered.message();
  EXPECT_NE(ReadFile(dir_ / "escape.svg").find("a&quot;b&lt;c&gt;{d}|e\\f&amp;g ünï"), std::string::npos);
}

TEST(VisualizeDotText, Helpers) {
  EXPECT_EQ(Quoted("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(HtmlText("<&>\""), "&lt;&amp;&gt;&quot;");
  EXPECT_EQ(Truncate("abcdef", 3), "abc…");
  EXPECT_EQ(Truncate("äöüß", 2), "äö…");
  EXPECT_EQ(Truncate("abc", 3), "abc");
  EXPECT_EQ(SanitizeUtf8("ok\xC3"), "ok\xEF\xBF\xBD");                              // truncated sequence
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(SanitizeUtf8("tab\there"), "tab here");
  EXPECT_EQ(SanitizeUtf8("日本"), "日本");
}

constexpr const char* kIfModel = R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool cond, float[N, 3] x) => (float[N, 3] y) {
  t = Neg(x)
  y = If(cond) <
    then_branch = then_body () => (float[N, 3] a) { a = Sigmoid(t) },
    else_branch = else_body () => (float[N, 3] b) { b2 = Tanh(t)  b = Abs(b2) }>
}
)";

TEST(VisualizeDot, IfBodiesAreClustersWithTheirOwnNodes) {
  std::string dot = Dot(Parse(kIfModel));
  auto if_ids = IdsOf(dot, "If"), neg = IdsOf(dot, "Neg"), sigmoid = IdsOf(dot, "Sigmoid"), tanh = IdsOf(dot, "Tanh"),
       abs = IdsOf(dot, "Abs");
  ASSERT_EQ(if_ids.size(), 1u) << dot;
  ASSERT_EQ(sigmoid.size(), 1u) << dot;
  ASSERT_EQ(tanh.size(), 1u) << dot;
  ASSERT_EQ(abs.size(), 1u) << dot;
  // The If's cluster holds the If box and one cluster per branch, each holding that branch's nodes.
  size_t outer = dot.find("subgraph cluster_" + if_ids[0] + " {");
  ASSERT_NE(outer, std::string::npos) << dot;
  size_t then_pos = dot.find("<I>then_branch</I>", outer);
  size_t else_pos = dot.find("<I>else_branch</I>", outer);
  ASSERT_NE(then_pos, std::string::npos);
  ASSERT_NE(else_pos, std::string::npos);
  size_t sigmoid_pos = dot.find("  " + sigmoid[0] + " [");
  size_t tanh_pos = dot.find("  " + tanh[0] + " [");
  EXPECT_LT(outer, dot.find("  " + if_ids[0] + " ["));
  EXPECT_LT(then_pos, sigmoid_pos);
  EXPECT_LT(sigmoid_pos, else_pos);
  EXPECT_LT(else_pos, tanh_pos);
  EXPECT_EQ(Count(dot, "subgraph cluster_"), 3u);
  // The bodies read `t` from the main graph: dashed edges from its producer; inside, producer -> consumer.
  EXPECT_TRUE(HasEdge(dot, neg[0], sigmoid[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, neg[0], tanh[0])) << dot;
  EXPECT_TRUE(HasEdge(dot, tanh[0], abs[0])) << dot;
  size_t outer_edge = dot.find("  " + neg[0] + " -> " + sigmoid[0] + " [");
  EXPECT_NE(dot.substr(outer_edge, dot.find('\n', outer_edge) - outer_edge).find("style=dashed"), std::string::npos);
  // Branch outputs are ellipses inside their cluster; the If's own output leaves the If box.
  EXPECT_NE(dot.find("<B>a</B>"), std::string::npos);
  EXPECT_NE(dot.find("<B>b</B>"), std::string::npos);
  EXPECT_EQ(CountNodes(Parse(kIfModel).graph), 5u);
}

TEST(VisualizeDot, ShapesLabelEdgesFromInference) {
  std::string zeros;  // Conv's 4x3x3x3 weights
  for (int i = 0; i < 4 * 3 * 3 * 3; ++i) zeros += i ? ", 0" : "0";
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 8, 8] x) => (y) <float[4, 3, 3, 3] w = {)" +
                          zeros + R"(}> {
  c = Conv <kernel_shape = [3, 3], strides = [2, 2]> (x, w)
  t = Transpose <perm = [0, 2, 3, 1]> (c)
  y = Relu(t)
}
)");
  DotOptions options;
  options.shapes = true;
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  std::string dot = Dot(model, options);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  auto conv = IdsOf(dot, "Conv"), transpose = IdsOf(dot, "Transpose");
  ASSERT_EQ(conv.size(), 1u);
  ASSERT_EQ(transpose.size(), 1u);
  size_t edge = dot.find("  " + conv[0] + " -> " + transpose[0] + " [");
  ASSERT_NE(edge, std::string::npos) << dot;
  std::string edge_line = dot.substr(edge, dot.find('\n', edge) - edge);
  EXPECT_NE(edge_line.find("label=\" float[N,4,3,3] \""), std::string::npos) << edge_line;
  EXPECT_NE(dot.find("label=\" float[N,3,3,4] \""), std::string::npos) << dot;
  // The inferred type of the output reaches its ellipse, which declares none.
  EXPECT_NE(dot.find("<B>y</B><BR/><FONT POINT-SIZE=\"9\" COLOR=\"#444444\">float[N,3,3,4]"), std::string::npos) << dot;
  // The model itself is left as it was (inference ran on a copy).
  EXPECT_TRUE(model.graph.value_info.empty());
  EXPECT_FALSE(model.graph.outputs[0].type.has_value());
}

TEST(VisualizeDot, ShapesFallBackToDeclaredTypesAndWarn) {
  // The shapes cannot broadcast: inference reports it, the other values keep their labels.
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, float[3] z) => (y) {
  s = Sigmoid(x)
  y = Add(s, z)
}
)");
  DotOptions options;
  options.shapes = true;
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  std::string dot = Dot(model, options);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("shape inference"), std::string::npos) << warnings[0];
  EXPECT_NE(dot.find("label=\" float[2] \""), std::string::npos) << dot;

  // A model inference cannot get through at all (a cycle stops its topological sort): the declared value_info
  // labels what it can, and the drawing is still made.
  ir::Model broken = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (y) <float[2] v> {
  v = Relu(x)
  w = Identity(v)
  y = Add(w, loop)
  loop = Neg(y)
}
)");
  warnings.clear();
  std::string broken_dot = Dot(broken, options);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("declared value_info"), std::string::npos) << warnings[0];
  auto relu = IdsOf(broken_dot, "Relu"), identity = IdsOf(broken_dot, "Identity");
  ASSERT_EQ(relu.size(), 1u);
  ASSERT_EQ(identity.size(), 1u);
  size_t edge = broken_dot.find("  " + relu[0] + " -> " + identity[0] + " [");
  ASSERT_NE(edge, std::string::npos) << broken_dot;
  EXPECT_NE(broken_dot.substr(edge, broken_dot.find('\n', edge) - edge).find("label=\" float[2] \""),
            std::string::npos);
  // w has no declared type: its edge stays unlabelled.
  size_t w_edge = broken_dot.find("  " + identity[0] + " -> ");
  ASSERT_NE(w_edge, std::string::npos);
  EXPECT_EQ(broken_dot.substr(w_edge, broken_dot.find('\n', w_edge) - w_edge).find("label="), std::string::npos);
}

TEST(VisualizeDot, RankdirIsChecked) {
  DotOptions options;
  options.rankdir = "LR";
  EXPECT_NE(Dot(Parse(kConvModel), options).find("rankdir=LR"), std::string::npos);
  options.rankdir = "sideways";
  auto bad = ModelToDot(Parse(kConvModel), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sideways"), std::string::npos);
}

TEST(VisualizeDot, MissingProducersAreShown) {
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (y) {
  y = Add(x, ghost)
}
)");
  std::string dot = Dot(model);
  EXPECT_NE(dot.find("ghost<BR/>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("(no producer)"), std::string::npos);
}

TEST_F(VisualizeTempDir, RendersSvgPngAndPdf) {
  std::string dot = Dot(Parse(kIfModel));
  ASSERT_TRUE(RenderDot(dot, "svg", (dir_ / "g.svg").string()).ok());
  std::string svg = ReadFile(dir_ / "g.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 100);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find(">Sigmoid</text>"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);

  ASSERT_TRUE(RenderDot(dot, "png", (dir_ / "g.png").string()).ok());
  std::string png = ReadFile(dir_ / "g.png");
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  ASSERT_TRUE(RenderDot(dot, "pdf", (dir_ / "g.pdf").string()).ok());
  EXPECT_EQ(ReadFile(dir_ / "g.pdf").substr(0, 5), "%PDF-");
}

TEST_F(VisualizeTempDir, RenderErrors) {
  Status bad = RenderDot("digraph { a -> ; }", "svg", (dir_ / "bad.svg").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("syntax error"), std::string::npos) << bad.message();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.svg"));
  // Graphviz's parser recovers: the next graph renders.
  EXPECT_TRUE(RenderDot("digraph { a -> b }", "svg", (dir_ / "good.svg").string()).ok());
  EXPECT_FALSE(RenderDot("digraph { a -> b }", "jpeg2000", (dir_ / "x.jp2").string()).ok());
  Status unwritable = RenderDot("digraph { a -> b }", "svg", (dir_ / "no_such_dir" / "g.svg").string());
  ASSERT_FALSE(unwritable.ok());
  EXPECT_EQ(unwritable.code(), StatusCode::kIoError);
  EXPECT_NE(unwritable.message().find("no_such_dir"), std::string::npos);
}

TEST_F(VisualizeTempDir, RealModelRendersEveryNode) {
  auto model = format::LoadModel(std::string(ONYX_SOURCE_DIR) + "/models/blazeface/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status().message();
  DotOptions options;
  options.shapes = true;
  std::string dot = Dot(*model, options);
  // Every node a box of its own (ids n0, n1, ...).
  size_t boxes = 0;
  std::istringstream in(dot);
  std::regex box_re(R"(^ *n[0-9]+ \[label=<<B>)");
  for (std::string line; std::getline(in, line);) boxes += std::regex_search(line, box_re) ? 1 : 0;
  EXPECT_EQ(boxes, model->graph.nodes.size());
  EXPECT_GT(Count(dot, "label=\" float["), 50u);
  ASSERT_TRUE(RenderDot(dot, "svg", (dir_ / "blazeface.svg").string()).ok());
  std::string svg = ReadFile(dir_ / "blazeface.svg");
  EXPECT_EQ(Count(svg, "class=\"node\""), boxes + model->graph.RealInputs().size() + model->graph.outputs.size());
}

}  // namespace
}  // namespace onyx::visualize
