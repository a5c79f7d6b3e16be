// The ONNX backend-test conformance runner behind `onyx conformance`.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "optimizer/optimizer.h"
#include "testing/compare.h"

namespace onyx::testing {

enum class CaseOutcome { kPass, kFail, kUnsupported };

struct CaseResult {
  std::string name;  // "<suite folder>/<case>", e.g. "node/test_abs"
  CaseOutcome outcome = CaseOutcome::kFail;
  std::string message;  // first mismatch, error, or unsupported operators
  // The model draws random values (Bernoulli, Random*): its outputs were checked with CompareRandomDraws (type,
  // shape, support), since the spec does not fix the values such operators produce.
  bool random_draws = false;
  double seconds = 0;
};

struct ConformanceOptions {
  Tolerance tolerance;
  int timeout_seconds = 120;  // per case
  bool isolate = true;        // run each case in a child process (a crash or hang fails only that case)
  optimizer::OptLevel optimization_level = optimizer::OptLevel::kAll;
  std::string optimized_model_path;  // where to save the optimized model (useful with a single case)
  // Runs of each data set in the same session, each checked: later runs exercise what a session keeps between
  // runs (cached primitives, Concats learned in place).
  int runs_per_set = 1;
};

// Finds test cases under each path: a folder holding model.onnx, a folder of such folders (searched recursively),
// or a folder of light_<name>.onnx models with light_<name>_output_0.pb beside them.
struct TestCase {
  std::string name;
  std::string model_path;
  std::string dir;           // case folder (test_data_set_N inside), empty for light models
  std::string light_output;  // expected output of a light model
};
Result<std::vector<TestCase>> DiscoverCases(const std::vector<std::string>& paths);

CaseResult RunCase(const TestCase& test, const ConformanceOptions& options);

// The feeds of one ONNX test-data folder: set_dir/input_N.pb for the graph's inputs in order (those that are not
// initializers), read with their declared types; stops at the first missing file.
Result<std::vector<std::pair<std::string, Value>>> LoadDataSetInputs(const ir::Graph& graph,
                                                                     const std::string& set_dir);

// Runs every case, calling `report` after each.
std::vector<CaseResult> RunConformance(const std::vector<TestCase>& cases, const ConformanceOptions& options,
                                       const std::function<void(const CaseResult&)>& report);

// An expectations file lists cases not yet passing, one name per line, '#' starting a comment.
Result<std::set<std::string>> LoadExpectations(const std::string& path);

std::string OutcomeName(CaseOutcome o);

}  // namespace onyx::testing
