// MultiHeadAttention as MatMul / Softmax (opset 13+, no fused Attention op). Keras's semantics
// (keras/src/layers/attention/multi_head_attention.py), for rank-3 query/value/key [B, T|S, dim]:
//   q = einsum(query, Wq[dq, H, D]) + bq[H, D], scaled by 1/sqrt(D); k and v likewise ([dk, H, D], [dv, H, Dv])
//   scores = q . k over D -> [B, H, T, S]; masked positions (attention_mask [B, T, S] == 0, and the upper
//   triangle with use_causal_mask) are replaced by a large negative number; softmax over S
//   out = (scores . v) -> [B, T, H, Dv], then einsum with Wo[H, Dv, out] + bo[out].
// Dropout is the identity at inference; return_attention_scores adds the softmax output [B, H, T, S].
#include <cmath>

#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

using json = nlohmann::json;

// Keras's Softmax layer puts this into masked positions (its float32 large negative number).
constexpr float kMaskedScore = -1e9f;

struct Projection {
  std::string kernel;  // [in, H*D], ready for MatMul
  std::string bias;    // [H*D] or empty
  int64_t heads = 0, size = 0;
};

// An EinsumDense projection kernel [in, H, D] (bias [H, D]) as a MatMul matrix.
Result<Projection> InputProjection(Context& ctx, const LayerCall& c, size_t index, bool use_bias, const char* what,
                                   int64_t in_dim) {
  const size_t per = use_bias ? 2 : 1;
  ONYX_ASSIGN_OR_RETURN(Tensor k, c.WeightAt(index * per, std::string(what) + " kernel"));
  if (k.rank() != 3 || (in_dim >= 0 && k.dim(0) != in_dim)) {
    return InvalidArgument(c.Where() + ": " + what + " kernel has shape " + ShapeToString(k.shape()) + ", expected [" +
                           std::to_string(in_dim) + ", heads, size]");
  }
  Projection p;
  p.heads = k.dim(1);
  p.size = k.dim(2);
  const int64_t in = k.dim(0);
  ONYX_ASSIGN_OR_RETURN(Tensor k2, k.Reshaped({in, p.heads * p.size}));
  p.kernel = ctx.b.Constant(c.name + "/" + what + "/kernel", std::move(k2));
  if (use_bias) {
    ONYX_ASSIGN_OR_RETURN(Tensor bias, c.WeightAt(index * per + 1, std::string(what) + " bias"));
    if (bias.size() != p.heads * p.size) {
      return InvalidArgument(c.Where() + ": " + what + " bias has shape " + ShapeToString(bias.shape()) +
                             ", expected [" + std::to_string(p.heads) + ", " + std::to_string(p.size) + "]");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor b1, bias.Reshaped({p.heads * p.size}));
    p.bias = ctx.b.Constant(c.name + "/" + what + "/bias", std::move(b1));
  }
  return p;
}

// x [B, L, in] -> [B, H, L, D] (perm {0, 2, 1, 3}) or, for keys, [B, H, D, L] (perm {0, 2, 3, 1}).
std::string ProjectHeads(Context& ctx, const std::string& x, const Projection& p, const std::string& n,
                         std::vector<int64_t> perm) {
  GraphBuilder& b = ctx.b;
  std::string y = b.Op1("MatMul", {x, p.kernel}, n + "/MatMul");
  if (!p.bias.empty()) y = b.Op1("Add", {y, p.bias}, n + "/BiasAdd");
  y = b.Op1("Reshape", {y, b.ConstInts(n + "/heads_shape", {0, 0, p.heads, p.size})}, n + "/split_heads");
  return b.Op1("Transpose", {y}, n + "/transpose", {ir::IntsAttr("perm", std::move(perm))});
}

const KTensor* Kwarg(const LayerCall& c, const std::string& key) {
  auto it = c.kwargs.find(key);
  return it == c.kwargs.end() || it->second.empty() ? nullptr : &it->second[0];
}

bool OptionTrue(const LayerCall& c, const std::string& key) {
  return c.options.contains(key) && c.options[key].is_boolean() && c.options[key].get<bool>();
}

Result<std::vector<KTensor>> MultiHeadAttention(Context& ctx, const LayerCall& c) {
  GraphBuilder& b = ctx.b;
  if (c.inputs.empty()) return InvalidArgument(c.Where() + ": no query");
  const KTensor& query = c.inputs[0];
  const KTensor* value = c.inputs.size() > 1 ? &c.inputs[1] : Kwarg(c, "value");
  if (!value) return InvalidArgument(c.Where() + ": no value input");
  const KTensor* key = c.inputs.size() > 2 ? &c.inputs[2] : Kwarg(c, "key");
  if (!key) key = value;
  const KTensor* mask = c.inputs.size() > 3 ? &c.inputs[3] : Kwarg(c, "attention_mask");
  for (const KTensor* t : {&query, value, key}) {
    if (t->rank() != 3) {
      return Unsupported(c.Where() + ": inputs of rank " + std::to_string(t->rank()) +
                         " (only [batch, length, features] is converted)");
    }
  }
  if (HasNonNull(c.config, "attention_axes")) {
    const json& a = c.config["attention_axes"];
    const json& axis = a.is_array() && a.size() == 1 ? a[0] : a;
    if (!axis.is_number_integer() || (axis.get<int64_t>() != 1 && axis.get<int64_t>() != -2)) {
      return Unsupported(c.Where() + ": attention_axes " + a.dump() + " (only the sequence axis, 1)");
    }
  }
  for (const char* k : {"query_mask", "value_mask", "key_mask"}) {
    if (Kwarg(c, k)) return Unsupported(c.Where() + ": an explicit " + std::string(k));
  }
  const bool use_bias = GetBoolOr(c.config, "use_bias", true);
  ONYX_ASSIGN_OR_RETURN(Projection q, InputProjection(ctx, c, 0, use_bias, "query", query.shape.back()));
  ONYX_ASSIGN_OR_RETURN(Projection k, InputProjection(ctx, c, 1, use_bias, "key", key->shape.back()));
  ONYX_ASSIGN_OR_RETURN(Projection v, InputProjection(ctx, c, 2, use_bias, "value", value->shape.back()));
  const int64_t heads = GetIntOr(c.config, "num_heads", q.heads);
  if (q.heads != heads || k.heads != heads || v.heads != heads || k.size != q.size) {
    return InvalidArgument(c.Where() + ": projection kernels disagree on heads / key_dim (num_heads " +
                           std::to_string(heads) + ")");
  }
  const size_t per = use_bias ? 2 : 1;
  ONYX_ASSIGN_OR_RETURN(Tensor wo, c.WeightAt(3 * per, "output kernel"));
  if (wo.rank() != 3 || wo.dim(0) != heads || wo.dim(1) != v.size) {
    return Unsupported(c.Where() + ": output kernel of shape " + ShapeToString(wo.shape()) + ", expected [" +
                       std::to_string(heads) + ", " + std::to_string(v.size) + ", out] (a single output_shape)");
  }
  const int64_t out_dim = wo.dim(2);
  ONYX_ASSIGN_OR_RETURN(Tensor wo2, wo.Reshaped({heads * v.size, out_dim}));

  std::string qh = ProjectHeads(ctx, query.value, q, c.name + "/query", {0, 2, 1, 3});
  // Keras scales the projected query (not the scores) by 1/sqrt(key_dim), computed in double.
  qh = b.Op1("Mul", {qh, b.ConstFloat(c.name + "/scale", static_cast<float>(1.0 / std::sqrt(double(q.size))))},
             c.name + "/query/scaled");
  std::string kh = ProjectHeads(ctx, key->value, k, c.name + "/key", {0, 2, 3, 1});
  std::string vh = ProjectHeads(ctx, value->value, v, c.name + "/value", {0, 2, 1, 3});
  std::string scores = b.Op1("MatMul", {qh, kh}, c.name + "/scores");  // [B, H, T, S]

  std::string keep;  // bool, broadcastable to [B, H, T, S]
  if (mask) {
    std::string m =
        b.Op1("Cast", {mask->value}, c.name + "/mask_bool", {ir::IntAttr("to", static_cast<int64_t>(DataType::kBool))});
    keep = b.Op1("Unsqueeze", {m, b.ConstInts(c.name + "/mask_axes", {1})}, c.name + "/mask_heads");
  }
  // Keras masks on the inputs (Masking / Embedding(mask_zero)): query's as [B, T, 1], value's and (a separate)
  // key's as [B, 1, S], ANDed into the attention mask (Keras's _compute_attention_mask).
  const auto add_mask = [&](const KTensor& t, int64_t axis, const std::string& what) {
    if (t.mask.empty()) return;
    std::string m = b.Op1("Unsqueeze", {t.mask, b.ConstInts(c.name + "/" + what + "_mask_axes", {1, axis})},
                          c.name + "/" + what + "_mask");  // [B, 1, T, 1] or [B, 1, 1, S]
    keep = keep.empty() ? m : b.Op1("And", {keep, m}, c.name + "/" + what + "_mask_and");
  };
  add_mask(query, 3, "query");
  add_mask(*value, 2, "value");
  if (key != value) add_mask(*key, 2, "key");
  if (OptionTrue(c, "use_causal_mask")) {
    const int64_t t = query.shape[1], s = value->shape[1];
    if (t < 0 || s < 0)
      return Unsupported(c.Where() + ": use_causal_mask with sequence lengths unknown until run time");
    Tensor tri = Tensor::Allocate(DataType::kBool, {1, 1, t, s});
    for (int64_t i = 0; i < t; ++i) {
      for (int64_t j = 0; j < s; ++j) tri.data<bool>()[i * s + j] = i >= j;
    }
    std::string causal = b.Constant(c.name + "/causal_mask", std::move(tri));
    keep = keep.empty() ? causal : b.Op1("And", {keep, causal}, c.name + "/mask_and_causal");
  }
  if (!keep.empty()) {
    scores = b.Op1("Where", {keep, scores, b.ConstFloat(c.name + "/masked", kMaskedScore)}, c.name + "/masked_scores");
  }
  std::string probs = b.Op1("Softmax", {scores}, c.name + "/softmax", {ir::IntAttr("axis", -1)});
  std::string ctxv = b.Op1("MatMul", {probs, vh}, c.name + "/context");  // [B, H, T, Dv]
  ctxv = b.Op1("Transpose", {ctxv}, c.name + "/context/transpose", {ir::IntsAttr("perm", {0, 2, 1, 3})});
  ctxv =
      b.Op1("Reshape", {ctxv, b.ConstInts(c.name + "/merge_shape", {0, 0, heads * v.size})}, c.name + "/merge_heads");
  std::string y = b.Op1("MatMul", {ctxv, b.Constant(c.name + "/output/kernel", std::move(wo2))}, c.name + "/output");
  if (use_bias) {
    ONYX_ASSIGN_OR_RETURN(Tensor bo, c.WeightAt(3 * per + 1, "output bias"));
    if (bo.size() != out_dim) return InvalidArgument(c.Where() + ": output bias does not match the output kernel");
    y = b.Op1("Add", {y, b.Constant(c.name + "/output/bias", std::move(bo))}, c.name + "/output/BiasAdd");
  }
  std::vector<KTensor> out{{y, {query.shape[0], query.shape[1], out_dim}, DataType::kFloat}};
  out[0].mask = query.mask;  // Keras sets the query's mask on the output
  out[0].mask_origin = query.mask_origin;
  if (OptionTrue(c, "return_attention_scores")) {
    out.push_back({probs, {query.shape[0], heads, query.shape[1], value->shape[1]}, DataType::kFloat});
  }
  return out;
}

}  // namespace

void RegisterAttentionLayers(LayerTable& t) { t["MultiHeadAttention"] = MultiHeadAttention; }

}  // namespace onyx::convert::keras
