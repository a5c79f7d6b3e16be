// Helpers shared by the Sequence family (sequence operators, SplitToSequence / ConcatFromSequence, SequenceMap,
// the Optional operators) and the per-file registration functions called from register.cc.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "core/value.h"
#include "runtime/kernel.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::sequence {

// Input i as a sequence, with an error naming it (`what`) when it is missing or not a sequence.
Result<const SequenceValue*> SequenceInput(const KernelContext& ctx, size_t i, const std::string& what);

// Reads a position input (int32 / int64 scalar) and maps it into [0, size) -- or [0, size] when `allow_end`
// (an insertion point) -- counting negative positions from the end.
Result<size_t> PositionInput(const KernelContext& ctx, size_t i, size_t size, bool allow_end);

// The element type a sequence holding `t` must have: errors when `seq_type` is set and differs.
Status CheckElementType(DataType seq_type, const Tensor& t, const std::string& what);

void RegisterSequenceBasicOps(KernelRegistry& registry);  // SequenceEmpty/Construct/At/Insert/Erase/Length
void RegisterSplitConcatOps(KernelRegistry& registry);    // SplitToSequence, ConcatFromSequence
void RegisterSequenceMapOps(KernelRegistry& registry);
void RegisterOptionalOps(KernelRegistry& registry);       // Optional, OptionalHasElement, OptionalGetElement

}  // namespace onyx::ops::sequence
