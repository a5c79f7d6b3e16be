// The in-memory model: Model, Graph (with subgraphs held by attributes), Node, ValueInfo, Attribute, Function.
// It mirrors ONNX's ModelProto closely so that load -> save is lossless; rarely used parts (sparse tensors,
// training info, device configurations, quantization annotations) are kept as serialized protobuf bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::ir {

// The private domain of the helper operators onyx's own rewrites emit (Gradient expansion, blocked layout); its
// operators have the single version 1.
inline constexpr const char* kInternalDomain = "ai.onyx.internal";

using MetadataProps = std::vector<std::pair<std::string, std::string>>;

struct Dim {
  enum class Kind { kUnknown, kValue, kParam };
  Kind kind = Kind::kUnknown;
  int64_t value = 0;
  std::string param;
  std::string denotation;

  static Dim Value(int64_t v) { return Dim{Kind::kValue, v, {}, {}}; }
  static Dim Param(std::string p) { return Dim{Kind::kParam, 0, std::move(p), {}}; }
  bool is_value() const { return kind == Kind::kValue; }
  bool is_param() const { return kind == Kind::kParam; }
  std::string ToString() const;  // "3", "N" or "?"
};

struct TypeInfo {
  enum class Kind { kUndefined, kTensor, kSequence, kMap, kOptional, kSparseTensor, kOpaque };
  Kind kind = Kind::kUndefined;
  DataType elem_type = DataType::kUndefined;  // tensor and sparse tensor element type; map key type
  std::optional<std::vector<Dim>> shape;      // tensor / sparse tensor; nullopt = rank unknown
  std::shared_ptr<TypeInfo> elem;             // sequence / optional element type, map value type
  std::string denotation;
  std::string opaque_domain, opaque_name;

  static TypeInfo Tensor(DataType t, std::optional<std::vector<Dim>> shape = std::nullopt);
  static TypeInfo Sequence(TypeInfo elem);
  static TypeInfo Optional(TypeInfo elem);
  bool is_tensor() const { return kind == Kind::kTensor; }
  // "tensor(float)", "seq(tensor(int64))", "map(string,tensor(float))", "optional(...)" as onnxruntime names types.
  std::string ToString() const;
  // "float[N,3,224,224]" style, as in the ONNX text syntax.
  std::string ToShortString() const;
};

struct ValueInfo {
  std::string name;
  std::optional<TypeInfo> type;
  std::string doc_string;
  MetadataProps metadata_props;
};

struct Graph;

enum class AttrType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};
std::string_view AttrTypeName(AttrType t);

// A tensor value stored in a model: an initializer, a Constant's value, a TENSOR attribute.
struct NamedTensor {
  std::string name;
  std::string doc_string;
  Tensor tensor;
  MetadataProps metadata_props;
  // Where the bytes came from when stored outside the .onnx file (kept so that a save can write them back there).
  std::vector<std::pair<std::string, std::string>> external_data;
};

struct Attribute {
  std::string name;
  AttrType type = AttrType::kUndefined;
  std::string ref_attr_name;  // inside functions: refers to an attribute of the calling node
  std::string doc_string;

  float f = 0;
  int64_t i = 0;
  std::string s;
  NamedTensor t;
  std::shared_ptr<Graph> g;
  std::optional<TypeInfo> tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<NamedTensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::vector<TypeInfo> type_protos;
  std::string sparse_tensor;                // serialized SparseTensorProto
  std::vector<std::string> sparse_tensors;  // serialized SparseTensorProto each
};

// Attributes built by rewrites, converters and adapters.
Attribute IntAttr(const std::string& name, int64_t v);
Attribute IntsAttr(const std::string& name, std::vector<int64_t> v);
Attribute FloatAttr(const std::string& name, float v);
Attribute FloatsAttr(const std::string& name, std::vector<float> v);
Attribute StringAttr(const std::string& name, std::string v);
Attribute StringsAttr(const std::string& name, std::vector<std::string> v);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" is ai.onnx
  std::string overload;
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  std::string doc_string;
  MetadataProps metadata_props;
  std::vector<std::string> device_configurations;  // serialized NodeDeviceConfigurationProto

  const Attribute* FindAttribute(std::string_view attr_name) const;
  // "node 'conv_3' (Conv)" or "node #12 (Conv)" when unnamed: the prefix of every error about this node.
  std::string Describe() const;
};

// The standard operators whose twins in kInternalDomain the optimizer's fusions emit where a model's opset predates
// them (the opset each arrived in): the same inputs, attributes, kernel (ops/fused/register.cc) and output type and
// shape (infer/ops_contrib.cc, optimizer/graph_index.cc). One list, so that a new twin is known to all three.
struct InternalStandardTwin {
  const char* op_type;
  int since_version;
};
inline constexpr InternalStandardTwin kInternalStandardTwins[] = {
    {"Gelu", 20}, {"LayerNormalization", 17}, {"HardSwish", 14}, {"GroupNormalization", 21}};

// Whether `node` is one of those twins.
bool IsInternalStandardTwin(const Node& node);

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::vector<NamedTensor> initializers;
  std::vector<std::string> sparse_initializers;      // serialized SparseTensorProto
  std::vector<std::string> quantization_annotation;  // serialized TensorAnnotation
  std::string doc_string;
  MetadataProps metadata_props;

  const NamedTensor* FindInitializer(std::string_view value_name) const;
  // Graph inputs that are not initializers: what a caller feeds.
  std::vector<const ValueInfo*> RealInputs() const;
};

struct OpsetId {
  std::string domain;
  int64_t version = 0;
};

struct Function {
  std::string name;
  std::string domain;
  std::string overload;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attributes;        // attribute names without defaults
  std::vector<Attribute> attribute_defaults;  // attributes with default values
  std::vector<Node> nodes;
  std::string doc_string;
  std::vector<OpsetId> opset_import;
  std::vector<ValueInfo> value_info;
  MetadataProps metadata_props;
};

struct Model {
  int64_t ir_version = 0;
  std::vector<OpsetId> opset_import;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  Graph graph;
  MetadataProps metadata_props;
  std::vector<std::string> training_info;  // serialized TrainingInfoProto
  std::vector<Function> functions;
  std::vector<std::string> configuration;  // serialized DeviceConfigurationProto

  // Imported version of a domain ("" and "ai.onnx" are the same domain); nullopt when not imported.
  std::optional<int64_t> OpsetVersion(std::string_view op_domain) const;
  const Function* FindFunction(std::string_view fn_domain, std::string_view fn_name) const;
};

// "" and "ai.onnx" name the same domain; returns the canonical "ai.onnx".
std::string_view CanonicalDomain(std::string_view domain);

// Sorts graph.nodes so that every node comes after the producers of its inputs (stable: keeps the original
// order where it is already valid). Names defined outside the graph (`outer_scope`) count as available.
// Fails naming a node on a cycle or an input that nothing produces. Subgraphs are sorted too.
Status TopologicalSort(Graph& graph, const std::vector<std::string>& outer_scope = {});

// Names a graph reads from enclosing scopes (its nodes' and nested subgraphs' inputs that it does not define).
std::vector<std::string> FreeNames(const Graph& graph);
// Every name a node reads: its inputs and what its subgraphs read from outside them.
std::vector<std::string> NodeReads(const Node& node);

// Counts of each op_type (domain-qualified for non-default domains), subgraphs included.
std::map<std::string, int64_t> OperatorHistogram(const Graph& graph);

}  // namespace onyx::ir
