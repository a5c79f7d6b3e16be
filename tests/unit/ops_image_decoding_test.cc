// Unit tests of ImageDecoder: the BMP and PNM variants the backend suite leaves out (palettes, bit-field masks,
// top-down rows, plain and 16-bit PNM, bitmaps), BGR and Grayscale on known colours, and bad input: unknown
// formats, empty or mistyped tensors, truncated and corrupted files of every format, absurd dimensions. Bad input
// must give an error, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "format/tensor_proto.h"
#include "op_tester.h"

namespace onyx {
namespace {

using testing::OpTest;
using testing::RunOp;

Tensor Encoded(const std::vector<uint8_t>& bytes) {
  return Tensor::FromVector<uint8_t>(bytes, {static_cast<int64_t>(bytes.size())});
}

Tensor Encoded(const std::string& text) { return Encoded(std::vector<uint8_t>(text.begin(), text.end())); }

OpTest Decoder(const Tensor& encoded, const std::string& pixel_format = "RGB") {
  OpTest t;
  t.op_type = "ImageDecoder";
  t.opset = 20;
  t.Input(encoded).Attr("pixel_format", pixel_format);
  return t;
}

Result<Tensor> Decode(const Tensor& encoded, const std::string& pixel_format = "RGB") {
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> out, RunOp(Decoder(encoded, pixel_format)));
  return out.at(0).tensor();
}

// Decodes, expecting success, and returns the [H, W, C] shape and the pixel bytes.
void ExpectImage(const Tensor& encoded, const std::string& pixel_format, const Shape& shape,
                 const std::vector<uint8_t>& pixels) {
  auto r = Decode(encoded, pixel_format);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->type(), DataType::kUint8);
  ASSERT_EQ(r->shape(), shape);
  auto v = r->values<uint8_t>();
  EXPECT_EQ(std::vector<uint8_t>(v.begin(), v.end()), pixels);
}

void ExpectError(const Tensor& encoded, const std::string& fragment, const std::string& pixel_format = "RGB") {
  auto r = Decode(encoded, pixel_format);
  ASSERT_FALSE(r.ok()) << "expected an error mentioning '" << fragment << "'";
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().ToString();
}

void Put16(std::vector<uint8_t>& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void Put32(std::vector<uint8_t>& b, uint32_t v) {
  Put16(b, v & 0xffff);
  Put16(b, v >> 16);
}

// A BMP file with a 40-byte header; `extra` (masks, palette) follows the header; `rows` are stored as given.
std::vector<uint8_t> Bmp(int32_t width, int32_t height, uint16_t bpp, uint32_t compression,
                         const std::vector<uint8_t>& extra, const std::vector<uint8_t>& rows) {
  std::vector<uint8_t> b = {'B', 'M'};
  const uint32_t offset = 14 + 40 + static_cast<uint32_t>(extra.size());
  Put32(b, offset + static_cast<uint32_t>(rows.size()));
  Put32(b, 0);
  Put32(b, offset);
  Put32(b, 40);
  Put32(b, static_cast<uint32_t>(width));
  Put32(b, static_cast<uint32_t>(height));
  Put16(b, 1);
  Put16(b, bpp);
  Put32(b, compression);
  Put32(b, static_cast<uint32_t>(rows.size()));
  Put32(b, 2835);
  Put32(b, 2835);
  Put32(b, 0);  // colours used: all
  Put32(b, 0);
  b.insert(b.end(), extra.begin(), extra.end());
  b.insert(b.end(), rows.begin(), rows.end());
  return b;
}

// ---- BMP ----

TEST(ImageDecoderTest, Bmp24BitBottomUpInEveryPixelFormat) {
  // Top row red, green; bottom row blue, white. Rows are stored bottom first, padded to 4 bytes, as B, G, R.
  const auto file = Bmp(2, 2, 24, 0, {},
                        {0xff, 0, 0, 0xff, 0xff, 0xff, 0, 0,  // bottom: blue, white
                         0, 0, 0xff, 0, 0xff, 0, 0, 0});      // top: red, green
  ExpectImage(Encoded(file), "RGB", {2, 2, 3}, {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255});
  ExpectImage(Encoded(file), "BGR", {2, 2, 3}, {0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255});
  // Pillow's luma: (r * 19595 + g * 38470 + b * 7471 + 32768) >> 16.
  ExpectImage(Encoded(file), "Grayscale", {2, 2, 1}, {76, 150, 29, 255});
}

TEST(ImageDecoderTest, Bmp1BitTopDownPalette) {
  // Palette: 0 = (10, 20, 30), 1 = (200, 100, 50), stored B, G, R, reserved. Height -2: rows top first.
  const std::vector<uint8_t> palette = {30, 20, 10, 0, 50, 100, 200, 0};
  const auto file = Bmp(3, -2, 1, 0, palette, {0xa0, 0, 0, 0, 0x60, 0, 0, 0});  // 1 0 1 / 0 1 1
  ExpectImage(Encoded(file), "RGB", {2, 3, 3},
              {200, 100, 50, 10, 20, 30, 200, 100, 50, 10, 20, 30, 200, 100, 50, 200, 100, 50});
}

TEST(ImageDecoderTest, Bmp4BitPalette) {
  // All 16 entries present, entry 1 red, the others black; the high nibble comes first.
  std::vector<uint8_t> palette(16 * 4, 0);
  palette[4 * 1 + 2] = 255;  // entry 1: red
  const auto file = Bmp(3, 1, 4, 0, palette, {0x1f, 0x10, 0, 0});  // indices 1, 15, 1
  ExpectImage(Encoded(file), "RGB", {1, 3, 3}, {255, 0, 0, 0, 0, 0, 255, 0, 0});
}

TEST(ImageDecoderTest, Bmp16BitMasksScaleLikePillow) {
  // 5-6-5 masks after the header; pixels 0xF800 (red) and r=1, g=32, b=31: 1*255/31 = 8, 32*255/63 = 129.
  std::vector<uint8_t> masks;
  Put32(masks, 0xf800);
  Put32(masks, 0x07e0);
  Put32(masks, 0x001f);
  const auto file = Bmp(2, 1, 16, 3, masks, {0x00, 0xf8, 0x1f, 0x0c});
  ExpectImage(Encoded(file), "RGB", {1, 2, 3}, {255, 0, 0, 8, 129, 255});
  // 16 bits without masks are 5-5-5: 0x7C00 is red.
  const auto plain = Bmp(1, 1, 16, 0, {}, {0x00, 0x7c, 0, 0});
  ExpectImage(Encoded(plain), "RGB", {1, 1, 3}, {255, 0, 0});
}

TEST(ImageDecoderTest, Bmp32BitBgrx) {
  const auto file = Bmp(1, 1, 32, 0, {}, {1, 2, 3, 99});
  ExpectImage(Encoded(file), "RGB", {1, 1, 3}, {3, 2, 1});
}

TEST(ImageDecoderTest, BmpBadInput) {
  // Truncated pixel rows, absurd dimensions, RLE, a non-contiguous mask, a bad depth, a cut header.
  auto truncated = Bmp(2, 2, 24, 0, {}, {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectError(Encoded(truncated), "truncated");
  ExpectError(Encoded(Bmp(1 << 20, 1 << 20, 24, 0, {}, {})), "larger than the limit");
  ExpectError(Encoded(Bmp(0, 5, 24, 0, {}, {})), "invalid dimensions");
  ExpectError(Encoded(Bmp(2, 2, 8, 1, std::vector<uint8_t>(1024, 0), {0, 0})), "RLE");
  std::vector<uint8_t> masks;
  Put32(masks, 0xf00f);
  Put32(masks, 0x0f00);
  Put32(masks, 0x00f0);
  ExpectError(Encoded(Bmp(1, 1, 16, 3, masks, {0, 0, 0, 0})), "not contiguous");
  ExpectError(Encoded(Bmp(1, 1, 7, 0, {}, {0, 0, 0, 0})), "bits per pixel");
  ExpectError(Encoded(std::vector<uint8_t>{'B', 'M', 0, 0}), "too short");
}

// ---- PNM ----

TEST(ImageDecoderTest, PnmPlainWithCommentAndMaxval) {
  // round(v / 15 * 255): 7 -> 119, 8 -> 136.
  ExpectImage(Encoded("P3\n# a comment\n2 1\n15\n15 0 7  0 15 8\n"), "RGB", {1, 2, 3}, {255, 0, 119, 0, 255, 136});
  ExpectImage(Encoded("P2 3 1 255 0 128 255"), "Grayscale", {1, 3, 1}, {0, 128, 255});
}

TEST(ImageDecoderTest, PnmRaw16BitAndBitmaps) {
  // 65535 -> 255; 32768 / 65535 * 255 = 127.5019 -> 128.
  std::string p5 = "P5 2 1 65535\n";
  p5 += std::string("\xff\xff\x80\x00", 4);
  ExpectImage(Encoded(p5), "Grayscale", {1, 2, 1}, {255, 128});
  // Bitmaps: 1 is black.
  ExpectImage(Encoded("P1\n3 1\n1 0 1\n"), "Grayscale", {1, 3, 1}, {0, 255, 0});
  ExpectImage(Encoded("P1\n3 1\n101"), "Grayscale", {1, 3, 1}, {0, 255, 0});  // no separators needed
  ExpectImage(Encoded(std::string("P4\n3 1\n\xa0", 8)), "RGB", {1, 3, 3}, {0, 0, 0, 255, 255, 255, 0, 0, 0});
  std::string p6 = "P6 1 1 255\n";
  p6 += std::string("\x0a\x14\x1e", 3);
  ExpectImage(Encoded(p6), "BGR", {1, 1, 3}, {30, 20, 10});
}

TEST(ImageDecoderTest, PnmBadInput) {
  ExpectError(Encoded(std::string("P6 2 2 255\n\x01\x02\x03", 14)), "truncated");
  ExpectError(Encoded("P2 2 1 255 7"), "truncated");
  ExpectError(Encoded("P5 2 1 0\n\0\0"), "maximum value");
  ExpectError(Encoded("P5 2 1 70000\n"), "maximum value");
  ExpectError(Encoded("P2 1 1 15 16"), "above the maximum value");
  ExpectError(Encoded("P3 x 1 255"), "width");
  ExpectError(Encoded("P6 99999 99999 255\n"), "larger than the limit");
  ExpectError(Encoded("P6 99999999999 1 255\n"), "too large");
}

// ---- general bad input ----

TEST(ImageDecoderTest, UnknownEmptyAndMistypedInput) {
  ExpectError(Encoded("hello, world"), "unrecognised image format");
  ExpectError(Encoded(std::vector<uint8_t>{}), "empty");
  ExpectError(Encoded(std::vector<uint8_t>{0xff, 0xd8, 0xff}), "JPEG");
  ExpectError(Encoded(std::vector<uint8_t>{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}), "PNG");
  ExpectError(Encoded(std::string("II*\0", 4)), "TIFF");
  ExpectError(Encoded(std::string("RIFF\0\0\0\0WEBP", 12)), "WebP");
  ExpectError(Encoded(std::string("\xff\x4f\xff\x51", 4)), "JPEG 2000");

  auto wrong_type = Decoder(Tensor::FromVector<int8_t>({1, 2}, {2}));
  EXPECT_FALSE(RunOp(wrong_type).ok());
  auto wrong_rank = Decoder(Tensor::FromVector<uint8_t>({'P', '1'}, {1, 2}));
  EXPECT_FALSE(RunOp(wrong_rank).ok());
  auto bad_format = RunOp(Decoder(Encoded("P1 1 1 1"), "RGBA"));
  ASSERT_FALSE(bad_format.ok());
  EXPECT_NE(bad_format.status().message().find("pixel_format"), std::string::npos);
}

// The backend suite's encoded images, one per format.
std::vector<std::pair<std::string, Tensor>> SuiteImages() {
  std::vector<std::pair<std::string, Tensor>> out;
  const std::filesystem::path root = std::filesystem::path(ONYX_SHARED_DIR) / "onnx-tests" / "node";
  for (const char* name : {"bmp_rgb", "jpeg2k_rgb", "jpeg_rgb", "png_rgb", "pnm_rgb", "tiff_rgb", "webp_rgb"}) {
    const auto path = root / ("test_image_decoder_decode_" + std::string(name)) / "test_data_set_0" / "input_0.pb";
    if (!std::filesystem::exists(path)) continue;
    auto t = format::LoadTensorFile(path.string());
    if (t.ok()) out.emplace_back(name, *t);
  }
  return out;
}

Tensor Prefix(const Tensor& t, int64_t n) {
  auto v = t.values<uint8_t>();
  return Encoded(std::vector<uint8_t>(v.begin(), v.begin() + n));
}

TEST(ImageDecoderTest, TruncatedImagesOfEveryFormatAreErrors) {
  const auto images = SuiteImages();
  if (images.empty()) GTEST_SKIP() << "the backend suite's images are not available";
  for (const auto& [name, image] : images) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(Decode(image).ok()) << Decode(image).status().ToString();
    for (int64_t n : {image.size() * 3 / 4, image.size() / 2, int64_t{40}, int64_t{12}, int64_t{5}}) {
      auto r = Decode(Prefix(image, n));
      EXPECT_FALSE(r.ok()) << "a prefix of " << n << " of " << image.size() << " bytes decoded";
    }
  }
}

TEST(ImageDecoderTest, CorruptedImagesNeverCrash) {
  // Overwrite runs of bytes at many places: decoding may fail or give some image, but must return.
  const auto images = SuiteImages();
  if (images.empty()) GTEST_SKIP() << "the backend suite's images are not available";
  for (const auto& [name, image] : images) {
    SCOPED_TRACE(name);
    auto v = image.values<uint8_t>();
    for (int64_t at = 2; at < image.size(); at += std::max<int64_t>(1, image.size() / 97)) {
      std::vector<uint8_t> bytes(v.begin(), v.end());
      for (int64_t k = at; k < std::min<int64_t>(at + 4, image.size()); ++k) bytes[k] ^= 0xa5;
      auto r = Decode(Encoded(bytes));
      if (r.ok()) {
        EXPECT_EQ(r->rank(), 3);
        EXPECT_EQ(r->dim(2), 3);
      }
    }
  }
}

TEST(ImageDecoderTest, SuiteJpegChannelOrderAndLuma) {
  const auto images = SuiteImages();
  const Tensor* jpeg = nullptr;
  for (const auto& [name, image] : images) {
    if (name == "jpeg_rgb") jpeg = &image;
  }
  if (jpeg == nullptr) GTEST_SKIP() << "the backend suite's images are not available";
  auto rgb = Decode(*jpeg, "RGB");
  auto bgr = Decode(*jpeg, "BGR");
  auto gray = Decode(*jpeg, "Grayscale");
  ASSERT_TRUE(rgb.ok() && bgr.ok() && gray.ok());
  ASSERT_EQ(gray->shape(), (Shape{rgb->dim(0), rgb->dim(1), 1}));
  const uint8_t* p = rgb->data<uint8_t>();
  const uint8_t* q = bgr->data<uint8_t>();
  const uint8_t* g = gray->data<uint8_t>();
  for (int64_t i = 0; i < gray->size(); ++i) {
    ASSERT_EQ(q[3 * i], p[3 * i + 2]);
    ASSERT_EQ(q[3 * i + 2], p[3 * i]);
    ASSERT_EQ(g[i], (p[3 * i] * 19595 + p[3 * i + 1] * 38470 + p[3 * i + 2] * 7471 + 0x8000) >> 16);
  }
}

}  // namespace
}  // namespace onyx
