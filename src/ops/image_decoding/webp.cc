// WebP (lossy, lossless, with or without alpha) through libwebp's default decoding, as Pillow decodes it.
// Animated files are refused.
#include <string>

#include <webp/decode.h>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

const char* WebpStatusText(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends early (truncated image)";
    default: return "unknown error";
  }
}

}  // namespace

Result<RgbImage> DecodeWebp(Bytes data) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(data.data(), data.size(), &features);
  if (status != VP8_STATUS_OK) {
    return InvalidArgument(std::string("WebP image could not be decoded: ") + WebpStatusText(status));
  }
  if (features.has_animation) return Unsupported("animated WebP images are not supported");
  ONYX_RETURN_IF_ERROR(CheckImageSize(features.width, features.height, "WebP"));
  RgbImage image;
  image.width = features.width;
  image.height = features.height;
  image.pixels.resize(static_cast<size_t>(image.width * image.height * 3));
  const int stride = features.width * 3;
  if (WebPDecodeRGBInto(data.data(), data.size(), image.pixels.data(), image.pixels.size(), stride) == nullptr) {
    return InvalidArgument("WebP image could not be decoded: corrupt or truncated data");
  }
  return image;
}

}  // namespace onyx::ops::image_decoding
