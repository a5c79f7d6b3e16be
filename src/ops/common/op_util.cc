#include "ops/common/op_util.h"

#include <algorithm>

namespace onyx::ops {

Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Result<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return InvalidArgument("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    }
    int64_t n = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      return InvalidArgument("axis " + std::to_string(a) + " is repeated");
    }
    out.push_back(n);
  }
  return out;
}

Result<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " cannot be broadcast");
    }
  }
  return out;
}

Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes) {
  Shape out;
  for (const auto& s : shapes) {
    ONYX_ASSIGN_OR_RETURN(out, BroadcastShapes(out, s));
  }
  return out;
}

void BroadcastStridesInto(const Shape& in, const Shape& out, std::vector<int64_t>& strides) {
  strides.assign(out.size(), 0);
  const size_t lead = out.size() - in.size();
  int64_t stride = 1;
  for (size_t i = in.size(); i-- > 0;) {
    strides[lead + i] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
}

BroadcastScratch& ThreadBroadcastScratch() {
  thread_local BroadcastScratch scratch;
  return scratch;
}

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  std::vector<int64_t> in_strides = RowMajorStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    strides[lead + i] = in[i] == 1 ? 0 : in_strides[i];
  }
  return strides;
}

}  // namespace onyx::ops
