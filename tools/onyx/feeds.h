// The inputs of `onyx run`, `onyx bench` and `onyx compare`: files named per input (--input NAME=FILE, .npy or
// TensorProto .pb), an ONNX test-data folder (--inputs DIR: input_N.pb in the graph's input order), and random
// values for the rest (--seed, --dim; see random_inputs.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"

namespace onyx::cli {

struct FeedSources {
  std::map<std::string, std::string> files;  // input name -> file
  std::string dir;                           // test-data folder, or empty
  std::map<std::string, int64_t> dims;       // symbolic dim -> value for random inputs
  uint64_t seed = 0;
};

struct Feeds {
  std::vector<std::pair<std::string, Value>> values;  // in the graph's input order
  std::vector<std::string> random;                    // the inputs that got random values
};

// Errors name the input and the file: an input the graph does not have (then *usage_error is set: a command-line
// mistake), an unreadable file, a folder missing one.
Result<Feeds> BuildFeeds(const ir::Graph& graph, const FeedSources& sources, bool* usage_error);

}  // namespace onyx::cli
