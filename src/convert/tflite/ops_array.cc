// Shapes, slicing, joining, gathering, scattering and tensor creation.
#include <limits>

#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// A scalar zero of the output tensor's type.
Result<std::string> ZeroOfOutput(OpContext& c, size_t k = 0) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor(k));
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->quantized() ? TensorType::kFloat32 : t->type));
  ONYX_ASSIGN_OR_RETURN(Tensor zero, Tensor::Create(type, {}, true));
  return c.b.Constant(c.Name("zero"), std::move(zero));
}

// RESHAPE: the target shape from the second input, else ReshapeOptions.new_shape (0), else the output's shape.
Status Reshape(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  std::string shape;
  if (c.HasInput(1)) {
    ONYX_ASSIGN_OR_RETURN(shape, Int64Input(c, 1, "shape"));
  } else if (c.options().valid() && c.options().Has(0)) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> s, c.options().Int32s(0));
    shape = c.b.ConstInts(c.Name("shape"), std::vector<int64_t>(s.begin(), s.end()));
  } else {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.OutShape());
    shape = c.b.ConstInts(c.Name("shape"), s);
  }
  return c.SetOutput(c.b.Op1("Reshape", {x, shape}, c.Name("reshape"), {ir::IntAttr("allowzero", 1)}));
}

// SqueezeOptions: squeeze_dims 0 (empty: every unit dim).
Status Squeeze(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  std::vector<int32_t> dims;
  if (c.options().valid()) {
    ONYX_ASSIGN_OR_RETURN(dims, c.options().Int32s(0));
  }
  std::vector<std::string> ins = {x};
  if (!dims.empty()) ins.push_back(c.b.ConstInts(c.Name("axes"), std::vector<int64_t>(dims.begin(), dims.end())));
  return c.SetOutput(c.b.Op1("Squeeze", ins, c.Name("squeeze")));
}

Status ExpandDims(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string axis, Int64Input(c, 1, "axis"));
  axis = c.b.Op1("Reshape", {axis, c.b.ConstInts(c.Name("axis_shape"), {1})}, c.Name("axes"));
  return c.SetOutput(c.b.Op1("Unsqueeze", {x, axis}, c.Name("expand_dims")));
}

// ConcatenationOptions: axis 0, activation 1. TFLite's kernels (reference and XNNPACK, as LiteRT runs them) ignore
// the fused activation of CONCATENATION: so does the conversion (case concatenation_relu).
Status Concatenation(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t axis, c.OptInt(0));
  std::vector<std::string> ins;
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.Input(k));
    ins.push_back(v);
  }
  return c.SetOutput(c.b.Op1("Concat", ins, c.Name("concat"), {ir::IntAttr("axis", axis)}));
}

// Paddings [rank, 2] -> ONNX pads (all begins, then all ends).
Result<std::vector<int64_t>> Pads(OpContext& c, size_t k) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> p, c.ConstInts(k, "paddings"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(k));
  if (shape.size() != 2 || shape[1] != 2) return c.Error("paddings must be [rank, 2]");
  const size_t rank = static_cast<size_t>(shape[0]);
  std::vector<int64_t> pads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    pads[d] = p[2 * d];
    pads[rank + d] = p[2 * d + 1];
  }
  return pads;
}

// PAD(input, paddings) and PADV2(input, paddings, constant_value).
Status Pad(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Pads(c, 1));
  std::vector<std::string> ins = {x, c.b.ConstInts(c.Name("pads"), pads)};
  if (c.HasInput(2)) {
    ONYX_ASSIGN_OR_RETURN(std::string value, c.Input(2));
    ins.push_back(c.b.Op1("Reshape", {value, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("value")));
  } else {
    ONYX_ASSIGN_OR_RETURN(const TfliteTensor* in, c.InTensor(0));
    if (in->quantized()) {
      // A quantized PAD fills with the zero point: the real value 0.
      ins.push_back(c.b.ConstFloat(c.Name("value"), 0.0f));
    }
  }
  return c.SetOutput(c.b.Op1("Pad", ins, c.Name("pad")));
}

// MIRROR_PAD; MirrorPadOptions: mode 0 (REFLECT: ONNX reflect; SYMMETRIC repeats the border, which ONNX's Pad
// has no mode for: each padded axis is concatenated from reversed slices).
Status MirrorPad(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Pads(c, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t mode, c.OptByte(0));
  if (mode == 0) {
    return c.SetOutput(
        c.b.Op1("Pad", {x, c.b.ConstInts(c.Name("pads"), pads)}, c.Name("pad"), {ir::StringAttr("mode", "reflect")}));
  }
  const int64_t rank = static_cast<int64_t>(pads.size() / 2);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t before = pads[static_cast<size_t>(d)], after = pads[static_cast<size_t>(rank + d)];
    if (before == 0 && after == 0) continue;
    std::vector<std::string> parts;
    const std::string axes = c.b.ConstInts(c.Name("axis"), {d});
    const std::string step = c.b.ConstInts(c.Name("step"), {-1});
    if (before > 0) {  // x[before-1 .. 0]
      parts.push_back(c.b.Op1(
          "Slice", {x, c.b.ConstInts(c.Name("start"), {before - 1}), c.b.ConstInts(c.Name("end"), {kMin}), axes, step},
          c.Name("before")));
    }
    parts.push_back(x);
    if (after > 0) {  // x[-1 .. -after]
      parts.push_back(c.b.Op1(
          "Slice", {x, c.b.ConstInts(c.Name("start"), {-1}), c.b.ConstInts(c.Name("end"), {-after - 1}), axes, step},
          c.Name("after")));
    }
    x = c.b.Op1("Concat", parts, c.Name("symmetric"), {ir::IntAttr("axis", d)});
  }
  return c.SetOutput(x);
}

Status Transpose(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> perm, c.ConstInts(1, "permutation"));
  return c.SetOutput(c.b.Op1("Transpose", {x}, c.Name("transpose"), {ir::IntsAttr("perm", perm)}));
}

// STRIDED_SLICE(input, begin, end, strides); StridedSliceOptions: begin_mask 0, end_mask 1, ellipsis_mask 2,
// new_axis_mask 3, shrink_axis_mask 4, offset 5 (end is relative to begin). The sparse spec is expanded to one
// entry per input dim (an ellipsis, or the implicit one at the end, covers the dims no entry names), sliced with
// Slice, then reshaped to TFLite's recorded output shape (which drops shrunk axes and adds new ones).
Status StridedSlice(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, c.ConstInts(1, "begin"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> end, c.ConstInts(2, "end"));
  std::vector<int64_t> strides(begin.size(), 1);
  if (c.HasInput(3)) {
    ONYX_ASSIGN_OR_RETURN(strides, c.ConstInts(3, "strides"));
  }
  if (end.size() != begin.size() || strides.size() != begin.size())
    return c.Error("begin, end, strides differ in size");
  ONYX_ASSIGN_OR_RETURN(int32_t begin_mask, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(int32_t end_mask, c.OptInt(1));
  ONYX_ASSIGN_OR_RETURN(int32_t ellipsis_mask, c.OptInt(2));
  ONYX_ASSIGN_OR_RETURN(int32_t new_axis_mask, c.OptInt(3));
  ONYX_ASSIGN_OR_RETURN(int32_t shrink_mask, c.OptInt(4));
  ONYX_ASSIGN_OR_RETURN(bool offset, c.OptBool(5));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in_shape, c.InShape(0));
  const int64_t rank = static_cast<int64_t>(in_shape.size());
  const int64_t n = static_cast<int64_t>(begin.size());
  auto bit = [](int32_t mask, int64_t i) { return i < 31 && ((mask >> i) & 1) != 0; };
  int64_t real_entries = 0;  // entries naming one input dim (neither the ellipsis nor a new axis)
  for (int64_t i = 0; i < n; ++i) {
    if (!bit(ellipsis_mask, i) && !bit(new_axis_mask, i)) ++real_entries;
  }
  std::vector<int64_t> starts, ends, axes, steps;
  int64_t d = 0;
  for (int64_t i = 0; i < n && d <= rank; ++i) {
    if (bit(ellipsis_mask, i)) {
      d += rank - real_entries;  // full slices
      continue;
    }
    if (bit(new_axis_mask, i)) continue;
    if (d >= rank) return c.Error("the slice names more dims than the input has");
    int64_t b = begin[static_cast<size_t>(i)], e = end[static_cast<size_t>(i)], s = strides[static_cast<size_t>(i)];
    if (s == 0) return c.Error("stride 0");
    if (offset) e += b;
    if (bit(shrink_mask, i)) {
      e = b == -1 ? kMax : b + 1;
      s = 1;
    } else {
      if (bit(begin_mask, i)) b = s > 0 ? 0 : kMax;
      if (bit(end_mask, i)) e = s > 0 ? kMax : kMin;
    }
    starts.push_back(b);
    ends.push_back(e);
    axes.push_back(d);
    steps.push_back(s);
    ++d;
  }
  std::string y = x;
  if (!axes.empty()) {
    y = c.b.Op1("Slice",
                {x, c.b.ConstInts(c.Name("starts"), starts), c.b.ConstInts(c.Name("ends"), ends),
                 c.b.ConstInts(c.Name("axes"), axes), c.b.ConstInts(c.Name("steps"), steps)},
                c.Name("slice"));
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, c.OutShape());
  if (shrink_mask != 0 || new_axis_mask != 0) {
    y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("shape"), out)}, c.Name("reshape"));
  }
  return c.SetOutput(y);
}

// SLICE(input, begin, size); size -1: to the end.
Status Slice(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, c.ConstInts(1, "begin"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> size, c.ConstInts(2, "size"));
  if (size.size() != begin.size()) return c.Error("begin and size differ in length");
  std::vector<int64_t> ends(begin.size()), axes(begin.size());
  for (size_t d = 0; d < begin.size(); ++d) {
    ends[d] = size[d] < 0 ? kMax : begin[d] + size[d];
    axes[d] = static_cast<int64_t>(d);
  }
  return c.SetOutput(c.b.Op1("Slice",
                             {x, c.b.ConstInts(c.Name("starts"), begin), c.b.ConstInts(c.Name("ends"), ends),
                              c.b.ConstInts(c.Name("axes"), axes)},
                             c.Name("slice")));
}

Status SetOutputs(OpContext& c, const std::vector<std::string>& outs) {
  for (size_t k = 0; k < outs.size(); ++k) ONYX_RETURN_IF_ERROR(c.SetOutput(outs[k], k));
  return Status::Ok();
}

// SPLIT(axis, input) into equal parts; SPLIT_V(input, size_splits, axis) (one size may be -1: the rest).
Status Split(OpContext& c, bool sizes) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(sizes ? 0 : 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, c.ConstInts(sizes ? 2 : 0, "axis"));
  if (axis.size() != 1) return c.Error("needs one axis");
  const int n = static_cast<int>(c.num_outputs());
  std::vector<std::string> ins = {x};
  if (sizes) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> split, c.ConstInts(1, "size_splits"));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
    const int64_t a = axis[0] < 0 ? axis[0] + static_cast<int64_t>(shape.size()) : axis[0];
    if (a < 0 || a >= static_cast<int64_t>(shape.size())) return c.Error("axis out of range");
    int64_t known = 0, unknown = -1;
    for (size_t k = 0; k < split.size(); ++k) {
      if (split[k] < 0)
        unknown = static_cast<int64_t>(k);
      else
        known += split[k];
    }
    if (unknown >= 0) split[static_cast<size_t>(unknown)] = shape[static_cast<size_t>(a)] - known;
    ins.push_back(c.b.ConstInts(c.Name("split"), split));
  }
  return SetOutputs(c, c.b.Op("Split", ins, c.Name("split"), {ir::IntAttr("axis", axis[0])}, n));
}

// PACK: PackOptions values_count 0, axis 1.
Status Pack(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int32_t axis, c.OptInt(1));
  std::vector<std::string> parts;
  const std::string axes = c.b.ConstInts(c.Name("axes"), {axis});
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.Input(k));
    parts.push_back(c.b.Op1("Unsqueeze", {v, axes}, c.Name("unsqueeze")));
  }
  return c.SetOutput(c.b.Op1("Concat", parts, c.Name("pack"), {ir::IntAttr("axis", axis)}));
}

// UNPACK: UnpackOptions num 0, axis 1.
Status Unpack(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int32_t axis, c.OptInt(1));
  const int n = static_cast<int>(c.num_outputs());
  std::vector<std::string> parts = c.b.Op("Split", {x}, c.Name("split"), {ir::IntAttr("axis", axis)}, n);
  const std::string axes = c.b.ConstInts(c.Name("axes"), {axis});
  for (auto& p : parts) p = c.b.Op1("Squeeze", {p, axes}, c.Name("squeeze"));
  return SetOutputs(c, parts);
}

Status Tile(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string reps, Int64Input(c, 1, "multiples"));
  return c.SetOutput(c.b.Op1("Tile", {x, reps}, c.Name("tile")));
}

// GATHER(params, indices); GatherOptions: axis 0, batch_dims 1. With batch_dims b (ONNX Gather has none), the
// gathered axis is moved right after the batch dims and GatherND with batch_dims b picks along it (indices with a
// unit last dim); GatherND puts the params dims that stood between the batch dims and the axis after the indices'
// dims, where TFLite has them before: a Transpose moves them back.
Status Gather(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int32_t axis, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(int32_t batch_dims, c.OptInt(1));
  if (batch_dims == 0) {
    ONYX_ASSIGN_OR_RETURN(std::string idx, c.Input(1));
    return c.SetOutput(c.b.Op1("Gather", {x, idx}, c.Name("gather"), {ir::IntAttr("axis", axis)}));
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ps, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> is, c.InShape(1));
  const int64_t p = static_cast<int64_t>(ps.size()), ni = static_cast<int64_t>(is.size());
  const int64_t b = batch_dims < 0 ? batch_dims + ni : batch_dims;
  const int64_t a = axis < 0 ? axis + p : axis;
  if (b < 0 || b > ni || a < b || a >= p) {
    return c.Error("axis " + std::to_string(axis) + " with batch_dims " + std::to_string(batch_dims));
  }
  if (a > b) {  // params: [batch..., axis, between..., after...]
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < b; ++d) perm.push_back(d);
    perm.push_back(a);
    for (int64_t d = b; d < p; ++d) {
      if (d != a) perm.push_back(d);
    }
    x = c.b.Op1("Transpose", {x}, c.Name("axis_first"), {ir::IntsAttr("perm", perm)});
  }
  ONYX_ASSIGN_OR_RETURN(std::string idx, Int64Input(c, 1, "indices"));
  idx = c.b.Op1("Unsqueeze", {idx, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("indices_nd"));
  std::string y = c.b.Op1("GatherND", {x, idx}, c.Name("gather"), {ir::IntAttr("batch_dims", b)});
  if (a > b) {  // y: [batch..., indices (ni - b)..., between (a - b)..., after...]
    const int64_t out_rank = p + ni - b - 1, n_idx = ni - b, n_between = a - b;
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < b; ++d) perm.push_back(d);
    for (int64_t d = 0; d < n_between; ++d) perm.push_back(b + n_idx + d);
    for (int64_t d = 0; d < n_idx; ++d) perm.push_back(b + d);
    for (int64_t d = b + n_idx + n_between; d < out_rank; ++d) perm.push_back(d);
    y = c.b.Op1("Transpose", {y}, c.Name("between_first"), {ir::IntsAttr("perm", perm)});
  }
  return c.SetOutput(y);
}

// EMBEDDING_LOOKUP(ids, table): rows of the table.
Status EmbeddingLookup(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string ids, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string table, c.Input(1));
  return c.SetOutput(c.b.Op1("Gather", {table, ids}, c.Name("lookup"), {ir::IntAttr("axis", 0)}));
}

Status GatherNd(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string idx, Int64Input(c, 1, "indices"));
  return c.SetOutput(c.b.Op1("GatherND", {x, idx}, c.Name("gather_nd")));
}

// SCATTER_ND(indices, updates, shape): zeros of `shape` with the updates added (TFLite sums duplicates).
Status ScatterNd(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string idx, Int64Input(c, 0, "indices"));
  ONYX_ASSIGN_OR_RETURN(std::string updates, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::string shape, Int64Input(c, 2, "shape"));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ZeroOfOutput(c));
  std::string data = c.b.Op1("Expand", {zero, shape}, c.Name("zeros"));
  return c.SetOutput(
      c.b.Op1("ScatterND", {data, idx, updates}, c.Name("scatter_nd"), {ir::StringAttr("reduction", "add")}));
}

// SHAPE; ShapeOptions: out_type 0 (int32 by default).
Status ShapeOp(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  std::string y = c.b.Op1("Shape", {x}, c.Name("shape"));
  if (type != DataType::kInt64)
    y = c.b.Op1("Cast", {y}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(type))});
  return c.SetOutput(y);
}

Status Rank(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  std::string y = c.b.Op1("Size", {c.b.Op1("Shape", {x}, c.Name("shape"))}, c.Name("rank"));
  return c.SetOutput(c.b.Op1("Cast", {y}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt32))}));
}

Status BroadcastTo(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string shape, Int64Input(c, 1, "shape"));
  return c.SetOutput(c.b.Op1("Expand", {x, shape}, c.Name("broadcast_to")));
}

// FILL(dims, value).
Status Fill(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string shape, Int64Input(c, 0, "dims"));
  ONYX_ASSIGN_OR_RETURN(std::string value, c.Input(1));
  value = c.b.Op1("Reshape", {value, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("value"));
  return c.SetOutput(c.b.Op1("Expand", {value, shape}, c.Name("fill")));
}

Status ZerosLike(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ZeroOfOutput(c));
  return c.SetOutput(c.b.Op1("Expand", {zero, c.b.Op1("Shape", {x}, c.Name("shape"))}, c.Name("zeros_like")));
}

// RANGE(start, limit, delta): scalars of one type.
Status RangeOp(OpContext& c) {
  std::vector<std::string> ins;
  for (size_t k = 0; k < 3; ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.Input(k));
    ins.push_back(c.b.Op1("Reshape", {v, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("scalar_in")));
  }
  return c.SetOutput(c.b.Op1("Range", ins, c.Name("range")));
}

// ONE_HOT(indices, depth, on_value, off_value); OneHotOptions: axis 0.
Status OneHot(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string idx, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string depth, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::string on, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::string off, c.Input(3));
  ONYX_ASSIGN_OR_RETURN(int32_t axis, c.OptInt(0, -1));
  const std::string one = c.b.ConstInts(c.Name("one"), {1});
  std::string values =
      c.b.Op1("Concat", {c.b.Op1("Reshape", {off, one}, c.Name("off")), c.b.Op1("Reshape", {on, one}, c.Name("on"))},
              c.Name("values"), {ir::IntAttr("axis", 0)});
  return c.SetOutput(c.b.Op1("OneHot", {idx, depth, values}, c.Name("one_hot"), {ir::IntAttr("axis", axis)}));
}

// REVERSE_V2(input, axes): a Slice with step -1 over each axis.
Status Reverse(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.ConstInts(1, "axes"));
  const size_t n = axes.size();
  return c.SetOutput(
      c.b.Op1("Slice",
              {x, c.b.ConstInts(c.Name("starts"), std::vector<int64_t>(n, -1)),
               c.b.ConstInts(c.Name("ends"), std::vector<int64_t>(n, kMin)), c.b.ConstInts(c.Name("axes"), axes),
               c.b.ConstInts(c.Name("steps"), std::vector<int64_t>(n, -1))},
              c.Name("reverse")));
}

// REVERSE_SEQUENCE(input, seq_lengths); ReverseSequenceOptions: seq_dim 0, batch_dim 1 (ONNX: axes 0 and 1).
Status ReverseSequence(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string lengths, Int64Input(c, 1, "seq_lengths"));
  ONYX_ASSIGN_OR_RETURN(int32_t seq_dim, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(int32_t batch_dim, c.OptInt(1));
  if (!((seq_dim == 0 && batch_dim == 1) || (seq_dim == 1 && batch_dim == 0))) {
    return c.Unsupported("seq_dim " + std::to_string(seq_dim) + " with batch_dim " + std::to_string(batch_dim));
  }
  return c.SetOutput(c.b.Op1("ReverseSequence", {x, lengths}, c.Name("reverse_sequence"),
                             {ir::IntAttr("time_axis", seq_dim), ir::IntAttr("batch_axis", batch_dim)}));
}

}  // namespace

void AddArrayOps(std::map<int32_t, OpFn>& t) {
  t[op::kReshape] = Reshape;
  t[op::kSqueeze] = Squeeze;
  t[op::kExpandDims] = ExpandDims;
  t[op::kConcatenation] = Concatenation;
  t[op::kPad] = Pad;
  t[op::kPadv2] = Pad;
  t[op::kMirrorPad] = MirrorPad;
  t[op::kTranspose] = Transpose;
  t[op::kStridedSlice] = StridedSlice;
  t[op::kSlice] = Slice;
  t[op::kSplit] = [](OpContext& c) { return Split(c, false); };
  t[op::kSplitV] = [](OpContext& c) { return Split(c, true); };
  t[op::kPack] = Pack;
  t[op::kUnpack] = Unpack;
  t[op::kTile] = Tile;
  t[op::kGather] = Gather;
  t[op::kEmbeddingLookup] = EmbeddingLookup;
  t[op::kGatherNd] = GatherNd;
  t[op::kScatterNd] = ScatterNd;
  t[op::kShape] = ShapeOp;
  t[op::kRank] = Rank;
  t[op::kBroadcastTo] = BroadcastTo;
  t[op::kFill] = Fill;
  t[op::kZerosLike] = ZerosLike;
  t[op::kRange] = RangeOp;
  t[op::kOneHot] = OneHot;
  t[op::kReverseV2] = Reverse;
  t[op::kReverseSequence] = ReverseSequence;
}

}  // namespace onyx::convert::tflite
