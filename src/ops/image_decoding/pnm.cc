// PNM: P1/P4 bitmaps, P2/P5 graymaps and P3/P6 pixmaps, plain (ASCII) and raw, maxval up to 65535 (two bytes
// per raw sample, big-endian, past 255). Samples rescale to 0..255 as Pillow does, round(v / maxval * 255) with
// ties to even; bitmaps give 0 for 1 (black) and 255 for 0.
#include <cmath>
#include <string>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

Status PnmError(const std::string& what) { return InvalidArgument("PNM image could not be decoded: " + what); }

bool IsSpace(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class PnmReader {
 public:
  explicit PnmReader(Bytes d) : d_(d) {}

  void SkipSpaceAndComments() {
    while (pos_ < d_.size()) {
      if (IsSpace(d_[pos_])) {
        ++pos_;
      } else if (d_[pos_] == '#') {
        while (pos_ < d_.size() && d_[pos_] != '\n' && d_[pos_] != '\r') ++pos_;
      } else {
        break;
      }
    }
  }

  // A decimal number after optional whitespace and comments; `digits` limits it to that many digits (P1 pixels
  // may be written without separators).
  Result<uint32_t> Number(const char* what, int digits = 9) {
    SkipSpaceAndComments();
    if (pos_ >= d_.size()) return PnmError("the data ends before the " + std::string(what) + " (truncated image)");
    if (d_[pos_] < '0' || d_[pos_] > '9') return PnmError("expected a number for the " + std::string(what));
    uint32_t v = 0;
    int n = 0;
    while (pos_ < d_.size() && n < digits && d_[pos_] >= '0' && d_[pos_] <= '9') {
      v = v * 10 + static_cast<uint32_t>(d_[pos_++] - '0');
      ++n;
    }
    if (pos_ < d_.size() && d_[pos_] >= '0' && d_[pos_] <= '9' && digits == 9) {
      return PnmError("the " + std::string(what) + " is too large");
    }
    return v;
  }

  size_t pos() const { return pos_; }
  void Advance(size_t n) { pos_ += n; }
  size_t remaining() const { return d_.size() - pos_; }
  uint8_t at(size_t i) const { return d_[pos_ + i]; }

 private:
  Bytes d_;
  size_t pos_ = 0;
};

}  // namespace

Result<RgbImage> DecodePnm(Bytes d) {
  if (d.size() < 2) return PnmError("the file is too short");
  const int kind = d[1] - '0';  // 1..6
  const bool plain = kind <= 3;
  const bool bitmap = kind == 1 || kind == 4;
  const int channels = (kind == 3 || kind == 6) ? 3 : 1;
  PnmReader in(d);
  in.Advance(2);
  ONYX_ASSIGN_OR_RETURN(uint32_t width, in.Number("width"));
  ONYX_ASSIGN_OR_RETURN(uint32_t height, in.Number("height"));
  uint32_t maxval = 1;
  if (!bitmap) {
    ONYX_ASSIGN_OR_RETURN(maxval, in.Number("maximum value"));
    if (maxval == 0 || maxval > 65535) {
      return PnmError("maximum value " + std::to_string(maxval) + " is not in 1..65535");
    }
  }
  ONYX_RETURN_IF_ERROR(CheckImageSize(width, height, "PNM"));
  if (!plain) {
    // Exactly one whitespace character separates the header from the raster.
    if (in.remaining() == 0 || !IsSpace(in.at(0))) return PnmError("no whitespace after the header");
    in.Advance(1);
  }

  auto scale = [maxval](uint32_t v) -> uint8_t {
    if (maxval == 255) return static_cast<uint8_t>(v);
    if (v > maxval) v = maxval;
    return static_cast<uint8_t>(std::nearbyint(static_cast<double>(v) / maxval * 255.0));
  };
  const size_t pixels = static_cast<size_t>(width) * height;
  const size_t sample_count = pixels * static_cast<size_t>(channels);
  // Every sample takes at least one character (plain) or one bit (bitmap), a byte otherwise: refuse rasters the
  // data cannot hold before allocating for them.
  const size_t min_bytes = plain ? sample_count : bitmap ? (static_cast<size_t>(width) + 7) / 8 * height
                                                         : sample_count * (maxval > 255 ? 2 : 1);
  if (min_bytes > in.remaining()) return PnmError("the raster ends early (truncated image)");
  RgbImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(pixels * 3);
  std::vector<uint8_t> samples(sample_count);
  if (plain) {
    for (size_t i = 0; i < samples.size(); ++i) {
      ONYX_ASSIGN_OR_RETURN(uint32_t v, in.Number("sample", bitmap ? 1 : 9));
      if (v > maxval) {
        return PnmError("sample " + std::to_string(i) + " is " + std::to_string(v) + ", above the maximum value " +
                        std::to_string(maxval));
      }
      samples[i] = bitmap ? (v != 0 ? 0 : 255) : scale(v);
    }
  } else if (bitmap) {
    const size_t row_bytes = (static_cast<size_t>(width) + 7) / 8;
    for (size_t y = 0; y < height; ++y) {
      for (size_t x = 0; x < width; ++x) {
        const bool black = (in.at(y * row_bytes + x / 8) >> (7 - x % 8)) & 1;
        samples[y * width + x] = black ? 0 : 255;
      }
    }
  } else {
    const size_t bytes = maxval > 255 ? 2 : 1;
    for (size_t i = 0; i < samples.size(); ++i) {
      const uint32_t v = bytes == 2 ? (static_cast<uint32_t>(in.at(2 * i)) << 8) | in.at(2 * i + 1) : in.at(i);
      samples[i] = scale(v);
    }
  }
  for (size_t i = 0; i < pixels; ++i) {
    for (int c = 0; c < 3; ++c) image.pixels[i * 3 + c] = samples[i * channels + (channels == 3 ? c : 0)];
  }
  return image;
}

}  // namespace onyx::ops::image_decoding
