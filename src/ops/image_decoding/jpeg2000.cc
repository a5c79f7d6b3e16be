// JPEG 2000 (JP2 files and raw J2K codestreams) through OpenJPEG, in strict mode so that a truncated codestream
// is an error rather than a partly decoded image. Components become 8-bit the way Pillow's decoder makes them:
// signed samples are offset to unsigned, precision shifted to 8 bits, subsampled components repeated.
#include <algorithm>
#include <cstring>
#include <string>

#include <openjpeg.h>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

struct OpjSource {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  std::string error;  // the first error OpenJPEG reported
};

OPJ_SIZE_T OpjRead(void* buf, OPJ_SIZE_T n, void* user) {
  auto* src = static_cast<OpjSource*>(user);
  if (src->offset >= src->size) return static_cast<OPJ_SIZE_T>(-1);
  const size_t count = std::min<size_t>(n, src->size - src->offset);
  std::memcpy(buf, src->data + src->offset, count);
  src->offset += count;
  return count;
}

OPJ_OFF_T OpjSkip(OPJ_OFF_T n, void* user) {
  auto* src = static_cast<OpjSource*>(user);
  if (n < 0) {
    const size_t back = std::min<size_t>(static_cast<size_t>(-n), src->offset);
    src->offset -= back;
    return -static_cast<OPJ_OFF_T>(back);
  }
  const size_t forward = std::min<size_t>(static_cast<size_t>(n), src->size - src->offset);
  src->offset += forward;
  return static_cast<OPJ_OFF_T>(forward);
}

OPJ_BOOL OpjSeek(OPJ_OFF_T pos, void* user) {
  auto* src = static_cast<OpjSource*>(user);
  if (pos < 0 || static_cast<uint64_t>(pos) > src->size) return OPJ_FALSE;
  src->offset = static_cast<size_t>(pos);
  return OPJ_TRUE;
}

void OpjError(const char* msg, void* user) {
  auto* src = static_cast<OpjSource*>(user);
  if (!src->error.empty()) return;
  src->error = msg;
  while (!src->error.empty() && (src->error.back() == '\n' || src->error.back() == ' ')) src->error.pop_back();
}

void OpjQuiet(const char*, void*) {}

// Owns what OpenJPEG allocates.
struct OpjHandles {
  opj_stream_t* stream = nullptr;
  opj_codec_t* codec = nullptr;
  opj_image_t* image = nullptr;
  ~OpjHandles() {
    if (image != nullptr) opj_image_destroy(image);
    if (codec != nullptr) opj_destroy_codec(codec);
    if (stream != nullptr) opj_stream_destroy(stream);
  }
};

uint8_t To8Bit(OPJ_INT32 v, const opj_image_comp_t& c) {
  int64_t u = static_cast<int64_t>(v) + (c.sgnd ? int64_t{1} << (c.prec - 1) : 0);
  const int shift = 8 - static_cast<int>(c.prec);
  u = shift < 0 ? u >> -shift : u << shift;
  return static_cast<uint8_t>(std::clamp<int64_t>(u, 0, 255));
}

}  // namespace

Result<RgbImage> DecodeJpeg2000(Bytes data) {
  OpjSource src;
  src.data = data.data();
  src.size = data.size();
  const bool codestream = data.size() >= 2 && data[0] == 0xff && data[1] == 0x4f;
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("JPEG 2000 image could not be decoded: " + (src.error.empty() ? what : src.error));
  };
  OpjHandles h;
  h.stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  h.codec = opj_create_decompress(codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
  if (h.stream == nullptr || h.codec == nullptr) return Internal("OpenJPEG could not create a decoder");
  opj_stream_set_read_function(h.stream, OpjRead);
  opj_stream_set_skip_function(h.stream, OpjSkip);
  opj_stream_set_seek_function(h.stream, OpjSeek);
  opj_stream_set_user_data(h.stream, &src, nullptr);
  opj_stream_set_user_data_length(h.stream, data.size());
  opj_set_error_handler(h.codec, OpjError, &src);
  opj_set_warning_handler(h.codec, OpjQuiet, nullptr);
  opj_set_info_handler(h.codec, OpjQuiet, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(h.codec, &params)) return fail("decoder setup failed");
  opj_decoder_set_strict_mode(h.codec, OPJ_TRUE);
  if (!opj_read_header(h.stream, h.codec, &h.image) || h.image == nullptr) return fail("bad header");
  const opj_image_t& header = *h.image;
  ONYX_RETURN_IF_ERROR(CheckImageSize(static_cast<int64_t>(header.x1) - header.x0,
                                      static_cast<int64_t>(header.y1) - header.y0, "JPEG 2000"));
  if (!opj_decode(h.codec, h.stream, h.image) || !opj_end_decompress(h.codec, h.stream)) {
    return fail("corrupt or truncated data");
  }
  const opj_image_t& img = *h.image;
  const uint32_t n = img.numcomps;
  if (n == 0 || n > 4) {
    return Unsupported("JPEG 2000 images with " + std::to_string(n) + " components are not supported");
  }
  if (img.color_space == OPJ_CLRSPC_SYCC || img.color_space == OPJ_CLRSPC_EYCC ||
      img.color_space == OPJ_CLRSPC_CMYK) {
    return Unsupported("JPEG 2000 images in YCC or CMYK colour spaces are not supported");
  }
  // Gray (1 component, or gray + alpha) or RGB (3, or RGB + alpha); alpha is dropped.
  const uint32_t colours = n >= 3 ? 3 : 1;
  for (uint32_t c = 0; c < colours; ++c) {
    const opj_image_comp_t& comp = img.comps[c];
    if (comp.data == nullptr || comp.w == 0 || comp.h == 0 || comp.dx == 0 || comp.dy == 0 || comp.prec == 0 ||
        comp.prec > 31) {
      return fail("component " + std::to_string(c) + " has no usable samples");
    }
  }
  RgbImage image;
  image.width = static_cast<int64_t>(img.x1) - img.x0;
  image.height = static_cast<int64_t>(img.y1) - img.y0;
  image.pixels.resize(static_cast<size_t>(image.width * image.height * 3));
  for (int64_t y = 0; y < image.height; ++y) {
    for (int64_t x = 0; x < image.width; ++x) {
      uint8_t* px = image.pixels.data() + (y * image.width + x) * 3;
      for (uint32_t c = 0; c < colours; ++c) {
        const opj_image_comp_t& comp = img.comps[c];
        const int64_t cx = std::min<int64_t>(x / comp.dx, comp.w - 1);
        const int64_t cy = std::min<int64_t>(y / comp.dy, comp.h - 1);
        px[c] = To8Bit(comp.data[cy * comp.w + cx], comp);
      }
      if (colours == 1) px[1] = px[2] = px[0];
    }
  }
  return image;
}

}  // namespace onyx::ops::image_decoding
