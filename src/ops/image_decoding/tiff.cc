// TIFF through libtiff's RGBA interface (the first image of the file), which handles every photometric
// interpretation, bit depth and compression libtiff knows. Errors go to a handler of this decoder (libtiff 4.5's
// per-handle options) rather than to stderr.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tiffio.h>

#include "ops/image_decoding/image_codecs.h"

namespace onyx::ops::image_decoding {
namespace {

struct TiffSource {
  const uint8_t* data = nullptr;
  toff_t size = 0;
  toff_t offset = 0;
  std::string error;  // the first error libtiff reported
};

tmsize_t TiffRead(thandle_t h, void* buf, tmsize_t n) {
  auto* src = static_cast<TiffSource*>(h);
  if (n <= 0 || src->offset >= src->size) return 0;
  const toff_t count = std::min<toff_t>(static_cast<toff_t>(n), src->size - src->offset);
  std::memcpy(buf, src->data + src->offset, static_cast<size_t>(count));
  src->offset += count;
  return static_cast<tmsize_t>(count);
}

tmsize_t TiffWrite(thandle_t, void*, tmsize_t) { return -1; }

toff_t TiffSeek(thandle_t h, toff_t off, int whence) {
  auto* src = static_cast<TiffSource*>(h);
  toff_t base = 0;
  if (whence == SEEK_CUR) base = src->offset;
  if (whence == SEEK_END) base = src->size;
  // Offsets are unsigned; a "negative" relative seek wraps, which the bounds check below rejects.
  const toff_t target = base + off;
  if (target > src->size) return static_cast<toff_t>(-1);
  src->offset = target;
  return target;
}

int TiffClose(thandle_t) { return 0; }
toff_t TiffSize(thandle_t h) { return static_cast<TiffSource*>(h)->size; }
int TiffMap(thandle_t, void**, toff_t*) { return 0; }
void TiffUnmap(thandle_t, void*, toff_t) {}

int TiffError(TIFF*, void* user_data, const char* module, const char* fmt, va_list ap) {
  auto* src = static_cast<TiffSource*>(user_data);
  if (src->error.empty()) {
    char buf[512];
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    src->error = (module != nullptr && *module != '\0') ? std::string(module) + ": " + buf : std::string(buf);
  }
  return 1;  // handled: libtiff does not print it
}

int TiffWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

}  // namespace

Result<RgbImage> DecodeTiff(Bytes data) {
  TiffSource src;
  src.data = data.data();
  src.size = data.size();
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  if (options == nullptr) return Internal("libtiff could not allocate its options");
  TIFFOpenOptionsSetErrorHandlerExtR(options, TiffError, &src);
  TIFFOpenOptionsSetWarningHandlerExtR(options, TiffWarning, &src);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t{1} << 30);
  // "m": no memory mapping (the procs above serve every read).
  TIFF* tif = TIFFClientOpenExt("encoded_stream", "rm", &src, TiffRead, TiffWrite, TiffSeek, TiffClose, TiffSize,
                                TiffMap, TiffUnmap, options);
  TIFFOpenOptionsFree(options);
  auto fail = [&](const std::string& what) -> Status {
    if (tif != nullptr) TIFFClose(tif);
    return InvalidArgument("TIFF image could not be decoded: " + what);
  };
  if (tif == nullptr) return fail(src.error.empty() ? "not a readable TIFF file" : src.error);
  uint32_t width = 0, height = 0;
  if (TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) != 1 || TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height) != 1) {
    return fail("the image has no width or length tag");
  }
  if (Status s = CheckImageSize(width, height, "TIFF"); !s.ok()) {
    TIFFClose(tif);
    return s;
  }
  char why[1024] = {};
  if (TIFFRGBAImageOK(tif, why) != 1) return fail(std::string("unsupported layout: ") + why);
  std::vector<uint32_t> raster(static_cast<size_t>(width) * height);
  if (TIFFReadRGBAImageOriented(tif, width, height, raster.data(), ORIENTATION_TOPLEFT, /*stop_on_error=*/1) != 1) {
    return fail(src.error.empty() ? "reading the pixels failed" : src.error);
  }
  TIFFClose(tif);
  RgbImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(raster.size() * 3);
  for (size_t i = 0; i < raster.size(); ++i) {
    image.pixels[3 * i] = static_cast<uint8_t>(TIFFGetR(raster[i]));
    image.pixels[3 * i + 1] = static_cast<uint8_t>(TIFFGetG(raster[i]));
    image.pixels[3 * i + 2] = static_cast<uint8_t>(TIFFGetB(raster[i]));
  }
  return image;
}

}  // namespace onyx::ops::image_decoding
