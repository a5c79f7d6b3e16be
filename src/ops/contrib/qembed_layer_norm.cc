// com.microsoft QEmbedLayerNormalization: EmbedLayerNormalization over 8-bit tables, as ONNX Runtime's quantize_dynamic
// writes it for an optimized BERT. Inputs: input_ids, segment_ids (optional), word/position/segment embeddings and
// gamma/beta (uint8 or int8, the type of word_embedding_zero_point), mask (optional int32), then the five scales and
// the five zero points (one value each). Per token, computed in ONNX Runtime's order, bit for bit: each table value
// dequantized as float(q - zero_point) * scale; the word, position and segment rows added left to right; their float
// sum in order, the mean sum / hidden; the centered values' squares summed in order; e = sqrt(sum / hidden + epsilon);
// y = (x - mean) / e * gamma + beta. Output 1 (mask_index, [B] int32): the count of 1s in each mask row, 0 without a
// mask.
#include <cmath>
#include <string>
#include <vector>

#include "ops/common/parallel.h"
#include "ops/contrib/contrib_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

struct QTable {
  const Tensor* data = nullptr;
  float scale = 1;
  int32_t zero_point = 0;
  float At(int64_t i) const {
    const int32_t q =
        data->type() == DataType::kUint8 ? int32_t{data->data<uint8_t>()[i]} : int32_t{data->data<int8_t>()[i]};
    return static_cast<float>(q - zero_point) * scale;
  }
};

class QEmbedLayerNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-12f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* ids, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* seg_ids, nn::OptionalTensorInput(ctx, 1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* mask, nn::OptionalTensorInput(ctx, 7));
    ONYX_ASSIGN_OR_RETURN(const Tensor* word_zp, ctx.TensorInput(13));
    const DataType type = word_zp->type();
    if (type != DataType::kUint8 && type != DataType::kInt8) {
      return InvalidArgument("input 'word_embedding_zero_point' (13) must be uint8 or int8, got " +
                             std::string(DataTypeName(type)));
    }
    if (ids->type() != DataType::kInt32 || ids->rank() != 2) {
      return InvalidArgument(DescribeInput("input_ids", 0, *ids) + ", expected int32 [B, S]");
    }
    const int64_t batch = ids->dim(0), seq = ids->dim(1);
    // Tables: word (2), position (3), segment (4), gamma (5), beta (6); scales at 8 + k, zero points at 13 + k.
    static const char* kNames[] = {"word_embedding", "position_embedding", "segment_embedding", "gamma", "beta"};
    QTable t[5];
    for (size_t k = 0; k < 5; ++k) {
      if (k == 2 && seg_ids == nullptr) continue;
      const size_t in = 2 + k;
      ONYX_ASSIGN_OR_RETURN(t[k].data, ctx.TensorInput(in));
      ONYX_ASSIGN_OR_RETURN(const Tensor* s, ctx.TensorInput(8 + k));
      ONYX_ASSIGN_OR_RETURN(const Tensor* z, ctx.TensorInput(13 + k));
      if (t[k].data->type() != type || z->type() != type || z->size() != 1) {
        return InvalidArgument(std::string("input '") + kNames[k] + "' (" + std::to_string(in) +
                               ") and its zero point must be " + std::string(DataTypeName(type)) + " (one zero point)");
      }
      if (s->type() != DataType::kFloat || s->size() != 1) {
        return InvalidArgument(std::string("the scale of '") + kNames[k] + "' (input " + std::to_string(8 + k) +
                               ") must be one float value");
      }
      t[k].scale = s->data<float>()[0];
      t[k].zero_point = type == DataType::kUint8 ? int32_t{z->data<uint8_t>()[0]} : int32_t{z->data<int8_t>()[0]};
    }
    const Tensor& word = *t[0].data;
    if (word.rank() != 2) return InvalidArgument(DescribeInput("word_embedding", 2, word) + ", expected [V, hidden]");
    const int64_t hidden = word.dim(1);
    for (size_t k = 1; k < 5; ++k) {
      if (t[k].data == nullptr) continue;
      const bool row_table = k < 3;
      const Tensor& d = *t[k].data;
      if ((row_table && (d.rank() != 2 || d.dim(1) != hidden)) || (!row_table && d.size() != hidden)) {
        return InvalidArgument(DescribeInput(kNames[k], static_cast<int>(2 + k), d) + ", expected " +
                               (row_table ? "[rows, " : "[") + std::to_string(hidden) + "]");
      }
    }
    if (seg_ids != nullptr && (seg_ids->type() != DataType::kInt32 || seg_ids->shape() != ids->shape())) {
      return InvalidArgument(DescribeInput("segment_ids", 1, *seg_ids) + ", expected int32 like input_ids");
    }
    const int64_t vocab = word.dim(0), positions = t[1].data->dim(0), segments = seg_ids ? t[2].data->dim(0) : 0;
    const int32_t* id = ids->data<int32_t>();
    const int32_t* sid = seg_ids != nullptr ? seg_ids->data<int32_t>() : nullptr;
    for (int64_t i = 0; i < batch * seq; ++i) {
      if (id[i] < 0 || id[i] >= vocab) {
        return InvalidArgument("input_ids[" + std::to_string(i) + "] = " + std::to_string(id[i]) +
                               " is outside the word embedding's " + std::to_string(vocab) + " rows");
      }
      if (sid != nullptr && (sid[i] < 0 || sid[i] >= segments)) {
        return InvalidArgument("segment_ids[" + std::to_string(i) + "] = " + std::to_string(sid[i]) +
                               " is outside the segment embedding's " + std::to_string(segments) + " rows");
      }
    }
    if (seq > positions) {
      return InvalidArgument("sequence length " + std::to_string(seq) + " exceeds the position embedding's " +
                             std::to_string(positions) + " rows");
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {batch, seq, hidden});
    float* out = y.data<float>();
    const float eps = epsilon_;
    ParallelFor(batch * seq, hidden * 8, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        float* o = out + i * hidden;
        const int64_t wr = id[i] * hidden, pr = (i % seq) * hidden, sr = sid != nullptr ? sid[i] * hidden : 0;
        float sum = 0;
        for (int64_t h = 0; h < hidden; ++h) {
          float v = t[0].At(wr + h) + t[1].At(pr + h);
          if (sid != nullptr) v += t[2].At(sr + h);
          o[h] = v;
          sum += v;
        }
        const float mean = sum / static_cast<float>(hidden);
        sum = 0;
        for (int64_t h = 0; h < hidden; ++h) {
          const float a = o[h] - mean;
          o[h] = a;
          sum += a * a;
        }
        const float e = std::sqrt(sum / static_cast<float>(hidden) + eps);
        for (int64_t h = 0; h < hidden; ++h) o[h] = o[h] / e * t[3].At(h) + t[4].At(h);
      }
    });
    if (ctx.num_outputs() > 1) {
      Tensor& mi = ctx.AllocateOutput(1, DataType::kInt32, {batch});
      int32_t* m = mi.data<int32_t>();
      if (mask != nullptr && (mask->type() != DataType::kInt32 || mask->shape() != ids->shape())) {
        return InvalidArgument(DescribeInput("mask", 7, *mask) + ", expected int32 like input_ids");
      }
      for (int64_t b = 0; b < batch; ++b) {
        int32_t count = 0;
        if (mask != nullptr) {
          for (int64_t s = 0; s < seq; ++s) count += mask->data<int32_t>()[b * seq + s] == 1 ? 1 : 0;
        }
        m[b] = count;
      }
    }
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

void RegisterQEmbedLayerNormOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "QEmbedLayerNormalization", 1, kLatestVersion, MakeFactory<QEmbedLayerNormKernel>());
}

}  // namespace onyx::ops::contrib
