// Helpers shared by the per-operator inference functions: broadcasting, axes, type unions.
#pragma once

#include <optional>
#include <vector>

#include "infer/dim_math.h"
#include "infer/op_context.h"

namespace onyx::infer {

using Dims = std::vector<ir::Dim>;

// Multidirectional (numpy) broadcasting of known shapes; nullopt when a rank is unknown; an error when two
// numeric dims differ and neither is 1.
Result<std::optional<Dims>> BroadcastShapes(const std::vector<const Dims*>& shapes);
// Broadcasts the shapes of the given inputs (absent inputs are skipped).
Result<std::optional<Dims>> BroadcastInputs(const InferenceContext& ctx, const std::vector<size_t>& inputs);

// The axis in [0, rank) for an axis in [-rank, rank); error otherwise.
Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const char* what = "axis");

// The type that covers both (for If branches, sequence elements): equal parts kept, differing dims unknown,
// differing ranks no shape. nullopt when the kinds or element types differ.
std::optional<ir::TypeInfo> UnionTypes(const ir::TypeInfo& a, const ir::TypeInfo& b);

// Copies input `in`'s type to output `out` (when known).
void PassThrough(InferenceContext& ctx, size_t in = 0, size_t out = 0);
// Output `out` gets input `in`'s element type and `shape`.
void SetLike(InferenceContext& ctx, size_t in, size_t out, std::optional<Dims> shape);

Dims DimsFromValues(const std::vector<int64_t>& values);
// A shape whose every dim is unknown.
Dims UnknownDims(int64_t rank);

// The elements of a shape tensor input as dims when its length is known (values, symbols or unknown);
// nullopt when not even its length is known.
std::optional<Dims> ShapeFromInput(const InferenceContext& ctx, size_t i);

// Element type from a `to`/`dtype` attribute (ONNX numbers); kUndefined when absent or invalid.
DataType ElemTypeAttr(const InferenceContext& ctx, std::string_view name, DataType fallback = DataType::kUndefined);

}  // namespace onyx::infer
