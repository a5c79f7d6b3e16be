// A float32 product whose right operand is a session constant: C[m, n] = act(A[m, k] B[k, n] + bias[n]).
// kernels::FloatMatMul packs B (or reads it in place) and picks its kernel per row class and thread count on this
// CPU; the product of each (rows, threads) is built once, on the first run that needs it, and the last few are kept
// (a decoder alternates a prompt of many rows with steps of one, and rebuilding oneDNN primitives and packed weights
// on each switch cost its prompt ~30 ms). A product that runs any row count serves every row count of its class, and
// after kBuildsPerRowClass row counts of one class the next product built is such a one. Once a product holds its own
// copy of B, the original is released (the session frees an adopted initializer then). A build that fails (oneDNN
// offering only its reference kernels) is kept as one without a product: those runs take the sgemm path on a plain B.
//
// Used by MatMulBias (B and the bias constant) and com.microsoft Attention (its QKV weights). Safe to run from
// several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/float_matmul.h"

namespace onyx::ops::nn {

// c = act(a b + bias) for a [m, k], b [k, n] (as stored, any values) on oneDNN's sgemm: the bias (or null) copied
// into every row of c first, then added to through beta = 1; the activation as a second pass.
void PlainFloatProduct(int64_t m, int64_t k, int64_t n, const float* a, const float* b, const float* bias,
                       kernels::MatMulActivation activation, float* c);

class ConstantFloatProduct {
 public:
  // Products built for this many row counts of one row class and thread count: the next runs every row count of the
  // class (FloatMatMul::CreateAnyRowCount; a GPT-2-like prompt of random length ran 15-20% slower building one per
  // length).
  static constexpr int kBuildsPerRowClass = kernels::kBuildsPerRowClass;

  // b: the constant [k, n] float matrix (its storage is shared, not copied); bias: n floats or null, the same on
  // every run (a constant); activation: applied after the bias.
  ConstantFloatProduct(Tensor b, kernels::MatMulActivation activation)
      : weights_(std::move(b)), activation_(activation) {}

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

  // c = act(a b + bias) for a [m, k] (row-major) into c [m, n], with up to `available_threads` threads.
  Status Run(int64_t m, const float* a, const float* bias, float* c, int available_threads);
  // How many products were built so far (tests: row counts of one class stop building after kBuildsPerRowClass).
  size_t builds() const;

 private:
  struct Product {
    std::unique_ptr<kernels::FloatMatMul> mm;  // null: the build failed (the sgemm path runs on `weights`)
    Tensor weights;  // B, while `mm` reads it in place or is null; a shell when `mm` holds a packed copy
  };
  struct Built {
    int64_t m;
    int threads;
    std::shared_ptr<const Product> product;  // held by runs in flight too: an evicted product stays valid for them
  };
  static constexpr size_t kKeptProducts = 8;

  // B, plain, for a new product: weights_ until the first product is built, then one a kept product holds (read in
  // place), else a copy unpacked from a packed one. Under mutex_.
  Result<Tensor> PlainWeights() const;

  Tensor weights_;  // the constant B until the first product is built; then empty. Guarded by mutex_.
  const int64_t k_ = weights_.rank() == 2 ? weights_.dim(0) : 0;
  const int64_t n_ = weights_.rank() == 2 ? weights_.dim(1) : 0;
  kernels::MatMulActivation activation_;
  mutable std::mutex mutex_;  // guards weights_, built_ and class_builds_
  std::vector<Built> built_;  // the products of the last row and thread counts, oldest first
  kernels::RowClassBuilds class_builds_;  // products built per row class and thread count
};

}  // namespace onyx::ops::nn
