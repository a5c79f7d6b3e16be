// Pad: pads as attribute 'paddings' (v1) / 'pads' (v2) and as an input from v11; axes input from v18; modes
// constant, reflect, edge and wrap (v19). Negative pads remove elements.
#include <algorithm>

#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// For one axis: the input coordinate each output coordinate reads, or -1 for the constant value.
Result<std::vector<int64_t>> AxisMap(int64_t dim, int64_t begin, int64_t out_dim, PadMode mode, size_t axis) {
  std::vector<int64_t> map(static_cast<size_t>(out_dim));
  for (int64_t o = 0; o < out_dim; ++o) {
    int64_t i = o - begin;
    if (i < 0 || i >= dim) {
      if (mode != PadMode::kConstant && dim == 0) {
        return InvalidArgument("cannot pad axis " + std::to_string(axis) + " of size 0 in a mode other than constant");
      }
      switch (mode) {
        case PadMode::kConstant:
          i = -1;
          break;
        case PadMode::kEdge:
          i = i < 0 ? 0 : dim - 1;
          break;
        case PadMode::kWrap:
          i = ((i % dim) + dim) % dim;
          break;
        case PadMode::kReflect:
          if (dim == 1) {
            i = 0;
          } else {
            const int64_t period = 2 * (dim - 1);
            i = ((i % period) + period) % period;
            if (i >= dim) i = period - i;
          }
          break;
      }
    }
    map[static_cast<size_t>(o)] = i;
  }
  return map;
}

// The padded copy of `data`; `value` holds the constant (one element of data's type).
Result<Tensor> PadTensor(const Tensor& data, const std::vector<int64_t>& pads, PadMode mode, const Tensor& value) {
  if (IsSubByte(data.type())) {
    ONYX_ASSIGN_OR_RETURN(Tensor bytes, PadTensor(UnpackSubByte(data), pads, mode, UnpackSubByte(value)));
    return PackSubByte(bytes, data.type());
  }
  const size_t rank = data.shape().size();
  Shape out_shape(rank);
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = data.shape()[d] + pads[d] + pads[d + rank];
    if (out_shape[d] < 0) {
      return InvalidArgument("pads " + ShapeToString(pads) + " remove more than the " +
                             std::to_string(data.shape()[d]) + " elements of axis " + std::to_string(d));
    }
    ONYX_ASSIGN_OR_RETURN(maps[d], AxisMap(data.shape()[d], pads[d], out_shape[d], mode, d));
  }
  ONYX_ASSIGN_OR_RETURN(int64_t total, CheckedNumElements(out_shape));
  Tensor out = Tensor::Allocate(data.type(), out_shape);
  if (mode == PadMode::kConstant) {
    // Fill with the constant, then copy the kept block of the input into place (contiguous runs: memcpy).
    Status filled = DispatchCopy(data.type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      std::fill(out.data<C>(), out.data<C>() + total, value.data<C>()[0]);
      return Status::Ok();
    });
    ONYX_RETURN_IF_ERROR(filled);
    const std::vector<int64_t> src_strides = RowMajorStrides(data.shape());
    const std::vector<int64_t> dst_strides = RowMajorStrides(out_shape);
    Shape block(rank);
    int64_t src_offset = 0, dst_offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t in_start = std::max<int64_t>(0, -pads[d]);
      const int64_t out_start = std::max<int64_t>(0, pads[d]);
      block[d] = std::max<int64_t>(0, std::min(data.shape()[d] - in_start, out_shape[d] - out_start));
      src_offset += in_start * src_strides[d];
      dst_offset += out_start * dst_strides[d];
    }
    if (NumElements(block) > 0) StridedCopy(data, src_offset, src_strides, out, dst_offset, dst_strides, block);
    return out;
  }
  // Reflect, edge, wrap: row by row along the last axis; each output row reads one input row (its leading
  // coordinates mapped axis by axis), copies the row's interior in one piece and maps its borders element by element.
  if (total == 0) return out;
  const std::vector<int64_t> in_strides = RowMajorStrides(data.shape());
  const size_t last = rank - 1;
  const int64_t width = rank == 0 ? 1 : out_shape[last];
  const int64_t rows = total / std::max<int64_t>(width, 1);
  const int64_t begin = rank == 0 ? 0 : pads[last];
  const int64_t in_width = rank == 0 ? 1 : data.shape()[last];
  const int64_t lo = std::clamp<int64_t>(begin, 0, width);              // first interior output column
  const int64_t hi = std::clamp<int64_t>(in_width + begin, lo, width);  // end of the interior
  Status s = DispatchCopy(data.type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C* in = data.data<C>();
    C* o = out.data<C>();
    ParallelFor(rows, width, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t src = 0;
        for (size_t d = last, rest = static_cast<size_t>(r); d-- > 0;) {
          const int64_t coord = static_cast<int64_t>(rest % static_cast<size_t>(out_shape[d]));
          rest /= static_cast<size_t>(out_shape[d]);
          src += maps[d][static_cast<size_t>(coord)] * in_strides[d];
        }
        C* row = o + r * width;
        if (rank == 0) {
          row[0] = in[0];
          continue;
        }
        const std::vector<int64_t>& map = maps[last];
        for (int64_t c = 0; c < lo; ++c) row[c] = in[src + map[static_cast<size_t>(c)]];
        std::copy(in + src + (lo - begin), in + src + (hi - begin), row + lo);
        for (int64_t c = hi; c < width; ++c) row[c] = in[src + map[static_cast<size_t>(c)]];
      }
    });
    return Status::Ok();
  });
  ONYX_RETURN_IF_ERROR(s);
  return out;
}

class PadKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_ = info.since_version();
    const std::string mode = info.GetString("mode", "constant");
    if (mode == "constant") {
      mode_ = PadMode::kConstant;
    } else if (mode == "reflect") {
      mode_ = PadMode::kReflect;
    } else if (mode == "edge") {
      mode_ = PadMode::kEdge;
    } else if (mode == "wrap" && since_ >= 19) {
      mode_ = PadMode::kWrap;
    } else {
      return info.Error("attribute 'mode' '" + mode + "' is not supported at this version");
    }
    if (since_ < 11) {
      const char* name = since_ < 2 ? "paddings" : "pads";
      if (!info.HasAttribute(name)) return info.Error(std::string("attribute '") + name + "' is required");
      pads_attr_ = info.GetInts(name);
      value_attr_ = info.GetFloat("value", 0.0f);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    const int64_t rank = data->rank();
    std::vector<int64_t> pads = pads_attr_;
    Tensor value;
    if (since_ >= 11) {
      ONYX_ASSIGN_OR_RETURN(pads, IntsInput(ctx, 1, "pads"));
      if (ctx.has_input(2)) {
        ONYX_ASSIGN_OR_RETURN(const Tensor* v, ctx.TensorInput(2));
        if (v->type() != data->type() || v->size() != 1) {
          return InvalidArgument("input 'constant_value' (2) must be one " + std::string(DataTypeName(data->type())) +
                                 " element, got " + std::string(DataTypeName(v->type())) + " " +
                                 ShapeToString(v->shape()));
        }
        value = *v;
      }
      if (since_ >= 18 && ctx.has_input(3)) {
        ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsInput(ctx, 3, "axes"));
        ONYX_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));
        if (pads.size() != 2 * axes.size()) {
          return InvalidArgument("input 'pads' (1) has " + std::to_string(pads.size()) + " entries, expected " +
                                 std::to_string(2 * axes.size()) + " for " + std::to_string(axes.size()) + " axes");
        }
        std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
        for (size_t i = 0; i < axes.size(); ++i) {
          full[static_cast<size_t>(axes[i])] = pads[i];
          full[static_cast<size_t>(axes[i] + rank)] = pads[i + axes.size()];
        }
        pads = std::move(full);
      }
    } else if (value_attr_ != 0.0f) {
      ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(data->type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        value = Tensor::Scalar<T>(T(value_attr_));
        return Status::Ok();
      }));
    }
    if (static_cast<int64_t>(pads.size()) != 2 * rank) {
      return InvalidArgument("'pads' has " + std::to_string(pads.size()) + " entries, expected " +
                             std::to_string(2 * rank) + " for the input " + ShapeToString(data->shape()));
    }
    if (!value.defined()) value = Tensor::Allocate(data->type(), {}, /*zero=*/true);
    ONYX_ASSIGN_OR_RETURN(Tensor out, PadTensor(*data, pads, mode_, value));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  int since_ = 0;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_attr_;
  float value_attr_ = 0.0f;
};

}  // namespace

void RegisterPadOps(KernelRegistry& registry) { registry.Add("", "Pad", 1, kLatestVersion, MakeFactory<PadKernel>()); }

}  // namespace onyx::ops::movement
