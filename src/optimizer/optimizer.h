// The graph optimizer: rewrites an ir::Model into one that computes the same outputs with fewer or cheaper
// nodes. Levels as in onnxruntime: disabled, basic (semantics-preserving clean-ups such as constant folding and
// redundant-node removal), extended (fusions of a few nodes into one operator), all (everything). Session::Create
// runs it after function inlining and the Gradient expansion. Passes live one per file; pass_list.h lists them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"

namespace onyx::optimizer {

// The numbers are onnxruntime's GraphOptimizationLevel values, so that Python callers can pass them through.
enum class OptLevel : int { kDisabled = 0, kBasic = 1, kExtended = 2, kAll = 99 };

// "disabled", "basic", "extended", "all" (also the numbers 0, 1, 2, 99; 3 reads as all).
Result<OptLevel> ParseOptLevel(std::string_view text);
// onnxruntime's numbers; any number above 2 is all, below 0 is an error.
Result<OptLevel> OptLevelFromInt(int64_t value);
std::string_view OptLevelName(OptLevel level);

// Runs a model that has no inputs (one node over initializers) and returns its outputs in order. Constant folding
// evaluates nodes through it; the runtime provides it (runtime/session.h: ConstantModelRunner), so that the optimizer,
// a lower layer, never includes the runtime that calls it.
using ConstantModelRunner = std::function<Result<std::vector<Value>>(ir::Model model)>;

struct OptimizerOptions {
  OptLevel level = OptLevel::kAll;
  int num_threads = 1;  // for the kernels constant folding runs
  ConstantModelRunner run_constant_model;  // unset: constant folding folds nothing
  // Fuse only as ONNX Runtime does where the arithmetic would differ (set with ONNX Runtime's summation order,
  // KernelInfo::ort_summation_order): no FusedAttention, MatMulBias or GELU folded into a product (onyx's own
  // summation orders), and Add + LayerNormalization -> com.microsoft SkipLayerNormalization as its optimizer writes
  // it; the optimized graph then computes ONNX Runtime's bytes at level all too.
  bool ort_fusions = false;
};

struct OptimizerStats {
  int64_t nodes_before = 0;  // subgraphs included
  int64_t nodes_after = 0;
  std::map<std::string, int64_t> rewrites_by_pass;  // pass name -> how many rewrites it made
  std::map<std::string, double> ms_by_pass;         // pass name -> time spent in it, every round summed
  double milliseconds = 0;                          // time spent optimizing
};

// Optimizes every graph of the model (subgraphs included) in place. Graph input and output names are kept,
// subgraphs' references to outer values stay valid, and results change at most by float rounding.
Status OptimizeModel(ir::Model& model, const OptimizerOptions& options, OptimizerStats* stats = nullptr);

}  // namespace onyx::optimizer
