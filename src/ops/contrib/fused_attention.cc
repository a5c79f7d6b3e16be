// ai.onyx.internal.FusedAttention, which the optimizer's attention fusion (src/optimizer/attention_fusion.cc)
// emits for torch's MatMul(Q, K^T) -> scale -> (+ mask) -> Softmax -> MatMul(., V) chain:
//   Y = softmax(scale * Q K^T + mask) V
// Inputs Q (..., S, D), K (..., T, D) or, with k_transposed = 1, K^T (..., D, T), V (..., T, Dv) and an optional
// additive mask, their leading dims broadcasting together as the MatMuls and the Add would broadcast them. One kernel:
// the heads' products through the shared sgemm, softmax rows vectorized (sdpa.h).
// With seq_first = 1 (torch's sequence-first nn.MultiheadAttention, whose head transposes the fusion folds in), Q
// is [S, H, D], K [T, H, D] (k_transposed 0), V [T, H, Dv] and Y [S, H, Dv], head h being the [:, h, :] slices:
// the same products read and written with strides, no mask. With `column_offsets` [oq, ok, ov], `column_heads`
// [H, D, Dv] and `column_rows` [S, T] (torch's Q, K and V sliced out of one input projection, the Slices and Reshapes
// folded in), each input is a tensor [..., F] of S (Q) or T (K, V) rows of F values, and head h of Q reads columns
// oq + h D .. oq + (h + 1) D of every row: Q, K and V read in place from the projection, no copies.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ir/model.h"
#include "ops/common/kept_plan.h"
#include "ops/contrib/contrib_ops.h"
#include "ops/contrib/sdpa.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

// Numpy broadcast of two leading-dim lists.
Result<Shape> BroadcastLead(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1) {
      return InvalidArgument("leading dims " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// `t` broadcast (right-aligned) to `shape`, copied.
Tensor ExpandTo(const Tensor& t, const Shape& shape) {
  Tensor out = Tensor::Allocate(DataType::kFloat, shape);
  const int64_t r = static_cast<int64_t>(shape.size());
  std::vector<int64_t> strides(static_cast<size_t>(r), 0);
  int64_t acc = 1;
  for (int64_t i = t.rank() - 1, j = r - 1; i >= 0 && j >= 0; --i, --j) {
    strides[static_cast<size_t>(j)] = t.dim(i) == 1 ? 0 : acc;
    acc *= t.dim(i);
  }
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  for (int64_t n = 0; n < out.size(); ++n) {
    int64_t off = 0;
    for (int64_t j = 0; j < r; ++j) off += idx[static_cast<size_t>(j)] * strides[static_cast<size_t>(j)];
    dst[n] = src[off];
    for (int64_t j = r - 1; j >= 0; --j) {
      if (++idx[static_cast<size_t>(j)] < shape[static_cast<size_t>(j)]) break;
      idx[static_cast<size_t>(j)] = 0;
    }
  }
  return out;
}

// The data of `x` with its leading dims broadcast to `lead` (copied into *storage only when they differ).
const float* Expanded(const Tensor& x, const Shape& lead, std::vector<float>* storage) {
  Shape full = lead;
  full.push_back(x.dim(x.rank() - 2));
  full.push_back(x.dim(x.rank() - 1));
  if (full == x.shape()) return x.data<float>();
  Tensor e = ExpandTo(x, full);
  storage->assign(e.data<float>(), e.data<float>() + e.size());
  return storage->data();
}

class FusedAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    scale_ = info.GetFloat("scale", 1.0f);
    k_transposed_ = info.GetInt("k_transposed", 0) != 0;
    seq_first_ = info.GetInt("seq_first", 0) != 0;
    if (seq_first_ && (k_transposed_ || info.has_input(3))) {
      return info.Error("seq_first = 1 takes K as stored (k_transposed 0) and no mask");
    }
    column_offsets_ = info.GetInts("column_offsets");
    column_heads_ = info.GetInts("column_heads");
    column_rows_ = info.GetInts("column_rows");
    if (!column_offsets_.empty() || !column_heads_.empty() || !column_rows_.empty()) {
      bool valid = seq_first_ && column_offsets_.size() == 3 && column_heads_.size() == 3 && column_rows_.size() == 2;
      for (const int64_t v : column_offsets_) valid = valid && v >= 0;
      for (const int64_t v : column_heads_) valid = valid && v > 0;
      for (const int64_t v : column_rows_) valid = valid && v >= 0;
      if (!valid) {
        return info.Error(
            "column_offsets [oq, ok, ov] >= 0, column_heads [H, D, Dv] > 0 and column_rows [S, T] go "
            "together, with seq_first = 1");
      }
    }
    return Status::Ok();
  }

  // Q, K and V as rows of a wider tensor each (column_offsets): see the file comment.
  Status ComputeColumns(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v) const {
    const int64_t h = column_heads_[0], d = column_heads_[1], dv = column_heads_[2];
    const int64_t widths[3] = {h * d, h * d, h * dv};
    const int64_t want_rows[3] = {column_rows_[0], column_rows_[1], column_rows_[1]};
    const Tensor* inputs[3] = {&q, &k, &v};
    const char* names[3] = {"Q", "K", "V"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& x = *inputs[i];
      const int64_t f = x.rank() > 0 ? x.dim(x.rank() - 1) : 0;
      if (f <= 0 || x.size() / f != want_rows[i] || column_offsets_[static_cast<size_t>(i)] + widths[i] > f) {
        return InvalidArgument(std::string(names[i]) + " " + ShapeToString(x.shape()) + " does not hold " +
                               std::to_string(want_rows[i]) + " rows with columns " +
                               std::to_string(column_offsets_[static_cast<size_t>(i)]) + " + " +
                               std::to_string(widths[i]));
      }
    }
    return RunHeads(ctx, column_rows_[0], column_rows_[1], h, d, dv,
                    {q.data<float>() + column_offsets_[0], 0, d, q.dim(q.rank() - 1)},
                    {k.data<float>() + column_offsets_[1], 0, d, k.dim(k.rank() - 1)},
                    {v.data<float>() + column_offsets_[2], 0, dv, v.dim(v.rank() - 1)});
  }

  // seq_first = 1: Q [S, H, D], K [T, H, D], V [T, H, Dv] -> Y [S, H, Dv], each head a strided [:, h, :] slice.
  Status ComputeSeqFirst(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v) const {
    if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || k.dim(1) != q.dim(1) || v.dim(1) != q.dim(1) ||
        k.dim(2) != q.dim(2) || v.dim(0) != k.dim(0)) {
      return InvalidArgument("with seq_first, Q " + ShapeToString(q.shape()) + ", K " + ShapeToString(k.shape()) +
                             " and V " + ShapeToString(v.shape()) + " must be [S, H, D], [T, H, D] and [T, H, Dv]");
    }
    const int64_t s = q.dim(0), h = q.dim(1), d = q.dim(2), t = k.dim(0), dv = v.dim(2);
    return RunHeads(ctx, s, t, h, d, dv, {q.data<float>(), 0, d, h * d}, {k.data<float>(), 0, d, h * d},
                    {v.data<float>(), 0, dv, h * dv});
  }

  // The seq_first forms' products: Y [S, H, Dv] (head h at [:, h, :]) from heads read through q, k and v.
  Status RunHeads(KernelContext& ctx, int64_t s, int64_t t, int64_t h, int64_t d, int64_t dv, StridedRows q,
                  StridedRows k, StridedRows v) const {
    // [S, H, Dv] in a vector of the calling thread: no allocation per run.
    thread_local Shape thread_out_shape(3);
    Shape& out_shape = thread_out_shape;
    out_shape[0] = s;
    out_shape[1] = h;
    out_shape[2] = dv;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, out_shape);
    if (y.size() == 0) return Status::Ok();
    SdpaProblem p;
    p.batch = 1;
    p.q_heads = p.kv_heads = h;
    p.q_len = s;
    p.kv_len = t;
    p.head_size = d;
    p.v_head_size = dv;
    p.scale = scale_;
    p.q = q;
    p.k = k;
    p.v = v;
    p.out = {y.data<float>(), 0, dv, h * dv};
    RunSdpa(p);  // no keys (t = 0): zeros
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* q, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* k, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* v, ctx.TensorInput(2));
    const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    ONYX_RETURN_IF_ERROR(RequireFloat("Q", 0, *q));
    ONYX_RETURN_IF_ERROR(RequireFloat("K", 1, *k));
    ONYX_RETURN_IF_ERROR(RequireFloat("V", 2, *v));
    if (mask != nullptr) ONYX_RETURN_IF_ERROR(RequireFloat("mask", 3, *mask));
    if (!column_offsets_.empty()) return ComputeColumns(ctx, *q, *k, *v);
    if (seq_first_) return ComputeSeqFirst(ctx, *q, *k, *v);
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Layout> layout,
                          layout_.FindOrMake(
                              [&](const Layout& l) {
                                return l.q_shape == q->shape() && l.k_shape == k->shape() && l.v_shape == v->shape() &&
                                       l.has_mask == (mask != nullptr) &&
                                       (mask == nullptr || l.mask_shape == mask->shape());
                              },
                              [&] { return Resolve(*q, *k, *v, mask); }));
    const Layout& l = *layout;
    const int64_t s = l.s, d = l.d, t = l.t, dv = l.dv, b1 = l.b1;
    // Q, K, V whose leading dims are not the full ones are expanded (rare: MatMul broadcasting across heads).
    std::vector<float> qx, kx, vx;
    const float* qd = l.expand[0] ? Expanded(*q, l.lead, &qx) : q->data<float>();
    const float* kd_ = l.expand[1] ? Expanded(*k, l.lead, &kx) : k->data<float>();
    const float* vd = l.expand[2] ? Expanded(*v, l.lead, &vx) : v->data<float>();
    SdpaProblem p;
    p.batch = l.b0;
    p.q_heads = p.kv_heads = b1;
    p.q_len = s;
    p.kv_len = t;
    p.head_size = d;
    p.v_head_size = dv;
    p.scale = scale_;
    p.k_transposed = k_transposed_;
    p.q = {qd, b1 * s * d, s * d, d};
    p.k = k_transposed_ ? StridedRows{kd_, b1 * d * t, d * t, t} : StridedRows{kd_, b1 * t * d, t * d, d};
    p.v = {vd, b1 * t * dv, t * dv, dv};
    std::vector<float> expanded;
    if (mask != nullptr) {
      if (l.mask_affine) {
        p.bias = {mask->data<float>(), l.mask_strides[0], l.mask_strides[1], l.mask_strides[2]};
      } else {
        const Tensor full_mask = ExpandTo(*mask, l.mask_full);
        expanded.assign(full_mask.data<float>(), full_mask.data<float>() + full_mask.size());
        p.bias = {expanded.data(), b1 * s * t, s * t, t};
      }
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, l.out_shape);
    p.out = {y.data<float>(), b1 * s * dv, s * dv, dv};
    if (l.items > 0) RunSdpa(p);
    return Status::Ok();
  }

 private:
  // What the input shapes resolve to: the problem's dims, the broadcast leading dims and how the mask is read.
  struct Layout {
    Shape q_shape, k_shape, v_shape, mask_shape;
    bool has_mask = false;
    int64_t s = 0, d = 0, t = 0, dv = 0;
    Shape lead;
    int64_t items = 1, b0 = 0, b1 = 1;
    bool expand[3] = {false, false, false};  // Q, K, V need their leading dims expanded
    bool mask_affine = false;                // the mask is read in place with mask_strides (b0, b1, row)
    int64_t mask_strides[3] = {0, 0, 0};
    Shape mask_full;  // (lead..., s, t): what a non-affine mask is expanded to
    Shape out_shape;
  };

  Result<std::shared_ptr<const Layout>> Resolve(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
                                                const Tensor* mask) const {
    const Tensor* q = &q_in;
    const Tensor* k = &k_in;
    const Tensor* v = &v_in;
    if (q->rank() < 2 || k->rank() < 2 || v->rank() < 2) {
      return InvalidArgument("inputs Q " + ShapeToString(q->shape()) + ", K " + ShapeToString(k->shape()) + ", V " +
                             ShapeToString(v->shape()) + " must have rank 2 or more");
    }
    auto l = std::make_shared<Layout>();
    l->q_shape = q->shape();
    l->k_shape = k->shape();
    l->v_shape = v->shape();
    l->has_mask = mask != nullptr;
    if (mask != nullptr) l->mask_shape = mask->shape();
    const int64_t s = q->dim(q->rank() - 2), d = q->dim(q->rank() - 1);
    const int64_t t = k_transposed_ ? k->dim(k->rank() - 1) : k->dim(k->rank() - 2);
    const int64_t kd = k_transposed_ ? k->dim(k->rank() - 2) : k->dim(k->rank() - 1);
    const int64_t dv = v->dim(v->rank() - 1);
    if (kd != d || v->dim(v->rank() - 2) != t) {
      return InvalidArgument("inputs Q " + ShapeToString(q->shape()) + ", K " + ShapeToString(k->shape()) + ", V " +
                             ShapeToString(v->shape()) + " disagree on the head or key dims");
    }
    l->s = s;
    l->d = d;
    l->t = t;
    l->dv = dv;
    // The leading (batch, head...) dims broadcast as MatMul and Add broadcast them: Q, K and V (and the mask's)
    // together.
    Shape& lead = l->lead;
    for (const Tensor* x : {q, k, v, mask}) {
      if (x == nullptr) continue;
      Shape xl(x->shape().begin(), x->shape().end() - std::min<int64_t>(2, x->rank()));
      ONYX_ASSIGN_OR_RETURN(lead, BroadcastLead(lead, xl));
    }
    int64_t items = 1;
    for (int64_t e : lead) items *= e;
    l->items = items;
    const Tensor* qkv[3] = {q, k, v};
    for (size_t i = 0; i < 3; ++i) {
      Shape full = lead;
      full.push_back(qkv[i]->dim(qkv[i]->rank() - 2));
      full.push_back(qkv[i]->dim(qkv[i]->rank() - 1));
      l->expand[i] = full != qkv[i]->shape();
    }
    // Leading dims viewed as (b0, b1): the last leading dim and the product of the others.
    const int64_t b1 = lead.empty() ? 1 : lead.back();
    l->b1 = b1;
    l->b0 = b1 == 0 ? 0 : items / b1;
    if (mask != nullptr) {
      // Right-aligned strides of the mask over (leading..., s, t); 0 where it broadcasts.
      Shape& full = l->mask_full;
      full = lead;
      full.push_back(s);
      full.push_back(t);
      const int64_t r = static_cast<int64_t>(full.size());
      std::vector<int64_t> strides(static_cast<size_t>(r), 0);
      int64_t acc = 1;
      for (int64_t i = mask->rank() - 1, j = r - 1; i >= 0; --i, --j) {
        const int64_t m = mask->dim(i);
        if (j < 0 || (m != 1 && m != full[static_cast<size_t>(j)])) {
          return InvalidArgument(DescribeInput("mask", 3, *mask) + ", which does not broadcast to " +
                                 ShapeToString(full));
        }
        strides[static_cast<size_t>(j)] = m == 1 ? 0 : acc;
        acc *= m;
      }
      // Rows stay contiguous along the keys and the leading dims affine in (b0, b1) unless the mask broadcasts
      // along the keys or over several leading dims with different strides: then it is expanded.
      bool affine = strides[static_cast<size_t>(r - 1)] == 1 || t == 1;
      int64_t b0_stride = 0;
      if (r > 3) {
        // The leading dims before the last must combine into one stride: all 0, or dense.
        bool all_zero = true;
        for (int64_t i = 0; i < r - 3; ++i) all_zero = all_zero && strides[static_cast<size_t>(i)] == 0;
        int64_t dense = strides[static_cast<size_t>(r - 4)];
        bool dense_ok = true;
        for (int64_t i = r - 4; i > 0; --i) {
          dense_ok = dense_ok && strides[static_cast<size_t>(i - 1)] ==
                                     strides[static_cast<size_t>(i)] * full[static_cast<size_t>(i)];
        }
        if (all_zero) {
          b0_stride = 0;
        } else if (dense_ok && r == 4) {
          b0_stride = dense;
        } else {
          affine = false;
        }
      }
      l->mask_affine = affine;
      if (affine) {
        l->mask_strides[0] = b0_stride;
        l->mask_strides[1] = r > 2 ? strides[static_cast<size_t>(r - 3)] : 0;
        l->mask_strides[2] = strides[static_cast<size_t>(r - 2)];
      }
    }
    l->out_shape = lead;
    l->out_shape.push_back(s);
    l->out_shape.push_back(dv);
    return std::shared_ptr<const Layout>(std::move(l));
  }

 private:
  float scale_ = 1.0f;
  bool k_transposed_ = false;
  bool seq_first_ = false;   // Q, K, V and Y are [S, H, D]: see the file comment
  std::vector<int64_t> column_offsets_, column_heads_, column_rows_;  // empty, or Q, K, V as columns of wider rows
  KeptPlan<Layout> layout_;  // the last run's shapes and the layout they gave
};

}  // namespace

void RegisterFusedAttentionOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "FusedAttention", 1, kLatestVersion, MakeFactory<FusedAttentionKernel>());
}

}  // namespace onyx::ops::contrib
