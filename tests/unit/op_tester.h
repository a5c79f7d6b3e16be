// Runs one operator node through a real Session (model built in memory) for unit tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/value.h"
#include "ir/model.h"
#include "runtime/session.h"

namespace onyx::testing {

struct OpTest {
  std::string op_type;
  std::string domain;  // "" = ai.onnx
  int64_t opset = 21;  // imported version of the node's domain
  std::vector<ir::Attribute> attributes;
  std::vector<Value> inputs;  // an empty Value() marks an omitted optional input
  int num_outputs = 1;
  // Inputs (by index) given as initializers instead of feeds: kernels may prepack those (session constants).
  std::vector<size_t> constant_inputs;
  // The session's settings (optimization level, threads, summation order); the defaults unless a test sets them.
  SessionOptions options;

  OpTest& Attr(const std::string& name, int64_t v);
  OpTest& Attr(const std::string& name, float v);
  OpTest& Attr(const std::string& name, const std::string& v);
  OpTest& Attr(const std::string& name, const std::vector<int64_t>& v);
  OpTest& Attr(const std::string& name, const std::vector<float>& v);
  OpTest& Input(Value v);
  OpTest& Outputs(int n);  // how many outputs the node declares (and the run returns)
};

// Builds a model holding just this node, creates a Session and runs it.
Result<std::vector<Value>> RunOp(const OpTest& test);

using Feeds = std::vector<std::pair<std::string, Value>>;

// Parses a whole model in the ONNX text syntax (for graphs one node cannot express: subgraphs, several nodes),
// creates a Session and runs it on `feeds`.
Result<std::vector<Value>> RunModel(const std::string& text, const Feeds& feeds);

}  // namespace onyx::testing
