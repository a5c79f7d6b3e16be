// QUANTIZE, DEQUANTIZE and DENSIFY, and the densifying of sparse constants (schema.fbs SparsityParameters).
#include <cstring>
#include <functional>

#include "convert/tflite/op_context.h"
#include "core/safe_file.h"

namespace onyx::convert::tflite {
namespace {

// DEQUANTIZE: constants (float16 or quantized integers) are folded into float32 at conversion; a float16 activation
// is cast; a quantized activation becomes DequantizeLinear (its real view).
Status Dequantize(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* in, c.InTensor(0));
  if (c.IsConstInput(0)) {
    ONYX_ASSIGN_OR_RETURN(Tensor f, c.FloatConst(0, "input"));
    return c.SetFoldedOutput(std::move(f));
  }
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  if (in->type == TensorType::kFloat16) {
    x = c.b.Op1("Cast", {x}, c.Name("dequantize"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  } else if (!in->quantized()) {
    return c.Error("the input is neither float16 nor quantized");
  }
  return c.SetOutput(x);
}

// QUANTIZE: float -> quantized, or quantized -> quantized with other parameters (requantization).
Status Quantize(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* out, c.OutTensor());
  if (!out->quantized()) return c.Error("the output has no quantization parameters");
  return c.SetOutput(x);
}

// DENSIFY(sparse constant): folded at conversion.
Status Densify(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(Tensor f, c.FloatConst(0, "input"));
  return c.SetFoldedOutput(std::move(f));
}

}  // namespace

void AddQuantOps(std::map<int32_t, OpFn>& t) {
  t[op::kDequantize] = Dequantize;
  t[op::kQuantize] = Quantize;
  t[op::kDensify] = Densify;
}

// SparsityParameters: traversal_order 0, block_map 1, dim_metadata 2. DimensionMetadata: format 0 (DENSE 0,
// SPARSE_CSR 1), dense_size 1, array_segments (union SparseIndexVector: Int32Vector 1, Uint16Vector 2, Uint8Vector 3,
// each a table with `values` at field 0) 2-3, array_indices 4-5. Levels follow the traversal order: the first
// `rank` are the original dims (permuted), the rest are block dims (block_map names their original dim). Stored
// values are consumed in order; dense levels store every element, CSR levels only those in their segments.
Result<Tensor> DensifySparse(const TfliteTensor& t, DataType type) {
  const FlatTable& sp = t.sparsity;
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> order, sp.Int32s(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> block_map, sp.Int32s(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> meta, sp.Tables(2));
  const size_t rank = t.shape.size(), levels = order.size();
  if (levels < rank || meta.size() != levels || block_map.size() != levels - rank) {
    return InvalidArgument("sparse tensor '" + t.name + "' has inconsistent sparsity parameters");
  }
  struct Level {
    bool dense = true;
    int64_t size = 0;
    std::vector<int64_t> segments, indices;
  };
  auto index_vector = [](const FlatTable& m, int type_field, std::vector<int64_t>* out) -> Status {
    ONYX_ASSIGN_OR_RETURN(int64_t kind, m.Int(type_field, 1, false, 0));
    ONYX_ASSIGN_OR_RETURN(FlatTable v, m.Table(type_field + 1));
    if (!v.valid()) return InvalidArgument("a sparse level has no index vector");
    if (kind == 1) {
      ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> values, v.Int32s(0));
      out->assign(values.begin(), values.end());
    } else if (kind == 2) {
      return Unsupported("uint16 sparse index vectors");
    } else if (kind == 3) {
      ONYX_ASSIGN_OR_RETURN(std::string_view bytes, v.Bytes(0));
      for (char ch : bytes) out->push_back(static_cast<uint8_t>(ch));
    } else {
      return InvalidArgument("sparse index vector type " + std::to_string(kind));
    }
    return Status::Ok();
  };
  std::vector<Level> lv(levels);
  std::vector<int64_t> block_size(levels - rank, 1);
  for (size_t l = 0; l < levels; ++l) {
    ONYX_ASSIGN_OR_RETURN(int8_t format, meta[l].Int8(0));
    ONYX_ASSIGN_OR_RETURN(int32_t size, meta[l].Int32(1));
    lv[l].dense = format == 0;
    lv[l].size = size;
    if (!lv[l].dense) {
      ONYX_RETURN_IF_ERROR(index_vector(meta[l], 2, &lv[l].segments));
      ONYX_RETURN_IF_ERROR(index_vector(meta[l], 4, &lv[l].indices));
    }
    if (order[l] < 0 || static_cast<size_t>(order[l]) >= levels) return InvalidArgument("bad traversal order");
    if (l >= rank) {
      if (static_cast<size_t>(order[l]) < rank) return InvalidArgument("bad block traversal order");
      block_size[static_cast<size_t>(order[l]) - rank] = size;
    }
  }
  Shape shape(t.shape.begin(), t.shape.end());
  const size_t width = DataTypeStorageBytes(type, 1);
  // The dense tensor goes into the converted model: it may be no larger than a file onyx reads (the shape comes from
  // the file and could ask for any size).
  uint64_t dense_bytes = width;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && dense_bytes > MaxReadFileBytes() / static_cast<uint64_t>(d))) {
      return InvalidArgument("sparse tensor '" + t.name + "' densifies to more than " +
                             std::to_string(MaxReadFileBytes()) + " bytes (raise it with ONYX_MAX_FILE_BYTES)");
    }
    dense_bytes *= static_cast<uint64_t>(d);
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(type, shape, true));
  const size_t stored = t.data.size() / width;
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  std::vector<int64_t> coords(levels, 0);
  size_t next = 0;
  // Every visit of a dense level must reach a distinct element: more visits than elements is a corrupt file.
  int64_t visits = 0;
  const int64_t max_visits = (out.size() + 1) * static_cast<int64_t>(levels + 1);
  std::function<Status(size_t, int64_t)> walk = [&](size_t level, int64_t prev) -> Status {
    if (level == levels) {
      std::vector<int64_t> orig(rank, 0);
      for (size_t i = 0; i < rank; ++i) orig[static_cast<size_t>(order[i])] = coords[i];
      for (size_t i = rank; i < levels; ++i) {
        const size_t b = static_cast<size_t>(order[i]) - rank;
        const size_t dim = static_cast<size_t>(block_map[b]);
        if (dim >= rank) return InvalidArgument("bad block map");
        orig[dim] = orig[dim] * block_size[b] + coords[i];
      }
      int64_t flat = 0;
      for (size_t d = 0; d < rank; ++d) {
        if (orig[d] < 0 || orig[d] >= shape[d]) return InvalidArgument("a sparse index is out of range");
        flat += orig[d] * strides[d];
      }
      if (next >= stored) return InvalidArgument("sparse tensor '" + t.name + "' has too few values");
      std::memcpy(static_cast<char*>(out.raw()) + static_cast<size_t>(flat) * width, t.data.data() + next * width,
                  width);
      ++next;
      return Status::Ok();
    }
    const Level& L = lv[level];
    if (L.dense) {
      for (int64_t i = 0; i < L.size; ++i) {
        if (++visits > max_visits) return InvalidArgument("sparse tensor '" + t.name + "' has oversized dense levels");
        coords[level] = i;
        ONYX_RETURN_IF_ERROR(walk(level + 1, prev * L.size + i));
      }
      return Status::Ok();
    }
    if (prev < 0 || static_cast<size_t>(prev) + 1 >= L.segments.size()) return InvalidArgument("bad sparse segments");
    for (int64_t i = L.segments[static_cast<size_t>(prev)]; i < L.segments[static_cast<size_t>(prev) + 1]; ++i) {
      if (i < 0 || static_cast<size_t>(i) >= L.indices.size()) return InvalidArgument("bad sparse indices");
      coords[level] = L.indices[static_cast<size_t>(i)];
      ONYX_RETURN_IF_ERROR(walk(level + 1, i));
    }
    return Status::Ok();
  };
  ONYX_RETURN_IF_ERROR(walk(0, 0));
  return out;
}

}  // namespace onyx::convert::tflite
