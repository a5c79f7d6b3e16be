// TfIdfVectorizer: counts, per row of a [C] or [B, C] tensor of strings or integers, the occurrences of the n-grams
// listed in a pool, and writes them (TF), their presence times a weight (IDF) or their count times a weight
// (TFIDF) to the column ngram_indexes[id] of a [max(ngram_indexes) + 1] or [B, ...] float output.
// The pool lists the 1-grams, then the 2-grams, ... (ngram_counts[i] is where the (i+1)-grams start); n-grams are
// numbered in pool order over every size, but only sizes in [min_gram_length, max_gram_length] are looked for.
// An n-gram may skip up to max_skip_count items between its elements (the same gap throughout); unigrams are
// counted once, not once per gap. Weights are indexed by output column, as onnxruntime and the ONNX reference do.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ops/string/string_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::string_ops {
namespace {

enum class Weighting { kTf, kIdf, kTfIdf };

// N-grams as paths from the root; a node's id is the 1-based number of the n-gram ending there (0: none).
template <typename K>
class NgramTrie {
 public:
  NgramTrie() : nodes_(1) {}
  bool empty() const { return nodes_[0].children.empty(); }
  // The child of `node` along `key`, or -1.
  int64_t Child(int64_t node, const K& key) const {
    const auto& children = nodes_[static_cast<size_t>(node)].children;
    auto it = children.find(key);
    return it == children.end() ? -1 : it->second;
  }
  int64_t id(int64_t node) const { return nodes_[static_cast<size_t>(node)].id; }
  // Adds the n-gram keys[0..n); a repeated n-gram takes the later id.
  void Insert(const K* keys, int64_t n, int64_t id) {
    int64_t node = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t next = Child(node, keys[i]);
      if (next < 0) {
        next = static_cast<int64_t>(nodes_.size());
        nodes_[static_cast<size_t>(node)].children.emplace(keys[i], next);
        nodes_.emplace_back();
      }
      node = next;
    }
    nodes_[static_cast<size_t>(node)].id = id;
  }

 private:
  struct Node {
    std::map<K, int64_t> children;
    int64_t id = 0;
  };
  std::vector<Node> nodes_;
};

class TfIdfVectorizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(const std::string mode, info.GetRequiredString("mode"));
    if (mode == "TF") {
      weighting_ = Weighting::kTf;
    } else if (mode == "IDF") {
      weighting_ = Weighting::kIdf;
    } else if (mode == "TFIDF") {
      weighting_ = Weighting::kTfIdf;
    } else {
      return info.Error("attribute 'mode' is '" + mode + "', expected TF, IDF or TFIDF");
    }
    ONYX_ASSIGN_OR_RETURN(min_gram_, info.GetRequiredInt("min_gram_length"));
    ONYX_ASSIGN_OR_RETURN(max_gram_, info.GetRequiredInt("max_gram_length"));
    ONYX_ASSIGN_OR_RETURN(max_skip_, info.GetRequiredInt("max_skip_count"));
    if (min_gram_ < 1 || max_gram_ < min_gram_) {
      return info.Error("attributes 'min_gram_length' (" + std::to_string(min_gram_) + ") and 'max_gram_length' (" +
                        std::to_string(max_gram_) + ") must satisfy 1 <= min <= max");
    }
    if (max_skip_ < 0) return info.Error("attribute 'max_skip_count' is " + std::to_string(max_skip_) + ", expected >= 0");
    if (!info.HasAttribute("ngram_counts")) return info.Error("attribute 'ngram_counts' is required");
    if (!info.HasAttribute("ngram_indexes")) return info.Error("attribute 'ngram_indexes' is required");
    const std::vector<int64_t> counts = info.GetInts("ngram_counts");
    ngram_indexes_ = info.GetInts("ngram_indexes");
    weights_ = info.GetFloats("weights");

    const bool has_ints = info.HasAttribute("pool_int64s"), has_strings = info.HasAttribute("pool_strings");
    if (has_ints == has_strings) return info.Error("exactly one of 'pool_int64s' and 'pool_strings' must be given");
    pool_is_strings_ = has_strings;
    const std::vector<int64_t> pool_ints = info.GetInts("pool_int64s");
    const std::vector<std::string> pool_strings = info.GetStrings("pool_strings");
    const auto pool_size = static_cast<int64_t>(has_strings ? pool_strings.size() : pool_ints.size());

    // Number the n-grams of every size; insert those of the sizes looked for.
    int64_t next_id = 1;
    for (size_t i = 0; i < counts.size(); ++i) {
      const int64_t n = static_cast<int64_t>(i) + 1;
      const int64_t begin = counts[i], end = i + 1 < counts.size() ? counts[i + 1] : pool_size;
      if (begin < 0 || end < begin || end > pool_size) {
        return info.Error("attribute 'ngram_counts' is not a non-decreasing list of offsets into the pool of " +
                          std::to_string(pool_size) + " items");
      }
      const int64_t ngrams = (end - begin) / n;
      for (int64_t g = 0; g < ngrams; ++g, ++next_id) {
        if (n < min_gram_ || n > max_gram_) continue;
        const int64_t at = begin + g * n;
        if (has_strings) {
          string_trie_.Insert(pool_strings.data() + at, n, next_id);
        } else {
          int_trie_.Insert(pool_ints.data() + at, n, next_id);
        }
      }
    }
    const int64_t total_ngrams = next_id - 1;
    if (static_cast<int64_t>(ngram_indexes_.size()) < total_ngrams) {
      return info.Error("attribute 'ngram_indexes' has " + std::to_string(ngram_indexes_.size()) +
                        " values, fewer than the " + std::to_string(total_ngrams) + " n-grams in the pool");
    }
    if (ngram_indexes_.empty()) return info.Error("attribute 'ngram_indexes' is empty");
    for (int64_t v : ngram_indexes_) {
      if (v < 0) return info.Error("attribute 'ngram_indexes' holds " + std::to_string(v) + ", expected >= 0");
    }
    output_size_ = *std::max_element(ngram_indexes_.begin(), ngram_indexes_.end()) + 1;
    if (weighting_ != Weighting::kTf && !weights_.empty() && static_cast<int64_t>(weights_.size()) < output_size_) {
      return info.Error("attribute 'weights' has " + std::to_string(weights_.size()) + " values, fewer than the " +
                        std::to_string(output_size_) + " output columns");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const DataType t = x->type();
    if (t != DataType::kString && t != DataType::kInt32 && t != DataType::kInt64) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(t)) +
                             ", expected string, int32 or int64");
    }
    if ((t == DataType::kString) != pool_is_strings_) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(t)) + " but the pool holds " +
                             (pool_is_strings_ ? "strings" : "integers"));
    }
    if (x->rank() > 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [C] or [B, C]");
    }
    const bool batched = x->rank() == 2;
    const int64_t rows = batched ? x->dim(0) : 1;
    const int64_t cols = batched ? x->dim(1) : x->size();
    std::vector<int64_t> freq(static_cast<size_t>(rows * output_size_), 0);
    if (x->size() > 0) {
      if (t == DataType::kString) {
        Count(string_trie_, x->data<std::string>(), rows, cols, freq);
      } else if (t == DataType::kInt32) {
        std::vector<int64_t> wide(x->data<int32_t>(), x->data<int32_t>() + x->size());
        Count(int_trie_, wide.data(), rows, cols, freq);
      } else {
        Count(int_trie_, x->data<int64_t>(), rows, cols, freq);
      }
    }
    Tensor& out = ctx.AllocateOutput(0, DataType::kFloat, batched ? Shape{rows, output_size_} : Shape{output_size_});
    float* o = out.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < output_size_; ++c) {
        const int64_t f = freq[static_cast<size_t>(r * output_size_ + c)];
        // Init checked the length of the weights for the modes that use them.
        const float w = weighting_ == Weighting::kTf || weights_.empty() ? 1.0f : weights_[static_cast<size_t>(c)];
        float v = 0.0f;
        switch (weighting_) {
          case Weighting::kTf: v = static_cast<float>(f); break;
          case Weighting::kIdf: v = f > 0 ? w : 0.0f; break;
          case Weighting::kTfIdf: v = w * static_cast<float>(f); break;
        }
        o[r * output_size_ + c] = v;
      }
    }
    return Status::Ok();
  }

 private:
  template <typename K>
  void Count(const NgramTrie<K>& trie, const K* data, int64_t rows, int64_t cols, std::vector<int64_t>& freq) const {
    if (trie.empty()) return;
    for (int64_t r = 0; r < rows; ++r) {
      const K* row = data + r * cols;
      int64_t* row_freq = freq.data() + r * output_size_;
      int64_t start_size = min_gram_;
      for (int64_t gap = 1; gap <= max_skip_ + 1; ++gap) {
        for (int64_t start = 0; start < cols; ++start) {
          // Not even the shortest n-gram looked for fits from here with this gap.
          if (start + gap * (start_size - 1) >= cols) break;
          int64_t node = 0;
          for (int64_t n = 1, at = start; n <= max_gram_ && at < cols; ++n, at += gap) {
            node = trie.Child(node, row[at]);
            if (node < 0) break;
            const int64_t id = trie.id(node);
            if (n >= start_size && id != 0) ++row_freq[ngram_indexes_[static_cast<size_t>(id - 1)]];
          }
        }
        // Unigrams do not depend on the gap: count them with the first gap only.
        if (start_size == 1) {
          start_size = 2;
          if (start_size > max_gram_) break;
        }
      }
    }
  }

  Weighting weighting_ = Weighting::kTf;
  int64_t min_gram_ = 1, max_gram_ = 1, max_skip_ = 0;
  std::vector<int64_t> ngram_indexes_;
  std::vector<float> weights_;
  bool pool_is_strings_ = false;
  int64_t output_size_ = 0;
  NgramTrie<int64_t> int_trie_;
  NgramTrie<std::string> string_trie_;
};

}  // namespace

void RegisterTfIdfVectorizerOps(KernelRegistry& registry) {
  registry.Add("", "TfIdfVectorizer", 9, kLatestVersion, MakeFactory<TfIdfVectorizerKernel>());
}

}  // namespace onyx::ops::string_ops
