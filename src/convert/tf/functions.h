// TensorFlow functions: the graph's library.function (FunctionDef in proto3-JSON: signature {name, inputArg,
// outputArg}, nodeDef, ret). Calls are inlined; If/While bodies are converted into ONNX subgraphs with the same
// operator converters. Inside a function, node inputs are "node:out_arg:index" or an argument's name; they are
// rewritten to the "node:port" form of the top-level graph when a function is first read.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "convert/tf/graph_walk.h"

namespace onyx::convert::tf {

// Functions deeper than this are refused (a function calling itself would never end).
inline constexpr int kMaxFunctionDepth = 32;

struct TfFunction {
  std::string name;
  std::vector<std::string> args;     // input argument names, in order
  std::vector<std::string> results;  // per output argument: "node:port" or "arg:0"
  std::vector<TfNode> nodes;         // inputs as "node:port" or "arg:0"
};

class Functions {
 public:
  explicit Functions(ConvertEnv& env) : env_(env) {}

  // What the whole conversion shares (lookup tables, for instance).
  ConvertEnv& env() { return env_; }

  // The function named by `caller`'s func attribute `attr`.
  Result<const TfFunction*> FromAttr(const TfNode& caller, const std::string& attr);
  Result<const TfFunction*> Find(const std::string& name, const TfNode& caller);

  // Converts `fn`'s body into `b` with `args` as its arguments; its results in output-argument order. Node names get
  // `caller`'s name as a prefix.
  Result<std::vector<TfValue>> Inline(GraphBuilder& b, const TfFunction& fn, const std::vector<TfValue>& args,
                                      const TfNode& caller);

  // A new graph nested in the one `b` builds (a Loop or If body), filled by `build`. Value names stay unique
  // across the enclosing graphs, as ONNX wants.
  Result<std::shared_ptr<ir::Graph>> Subgraph(const std::string& name,
                                              const std::function<Status(GraphBuilder&)>& build);

  // For each result of `fn`: whether it is its argument of the same position, unchanged (through Identity nodes).
  std::vector<bool> PassThrough(const TfFunction& fn) const;

 private:
  ConvertEnv& env_;
  std::map<std::string, std::unique_ptr<TfFunction>> parsed_;
};

// Helpers of the ONNX If/Loop nodes that TF2 functions and TF1 frames both become.
ir::Attribute GraphAttr(const std::string& name, std::shared_ptr<ir::Graph> g);
// The ONNX type of a TF value: a sequence for TensorLists and TensorArray flows.
ir::TypeInfo TypeOf(const ConvertEnv& env, const TfValue& v);
// A subgraph output: a fresh name written by an Identity (a body's result may be an outer value or an input).
void AddGraphOutput(ConvertEnv& env, GraphBuilder& sb, const TfValue& v, const std::string& base);
// TF's condition as ONNX's bool: a number is true when nonzero (TF's rule for a scalar condition).
TfValue AsBool(GraphBuilder& b, const TfValue& v, const std::string& name);

}  // namespace onyx::convert::tf
