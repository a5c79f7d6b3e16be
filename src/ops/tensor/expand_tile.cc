// Expand (broadcast to a shape) and Tile (repeat along each axis).
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

Status ExpandCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsInput(ctx, 1, "shape"));
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("input 'shape' (1) " + ShapeToString(shape) + " has a negative dimension");
  }
  ONYX_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(data->shape(), shape));
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(out_shape));
  (void)n;
  Tensor& out = ctx.AllocateOutput(0, data->type(), out_shape);
  StridedCopy(*data, 0, BroadcastStrides(data->shape(), out_shape), out, 0, RowMajorStrides(out_shape), out_shape);
  return Status::Ok();
}

// Copies `data` repeated repeats[d] times along each axis d.
Status TileInto(const Tensor& data, const std::vector<int64_t>& repeats, KernelContext& ctx) {
  const Shape& in = data.shape();
  Shape out_shape(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    if (repeats[d] < 0) return InvalidArgument("'repeats' " + ShapeToString(repeats) + " has a negative entry");
    out_shape[d] = in[d] * repeats[d];
  }
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(out_shape));
  (void)n;
  Tensor& out = ctx.AllocateOutput(0, data.type(), out_shape);
  // Iterate over [rep0, d0, rep1, d1, ...]: output coordinate r*d + i reads input coordinate i.
  const std::vector<int64_t> in_strides = RowMajorStrides(in), out_strides = RowMajorStrides(out_shape);
  Shape iter;
  std::vector<int64_t> src, dst;
  for (size_t d = 0; d < in.size(); ++d) {
    iter.insert(iter.end(), {repeats[d], in[d]});
    src.insert(src.end(), {0, in_strides[d]});
    dst.insert(dst.end(), {in[d] * out_strides[d], out_strides[d]});
  }
  StridedCopy(data, 0, src, out, 0, dst, iter);
  return Status::Ok();
}

Status TileCompute(const KernelInfo& info, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
  std::vector<int64_t> repeats;
  if (info.since_version() < 6) {  // inputs (input, tiles, axis): `tiles` copies along `axis`
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> tiles, IntsInput(ctx, 1, "tiles"));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, IntsInput(ctx, 2, "axis"));
    if (tiles.size() != 1 || axis.size() != 1) return InvalidArgument("inputs 'tiles' and 'axis' must be scalars");
    ONYX_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis[0], data->rank()));
    if (data->rank() == 0) return InvalidArgument("input 'input' (0) is a scalar; Tile-1 needs rank >= 1");
    repeats.assign(static_cast<size_t>(data->rank()), 1);
    repeats[static_cast<size_t>(a)] = tiles[0];
  } else {
    ONYX_ASSIGN_OR_RETURN(repeats, IntsInput(ctx, 1, "repeats"));
    if (static_cast<int64_t>(repeats.size()) != data->rank()) {
      return InvalidArgument("input 'repeats' (1) has " + std::to_string(repeats.size()) +
                             " entries but the input " + ShapeToString(data->shape()) + " has rank " +
                             std::to_string(data->rank()));
    }
  }
  return TileInto(*data, repeats, ctx);
}

}  // namespace

void RegisterExpandTileOps(KernelRegistry& registry) {
  registry.AddFn("", "Expand", 8, kLatestVersion, ExpandCompute);
  registry.AddFn("", "Tile", 1, kLatestVersion, TileCompute);
}

}  // namespace onyx::ops::movement
