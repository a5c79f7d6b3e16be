// Unit tests of the Image family (Resize, Upsample, GridSample, AffineGrid, RoiAlign, MaxUnpool, Col2Im,
// CenterCropPad, NonMaxSuppression, DeformConv): what the ONNX backend suite leaves out: element types other than
// float, empty tensors, negative axes, rounding and saturation, NaN, old-version semantics, bad inputs and
// attributes giving errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// ---- Resize ----

TEST(ImageResizeTest, NearestMovesStrings) {
  auto t = Op("Resize", 13);
  t.Attr("mode", std::string("nearest"));
  t.Input(S({"a", "b"}, {1, 2})).Input(Value()).Input(Value()).Input(I64({1, 4}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.shape(), (Shape{1, 4}));
  EXPECT_EQ(Values<std::string>(y), (std::vector<std::string>{"a", "a", "b", "b"}));
}

// Float tensors resized over more than their last two axes go axis by axis in float: within float rounding of the
// same resize on double inputs (the general path), for trilinear and tricubic up- and downsampling (antialias too)
// and a resize of the channel axis.
TEST(ImageResizeTest, FloatAxisByAxisMatchesTheGeneralPath) {
  const std::vector<float> x = UniformFloats(2 * 3 * 4 * 5 * 6, 31, -2.0f, 2.0f);
  const std::vector<double> xd(x.begin(), x.end());
  struct Case {
    const char* mode;
    std::vector<float> scales;
    int64_t antialias;
  };
  const std::vector<Case> cases = {{"linear", {1, 1, 2, 1.5f, 2}, 0},
                                   {"cubic", {1, 1, 2, 2, 0.5f}, 0},
                                   {"linear", {1, 1, 0.5f, 0.6f, 0.5f}, 1},
                                   {"linear", {1, 2, 1, 1, 1}, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " antialias " + std::to_string(c.antialias));
    auto f = Op("Resize", 19);
    f.Input(F(x, {2, 3, 4, 5, 6})).Input(Value()).Input(F(c.scales, {5}));
    auto d = Op("Resize", 19);
    d.Input(T_<double>(xd, {2, 3, 4, 5, 6})).Input(Value()).Input(F(c.scales, {5}));
    for (OpTest* t : {&f, &d}) t->Attr("mode", std::string(c.mode)).Attr("antialias", c.antialias);
    const Tensor got = RunOk(f), want = RunOk(d);
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < got.size(); ++i) {
      const double w = want.data<double>()[i];
      ASSERT_NEAR(got.data<float>()[i], w, 2e-6 * (1 + std::fabs(w))) << i;
    }
  }
}

// A tall input resized into a wide output: axis by axis the intermediate would be 200000 x 200000 floats (160 GB);
// the float paths decline it and the general path (no intermediate) answers.
TEST(ImageResizeTest, NoIntermediateOutgrowsInputAndOutput) {
  constexpr int64_t n = 200000;
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  for (const Shape& in_shape : {Shape{1, 1, n, 1}, Shape{1, n, 1, 1}}) {
    auto t = Op("Resize", 19);
    const Shape out_shape{1, 1, 1, n};
    t.Input(F(x, in_shape)).Input(Value()).Input(Value()).Input(I64({1, 1, 1, n}, {4}));
    t.Attr("mode", std::string("linear"));
    const Tensor y = RunOk(t);
    ASSERT_EQ(y.shape(), out_shape);
    // The single output row/plane averages input positions 99999 and 100000 (half_pixel: 99999.5).
    const float want = (x[99999] + x[100000]) / 2;
    EXPECT_FLOAT_EQ(y.data<float>()[0], want);
    EXPECT_FLOAT_EQ(y.data<float>()[n - 1], want);
  }
}

TEST(ImageResizeTest, LinearUint8Truncates) {
  // half_pixel coordinates -0.25, 0.25, 0.75, 1.25 -> 0, 63.75, 191.25, 255, truncated toward zero as ONNX's
  // reference (astype) and ONNX Runtime (static_cast) convert: 63, not 64.
  auto t = Op("Resize", 19);
  t.Attr("mode", std::string("linear"));
  t.Input(U8({0, 255}, {2})).Input(Value()).Input(Value()).Input(I64({4}, {1}));
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{0, 63, 191, 255}));
  // The same through ONNX Runtime's 2-D bilinear path (4-D, H and W resized).
  auto t4 = Op("Resize", 19);
  t4.Attr("mode", std::string("linear"));
  t4.Input(U8({0, 255, 255, 0}, {1, 1, 2, 2})).Input(Value()).Input(Value()).Input(I64({1, 1, 4, 4}, {4}));
  const std::vector<uint8_t> y = Values<uint8_t>(RunOk(t4));
  ASSERT_EQ(y.size(), 16u);
  EXPECT_EQ(y[1], 63);  // (0.75 * 0 + 0.25 * 255) * 1: 63.75
}

TEST(ImageResizeTest, CubicInt8SaturatesOvershoot) {
  // Cubic overshoots past the input range next to a step (-154.9 and 153.9 at indices 2 and 5); int8 output
  // saturates instead of wrapping. Index 3 is -70.23, index 4 is 69.23.
  auto t = Op("Resize", 19);
  t.Attr("mode", std::string("cubic"));
  t.Input(T_<int8_t>({-128, -128, 127, 127}, {4})).Input(Value()).Input(F({2.0f}, {1}));
  EXPECT_EQ(Values<int8_t>(RunOk(t)), (std::vector<int8_t>{-128, -128, -128, -70, 69, 127, 127, 127}));
}

TEST(ImageResizeTest, EmptyInputGivesEmptyOutput) {
  auto t = Op("Resize", 19);
  t.Input(F({}, {0, 2})).Input(Value()).Input(F({1.0f, 2.0f}, {2}));
  EXPECT_EQ(RunOk(t).shape(), (Shape{0, 4}));
}

// Float images resized over their last two axes take a float fast path; it must match the general path (double,
// taken for double inputs) on awkward sizes, up- and downsampling, every interpolation mode and antialiasing.
TEST(ImageResizeTest, FloatPlanePathMatchesGeneralPath) {
  struct Case {
    std::string mode;
    std::string coord;
    int64_t antialias;
    Shape in;
    Shape out;
  };
  const std::vector<Case> cases = {
      {"linear", "half_pixel", 0, {1, 3, 5, 7}, {1, 3, 11, 13}},
      {"linear", "align_corners", 0, {2, 2, 9, 4}, {2, 2, 4, 10}},
      {"cubic", "half_pixel", 0, {1, 2, 6, 5}, {1, 2, 13, 3}},
      {"cubic", "asymmetric", 1, {1, 1, 17, 9}, {1, 1, 5, 4}},
      {"linear", "pytorch_half_pixel", 1, {3, 8, 3}, {3, 3, 1}},
  };
  for (const auto& c : cases) {
    int64_t n = 1;
    for (int64_t d : c.in) n *= d;
    std::vector<float> xf(static_cast<size_t>(n));
    std::vector<double> xd(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      xf[static_cast<size_t>(i)] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 10);
      xd[static_cast<size_t>(i)] = xf[static_cast<size_t>(i)];
    }
    std::vector<int64_t> sizes(c.out.begin(), c.out.end());
    auto run = [&](Tensor x) {
      auto t = Op("Resize", 19);
      t.Attr("mode", c.mode).Attr("coordinate_transformation_mode", c.coord).Attr("antialias", c.antialias);
      t.Input(std::move(x)).Input(Value()).Input(Value()).Input(I64(sizes, {static_cast<int64_t>(sizes.size())}));
      return RunOk(t);
    };
    Tensor yf = run(T_<float>(xf, c.in));
    Tensor yd = run(T_<double>(xd, c.in));
    ASSERT_EQ(yf.shape(), c.out) << c.mode << " " << c.coord;
    const auto vf = Values<float>(yf);
    const auto vd = Values<double>(yd);
    for (size_t i = 0; i < vf.size(); ++i) {
      EXPECT_NEAR(vf[i], vd[i], 1e-5 * (1 + std::fabs(vd[i]))) << c.mode << " " << c.coord << " at " << i;
    }
  }
}

// A nearest Resize-19 of uint8 `x` (shape `in`) to sizes `out`, asymmetric / floor or the default modes.
Tensor NearestResizeU8(const std::vector<uint8_t>& x, const Shape& in, const Shape& out, bool asymmetric) {
  auto t = Op("Resize", 19);
  t.Attr("mode", std::string("nearest"));
  if (asymmetric) {
    t.Attr("coordinate_transformation_mode", std::string("asymmetric")).Attr("nearest_mode", std::string("floor"));
  }
  t.Input(U8(x, in)).Input(Value()).Input(Value()).Input(I64(std::vector<int64_t>(out.begin(), out.end()), {4}));
  return RunOk(t);
}

// Nearest resizing of 8-bit planes (a quantized model's upsampling): the rows copied from the previous output row and
// the doubled columns of a 2x upsampling give the elements ONNX's formula picks, for 2x along both axes or one, 3x,
// a downsampling and several planes, in the asymmetric / floor and the default half_pixel / round_prefer_floor modes.
TEST(ImageResizeTest, NearestUint8PlanesPickTheFormulasElements) {
  struct Case {
    Shape in, out;
    bool asymmetric;
  };
  const std::vector<Case> cases = {{{1, 3, 5, 7}, {1, 3, 10, 14}, true}, {{2, 2, 4, 6}, {2, 2, 4, 12}, true},
                                   {{1, 2, 3, 4}, {1, 2, 9, 12}, true},  {{2, 3, 6, 8}, {2, 3, 12, 16}, false},
                                   {{1, 2, 8, 10}, {1, 2, 3, 5}, false}, {{3, 1, 2, 2}, {3, 1, 4, 4}, false},
                                   {{2, 2, 1, 3}, {2, 2, 2, 6}, true}};  // one source row: no copy across planes
  for (const Case& c : cases) {
    const int64_t n = c.in[0] * c.in[1] * c.in[2] * c.in[3];
    std::vector<uint8_t> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 101 + 7) % 256);
    const Tensor y = NearestResizeU8(x, c.in, c.out, c.asymmetric);
    ASSERT_EQ(y.shape(), c.out);
    // ONNX's nearest source index along an axis of `in` -> `out` elements (scale out / in).
    auto source = [&](int64_t o, int64_t in, int64_t out) {
      const double scale = static_cast<double>(out) / static_cast<double>(in);
      double v;
      if (c.asymmetric) {
        v = std::floor(static_cast<double>(o) / scale);
      } else {
        const double xo = (static_cast<double>(o) + 0.5) / scale - 0.5;
        v = xo - std::floor(xo) == 0.5 ? std::floor(xo) : std::round(xo);  // round_prefer_floor
      }
      return std::clamp<int64_t>(static_cast<int64_t>(v), 0, in - 1);
    };
    const std::vector<uint8_t> got = Values<uint8_t>(y);
    const int64_t planes = c.in[0] * c.in[1];
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t i = 0; i < c.out[2]; ++i) {
        for (int64_t j = 0; j < c.out[3]; ++j) {
          const int64_t src = (p * c.in[2] + source(i, c.in[2], c.out[2])) * c.in[3] + source(j, c.in[3], c.out[3]);
          ASSERT_EQ(got[static_cast<size_t>((p * c.out[2] + i) * c.out[3] + j)], x[static_cast<size_t>(src)])
              << ShapeToString(c.in) << " -> " << ShapeToString(c.out) << " at plane " << p << " (" << i << ", " << j
              << ")";
        }
      }
    }
  }
}

// Nearest resizing of a channels-last image's middle axes (the 8-bit layout pass's upsamplings: [N, H, W, C] with
// scales [1, sh, sw, 1]): each output pixel's channels are its source pixel's, rows repeated by copy.
TEST(ImageResizeTest, NearestChannelsLastPixelsPickTheFormulasElements) {
  struct Case {
    Shape in, out;
  };
  const std::vector<Case> cases = {{{2, 3, 5, 7}, {2, 6, 10, 7}},
                                   {{1, 4, 4, 64}, {1, 8, 8, 64}},
                                   {{1, 5, 3, 3}, {1, 15, 6, 3}},
                                   {{1, 1, 2, 600}, {1, 2, 4, 600}}};
  for (const Case& c : cases) {
    const int64_t n = c.in[0] * c.in[1] * c.in[2] * c.in[3];
    std::vector<uint8_t> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 101 + 7) % 256);
    const Tensor y = NearestResizeU8(x, c.in, c.out, true);
    ASSERT_EQ(y.shape(), c.out);
    const std::vector<uint8_t> got = Values<uint8_t>(y);
    for (int64_t b = 0; b < c.out[0]; ++b) {
      for (int64_t i = 0; i < c.out[1]; ++i) {
        for (int64_t j = 0; j < c.out[2]; ++j) {
          const int64_t si = i * c.in[1] / c.out[1], sj = j * c.in[2] / c.out[2];  // floor(o / scale)
          for (int64_t ch = 0; ch < c.out[3]; ++ch) {
            ASSERT_EQ(got[static_cast<size_t>(((b * c.out[1] + i) * c.out[2] + j) * c.out[3] + ch)],
                      x[static_cast<size_t>(((b * c.in[1] + si) * c.in[2] + sj) * c.in[3] + ch)])
                << ShapeToString(c.in) << " -> " << ShapeToString(c.out) << " at " << b << "," << i << "," << j << ","
                << ch;
          }
        }
      }
    }
  }
}

TEST(ImageResizeTest, NegativeAxes) {
  auto t = Op("Resize", 19);
  t.Attr("axes", std::vector<int64_t>{-1})
      .Attr("mode", std::string("linear"))
      .Attr("coordinate_transformation_mode", std::string("align_corners"));
  t.Input(F({0, 3, 10, 40}, {2, 2})).Input(Value()).Input(Value()).Input(I64({4}, {1}));
  ExpectFloats(RunOk(t), {2, 4}, {0, 1, 2, 3, 10, 20, 30, 40});
}

TEST(ImageResizeTest, KeepAspectRatioNotLarger) {
  // sizes (4, 4) on a 2x4 input: the smaller scale (1) wins, so the output stays 2x4.
  auto t = Op("Resize", 19);
  t.Attr("keep_aspect_ratio_policy", std::string("not_larger"));
  t.Input(F({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4})).Input(Value()).Input(Value()).Input(I64({4, 4}, {2}));
  ExpectFloats(RunOk(t), {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
}

TEST(ImageResizeTest, NaNPropagatesThroughLinear) {
  auto t = Op("Resize", 19);
  t.Attr("mode", std::string("linear")).Attr("coordinate_transformation_mode", std::string("asymmetric"));
  t.Input(F({1, kNaN, 3}, {3})).Input(Value()).Input(F({2.0f}, {1}));
  ExpectFloats(RunOk(t), {6}, {1, kNaN, kNaN, kNaN, 3, 3});
}

TEST(ImageResizeTest, NearestTfCropAndResizeExtrapolates) {
  auto t = Op("Resize", 13);
  t.Attr("coordinate_transformation_mode", std::string("tf_crop_and_resize")).Attr("extrapolation_value", 9.0f);
  // roi [-1, 1] over a length-3 axis, output 3: coordinates -2, 0, 2.
  t.Input(F({1, 2, 3}, {3})).Input(F({-1.0f, 1.0f}, {2})).Input(Value()).Input(I64({3}, {1}));
  ExpectFloats(RunOk(t), {3}, {9, 1, 3});
}

TEST(ImageResizeTest, HugeScaleIsAnError) {
  auto t = Op("Resize", 13);
  t.Input(F({1, 2}, {2})).Input(Value()).Input(F({1e30f}, {1}));
  ExpectError(t, "too large");
}

TEST(ImageResizeTest, ScalesAndSizesTogetherIsAnError) {
  auto t = Op("Resize", 13);
  t.Input(F({1, 2}, {2})).Input(Value()).Input(F({2.0f}, {1})).Input(I64({4}, {1}));
  ExpectError(t, "only one of");
}

TEST(ImageResizeTest, MissingScalesAndSizesIsAnError) {
  auto t = Op("Resize", 13);
  t.Input(F({1, 2}, {2})).Input(Value()).Input(F({}, {0}));
  ExpectError(t, "is required");
}

TEST(ImageResizeTest, NonPositiveScaleIsAnError) {
  auto t = Op("Resize", 13);
  t.Input(F({1, 2}, {2})).Input(Value()).Input(F({0.0f}, {1}));
  ExpectError(t, "positive");
}

TEST(ImageResizeTest, BadAttributesAreErrors) {
  auto mode = Op("Resize", 13);
  mode.Attr("mode", std::string("bilinear")).Input(F({1, 2}, {2})).Input(Value()).Input(F({2.0f}, {1}));
  ExpectError(mode, "mode");
  auto coord = Op("Resize", 13);  // tf_half_pixel_for_nn only existed in Resize-11
  coord.Attr("coordinate_transformation_mode", std::string("tf_half_pixel_for_nn"))
      .Input(F({1, 2}, {2}))
      .Input(Value())
      .Input(F({2.0f}, {1}));
  ExpectError(coord, "coordinate_transformation_mode");
  auto aa = Op("Resize", 18);
  aa.Attr("antialias", int64_t{1}).Input(F({1, 2}, {2})).Input(Value()).Input(F({0.5f}, {1}));
  ExpectError(aa, "antialias");
}

TEST(ImageResizeTest, TfCropAndResizeNeedsRoi) {
  auto t = Op("Resize", 13);
  t.Attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  t.Input(F({1, 2}, {2})).Input(Value()).Input(F({2.0f}, {1}));
  ExpectError(t, "roi");
}

TEST(ImageResizeTest, Resize11TfHalfPixelForNn) {
  // x_original = (x + 0.5) / 2: 0.25, 0.75, 1.25, 1.75 -> round_prefer_floor 0, 1, 1, 2 (clamped to 1).
  auto t = Op("Resize", 11);
  t.Attr("coordinate_transformation_mode", std::string("tf_half_pixel_for_nn"));
  t.Input(F({1, 2}, {2})).Input(F({}, {0})).Input(F({2.0f}, {1}));
  ExpectFloats(RunOk(t), {4}, {1, 2, 2, 2});
}

TEST(ImageResizeTest, Resize10DownsampleNearestRoundsUp) {
  auto t = Op("Resize", 10);
  t.Input(F({1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 2, 4})).Input(F({1, 1, 0.6f, 0.6f}, {4}));
  ExpectFloats(RunOk(t), {1, 1, 1, 2}, {1, 3});
}

// ---- Upsample ----

TEST(ImageUpsampleTest, Version7ScalesAttribute) {
  auto t = Op("Upsample", 7);
  t.Attr("scales", std::vector<float>{1.0f, 3.0f});
  t.Input(I32({1, 2}, {1, 2}));
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{1, 1, 1, 2, 2, 2}));
}

TEST(ImageUpsampleTest, Version9LinearIsAsymmetric) {
  auto t = Op("Upsample", 9);
  t.Attr("mode", std::string("linear"));
  t.Input(F({1, 3}, {1, 2})).Input(F({1.0f, 2.0f}, {2}));
  ExpectFloats(RunOk(t), {1, 4}, {1, 2, 3, 3});
}

TEST(ImageUpsampleTest, ScalesOfWrongLengthIsAnError) {
  auto t = Op("Upsample", 9);
  t.Input(F({1, 3}, {1, 2})).Input(F({2.0f}, {1}));
  ExpectError(t, "scales");
}

// ---- GridSample ----

TEST(ImageGridSampleTest, NearestInt32ZerosOutside) {
  auto t = Op("GridSample", 20);
  t.Attr("mode", std::string("nearest")).Attr("align_corners", int64_t{1});
  // 1-D sampling (rank 3) at -1, 1 and 3 (outside).
  t.Input(I32({10, 20, 30}, {1, 1, 3})).Input(F({-1.0f, 1.0f, 3.0f}, {1, 3, 1}));
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{10, 30, 0}));
}

// Bilinear sampling of float planes has its own loop: the same values (cast to float) as double inputs through the
// general path, for every padding mode and both corner conventions, with grid points outside, exactly on pixels
// (weights of 0: a NaN pixel next to them must not leak in) and NaN.
TEST(ImageGridSampleTest, BilinearFloatMatchesTheGeneralPath) {
  std::vector<float> x = UniformFloats(2 * 3 * 5 * 7, 21, -2.0f, 2.0f);
  x[4] = kNaN;  // batch 0, channel 0, row 0, column 4
  std::vector<float> grid = UniformFloats(2 * 4 * 6 * 2, 22, -1.4f, 1.4f);
  grid[0] = kNaN;
  grid[2] = 2.0f / 6 * 3 - 1;  // x exactly on column 3 with align_corners
  grid[3] = -1.0f;
  grid[4] = 2.0f / 6 * 5 - 1;  // next to the NaN pixel's column
  grid[5] = -1.0f;
  const std::vector<double> xd(x.begin(), x.end()), gd(grid.begin(), grid.end());
  for (const char* padding : {"zeros", "border", "reflection"}) {
    for (int64_t align : {0, 1}) {
      SCOPED_TRACE(std::string(padding) + " align_corners " + std::to_string(align));
      auto f = Op("GridSample", 20);
      f.Input(F(x, {2, 3, 5, 7})).Input(F(grid, {2, 4, 6, 2}));
      auto d = Op("GridSample", 20);
      d.Input(T_<double>(xd, {2, 3, 5, 7})).Input(T_<double>(gd, {2, 4, 6, 2}));
      for (OpTest* t : {&f, &d}) {
        t->Attr("mode", std::string("linear")).Attr("padding_mode", std::string(padding)).Attr("align_corners", align);
      }
      const Tensor got = RunOk(f), want = RunOk(d);
      ASSERT_EQ(got.shape(), (Shape{2, 3, 4, 6}));
      for (int64_t i = 0; i < got.size(); ++i) {
        const float w = static_cast<float>(want.data<double>()[i]);
        ASSERT_EQ(std::bit_cast<uint32_t>(got.data<float>()[i]), std::bit_cast<uint32_t>(w)) << i;
      }
    }
  }
}

TEST(ImageGridSampleTest, LinearBorderClampsCoordinates) {
  auto t = Op("GridSample", 20);
  t.Attr("padding_mode", std::string("border")).Attr("align_corners", int64_t{1});
  t.Input(F({0, 10}, {1, 1, 2})).Input(F({-5.0f, 0.0f, 0.5f, 5.0f}, {1, 4, 1}));
  ExpectFloats(RunOk(t), {1, 1, 4}, {0, 5, 7.5f, 10});
}

TEST(ImageGridSampleTest, ReflectionFoldsAtTheBorders) {
  auto t = Op("GridSample", 20);
  t.Attr("padding_mode", std::string("reflection")).Attr("align_corners", int64_t{1});
  // Coordinate 2 (normalized 3 on a length-2 axis) reflects back to 0.
  t.Input(F({0, 10}, {1, 1, 2})).Input(F({3.0f, 2.0f}, {1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 1, 2}, {0, 5});
}

TEST(ImageGridSampleTest, NaNCoordinateReadsZero) {
  auto t = Op("GridSample", 20);
  t.Attr("padding_mode", std::string("border"));
  t.Input(F({4, 8}, {1, 1, 2})).Input(F({kNaN, 0.0f}, {1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 1, 2}, {0, 6});
}

TEST(ImageGridSampleTest, ReflectionOnLengthOneAxis) {
  auto t = Op("GridSample", 20);
  t.Attr("padding_mode", std::string("reflection")).Attr("align_corners", int64_t{1});
  t.Input(F({5}, {1, 1, 1})).Input(F({-3.0f, 0.7f, 1e30f}, {1, 3, 1}));
  ExpectFloats(RunOk(t), {1, 1, 3}, {5, 5, 5});
}

TEST(ImageGridSampleTest, Version16NeedsFourDimensions) {
  auto t = Op("GridSample", 16);
  t.Input(F({0, 10}, {1, 1, 2})).Input(F({0.0f}, {1, 1, 1}));
  ExpectError(t, "(N, C, H, W)");
}

TEST(ImageGridSampleTest, Version16ModeNames) {
  auto old_name = Op("GridSample", 16);
  old_name.Attr("mode", std::string("bilinear"));
  old_name.Input(F({1, 2, 3, 4}, {1, 1, 2, 2})).Input(F({0.0f, 0.0f}, {1, 1, 1, 2}));
  ExpectFloats(RunOk(old_name), {1, 1, 1, 1}, {2.5f});
  auto new_name = Op("GridSample", 16);
  new_name.Attr("mode", std::string("linear"));
  new_name.Input(F({1, 2, 3, 4}, {1, 1, 2, 2})).Input(F({0.0f, 0.0f}, {1, 1, 1, 2}));
  ExpectError(new_name, "mode");
}

TEST(ImageGridSampleTest, GridShapeMismatchIsAnError) {
  auto t = Op("GridSample", 20);
  t.Input(F({1, 2, 3, 4}, {1, 1, 2, 2})).Input(F({0.0f, 0.0f, 0.0f}, {1, 1, 1, 3}));
  ExpectError(t, "grid");
}

TEST(ImageGridSampleTest, EmptyGrid) {
  auto t = Op("GridSample", 20);
  t.Input(F({1, 2, 3, 4}, {1, 1, 2, 2})).Input(F({}, {1, 0, 3, 2}));
  EXPECT_EQ(RunOk(t).shape(), (Shape{1, 1, 0, 3}));
}

// ---- AffineGrid ----

TEST(ImageAffineGridTest, IdentityTheta) {
  auto t = Op("AffineGrid", 20);
  t.Input(F({1, 0, 0, 0, 1, 0}, {1, 2, 3})).Input(I64({1, 1, 2, 3}, {4}));
  // Rows y = -0.5, 0.5; columns x = -2/3, 0, 2/3; each point is (x, y).
  const float a = 2.0f / 3;
  ExpectFloats(RunOk(t), {1, 2, 3, 2}, {-a, -0.5f, 0, -0.5f, a, -0.5f, -a, 0.5f, 0, 0.5f, a, 0.5f});
}

TEST(ImageAffineGridTest, TranslationWithAlignCorners) {
  auto t = Op("AffineGrid", 20);
  t.Attr("align_corners", int64_t{1});
  t.Input(F({1, 0, 0.5f, 0, 1, 0}, {1, 2, 3})).Input(I64({1, 1, 1, 2}, {4}));
  ExpectFloats(RunOk(t), {1, 1, 2, 2}, {-0.5f, -1, 1.5f, -1});
}

TEST(ImageAffineGridTest, ThetaShapeMismatchIsAnError) {
  auto t = Op("AffineGrid", 20);
  t.Input(F({1, 0, 0, 0, 1, 0}, {1, 2, 3})).Input(I64({1, 1, 2, 2, 2}, {5}));
  ExpectError(t, "theta");
}

// ---- RoiAlign ----

TEST(ImageRoiAlignTest, ConstantMapAveragesToTheConstant) {
  auto t = Op("RoiAlign", 16);
  t.Attr("output_height", int64_t{2}).Attr("output_width", int64_t{2}).Attr("sampling_ratio", int64_t{2});
  t.Input(F(std::vector<float>(16, 3.0f), {1, 1, 4, 4}))
      .Input(F({0.5f, 0.5f, 3.0f, 3.0f}, {1, 4}))
      .Input(I64({0}, {1}));
  ExpectFloats(RunOk(t), {1, 1, 2, 2}, {3, 3, 3, 3});
}

TEST(ImageRoiAlignTest, Version10HasNoHalfPixelShift) {
  // A 1x1 bin over [0, 1]^2 with one sample at (0.5, 0.5): bilinear of the top-left 2x2 block.
  auto t = Op("RoiAlign", 10);
  t.Attr("sampling_ratio", int64_t{1});
  t.Input(F({0, 1, 2, 3}, {1, 1, 2, 2})).Input(F({0, 0, 1, 1}, {1, 4})).Input(I64({0}, {1}));
  ExpectFloats(RunOk(t), {1, 1, 1, 1}, {1.5f});
}

TEST(ImageRoiAlignTest, BadBatchIndexIsAnError) {
  auto t = Op("RoiAlign", 16);
  t.Input(F({0, 1, 2, 3}, {1, 1, 2, 2})).Input(F({0, 0, 1, 1}, {1, 4})).Input(I64({1}, {1}));
  ExpectError(t, "batch_indices");
}

TEST(ImageRoiAlignTest, NaNRoiIsAnError) {
  auto t = Op("RoiAlign", 16);
  t.Input(F({0, 1, 2, 3}, {1, 1, 2, 2})).Input(F({0, kNaN, 1, 1}, {1, 4})).Input(I64({0}, {1}));
  ExpectError(t, "not finite");
}

TEST(ImageRoiAlignTest, NoRois) {
  auto t = Op("RoiAlign", 16);
  t.Input(F({0, 1, 2, 3}, {1, 1, 2, 2})).Input(F({}, {0, 4})).Input(I64({}, {0}));
  EXPECT_EQ(RunOk(t).shape(), (Shape{0, 1, 1, 1}));
}

TEST(ImageRoiAlignTest, BadModeIsAnError) {
  auto t = Op("RoiAlign", 16);
  t.Attr("mode", std::string("min"));
  t.Input(F({0, 1, 2, 3}, {1, 1, 2, 2})).Input(F({0, 0, 1, 1}, {1, 4})).Input(I64({0}, {1}));
  ExpectError(t, "mode");
}

// ---- MaxUnpool ----

TEST(ImageMaxUnpoolTest, ScattersIntoLargerOutputShape) {
  auto t = Op("MaxUnpool", 11);
  t.Attr("kernel_shape", std::vector<int64_t>{2}).Attr("strides", std::vector<int64_t>{2});
  // Inferred length 4; output_shape asks for 5, the extra element stays zero.
  t.Input(F({7, 9}, {1, 1, 2})).Input(I64({1, 2}, {1, 1, 2})).Input(I64({1, 1, 5}, {3}));
  ExpectFloats(RunOk(t), {1, 1, 5}, {0, 7, 9, 0, 0});
}

TEST(ImageMaxUnpoolTest, IndexOutOfRangeIsAnError) {
  auto t = Op("MaxUnpool", 11);
  t.Attr("kernel_shape", std::vector<int64_t>{2}).Attr("strides", std::vector<int64_t>{2});
  t.Input(F({7, 9}, {1, 1, 2})).Input(I64({1, 4}, {1, 1, 2}));
  ExpectError(t, "outside");
}

TEST(ImageMaxUnpoolTest, MissingKernelShapeIsAnError) {
  auto t = Op("MaxUnpool", 11);
  t.Input(F({7, 9}, {1, 1, 2})).Input(I64({1, 2}, {1, 1, 2}));
  ExpectError(t, "kernel_shape");
}

// ---- Col2Im ----

TEST(ImageCol2ImTest, OverlappingBlocksAddUp) {
  // Image 1x3, blocks 1x2 with stride 1: two blocks [a b] at columns 0-1 and 1-2.
  auto t = Op("Col2Im", 18);
  t.Input(I32({1, 2, 10, 20}, {1, 2, 2})).Input(I64({1, 3}, {2})).Input(I64({1, 2}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.shape(), (Shape{1, 1, 1, 3}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 12, 20}));
}

TEST(ImageCol2ImTest, PadsDropOutsideElements) {
  auto t = Op("Col2Im", 18);
  t.Attr("pads", std::vector<int64_t>{0, 1, 0, 1});
  // Padded width 4, blocks of 2 with stride 1: three blocks starting at -1, 0, 1.
  t.Input(F({1, 2, 3, 4, 5, 6}, {1, 2, 3})).Input(I64({1, 2}, {2})).Input(I64({1, 2}, {2}));
  ExpectFloats(RunOk(t), {1, 1, 1, 2}, {4 + 2, 5 + 3});
}

TEST(ImageCol2ImTest, WrongBlockCountIsAnError) {
  auto t = Op("Col2Im", 18);
  t.Input(F({1, 2, 3, 4}, {1, 2, 2})).Input(I64({1, 4}, {2})).Input(I64({1, 2}, {2}));
  ExpectError(t, "expected");
}

// ---- CenterCropPad ----

TEST(ImageCenterCropPadTest, OddCropAndPad) {
  auto t = Op("CenterCropPad", 18);
  // Axis 0: 3 -> 2 drops the last row (start offset 0); axis 1: 2 -> 5 pads 1 before and 2 after.
  t.Input(I32({1, 2, 3, 4, 5, 6}, {3, 2})).Input(I64({2, 5}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.shape(), (Shape{2, 5}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{0, 1, 2, 0, 0, 0, 3, 4, 0, 0}));
}

TEST(ImageCenterCropPadTest, StringsWithNegativeAxis) {
  auto t = Op("CenterCropPad", 18);
  t.Attr("axes", std::vector<int64_t>{-1});
  t.Input(S({"a", "b", "c", "d"}, {1, 4})).Input(I64({2}, {1}));
  EXPECT_EQ(Values<std::string>(RunOk(t)), (std::vector<std::string>{"b", "c"}));
}

TEST(ImageCenterCropPadTest, ShapeLengthMismatchIsAnError) {
  auto t = Op("CenterCropPad", 18);
  t.Input(F({1, 2}, {1, 2})).Input(I64({2}, {1}));
  ExpectError(t, "shape");
}

// ---- NonMaxSuppression ----

TEST(ImageNonMaxSuppressionTest, NoBoxes) {
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F({}, {1, 0, 4})).Input(F({}, {1, 1, 0})).Input(I64({3}, {1}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.type(), DataType::kInt64);
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
}

TEST(ImageNonMaxSuppressionTest, MaxOutputOmittedSelectsNothing) {
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F({0, 0, 1, 1}, {1, 1, 4})).Input(F({0.9f}, {1, 1, 1}));
  EXPECT_EQ(RunOk(t).shape(), (Shape{0, 3}));
}

TEST(ImageNonMaxSuppressionTest, NaNScoresSortLastAndTiesKeepIndexOrder) {
  auto t = Op("NonMaxSuppression", 11);
  // Three disjoint boxes; scores NaN, 0.5, 0.5: the tie keeps index order, NaN comes last.
  t.Input(F({0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, {1, 3, 4}))
      .Input(F({kNaN, 0.5f, 0.5f}, {1, 1, 3}))
      .Input(I64({10}, {1}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 0, 0}));
}

TEST(ImageNonMaxSuppressionTest, ScoreThresholdIsStrict) {
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F({0, 0, 1, 1, 2, 2, 3, 3}, {1, 2, 4}))
      .Input(F({0.5f, 0.6f}, {1, 1, 2}))
      .Input(I64({10}, {1}))
      .Input(F({0.5f}, {1}))
      .Input(F({0.5f}, {1}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{0, 0, 1}));
}

// Many batches, classes and overlapping boxes with tied scores: the selections of a sort-everything greedy
// reference (stable sort by score, lower index first; IoU in float as the kernel computes it).
TEST(ImageNonMaxSuppressionTest, MatchesSortedGreedyReference) {
  constexpr int64_t kBatches = 3, kClasses = 4, kBoxes = 300, kMax = 20;
  constexpr float kIou = 0.4f, kScoreMin = 0.2f;
  const std::vector<float> corner = UniformFloats(kBatches * kBoxes * 2, 3, 0.0f, 1.0f);
  const std::vector<float> size = UniformFloats(kBatches * kBoxes * 2, 4, 0.05f, 0.3f);
  std::vector<float> boxes;
  for (int64_t i = 0; i < kBatches * kBoxes; ++i) {
    boxes.insert(boxes.end(),
                 {corner[2 * i], corner[2 * i + 1], corner[2 * i] + size[2 * i], corner[2 * i + 1] + size[2 * i + 1]});
  }
  std::vector<float> scores = UniformFloats(kBatches * kClasses * kBoxes, 5, 0.0f, 1.0f);
  for (float& v : scores) v = std::round(v * 20) / 20;  // ties
  auto iou_above = [&](const float* a, const float* b) {
    const float ix = std::min(a[3], b[3]) - std::max(a[1], b[1]), iy = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    if (ix <= 0 || iy <= 0) return false;
    const float inter = ix * iy;
    const float uni = (a[3] - a[1]) * (a[2] - a[0]) + (b[3] - b[1]) * (b[2] - b[0]) - inter;
    return inter / uni > kIou;
  };
  std::vector<int64_t> want;
  for (int64_t b = 0; b < kBatches; ++b) {
    for (int64_t c = 0; c < kClasses; ++c) {
      const float* s = scores.data() + (b * kClasses + c) * kBoxes;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < kBoxes; ++i) {
        if (s[i] > kScoreMin) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return s[l] > s[r]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) == kMax) break;
        bool keep = true;
        for (int64_t k : kept) keep = keep && !iou_above(&boxes[(b * kBoxes + i) * 4], &boxes[(b * kBoxes + k) * 4]);
        if (!keep) continue;
        kept.push_back(i);
        want.insert(want.end(), {b, c, i});
      }
    }
  }
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F(boxes, {kBatches, kBoxes, 4}))
      .Input(F(scores, {kBatches, kClasses, kBoxes}))
      .Input(I64({kMax}, {1}))
      .Input(F({kIou}, {1}))
      .Input(F({kScoreMin}, {1}));
  const std::vector<int64_t> got = Values<int64_t>(RunOk(t));
  EXPECT_GT(want.size(), 3u * kBatches * kClasses);
  EXPECT_EQ(got, want);
}

// Negative scores rank below zero, -0 ties +0 (the lower index first), a NaN score ranks last.
TEST(ImageNonMaxSuppressionTest, SignedZerosNegativesAndNaNRankAsFloats) {
  std::vector<float> boxes;
  for (int i = 0; i < 6; ++i) boxes.insert(boxes.end(), {0.0f, 2.0f * i, 1.0f, 2.0f * i + 1.0f});  // disjoint
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F(boxes, {1, 6, 4})).Input(F({-1.0f, -0.0f, 0.0f, nan, -2.0f, 0.5f}, {1, 1, 6})).Input(I64({6}, {1}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{0, 0, 5, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 4, 0, 0, 3}));
}

TEST(ImageNonMaxSuppressionTest, BadCenterPointBoxIsAnError) {
  auto t = Op("NonMaxSuppression", 11);
  t.Attr("center_point_box", int64_t{2});
  t.Input(F({0, 0, 1, 1}, {1, 1, 4})).Input(F({0.9f}, {1, 1, 1}));
  ExpectError(t, "center_point_box");
}

TEST(ImageNonMaxSuppressionTest, ScoresShapeMismatchIsAnError) {
  auto t = Op("NonMaxSuppression", 11);
  t.Input(F({0, 0, 1, 1}, {1, 1, 4})).Input(F({0.9f, 0.8f}, {1, 1, 2}));
  ExpectError(t, "scores");
}

// ---- DeformConv ----

TEST(ImageDeformConvTest, ZeroOffsetsIsPlainConvolution) {
  auto t = Op("DeformConv", 22);
  // 1x1x2x2 input, 1x1x2x2 kernel, one output position.
  t.Input(F({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input(F({1, 10, 100, 1000}, {1, 1, 2, 2}))
      .Input(F(std::vector<float>(8, 0.0f), {1, 8, 1, 1}))
      .Input(F({0.5f}, {1}));
  ExpectFloats(RunOk(t), {1, 1, 1, 1}, {1 + 20 + 300 + 4000 + 0.5f});
}

TEST(ImageDeformConvTest, OffsetsShiftAndReadZeroOutside) {
  auto t = Op("DeformConv", 19);
  // 1-D: input [1, 2, 3], kernel [1] of size 1, three outputs; offsets 0.5, 1, 5 (outside).
  t.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1}, {1, 1, 1})).Input(F({0.5f, 1.0f, 5.0f}, {1, 1, 3}));
  ExpectFloats(RunOk(t), {1, 1, 3}, {1.5f, 3, 0});
}

TEST(ImageDeformConvTest, MaskScalesTaps) {
  auto t = Op("DeformConv", 19);
  t.Input(F({1, 2, 3}, {1, 1, 3}))
      .Input(F({1}, {1, 1, 1}))
      .Input(F({0, 0, 0}, {1, 1, 3}))
      .Input(Value())
      .Input(F({0.5f, 2.0f, 0.0f}, {1, 1, 3}));
  ExpectFloats(RunOk(t), {1, 1, 3}, {0.5f, 4, 0});
}

TEST(ImageDeformConvTest, OffsetShapeMismatchIsAnError) {
  auto t = Op("DeformConv", 19);
  t.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1}, {1, 1, 1})).Input(F({0, 0}, {1, 1, 2}));
  ExpectError(t, "offset");
}

}  // namespace
}  // namespace onyx
