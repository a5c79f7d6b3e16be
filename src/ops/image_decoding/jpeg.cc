// JPEG through libjpeg-turbo, with its default decoding (islow IDCT, fancy upsampling), as Pillow decodes.
//
// libjpeg reports fatal errors by calling error_exit, which must not return; it longjmps back here. To keep that
// well defined, everything the jump crosses is plain C data: the decoder state lives in a heap struct the caller
// owns, the output vector is the caller's, and the functions holding setjmp create no C++ objects after it.
#include <csetjmp>
#include <cstdio>
#include <memory>
#include <string>

#include <jerror.h>
#include <jpeglib.h>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

struct JpegState {
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr err;
  std::jmp_buf jump;
  bool created = false;
  char message[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void JpegErrorExit(j_common_ptr cinfo) {
  auto* state = reinterpret_cast<JpegState*>(cinfo->client_data);
  cinfo->err->format_message(cinfo, state->message);
  std::longjmp(state->jump, 1);
}

// libjpeg calls warnings "corrupt data" and goes on with gray or garbage; a truncated or damaged image is an
// error here (as in Pillow, which refuses truncated images). Stray bytes between markers are harmless.
void JpegEmitMessage(j_common_ptr cinfo, int msg_level) {
  if (msg_level == -1 && cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA) JpegErrorExit(cinfo);
}

// Returns false (message in state->message) when libjpeg failed. `out` receives the pixels.
bool JpegDecodeInto(JpegState* state, const uint8_t* data, size_t size, RgbImage* out, bool* too_large) {
  jpeg_decompress_struct* cinfo = &state->cinfo;
  if (setjmp(state->jump) != 0) return false;
  jpeg_create_decompress(cinfo);
  state->created = true;
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(cinfo, TRUE);
  if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
    std::snprintf(state->message, sizeof(state->message), "CMYK JPEG images are not supported");
    return false;
  }
  cinfo->out_color_space = JCS_RGB;
  if (!CheckImageSize(cinfo->image_width, cinfo->image_height, "JPEG").ok()) {
    *too_large = true;
    return false;
  }
  jpeg_start_decompress(cinfo);
  out->width = cinfo->output_width;
  out->height = cinfo->output_height;
  out->pixels.resize(static_cast<size_t>(out->width * out->height * 3));
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out->pixels.data() + static_cast<size_t>(cinfo->output_scanline) * out->width * 3;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

}  // namespace

Result<RgbImage> DecodeJpeg(Bytes data) {
  auto state = std::make_unique<JpegState>();
  state->cinfo.err = jpeg_std_error(&state->err);
  state->err.error_exit = JpegErrorExit;
  state->err.emit_message = JpegEmitMessage;
  state->cinfo.client_data = state.get();
  RgbImage image;
  bool too_large = false;
  const bool ok = JpegDecodeInto(state.get(), data.data(), data.size(), &image, &too_large);
  if (state->created) jpeg_destroy_decompress(&state->cinfo);
  if (too_large) {
    return CheckImageSize(state->cinfo.image_width, state->cinfo.image_height, "JPEG");
  }
  if (!ok) return InvalidArgument(std::string("JPEG image could not be decoded: ") + state->message);
  return image;
}

}  // namespace onyx::ops::image_decoding
