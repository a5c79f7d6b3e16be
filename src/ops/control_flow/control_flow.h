// Helpers shared by the control-flow kernels (If, Loop, Scan) and SequenceMap: reading a loop condition,
// cutting a tensor into the slices a body sees and stacking the slices a body returns, and the empty result a
// loop that never runs must still produce (shaped from what the body graph declares).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/value.h"
#include "ir/model.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::control_flow {

// The value of a bool tensor holding exactly one element (any shape); `what` names it in errors.
Result<bool> ReadBool(const Value& v, const std::string& what);
// The value of an integer tensor holding exactly one element, as int64; `what` names it in errors.
Result<int64_t> ReadInt(const Value& v, const std::string& what);

// The sub-tensor of rank r-1 at `index` along `axis` of `t` (a copy).
Tensor SliceAt(const Tensor& t, int64_t axis, int64_t index);
// Writes `item` (rank r-1) into `out` (rank r) as the sub-tensor at `index` along `axis`.
void WriteAt(const Tensor& item, Tensor& out, int64_t axis, int64_t index);

// Stacks tensors of one type and shape along a new axis `axis` (in [0, rank]); items[i] lands at position
// order[i] when `order` is given (it must be a permutation), else at i. `what` names the result in errors.
Result<Tensor> Stack(const std::vector<Tensor>& items, int64_t axis, const std::string& what,
                     const std::vector<int64_t>& order = {});

// An empty tensor standing for zero stacked items of the type a body declares for one of its outputs: the
// declared shape with a 0 inserted at `axis` (negative counts from the end of the stacked rank; unknown
// dimensions become 0; an unknown rank gives shape [0]). Element type float when the declaration gives none.
Result<Tensor> EmptyStacked(const ir::ValueInfo* declared, int64_t axis);

// The element type a sequence-typed body output declares (kUndefined when none).
DataType DeclaredSequenceElemType(const ir::ValueInfo* declared);

void RegisterIfOps(KernelRegistry& registry);
void RegisterLoopOps(KernelRegistry& registry);
void RegisterScanOps(KernelRegistry& registry);

}  // namespace onyx::ops::control_flow
