// A model's serving settings in a model repository: DIR/<model>/config.json (JSON, all fields optional; unknown
// fields are an error so that a typo does not silently do nothing):
//   {"version_policy": {"latest": {"num_versions": 2}} | {"all": {}} | {"specific": {"versions": [1, 3]}},
//    "max_batch_size": 8,            dynamic batching up to 8 rows (0: off; needs every input's first dim dynamic)
//    "max_queue_delay_us": 2000,     how long a batch waits to fill
//    "threads": 4,                   intra-op threads per run (0: all cores)
//    "optimization_level": "all",    disabled | basic | extended | all
//    "inputs": {"onnx_name": "served_name"}, "outputs": {...}}   names clients use instead of the graph's
// The version policy follows Triton's (default: the latest version only).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "optimizer/optimizer.h"

namespace onyx::serve {

struct ModelConfig {
  enum class Policy { kLatest, kAll, kSpecific };
  Policy policy = Policy::kLatest;
  int64_t latest_count = 1;
  std::vector<int64_t> specific_versions;
  // Unset fields take the server's defaults (the command line's).
  std::optional<int64_t> max_batch_size;
  std::optional<int64_t> max_queue_delay_us;
  std::optional<int> threads;
  std::optional<optimizer::OptLevel> optimization_level;
  std::map<std::string, std::string> input_names;   // graph name -> served name
  std::map<std::string, std::string> output_names;  // graph name -> served name
};

// Parses config.json's text; `where` (the file) prefixes the errors.
Result<ModelConfig> ParseModelConfig(std::string_view text, const std::string& where);
// DIR/<model>/config.json, or the defaults when there is none.
Result<ModelConfig> LoadModelConfig(const std::string& model_dir);

// The versions the policy serves out of `available` (any order), ascending.
std::vector<int64_t> SelectVersions(const ModelConfig& config, std::vector<int64_t> available);

}  // namespace onyx::serve
