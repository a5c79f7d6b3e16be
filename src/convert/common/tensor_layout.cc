#include "convert/common/tensor_layout.h"

#include <cstring>

namespace onyx::convert {

Result<Tensor> TransposeTensor(const Tensor& in, const std::vector<int64_t>& perm) {
  const int64_t rank = in.rank();
  ONYX_CHECK_ARG(static_cast<int64_t>(perm.size()) == rank,
                 "transpose: permutation of size " + std::to_string(perm.size()) + " for rank " + std::to_string(rank));
  ONYX_CHECK_ARG(in.type() != DataType::kString && !IsSubByte(in.type()), "transpose: unsupported element type");
  Shape out_shape(static_cast<size_t>(rank));
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[static_cast<size_t>(i)];
    ONYX_CHECK_ARG(p >= 0 && p < rank && !seen[static_cast<size_t>(p)], "transpose: invalid permutation");
    seen[static_cast<size_t>(p)] = true;
    out_shape[static_cast<size_t>(i)] = in.dim(p);
  }
  Tensor out = Tensor::Allocate(in.type(), out_shape);
  const size_t width = static_cast<size_t>(DataTypeBits(in.type()) / 8);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  const auto* src = static_cast<const char*>(in.raw());
  auto* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < out.size(); ++o) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += idx[static_cast<size_t>(d)] * in_strides[static_cast<size_t>(perm[static_cast<size_t>(d)])];
    std::memcpy(dst + static_cast<size_t>(o) * width, src + static_cast<size_t>(offset) * width, width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < out_shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

Result<Tensor> ToFloat32(const Tensor& in) {
  if (in.type() == DataType::kFloat) return in;
  ONYX_CHECK_ARG(IsFloatingPoint(in.type()),
                 "expected a floating-point weight, got " + std::string(DataTypeName(in.type())));
  Tensor out = Tensor::Allocate(DataType::kFloat, in.shape());
  for (int64_t i = 0; i < in.size(); ++i) out.data<float>()[i] = static_cast<float>(in.DoubleAt(i));
  return out;
}

std::vector<int64_t> InversePerm(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

bool IsIdentityPerm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> ToChannelsFirst(int64_t rank) {
  std::vector<int64_t> p{0, rank - 1};
  for (int64_t i = 1; i < rank - 1; ++i) p.push_back(i);
  return p;
}

std::vector<int64_t> ToChannelsLast(int64_t rank) { return InversePerm(ToChannelsFirst(rank)); }

}  // namespace onyx::convert
