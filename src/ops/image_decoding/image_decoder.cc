// ImageDecoder (opset 20): a 1-D uint8 tensor holding an encoded BMP, JPEG, JPEG 2000, PNG, PNM, TIFF or WebP
// image becomes an [H, W, C] uint8 tensor, C = 3 for RGB and BGR, 1 for Grayscale. The reference opens the image
// with Pillow, so grayscale is Pillow's "L" conversion: ITU-R 601-2 luma in 16-bit fixed point, rounded.
#include <cstring>
#include <string>

#include "ops/image_decoding/image_codecs.h"
#include "ops/image_decoding/image_decoding_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image_decoding {

Status CheckImageSize(int64_t width, int64_t height, const char* format) {
  if (width <= 0 || height <= 0) {
    return InvalidArgument(std::string(format) + " image has invalid dimensions " + std::to_string(width) + "x" +
                           std::to_string(height));
  }
  if (width > kMaxImagePixels / height) {
    return InvalidArgument(std::string(format) + " image of " + std::to_string(width) + "x" +
                           std::to_string(height) + " pixels is larger than the limit of " +
                           std::to_string(kMaxImagePixels) + " pixels");
  }
  return Status::Ok();
}

namespace {

bool StartsWith(Bytes data, std::initializer_list<uint8_t> prefix) {
  if (data.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), data.begin());
}

std::string LeadingBytesHex(Bytes data) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < data.size() && i < 8; ++i) {
    if (i > 0) out += ' ';
    out += kHex[data[i] >> 4];
    out += kHex[data[i] & 15];
  }
  return out;
}

}  // namespace

Result<RgbImage> DecodeImage(Bytes data) {
  if (data.empty()) return InvalidArgument("the encoded image is empty");
  if (StartsWith(data, {0xff, 0xd8, 0xff})) return DecodeJpeg(data);
  if (StartsWith(data, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})) return DecodePng(data);
  if (StartsWith(data, {'I', 'I', 42, 0}) || StartsWith(data, {'M', 'M', 0, 42}) ||
      StartsWith(data, {'I', 'I', 43, 0}) || StartsWith(data, {'M', 'M', 0, 43})) {
    return DecodeTiff(data);
  }
  if (data.size() >= 12 && StartsWith(data, {'R', 'I', 'F', 'F'}) && std::memcmp(data.data() + 8, "WEBP", 4) == 0) {
    return DecodeWebp(data);
  }
  if (StartsWith(data, {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'}) ||
      StartsWith(data, {0xff, 0x4f, 0xff, 0x51})) {
    return DecodeJpeg2000(data);
  }
  if (StartsWith(data, {'B', 'M'})) return DecodeBmp(data);
  if (data.size() >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6') return DecodePnm(data);
  return InvalidArgument("unrecognised image format (first bytes " + LeadingBytesHex(data) +
                         "); ImageDecoder reads BMP, JPEG, JPEG 2000, PNG, PNM, TIFF and WebP");
}

namespace {

enum class PixelFormat { kRgb, kBgr, kGrayscale };

class ImageDecoderKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string format = info.GetString("pixel_format", "RGB");
    if (format == "RGB") {
      format_ = PixelFormat::kRgb;
    } else if (format == "BGR") {
      format_ = PixelFormat::kBgr;
    } else if (format == "Grayscale") {
      format_ = PixelFormat::kGrayscale;
    } else {
      return info.Error("attribute 'pixel_format' is '" + format + "', expected 'RGB', 'BGR' or 'Grayscale'");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* encoded, ctx.TensorInput(0));
    if (encoded->type() != DataType::kUint8 || encoded->rank() != 1) {
      return InvalidArgument("input 'encoded_stream' (0) must be a 1-D uint8 tensor, got " +
                             std::string(DataTypeName(encoded->type())) + " " + ShapeToString(encoded->shape()));
    }
    auto decoded = DecodeImage(Bytes(encoded->data<uint8_t>(), static_cast<size_t>(encoded->size())));
    if (!decoded.ok()) return decoded.status().WithContext("input 'encoded_stream' (0)");
    const RgbImage& image = *decoded;
    const int64_t pixels = image.height * image.width;
    const uint8_t* rgb = image.pixels.data();
    if (format_ == PixelFormat::kGrayscale) {
      Tensor& y = ctx.AllocateOutput(0, DataType::kUint8, {image.height, image.width, 1});
      uint8_t* out = y.data<uint8_t>();
      for (int64_t i = 0; i < pixels; ++i) {
        const uint32_t r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        // Weights 0.299, 0.587, 0.114 scaled to sum to 65536, so gray input keeps its level exactly.
        out[i] = static_cast<uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
      }
      return Status::Ok();
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kUint8, {image.height, image.width, 3});
    uint8_t* out = y.data<uint8_t>();
    if (format_ == PixelFormat::kRgb) {
      std::memcpy(out, rgb, static_cast<size_t>(pixels) * 3);
    } else {
      for (int64_t i = 0; i < pixels; ++i) {
        out[3 * i] = rgb[3 * i + 2];
        out[3 * i + 1] = rgb[3 * i + 1];
        out[3 * i + 2] = rgb[3 * i];
      }
    }
    return Status::Ok();
  }

 private:
  PixelFormat format_ = PixelFormat::kRgb;
};

}  // namespace

void RegisterImageDecoderOps(KernelRegistry& registry) {
  registry.Add("", "ImageDecoder", 20, kLatestVersion, MakeFactory<ImageDecoderKernel>());
}

}  // namespace onyx::ops::image_decoding
