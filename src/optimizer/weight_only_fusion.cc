// Weight-only quantized MatMul -> com.microsoft MatMulNBits (level all): MatMul(A, DequantizeLinear(x, scale, zp))
// with x a constant [K, N] matrix of int4/uint4/int8/uint8 quantized in blocks along K (axis 0, block_size a power
// of 2 >= 16; `onyx quantize --mode weight-only` and ONNX Runtime's blockwise quantizer write this form) becomes one
// MatMulNBits over the same values, repacked into its layout: per output column, the blocks' values low bits first,
// as unsigned values with their zero points (a signed value v with zero point z is v + 2^(bits-1) with z +
// 2^(bits-1): the same differences). Its kernel reads the weights in their quantized form (kernels/
// blockwise_matmul.h); without this the DequantizeLinear ran on every run (constant folding keeps it: its float
// result is 4-8x the quantized weights), 240 ms a token for a 6-layer decoder that otherwise takes 3.
// The products are those of the definition, summed in another order.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"
#include "optimizer/optimizer.h"

namespace onyx::optimizer {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

int BitsOf(DataType t) {
  if (t == DataType::kInt4 || t == DataType::kUint4) return 4;
  if (t == DataType::kInt8 || t == DataType::kUint8) return 8;
  return 0;
}

// All of x's values as unsigned bytes: v + 2^(bits-1) for signed types (flipping the top bit of each value, which
// two's complement makes the same), two per byte for 4 bits.
std::vector<uint8_t> UnsignedValues(const Tensor& x) {
  const auto* bytes = static_cast<const uint8_t*>(x.raw());
  const auto count = static_cast<size_t>(x.size());
  std::vector<uint8_t> out(count);
  if (x.type() == DataType::kInt4 || x.type() == DataType::kUint4) {
    const uint8_t flip = x.type() == DataType::kInt4 ? 0x08 : 0x00;
    for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(((bytes[i / 2] >> (4 * (i % 2))) & 0x0F) ^ flip);
  } else {
    const uint8_t flip = x.type() == DataType::kInt8 ? 0x80 : 0x00;
    for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(bytes[i] ^ flip);
  }
  return out;
}

// Packs `values` (each < 2^bits) low bits first.
std::vector<uint8_t> Pack(const std::vector<uint8_t>& values, int bits) {
  if (bits == 8) return values;
  if (bits == 4) {
    std::vector<uint8_t> out((values.size() + 1) / 2);
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      out[i / 2] = static_cast<uint8_t>(values[i] | (values[i + 1] << 4));
    if (values.size() % 2 == 1) out.back() = values.back();
    return out;
  }
  const size_t per_byte = static_cast<size_t>(8 / bits);
  std::vector<uint8_t> out((values.size() + per_byte - 1) / per_byte, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    out[i / per_byte] |= static_cast<uint8_t>(values[i] << (bits * static_cast<int>(i % per_byte)));
  }
  return out;
}

Tensor ByteTensor(const std::vector<uint8_t>& bytes, Shape shape) {
  Tensor t = Tensor::Allocate(DataType::kUint8, std::move(shape));
  std::copy(bytes.begin(), bytes.end(), t.data<uint8_t>());
  return t;
}

// Node i = MatMul(A, DequantizeLinear(...)) as described above: rewritten in place.
bool FuseWeightOnly(ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& mm = graph.nodes[static_cast<size_t>(i)];
  if (!IsOnnxOp(mm, "MatMul") || mm.inputs.size() != 2 || mm.outputs.size() != 1) return false;
  const ir::Node* dq = index.ProducerOp(mm.inputs[1], "DequantizeLinear");
  if (dq == nullptr || dq->inputs.size() < 2) return false;
  const Tensor* x = index.Constant(dq->inputs[0]);
  const Tensor* scale = index.Constant(dq->inputs[1]);
  const Tensor* zp = dq->inputs.size() > 2 && !dq->inputs[2].empty() ? index.Constant(dq->inputs[2]) : nullptr;
  if (x == nullptr || scale == nullptr || (dq->inputs.size() > 2 && !dq->inputs[2].empty() && zp == nullptr)) {
    return false;
  }
  const int bits = BitsOf(x->type());
  if (bits == 0 || x->rank() != 2 || scale->type() != DataType::kFloat || scale->rank() != 2) return false;
  if (zp != nullptr && (zp->type() != x->type() || zp->shape() != scale->shape())) return false;
  const int64_t block = AttrInt(*dq, "block_size", 0);
  if (AttrInt(*dq, "axis", 1) != 0 || block < 16 || (block & (block - 1)) != 0) return false;
  const int64_t k = x->dim(0), n = x->dim(1), blocks = (k + block - 1) / block;
  if (scale->dim(0) != blocks || scale->dim(1) != n) return false;
  const auto a_type = index.ElemType(mm.inputs[0]);
  if (a_type && *a_type != DataType::kFloat) return false;

  // A signed type's default zero point 0 is 2^(bits-1) unsigned.
  const bool is_signed = x->type() == DataType::kInt4 || x->type() == DataType::kInt8;
  const auto default_zero = static_cast<uint8_t>(is_signed ? 1 << (bits - 1) : 0);
  const std::vector<uint8_t> unsigned_zp = zp != nullptr ? UnsignedValues(*zp) : std::vector<uint8_t>{};
  // x's values offset to unsigned, one byte each (a 4096 x 11008 projection is 45M of them), read in x's order;
  // then written per column in blocks (a tiled transpose: the column-wise walk of x took ~15 ns a value).
  const int64_t padded_k = blocks * block;
  const std::vector<uint8_t> unsigned_x = UnsignedValues(*x);
  std::vector<uint8_t> values(static_cast<size_t>(n * padded_k)), zeros(static_cast<size_t>(n * blocks));
  std::vector<float> scales(static_cast<size_t>(n * blocks));
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t sb = b * n + col;
      const uint8_t z = zp != nullptr ? unsigned_zp[static_cast<size_t>(sb)] : default_zero;
      zeros[static_cast<size_t>(col * blocks + b)] = z;
      scales[static_cast<size_t>(col * blocks + b)] = scale->data<float>()[sb];
      // Past K: the zero point (the kernels read padding values against zero activations).
      for (int64_t row = std::max(k, b * block); row < (b + 1) * block; ++row) {
        values[static_cast<size_t>(col * padded_k + row)] = z;
      }
    }
  }
  constexpr int64_t kTile = 64;
  for (int64_t r0 = 0; r0 < k; r0 += kTile) {
    for (int64_t c0 = 0; c0 < n; c0 += kTile) {
      for (int64_t col = c0; col < std::min(n, c0 + kTile); ++col) {
        for (int64_t row = r0; row < std::min(k, r0 + kTile); ++row) {
          values[static_cast<size_t>(col * padded_k + row)] = unsigned_x[static_cast<size_t>(row * n + col)];
        }
      }
    }
  }
  // Zero points: each column's blocks packed on their own bytes.
  const int64_t zp_row = (blocks * bits + 7) / 8;
  std::vector<uint8_t> zp_bytes;
  zp_bytes.reserve(static_cast<size_t>(n * zp_row));
  for (int64_t col = 0; col < n; ++col) {
    std::vector<uint8_t> row(zeros.begin() + col * blocks, zeros.begin() + (col + 1) * blocks);
    const std::vector<uint8_t> packed = Pack(row, bits);
    zp_bytes.insert(zp_bytes.end(), packed.begin(), packed.end());
    zp_bytes.resize(static_cast<size_t>((col + 1) * zp_row), 0);
  }
  Tensor scales_t = Tensor::Allocate(DataType::kFloat, {n * blocks});
  std::copy(scales.begin(), scales.end(), scales_t.data<float>());

  const std::string base = mm.outputs[0];
  const std::string q_name =
      AddInitializer(graph, base + "_nbits_q", ByteTensor(Pack(values, bits), {n, blocks, block * bits / 8}));
  const std::string s_name = AddInitializer(graph, base + "_nbits_scales", std::move(scales_t));
  const std::string z_name = AddInitializer(graph, base + "_nbits_zp", ByteTensor(zp_bytes, {n * zp_row}));
  ir::Node& node = graph.nodes[static_cast<size_t>(i)];
  node.op_type = "MatMulNBits";
  node.domain = kMsDomain;
  node.inputs = {node.inputs[0], q_name, s_name, z_name};
  node.attributes.clear();
  SetAttrInt(node, "K", k);
  SetAttrInt(node, "N", n);
  SetAttrInt(node, "bits", bits);
  SetAttrInt(node, "block_size", block);
  return true;  // the DequantizeLinear is left to dead-code elimination
}

}  // namespace

Result<int> RunFuseWeightOnlyMatMul(ir::Graph& graph, const PassContext& ctx) {
  if (ctx.options.level < OptLevel::kAll) return 0;  // MatMulNBits is ONNX Runtime's operator, not a standard one
  return RewriteEachNode(
      graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> { return FuseWeightOnly(graph, index, i); });
}

}  // namespace onyx::optimizer
