// BMP: uncompressed 1/4/8-bit palette, 16/32-bit with or without bit-field masks, and 24-bit images, bottom-up or
// top-down, with the Windows (40-byte and later) and OS/2 1.x (12-byte) headers. Masked channels of fewer than
// 8 bits scale to 0..255 by v * 255 / max, truncating, as Pillow's unpackers do. RLE compression is refused.
#include <bit>
#include <cstdint>
#include <string>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

uint32_t U16(Bytes d, size_t at) { return static_cast<uint32_t>(d[at] | (d[at + 1] << 8)); }
uint32_t U32(Bytes d, size_t at) {
  return static_cast<uint32_t>(d[at]) | (static_cast<uint32_t>(d[at + 1]) << 8) |
         (static_cast<uint32_t>(d[at + 2]) << 16) | (static_cast<uint32_t>(d[at + 3]) << 24);
}

Status BmpError(const std::string& what) { return InvalidArgument("BMP image could not be decoded: " + what); }

// One colour channel held in the bits of `mask`.
struct Channel {
  uint32_t mask = 0;
  int shift = 0;
  uint64_t max = 0;

  static Result<Channel> From(uint32_t mask) {
    Channel c;
    c.mask = mask;
    if (mask == 0) return c;
    c.shift = std::countr_zero(mask);
    const uint32_t bits = mask >> c.shift;
    if ((bits & (bits + 1)) != 0) return BmpError("bit-field mask is not contiguous");
    c.max = bits;
    return c;
  }
  uint8_t Get(uint32_t pixel) const {
    if (max == 0) return 0;
    const uint64_t v = (pixel & mask) >> shift;
    return static_cast<uint8_t>(max == 255 ? v : v * 255 / max);
  }
};

enum Compression : uint32_t { kRgb = 0, kRle8 = 1, kRle4 = 2, kBitFields = 3, kAlphaBitFields = 6 };

}  // namespace

Result<RgbImage> DecodeBmp(Bytes d) {
  if (d.size() < 26) return BmpError("the file is too short for a BMP header");
  const uint32_t pixel_offset = U32(d, 10);
  const uint32_t header_size = U32(d, 14);
  int64_t width = 0, height = 0;
  uint32_t bpp = 0, compression = kRgb, colours_used = 0;
  size_t palette_entry = 4;
  if (header_size == 12) {
    width = U16(d, 18);
    height = U16(d, 20);
    bpp = U16(d, 24);
    palette_entry = 3;
  } else if (header_size >= 40 && header_size <= 124) {
    if (d.size() < 14 + size_t{40}) return BmpError("the file is too short for its header");
    width = static_cast<int32_t>(U32(d, 18));
    height = static_cast<int32_t>(U32(d, 22));
    bpp = U16(d, 28);
    compression = U32(d, 30);
    colours_used = U32(d, 46);
  } else {
    return BmpError("unsupported header size " + std::to_string(header_size));
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  ONYX_RETURN_IF_ERROR(CheckImageSize(width, height, "BMP"));
  if (compression == kRle8 || compression == kRle4) return Unsupported("RLE-compressed BMP images are not supported");

  // The masks of 16 and 32-bit pixels.
  Channel r, g, b;
  size_t after_header = 14 + header_size;
  if (compression == kBitFields || compression == kAlphaBitFields) {
    if (bpp != 16 && bpp != 32) return BmpError("bit-field masks with " + std::to_string(bpp) + " bits per pixel");
    if (d.size() < 66) return BmpError("the file is too short for its bit-field masks");
    ONYX_ASSIGN_OR_RETURN(r, Channel::From(U32(d, 54)));
    ONYX_ASSIGN_OR_RETURN(g, Channel::From(U32(d, 58)));
    ONYX_ASSIGN_OR_RETURN(b, Channel::From(U32(d, 62)));
    if (header_size == 40) after_header += compression == kBitFields ? 12 : 16;  // masks follow the header
  } else if (compression != kRgb) {
    return Unsupported("BMP compression " + std::to_string(compression) + " is not supported");
  } else if (bpp == 16) {
    ONYX_ASSIGN_OR_RETURN(r, Channel::From(0x7c00));
    ONYX_ASSIGN_OR_RETURN(g, Channel::From(0x03e0));
    ONYX_ASSIGN_OR_RETURN(b, Channel::From(0x001f));
  } else if (bpp == 32) {
    ONYX_ASSIGN_OR_RETURN(r, Channel::From(0xff0000));
    ONYX_ASSIGN_OR_RETURN(g, Channel::From(0x00ff00));
    ONYX_ASSIGN_OR_RETURN(b, Channel::From(0x0000ff));
  }
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) {
    return BmpError(std::to_string(bpp) + " bits per pixel is not a BMP depth");
  }

  // Palette (1/4/8 bits): entries are B, G, R (and a reserved byte); indices past its end read as black.
  std::vector<uint8_t> palette;  // R, G, B triples
  if (bpp <= 8) {
    const uint64_t max_colours = uint64_t{1} << bpp;
    const uint64_t count = colours_used == 0 || colours_used > max_colours ? max_colours : colours_used;
    if (after_header + count * palette_entry > d.size()) {
      return BmpError("the palette extends past the end of the file");
    }
    palette.assign(max_colours * 3, 0);
    for (uint64_t i = 0; i < count; ++i) {
      const size_t at = after_header + i * palette_entry;
      palette[i * 3] = d[at + 2];
      palette[i * 3 + 1] = d[at + 1];
      palette[i * 3 + 2] = d[at];
    }
  }

  const uint64_t stride = (static_cast<uint64_t>(width) * bpp + 31) / 32 * 4;
  if (pixel_offset > d.size() || stride * static_cast<uint64_t>(height) > d.size() - pixel_offset) {
    return BmpError("the pixel data extends past the end of the file (truncated image)");
  }
  RgbImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<size_t>(width * height * 3));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = d.data() + pixel_offset + stride * static_cast<uint64_t>(top_down ? y : height - 1 - y);
    uint8_t* out = image.pixels.data() + y * width * 3;
    for (int64_t x = 0; x < width; ++x, out += 3) {
      if (bpp <= 8) {
        const uint64_t bit = static_cast<uint64_t>(x) * bpp;
        const unsigned index = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
        out[0] = palette[index * 3];
        out[1] = palette[index * 3 + 1];
        out[2] = palette[index * 3 + 2];
      } else if (bpp == 24) {
        out[0] = row[x * 3 + 2];
        out[1] = row[x * 3 + 1];
        out[2] = row[x * 3];
      } else {
        const uint32_t pixel = bpp == 16 ? U16(Bytes(row, stride), static_cast<size_t>(x) * 2)
                                         : U32(Bytes(row, stride), static_cast<size_t>(x) * 4);
        out[0] = r.Get(pixel);
        out[1] = g.Get(pixel);
        out[2] = b.Get(pixel);
      }
    }
  }
  return image;
}

}  // namespace onyx::ops::image_decoding
