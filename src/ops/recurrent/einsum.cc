// Einsum: any equation numpy.einsum accepts (implicit or explicit output, one ellipsis per term, repeated labels
// within a term for diagonals, labels summed away). The operands are contracted pairwise, left to right, each
// pair as a batched GEMM, so a chain of products costs what the products cost rather than the product of every
// label's size. Integers accumulate in 64 bits (wrapping), which modulo the element width equals numpy's own
// wrapping arithmetic; 16-bit floats accumulate in float.
//
// Two leniencies beyond numpy: size-1 dimensions broadcast for letter labels as they do for ellipsis dimensions,
// and ellipsis dimensions that an explicit output leaves out are summed.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/recurrent/recurrent_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::recurrent {
namespace {

// Labels: a letter is its character code; ellipsis dimension e (of the widest ellipsis, left to right) is
// kEllipsisLabel + e.
constexpr int kEllipsisLabel = 256;

struct Term {
  std::vector<int> letters;  // labels of the letters, in order
  int ellipsis_at = -1;      // index into letters before which "..." stands; -1 when absent
};

struct Equation {
  std::vector<Term> inputs;
  bool explicit_output = false;
  Term output;
};

Result<Term> ParseTerm(const std::string& s, const std::string& where) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t.letters.push_back(static_cast<unsigned char>(c));
    } else if (c == '.') {
      if (s.compare(i, 3, "...") != 0) return InvalidArgument(where + " '" + s + "' has a '.' outside an ellipsis");
      if (t.ellipsis_at >= 0) return InvalidArgument(where + " '" + s + "' has more than one ellipsis");
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
    } else {
      return InvalidArgument(where + " '" + s + "' has the character '" + std::string(1, c) +
                             "'; labels are letters a-z, A-Z");
    }
  }
  return t;
}

Result<Equation> ParseEquation(const std::string& raw) {
  std::string eq;
  for (char c : raw) {
    if (c != ' ' && c != '\t' && c != '\n') eq.push_back(c);
  }
  Equation e;
  std::string lhs = eq;
  const size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    const std::string rhs = eq.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos) return InvalidArgument("equation '" + raw + "' has more than one '->'");
    e.explicit_output = true;
    ONYX_ASSIGN_OR_RETURN(e.output, ParseTerm(rhs, "output term"));
    std::set<int> seen;
    for (int l : e.output.letters) {
      if (!seen.insert(l).second) {
        return InvalidArgument("output term '" + rhs + "' repeats the label '" + std::string(1, static_cast<char>(l)) +
                               "'");
      }
    }
  }
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    const std::string term = lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    ONYX_ASSIGN_OR_RETURN(Term t, ParseTerm(term, "input term " + std::to_string(e.inputs.size())));
    e.inputs.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return e;
}

// A tensor whose axes carry labels.
template <typename A>
struct Operand {
  std::vector<int> labels;
  Shape shape;
  std::vector<A> data;
};

// Reorders the axes: result axis i is operand axis perm[i].
template <typename A>
Operand<A> Permute(const Operand<A>& in, const std::vector<size_t>& perm) {
  Operand<A> out;
  for (size_t p : perm) {
    out.labels.push_back(in.labels[p]);
    out.shape.push_back(in.shape[p]);
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
  if (identity) {
    out.data = in.data;
    return out;
  }
  out.data.resize(in.data.size());
  if (out.data.empty()) return out;
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  std::vector<int64_t> strides[1];
  for (size_t p : perm) strides[0].push_back(in_strides[p]);
  ForEachStrided(out.shape, strides, [&](int64_t i, const int64_t* off) {
    out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(off[0])];
  });
  return out;
}

// Sums away the axes whose labels are in `drop`; the other axes keep their order.
template <typename A>
Operand<A> SumOut(const Operand<A>& in, const std::set<int>& drop) {
  std::vector<size_t> perm;
  for (size_t i = 0; i < in.labels.size(); ++i) {
    if (drop.count(in.labels[i]) == 0) perm.push_back(i);
  }
  const size_t kept = perm.size();
  if (kept == in.labels.size()) return in;
  for (size_t i = 0; i < in.labels.size(); ++i) {
    if (drop.count(in.labels[i]) != 0) perm.push_back(i);
  }
  const Operand<A> p = Permute(in, perm);
  Operand<A> out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t i = 0; i < p.labels.size(); ++i) {
    if (i < kept) {
      out.labels.push_back(p.labels[i]);
      out.shape.push_back(p.shape[i]);
      outer *= p.shape[i];
    } else {
      inner *= p.shape[i];
    }
  }
  out.data.assign(static_cast<size_t>(outer), A(0));
  for (int64_t o = 0; o < outer; ++o) {
    A sum = A(0);
    for (int64_t i = 0; i < inner; ++i) sum += p.data[static_cast<size_t>(o * inner + i)];
    out.data[static_cast<size_t>(o)] = sum;
  }
  return out;
}

// Takes the diagonal over repeated labels (their dimensions are equal, checked by the caller): each label keeps
// one axis, at its first occurrence.
template <typename A>
Operand<A> Diagonal(const Operand<A>& in) {
  Operand<A> out;
  std::vector<int64_t> strides;
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  for (size_t i = 0; i < in.labels.size(); ++i) {
    auto it = std::find(out.labels.begin(), out.labels.end(), in.labels[i]);
    if (it == out.labels.end()) {
      out.labels.push_back(in.labels[i]);
      out.shape.push_back(in.shape[i]);
      strides.push_back(in_strides[i]);
    } else {
      strides[static_cast<size_t>(it - out.labels.begin())] += in_strides[i];
    }
  }
  if (out.labels.size() == in.labels.size()) return in;
  out.data.resize(static_cast<size_t>(NumElements(out.shape)));
  std::vector<int64_t> s[1] = {strides};
  ForEachStrided(out.shape, s, [&](int64_t i, const int64_t* off) {
    out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(off[0])];
  });
  return out;
}

template <typename A>
std::set<int> LabelSet(const Operand<A>& op) {
  return {op.labels.begin(), op.labels.end()};
}

// Contracts two operands over their shared labels that are not in `keep`; shared labels in `keep` are batch
// axes. Result axes: batch, a's own, b's own.
template <typename A>
Operand<A> Contract(const Operand<A>& a_in, const Operand<A>& b_in, const std::set<int>& keep) {
  const std::set<int> la = LabelSet(a_in);
  const std::set<int> lb = LabelSet(b_in);
  std::set<int> drop_a, drop_b;
  for (int l : la) {
    if (lb.count(l) == 0 && keep.count(l) == 0) drop_a.insert(l);
  }
  for (int l : lb) {
    if (la.count(l) == 0 && keep.count(l) == 0) drop_b.insert(l);
  }
  const Operand<A> a = SumOut(a_in, drop_a);
  const Operand<A> b = SumOut(b_in, drop_b);
  auto index_in = [](const Operand<A>& op, int label) {
    return static_cast<size_t>(std::find(op.labels.begin(), op.labels.end(), label) - op.labels.begin());
  };
  std::vector<int> batch, contracted, a_only, b_only;
  for (int l : a.labels) {
    if (lb.count(l) == 0) {
      a_only.push_back(l);
    } else if (keep.count(l) != 0) {
      batch.push_back(l);
    } else {
      contracted.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (la.count(l) == 0) b_only.push_back(l);
  }
  std::vector<size_t> perm_a, perm_b;
  int64_t nb = 1, m = 1, k = 1, n = 1;
  Operand<A> out;
  for (int l : batch) {
    perm_a.push_back(index_in(a, l));
    perm_b.push_back(index_in(b, l));
    nb *= a.shape[index_in(a, l)];
    out.labels.push_back(l);
    out.shape.push_back(a.shape[index_in(a, l)]);
  }
  for (int l : a_only) {
    perm_a.push_back(index_in(a, l));
    m *= a.shape[index_in(a, l)];
    out.labels.push_back(l);
    out.shape.push_back(a.shape[index_in(a, l)]);
  }
  for (int l : contracted) {
    perm_a.push_back(index_in(a, l));
    perm_b.push_back(index_in(b, l));
    k *= a.shape[index_in(a, l)];
  }
  for (int l : b_only) {
    perm_b.push_back(index_in(b, l));
    n *= b.shape[index_in(b, l)];
    out.labels.push_back(l);
    out.shape.push_back(b.shape[index_in(b, l)]);
  }
  const Operand<A> pa = Permute(a, perm_a);
  const Operand<A> pb = Permute(b, perm_b);
  out.data.assign(static_cast<size_t>(nb * m * n), A(0));
  for (int64_t i = 0; i < nb; ++i) {
    nn::Gemm<A>(false, false, m, n, k, A(1), pa.data.data() + i * m * k, k, pb.data.data() + i * k * n, n, A(0),
                out.data.data() + i * m * n, n);
  }
  return out;
}

// A two-operand float Einsum that is a batched matrix product as the operands lie: labels shared by both inputs and
// the output (batch), by both inputs only (contracted, K), by one input and the output (M for the first, N for the
// second); each input its batch labels first, in the output's order, then its other two groups in either order (a
// transposed operand), the K labels in the same order in both; the output batch, M, N. Attention written as einsum
// (MaxViT's "BGHID,BGHJD->BGHIJ" and "BGHIJ,BGHJD->BGHID"): the general path copied every operand into the
// accumulation type, transposed one and ran the products on one thread (torchvision's maxvit_t: 19.7 ms of Einsum
// against ONNX Runtime's 9.3 at 1 thread).
struct BatchedProduct {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool trans_a = false, trans_b = false;
};

std::optional<BatchedProduct> AsBatchedProduct(const std::vector<int>& a, const std::vector<int>& b,
                                               const std::vector<int>& out, const std::map<int, int64_t>& sizes,
                                               const Shape& a_shape, const Shape& b_shape) {
  auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  auto unique = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  if (!unique(a) || !unique(b) || !unique(out)) return std::nullopt;
  // Each input's axes at their label's size (no size-1 axis broadcast against a larger one); its labels the output
  // lacks (K) all in the other input too (not summed away: the general path), in its order.
  auto contracted = [&](const std::vector<int>& term, const Shape& shape, const std::vector<int>& other,
                        std::vector<int>& k) {
    for (size_t i = 0; i < term.size(); ++i) {
      if (shape[i] != sizes.at(term[i])) return false;
      if (has(out, term[i])) continue;
      if (!has(other, term[i])) return false;
      k.push_back(term[i]);
    }
    return true;
  };
  std::vector<int> batch, m_labels, n_labels, k_a, k_b;
  if (!contracted(a, a_shape, b, k_a) || !contracted(b, b_shape, a, k_b)) return std::nullopt;
  for (int l : out) {
    const bool in_a = has(a, l), in_b = has(b, l);
    if (in_a && in_b) {
      batch.push_back(l);
    } else if (in_a) {
      m_labels.push_back(l);
    } else if (in_b) {
      n_labels.push_back(l);
    } else {
      return std::nullopt;
    }
  }
  if (k_a != k_b) return std::nullopt;
  // out: batch, M, N; each input: batch, then its two groups in either order.
  std::vector<int> expected_out = batch;
  expected_out.insert(expected_out.end(), m_labels.begin(), m_labels.end());
  expected_out.insert(expected_out.end(), n_labels.begin(), n_labels.end());
  if (expected_out != out) return std::nullopt;
  auto laid_out = [&](const std::vector<int>& term, const std::vector<int>& first, const std::vector<int>& second) {
    std::vector<int> want = batch;
    want.insert(want.end(), first.begin(), first.end());
    want.insert(want.end(), second.begin(), second.end());
    return want == term;
  };
  // Whether `term` is batch, first, second (false) or batch, second, first (true, a transposed operand); none: nullopt.
  auto transposed = [&](const std::vector<int>& term, const std::vector<int>& first,
                        const std::vector<int>& second) -> std::optional<bool> {
    if (laid_out(term, first, second)) return false;
    if (laid_out(term, second, first)) return true;
    return std::nullopt;
  };
  const std::optional<bool> trans_a = transposed(a, m_labels, k_a), trans_b = transposed(b, k_b, n_labels);
  if (!trans_a || !trans_b) return std::nullopt;
  BatchedProduct p;
  p.trans_a = *trans_a;
  p.trans_b = *trans_b;
  for (int l : batch) p.batch *= sizes.at(l);
  for (int l : m_labels) p.m *= sizes.at(l);
  for (int l : n_labels) p.n *= sizes.at(l);
  for (int l : k_a) p.k *= sizes.at(l);
  return p;
}

// The accumulation type: what GEMM computes in for each element type.
template <typename T>
struct EinsumAccOf {
  using type =
      std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
};
template <>
struct EinsumAccOf<float> {
  using type = float;
};
template <>
struct EinsumAccOf<Float16> {
  using type = float;
};
template <>
struct EinsumAccOf<BFloat16> {
  using type = float;
};

class EinsumKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(equation_, info.GetRequiredString("equation"));
    auto parsed = ParseEquation(equation_);
    if (!parsed.ok()) return info.Error("attribute 'equation': " + parsed.status().message());
    eq_ = std::move(parsed).value();
    if (info.num_inputs() != eq_.inputs.size()) {
      return info.Error("equation '" + equation_ + "' has " + std::to_string(eq_.inputs.size()) +
                        " input terms but the node has " + std::to_string(info.num_inputs()) + " inputs");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    const size_t num = eq_.inputs.size();
    std::vector<const Tensor*> ins(num);
    for (size_t i = 0; i < num; ++i) {
      ONYX_ASSIGN_OR_RETURN(ins[i], ctx.TensorInput(i));
      if (ins[i]->type() != ins[0]->type()) {
        return InvalidArgument("input " + std::to_string(i) + " is " + std::string(DataTypeName(ins[i]->type())) +
                               " but input 0 is " + std::string(DataTypeName(ins[0]->type())));
      }
    }
    // Ellipsis widths, then each input's full label list (one label per axis).
    int64_t ell = 0;
    std::vector<int64_t> widths(num, 0);
    for (size_t i = 0; i < num; ++i) {
      const Term& t = eq_.inputs[i];
      const int64_t letters = static_cast<int64_t>(t.letters.size());
      const int64_t rank = ins[i]->rank();
      if (t.ellipsis_at < 0 ? rank != letters : rank < letters) {
        return InvalidArgument("input " + std::to_string(i) + " has shape " + ShapeToString(ins[i]->shape()) +
                               " but its term in '" + equation_ + "' has " + std::to_string(letters) + " labels" +
                               (t.ellipsis_at < 0 ? "" : " and an ellipsis"));
      }
      widths[i] = rank - letters;
      ell = std::max(ell, widths[i]);
    }
    std::vector<std::vector<int>> labels(num);
    std::map<int, int64_t> sizes;  // each label's broadcast size
    for (size_t i = 0; i < num; ++i) {
      const Term& t = eq_.inputs[i];
      for (size_t j = 0; j <= t.letters.size(); ++j) {
        if (static_cast<int>(j) == t.ellipsis_at) {
          for (int64_t e = 0; e < widths[i]; ++e)
            labels[i].push_back(kEllipsisLabel + static_cast<int>(ell - widths[i] + e));
        }
        if (j < t.letters.size()) labels[i].push_back(t.letters[j]);
      }
      std::map<int, int64_t> own;
      for (size_t ax = 0; ax < labels[i].size(); ++ax) {
        const int l = labels[i][ax];
        const int64_t dim = ins[i]->dim(static_cast<int64_t>(ax));
        auto [it, inserted] = own.emplace(l, dim);
        if (!inserted && it->second != dim) {
          return InvalidArgument("input " + std::to_string(i) + " has shape " + ShapeToString(ins[i]->shape()) +
                                 ": the dimensions of its repeated label '" + LabelName(l) + "' differ");
        }
        auto [g, fresh] = sizes.emplace(l, dim);
        if (!fresh && g->second != dim) {
          if (g->second == 1) {
            g->second = dim;
          } else if (dim != 1) {
            return InvalidArgument("label '" + LabelName(l) + "' has dimension " + std::to_string(g->second) +
                                   " in one input and " + std::to_string(dim) + " in input " + std::to_string(i));
          }
        }
      }
    }
    // Output labels.
    std::vector<int> out_labels;
    if (eq_.explicit_output) {
      for (size_t j = 0; j <= eq_.output.letters.size(); ++j) {
        if (static_cast<int>(j) == eq_.output.ellipsis_at) {
          for (int64_t e = 0; e < ell; ++e) out_labels.push_back(kEllipsisLabel + static_cast<int>(e));
        }
        if (j < eq_.output.letters.size()) {
          const int l = eq_.output.letters[j];
          if (sizes.count(l) == 0) {
            return InvalidArgument("output label '" + LabelName(l) + "' of '" + equation_ + "' is in no input term");
          }
          out_labels.push_back(l);
        }
      }
    } else {
      for (int64_t e = 0; e < ell; ++e) out_labels.push_back(kEllipsisLabel + static_cast<int>(e));
      std::map<int, int> counts;
      for (const Term& t : eq_.inputs) {
        for (int l : t.letters) ++counts[l];
      }
      for (const auto& [l, c] : counts) {
        if (c == 1) out_labels.push_back(l);
      }
    }
    Shape out_shape;
    for (int l : out_labels) out_shape.push_back(sizes[l]);
    const std::set<int> out_set(out_labels.begin(), out_labels.end());

    Tensor& y = ctx.AllocateOutput(0, ins[0]->type(), out_shape);
    if (num == 2 && ins[0]->type() == DataType::kFloat) {
      if (auto p = AsBatchedProduct(labels[0], labels[1], out_labels, sizes, ins[0]->shape(), ins[1]->shape())) {
        const float* a = ins[0]->data<float>();
        const float* b = ins[1]->data<float>();
        float* c = y.data<float>();
        if (p->k == 0) {
          std::fill_n(c, y.size(), 0.0f);
          return Status::Ok();
        }
        const int64_t a_step = p->m * p->k, b_step = p->k * p->n, c_step = p->m * p->n;
        nn::RunGemmBatch(p->batch, p->m * p->n * p->k, [&](int64_t i) {
          nn::Gemm<float>(p->trans_a, p->trans_b, p->m, p->n, p->k, 1.0f, a + i * a_step, p->trans_a ? p->m : p->k,
                          b + i * b_step, p->trans_b ? p->k : p->n, 0.0f, c + i * c_step, p->n);
        });
        return Status::Ok();
      }
    }
    return Dispatch<NumericTypes>(ins[0]->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = typename EinsumAccOf<T>::type;
      std::vector<Operand<A>> ops(num);
      for (size_t i = 0; i < num; ++i) {
        Operand<A> op;
        op.labels = labels[i];
        op.shape = ins[i]->shape();
        op.data.resize(static_cast<size_t>(ins[i]->size()));
        const T* p = ins[i]->template data<T>();
        for (size_t j = 0; j < op.data.size(); ++j) op.data[j] = ToAcc<T, A>(p[j]);
        op = Diagonal(op);
        // A size-1 axis against a larger broadcast size reads the same value everywhere: drop the axis.
        Operand<A> squeezed;
        for (size_t ax = 0; ax < op.labels.size(); ++ax) {
          if (op.shape[ax] == 1 && sizes[op.labels[ax]] != 1) continue;
          squeezed.labels.push_back(op.labels[ax]);
          squeezed.shape.push_back(op.shape[ax]);
        }
        squeezed.data = std::move(op.data);
        ops[i] = std::move(squeezed);
      }
      // Labels only one operand holds and the output lacks are summed before any product.
      for (size_t i = 0; i < num; ++i) {
        std::set<int> drop;
        for (int l : ops[i].labels) {
          bool elsewhere = out_set.count(l) != 0;
          for (size_t j = 0; j < num && !elsewhere; ++j) {
            elsewhere = j != i && LabelSet(ops[j]).count(l) != 0;
          }
          if (!elsewhere) drop.insert(l);
        }
        ops[i] = SumOut(ops[i], drop);
      }
      Operand<A> result = std::move(ops[0]);
      for (size_t i = 1; i < num; ++i) {
        std::set<int> keep = out_set;
        for (size_t j = i + 1; j < num; ++j) {
          for (int l : ops[j].labels) keep.insert(l);
        }
        result = Contract(result, ops[i], keep);
      }
      std::set<int> drop;
      for (int l : result.labels) {
        if (out_set.count(l) == 0) drop.insert(l);
      }
      result = SumOut(result, drop);
      // Axes in output order; an output label the result lacks was broadcast from size 1 everywhere.
      std::vector<size_t> perm;
      for (int l : out_labels) {
        auto it = std::find(result.labels.begin(), result.labels.end(), l);
        if (it != result.labels.end()) perm.push_back(static_cast<size_t>(it - result.labels.begin()));
      }
      result = Permute(result, perm);
      T* py = y.data<T>();
      const int64_t total = y.size();
      if (static_cast<int64_t>(result.data.size()) != total) {
        return Internal("einsum produced " + std::to_string(result.data.size()) + " values for output shape " +
                        ShapeToString(out_shape));
      }
      for (int64_t i = 0; i < total; ++i) py[i] = FromAcc<T, A>(result.data[static_cast<size_t>(i)]);
      return Status::Ok();
    });
  }

 private:
  static std::string LabelName(int l) {
    if (l >= kEllipsisLabel) return "... axis " + std::to_string(l - kEllipsisLabel);
    return std::string(1, static_cast<char>(l));
  }
  template <typename T, typename A>
  static A ToAcc(T v) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      return static_cast<float>(v);
    } else {
      return static_cast<A>(v);
    }
  }
  template <typename T, typename A>
  static T FromAcc(A v) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      return T(v);
    } else {
      return static_cast<T>(v);
    }
  }

  std::string equation_;
  Equation eq_;
};

}  // namespace

void RegisterEinsumOps(KernelRegistry& registry) {
  registry.Add("", "Einsum", 12, kLatestVersion, MakeFactory<EinsumKernel>());
}

}  // namespace onyx::ops::recurrent
