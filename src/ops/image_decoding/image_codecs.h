// Decoders of the image formats ImageDecoder accepts, each producing 8-bit RGB. The libraries made for each job
// do the decoding (libjpeg-turbo, libpng, libtiff, libwebp, OpenJPEG); BMP and PNM, simple enough, have small
// readers here. Every decoder reports bad input (truncated, corrupt, unsupported variants, sizes past
// kMaxImagePixels) as an error Status; none aborts or prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace onyx::ops::image_decoding {

// Rows of interleaved 8-bit R, G, B, top row first.
struct RgbImage {
  int64_t height = 0;
  int64_t width = 0;
  std::vector<uint8_t> pixels;  // height * width * 3
};

// Images above this many pixels are refused before anything is allocated for them (a few header bytes can claim
// gigapixels).
constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// Checks the dimensions an image header declares; `format` names the format in the message.
Status CheckImageSize(int64_t width, int64_t height, const char* format);

using Bytes = std::span<const uint8_t>;

Result<RgbImage> DecodeJpeg(Bytes data);
Result<RgbImage> DecodePng(Bytes data);
Result<RgbImage> DecodeTiff(Bytes data);
Result<RgbImage> DecodeWebp(Bytes data);
Result<RgbImage> DecodeJpeg2000(Bytes data);  // JP2 files and raw J2K codestreams
Result<RgbImage> DecodeBmp(Bytes data);
Result<RgbImage> DecodePnm(Bytes data);  // P1-P6

// Recognises the format from its signature and decodes.
Result<RgbImage> DecodeImage(Bytes data);

}  // namespace onyx::ops::image_decoding
