// NonMaxSuppression (10, 11): per batch and class, greedily keeps the highest-scoring boxes (ties: lower box
// index first) whose IoU with every box already kept is at most iou_threshold, up to max_output_boxes_per_class;
// boxes scoring not above score_threshold (when given) are never candidates. Boxes are corner pairs in any order
// (center_point_box 0) or (x_center, y_center, width, height) (1). The IoU test follows the ONNX reference,
// in float like it (boxes are float tensors), so that IoUs equal to the threshold compare the same way.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/common/float_rank.h"
#include "ops/common/parallel.h"
#include "ops/image/image_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

struct Box {
  float x_min, x_max, y_min, y_max;
};

Box MakeBox(const float* b, bool center_point) {
  if (center_point) {
    return {b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2};
  }
  return {std::min(b[1], b[3]), std::max(b[1], b[3]), std::min(b[0], b[2]), std::max(b[0], b[2])};
}

// The boxes kept so far for one class, as separate arrays padded to a multiple of kLanes with boxes that overlap
// nothing: a candidate is tested against kLanes kept boxes at a time with Suppresses' operations lane by lane (the
// compiler vectorizes the fixed-length loop; per-box early exits did not), stopping at the first group that hits.
class KeptBoxes {
 public:
  static constexpr size_t kLanes = 8;
  void Clear() {
    count_ = 0;
    for (auto* v : {&x_min_, &x_max_, &y_min_, &y_max_, &area_}) v->clear();
  }
  size_t size() const { return count_; }
  void Add(const Box& b) {
    if (count_ % kLanes == 0) {  // a new group of sentinels: empty boxes (max < min)
      for (size_t j = 0; j < kLanes; ++j) {
        x_min_.push_back(1);
        x_max_.push_back(0);
        y_min_.push_back(1);
        y_max_.push_back(0);
        area_.push_back(0);
      }
    }
    x_min_[count_] = b.x_min;
    x_max_[count_] = b.x_max;
    y_min_[count_] = b.y_min;
    y_max_[count_] = b.y_max;
    area_[count_] = (b.x_max - b.x_min) * (b.y_max - b.y_min);
    ++count_;
  }
  // Whether a kept box b suppresses `a`: their intersection is not empty, the intersection, both areas and the union
  // are positive, and intersection / union > iou_threshold, all in float.
  bool SuppressesAny(const Box& a, float iou_threshold) const {
    const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
    for (size_t g = 0; g < x_min_.size(); g += kLanes) {
      int hits = 0;
      for (size_t j = g; j < g + kLanes; ++j) {
        const float ix_min = std::max(a.x_min, x_min_[j]), ix_max = std::min(a.x_max, x_max_[j]);
        const float iy_min = std::max(a.y_min, y_min_[j]), iy_max = std::min(a.y_max, y_max_[j]);
        const float inter = (ix_max - ix_min) * (iy_max - iy_min);
        const float uni = area_a + area_[j] - inter;
        const bool hit = ix_max > ix_min && iy_max > iy_min && inter > 0 && area_a > 0 && area_[j] > 0 && uni > 0 &&
                         inter / uni > iou_threshold;
        hits |= hit ? 1 : 0;
      }
      if (hits != 0) return true;
    }
    return false;
  }

 private:
  size_t count_ = 0;
  std::vector<float> x_min_, x_max_, y_min_, y_max_, area_;
};

class NonMaxSuppressionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const int64_t c = info.GetInt("center_point_box", 0);
    if (c != 0 && c != 1) return info.Error("attribute 'center_point_box' must be 0 or 1, got " + std::to_string(c));
    center_point_ = c == 1;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* boxes_t, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scores_t, ctx.TensorInput(1));
    if (boxes_t->rank() != 3 || boxes_t->dim(2) != 4) {
      return InvalidArgument("input 'boxes' (0) has shape " + ShapeToString(boxes_t->shape()) +
                             ", expected (num_batches, spatial_dimension, 4)");
    }
    const int64_t batches = boxes_t->dim(0), num_boxes = boxes_t->dim(1);
    if (scores_t->rank() != 3 || scores_t->dim(0) != batches || scores_t->dim(2) != num_boxes) {
      return InvalidArgument("input 'scores' (1) has shape " + ShapeToString(scores_t->shape()) + ", expected (" +
                             std::to_string(batches) + ", num_classes, " + std::to_string(num_boxes) + ")");
    }
    const int64_t classes = scores_t->dim(1);
    if (num_boxes > int64_t{0xFFFFFFFF}) {  // the ranks below hold an index in 32 bits
      return InvalidArgument("input 'boxes' (0) has " + std::to_string(num_boxes) +
                             " boxes per batch, more than 2^32 - 1");
    }
    if (boxes_t->type() != DataType::kFloat || scores_t->type() != DataType::kFloat) {
      return InvalidArgument("inputs 'boxes' (0) and 'scores' (1) must be float tensors");
    }
    int64_t max_per_class = 0;
    float iou_threshold = 0;
    bool has_score_threshold = false;
    float score_threshold = 0;
    if (ctx.has_input(2) && ctx.input(2).size() > 0) max_per_class = std::max<int64_t>(0, ctx.input(2).IntAt(0));
    if (ctx.has_input(3) && ctx.input(3).size() > 0) iou_threshold = static_cast<float>(ctx.input(3).DoubleAt(0));
    if (ctx.has_input(4) && ctx.input(4).size() > 0) {
      has_score_threshold = true;
      score_threshold = static_cast<float>(ctx.input(4).DoubleAt(0));
    }
    if (iou_threshold < 0 || iou_threshold > 1) {
      return InvalidArgument("input 'iou_threshold' (3) is " + std::to_string(iou_threshold) + ", expected [0, 1]");
    }
    const float* boxes = boxes_t->data<float>();
    const float* scores = scores_t->data<float>();
    // A candidate's rank as one integer: the score's bits in an order that integers compare as the floats do (NaN as
    // -inf, ranking last; -0 as +0), then the lower index first. The heap compares these instead of scores read
    // through indices (half the time of a class of 2000 boxes went to the comparisons).
    auto rank = [](float v, int64_t i) {
      return RankOf(OrderedFloatBits(v != v ? -std::numeric_limits<float>::infinity() : v), i);
    };
    std::vector<Box> box_cache(static_cast<size_t>(batches * num_boxes));
    for (int64_t i = 0; i < batches * num_boxes; ++i)
      box_cache[static_cast<size_t>(i)] = MakeBox(boxes + i * 4, center_point_);
    // Each (batch, class) on its own, over the threads: its candidates in a max-heap (score, then the lower index
    // first), popped only until max_output_boxes_per_class are kept, as ONNX Runtime does, instead of sorting all
    // of them (80 classes x 2000 boxes: the sort was most of the time).
    std::vector<std::vector<int64_t>> kept_lists(static_cast<size_t>(batches * classes));
    if (max_per_class > 0) {
      ParallelFor(batches * classes, num_boxes * 8, [&](int64_t begin, int64_t end) {
        std::vector<uint64_t> heap;
        KeptBoxes kept_boxes;
        for (int64_t bc = begin; bc < end; ++bc) {
          const float* s = scores + bc * num_boxes;
          const Box* bx = box_cache.data() + bc / classes * num_boxes;
          heap.clear();
          for (int64_t i = 0; i < num_boxes; ++i) {
            if (!has_score_threshold || s[i] > score_threshold) heap.push_back(rank(s[i], i));
          }
          std::make_heap(heap.begin(), heap.end());
          std::vector<int64_t>& kept = kept_lists[static_cast<size_t>(bc)];
          kept_boxes.Clear();
          while (!heap.empty() && static_cast<int64_t>(kept.size()) < max_per_class) {
            std::pop_heap(heap.begin(), heap.end());
            const int64_t i = IndexOfRank(heap.back());
            heap.pop_back();
            if (kept_boxes.SuppressesAny(bx[i], iou_threshold)) continue;
            kept.push_back(i);
            kept_boxes.Add(bx[i]);
          }
        }
      });
    }
    std::vector<int64_t> selected;  // triples
    for (int64_t bc = 0; bc < batches * classes; ++bc) {
      for (int64_t i : kept_lists[static_cast<size_t>(bc)])
        selected.insert(selected.end(), {bc / classes, bc % classes, i});
    }
    const int64_t n = static_cast<int64_t>(selected.size() / 3);
    Tensor& y = ctx.AllocateOutput(0, DataType::kInt64, {n, 3});
    std::copy(selected.begin(), selected.end(), y.data<int64_t>());
    return Status::Ok();
  }

 private:
  bool center_point_ = false;
};

}  // namespace

void RegisterNonMaxSuppressionOps(KernelRegistry& registry) {
  registry.Add("", "NonMaxSuppression", 10, kLatestVersion, MakeFactory<NonMaxSuppressionKernel>());
}

}  // namespace onyx::ops::image
