// Which observed tensors share a calibration session. Calibration adds the observed tensors to a copy of the float
// model as graph outputs (so that the optimizer keeps them: graph output names survive every rewrite) and reads
// them after each run. A run keeps its graph outputs until it ends, so the observed values of one session are all
// in memory at once: they are grouped so that each group's bytes stay within a budget, and a model whose observed
// values fit (most: ResNet-50 ~100 MB, the BERT-like encoder ~140 MB at 128 tokens) runs each sample once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/value.h"
#include "ir/model.h"

namespace onyx::quantize {

struct CalibrationGroups {
  std::vector<std::vector<std::string>> groups;  // in the order of the tensors given, none empty
  int64_t largest_group_bytes = 0;               // estimated bytes of the largest group's values in one run
  int64_t unknown_sizes = 0;                     // tensors whose shape inference could not size
};

// The byte size of each tensor in `tensors` when `model` runs on `feeds` (shape inference with the feeds' concrete
// shapes); -1 where inference leaves the type or a dimension unknown.
std::vector<int64_t> ObservedTensorBytes(const ir::Model& model, const std::vector<std::string>& tensors,
                                         const std::vector<std::pair<std::string, Value>>& feeds);

// Splits `tensors` (with `bytes` from ObservedTensorBytes) into consecutive groups of at most `max_bytes` bytes
// (0: no limit) and `max_count` tensors (0: no limit). A tensor larger than the budget gets a group of its own; an
// unknown size counts as the largest known one, so that an unknown does not silently overflow the budget, and when
// no size is known at all (with a budget) the groups are of at most 64 tensors.
CalibrationGroups GroupObservedTensors(const std::vector<std::string>& tensors, const std::vector<int64_t>& bytes,
                                       int64_t max_bytes, int64_t max_count);

}  // namespace onyx::quantize
