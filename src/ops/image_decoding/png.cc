// PNG through libpng, with the transformations that give what Pillow gives: palettes and gray expanded to RGB,
// 16-bit samples cut to their high byte, alpha dropped, and no gamma correction (Pillow ignores gAMA).
//
// libpng reports errors by longjmp from its error callback; as in jpeg.cc the state crossed by the jump is plain
// C data in a caller-owned struct.
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <png.h>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

struct PngState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  char message[256] = {};
  bool too_large = false;
};

[[noreturn]] void PngError(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof(state->message), "%s", message);
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}  // recoverable; libpng carries on

void PngRead(png_structp png, png_bytep out, size_t length) {
  auto* state = static_cast<PngState*>(png_get_io_ptr(png));
  if (length > state->size - state->offset) png_error(png, "the data ends early (truncated image)");
  std::memcpy(out, state->data + state->offset, length);
  state->offset += length;
}

bool PngDecodeInto(PngState* state, RgbImage* out, std::vector<png_bytep>* rows) {
  if (setjmp(png_jmpbuf(state->png)) != 0) return false;
  png_set_read_fn(state->png, state, PngRead);
  png_read_info(state->png, state->info);
  const png_uint_32 width = png_get_image_width(state->png, state->info);
  const png_uint_32 height = png_get_image_height(state->png, state->info);
  if (!CheckImageSize(width, height, "PNG").ok()) {
    state->too_large = true;
    out->width = width;
    out->height = height;
    return false;
  }
  const int color_type = png_get_color_type(state->png, state->info);
  png_set_strip_16(state->png);
  png_set_packing(state->png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(state->png);
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_expand_gray_1_2_4_to_8(state->png);
    png_set_gray_to_rgb(state->png);
  }
  png_set_strip_alpha(state->png);
  png_set_interlace_handling(state->png);
  png_read_update_info(state->png, state->info);
  if (png_get_rowbytes(state->png, state->info) != static_cast<size_t>(width) * 3) {
    png_error(state->png, "unexpected row layout after conversion to RGB");
  }
  out->width = width;
  out->height = height;
  out->pixels.resize(static_cast<size_t>(width) * height * 3);
  rows->resize(height);
  for (png_uint_32 y = 0; y < height; ++y) (*rows)[y] = out->pixels.data() + static_cast<size_t>(y) * width * 3;
  png_read_image(state->png, rows->data());
  png_read_end(state->png, nullptr);
  return true;
}

}  // namespace

Result<RgbImage> DecodePng(Bytes data) {
  auto state = std::make_unique<PngState>();
  state->data = data.data();
  state->size = data.size();
  state->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state.get(), PngError, PngWarning);
  if (state->png == nullptr) return Internal("libpng could not create a decoder");
  state->info = png_create_info_struct(state->png);
  if (state->info == nullptr) {
    png_destroy_read_struct(&state->png, nullptr, nullptr);
    return Internal("libpng could not create a decoder");
  }
  RgbImage image;
  std::vector<png_bytep> rows;
  const bool ok = PngDecodeInto(state.get(), &image, &rows);
  png_destroy_read_struct(&state->png, &state->info, nullptr);
  if (state->too_large) return CheckImageSize(image.width, image.height, "PNG");
  if (!ok) return InvalidArgument(std::string("PNG image could not be decoded: ") + state->message);
  return image;
}

}  // namespace onyx::ops::image_decoding
