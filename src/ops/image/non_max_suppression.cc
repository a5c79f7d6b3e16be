// NonMaxSuppression (10, 11): per batch and class, greedily keeps the highest-scoring boxes (ties: lower box
// index first) whose IoU with every box already kept is at most iou_threshold, up to max_output_boxes_per_class;
// boxes scoring not above score_threshold (when given) are never candidates. Boxes are corner pairs in any order
// (center_point_box 0) or (x_center, y_center, width, height) (1). The IoU test follows the ONNX reference,
// in float like it (boxes are float tensors), so that IoUs equal to the threshold compare the same way.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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

bool Suppresses(const Box& a, const Box& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
  if (ix_max <= ix_min) return false;
  const float iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
  if (iy_max <= iy_min) return false;
  const float inter = (ix_max - ix_min) * (iy_max - iy_min);
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float uni = area_a + area_b - inter;
  if (inter <= 0 || area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

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
    // NaN scores sort last (a NaN in the comparison would break the sort's ordering).
    auto key = [](float v) { return std::isnan(v) ? -std::numeric_limits<float>::infinity() : v; };

    std::vector<int64_t> selected;  // triples
    std::vector<int64_t> order;
    std::vector<int64_t> kept;
    std::vector<Box> box_cache(static_cast<size_t>(num_boxes));
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < num_boxes; ++i) {
        box_cache[static_cast<size_t>(i)] = MakeBox(boxes + (b * num_boxes + i) * 4, center_point_);
      }
      for (int64_t c = 0; c < classes && max_per_class > 0; ++c) {
        const float* s = scores + (b * classes + c) * num_boxes;
        order.clear();
        for (int64_t i = 0; i < num_boxes; ++i) {
          if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return key(s[l]) > key(s[r]); });
        kept.clear();
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
          bool keep = true;
          for (int64_t k : kept) {
            if (Suppresses(box_cache[static_cast<size_t>(i)], box_cache[static_cast<size_t>(k)], iou_threshold)) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
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
