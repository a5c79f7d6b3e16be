// Col2Im (18): the inverse of im2col. Input (N, C * prod(block_shape), L) holds, for every sliding block
// position (L of them), the block's elements; they are summed back into an image (N, C, *image_shape), with
// dilations, pads and strides as in convolution. Overlapping blocks add up.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

using Col2ImTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                             uint32_t, uint64_t, bool, std::complex<float>, std::complex<double>>;

class Col2ImKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    dilations_ = info.GetInts("dilations");
    pads_ = info.GetInts("pads");
    strides_ = info.GetInts("strides");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* input, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* image_t, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* block_t, ctx.TensorInput(2));
    if (!IsInteger(image_t->type()) || !IsInteger(block_t->type()) || image_t->rank() != 1 ||
        block_t->rank() != 1) {
      return InvalidArgument("inputs 'image_shape' (1) and 'block_shape' (2) must be 1-D int64 tensors");
    }
    const std::vector<int64_t> image = image_t->ToInt64Vector(), block = block_t->ToInt64Vector();
    const size_t r = image.size();
    if (r == 0 || block.size() != r) {
      return InvalidArgument("inputs 'image_shape' (1) and 'block_shape' (2) have " + std::to_string(r) + " and " +
                             std::to_string(block.size()) + " elements, expected the same number (at least 1)");
    }
    const std::vector<int64_t> dil = dilations_.empty() ? std::vector<int64_t>(r, 1) : dilations_;
    const std::vector<int64_t> str = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    if (dil.size() != r || str.size() != r || pads.size() != 2 * r) {
      return InvalidArgument("attributes dilations, strides and pads must have " + std::to_string(r) + ", " +
                             std::to_string(r) + " and " + std::to_string(2 * r) + " elements");
    }
    int64_t block_size = 1, num_blocks = 1;
    std::vector<int64_t> blocks_per_axis(r);
    for (size_t i = 0; i < r; ++i) {
      if (block[i] < 1 || image[i] < 0 || dil[i] < 1 || str[i] < 1 || pads[i] < 0 || pads[i + r] < 0) {
        return InvalidArgument("block_shape, dilations and strides must be >= 1, image_shape and pads >= 0");
      }
      const int64_t span = dil[i] * (block[i] - 1) + 1;
      const int64_t padded = image[i] + pads[i] + pads[i + r];
      blocks_per_axis[i] = padded < span ? 0 : (padded - span) / str[i] + 1;
      block_size *= block[i];
      num_blocks *= blocks_per_axis[i];
    }
    if (input->rank() != 3 || input->dim(1) % block_size != 0 || input->dim(2) != num_blocks) {
      return InvalidArgument("input 'input' (0) has shape " + ShapeToString(input->shape()) + ", expected (N, C * " +
                             std::to_string(block_size) + ", " + std::to_string(num_blocks) + ")");
    }
    const int64_t batch = input->dim(0), channels = input->dim(1) / block_size;
    Shape out_shape = {batch, channels};
    out_shape.insert(out_shape.end(), image.begin(), image.end());
    ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "input 'image_shape' (1)"));
    Tensor& y = ctx.AllocateOutput(0, input->type(), out_shape);
    if (y.size() == 0 || input->size() == 0) return Status::Ok();
    const int64_t image_size = ShapeProduct(image, 0, r);
    const std::vector<int64_t> image_strides = RowMajorStrides(image);

    return Dispatch<Col2ImTypes>(input->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      // 16-bit floats accumulate in float; bools (OR-ed, as numpy's += does) in bytes.
      using CT = std::conditional_t<std::is_same_v<T, bool>, uint8_t, ComputeType<T>>;
      const T* in = input->data<T>();
      std::vector<CT> acc(static_cast<size_t>(y.size()), CT{});
      std::vector<int64_t> b_idx(r), l_idx(r);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          CT* plane = acc.data() + (n * channels + c) * image_size;
          std::fill(b_idx.begin(), b_idx.end(), 0);
          for (int64_t b = 0; b < block_size; ++b) {
            const T* row = in + ((n * channels + c) * block_size + b) * num_blocks;
            std::fill(l_idx.begin(), l_idx.end(), 0);
            for (int64_t l = 0; l < num_blocks; ++l) {
              int64_t off = 0;
              bool inside = true;
              for (size_t i = 0; i < r; ++i) {
                const int64_t p = l_idx[i] * str[i] - pads[i] + b_idx[i] * dil[i];
                if (p < 0 || p >= image[i]) {
                  inside = false;
                  break;
                }
                off += p * image_strides[i];
              }
              if (inside) {
                if constexpr (std::is_same_v<T, bool>) {
                  plane[off] = static_cast<uint8_t>(plane[off] | (row[l] ? 1 : 0));
                } else {
                  plane[off] += static_cast<CT>(row[l]);
                }
              }
              for (size_t i = r; i-- > 0;) {
                if (++l_idx[i] < blocks_per_axis[i]) break;
                l_idx[i] = 0;
              }
            }
            for (size_t i = r; i-- > 0;) {
              if (++b_idx[i] < block[i]) break;
              b_idx[i] = 0;
            }
          }
        }
      }
      T* out = y.data<T>();
      for (size_t i = 0; i < acc.size(); ++i) {
        if constexpr (std::is_same_v<T, bool>) {
          out[i] = acc[i] != 0;
        } else if constexpr (std::is_same_v<T, CT>) {
          out[i] = acc[i];
        } else {
          out[i] = T(acc[i]);
        }
      }
      return Status::Ok();
    });
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

}  // namespace

void RegisterCol2ImOps(KernelRegistry& registry) {
  registry.Add("", "Col2Im", 18, kLatestVersion, MakeFactory<Col2ImKernel>());
}

}  // namespace onyx::ops::image
