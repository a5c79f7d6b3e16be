// 3-D float convolutions, which run on oneDNN's blocked kernels (kernels/dnnl_float_conv.h) where it has them: the
// kernel alone (weights read back after the reorder), then Conv nodes in a session against a convolution computed in
// double, with padding, strides, dilations and groups, at 1 and 2 threads, over runs whose input shape changes (each
// new shape builds a convolution from weights the kernel adopted and read back from oneDNN's layout). And 1-D ones,
// which take oneDNN or im2col + GEMM as measured (both forced here), against the same reference (as D = H = 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/model.h"
#include "kernels/dnnl_float_conv.h"
#include "kernels/dnnl_util.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

struct Conv3d {
  int64_t c = 4, m = 8, group = 1;
  int64_t k[3] = {3, 3, 3}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t pad_begin[3] = {1, 1, 1}, pad_end[3] = {1, 1, 1};
};

int64_t OutSize(const Conv3d& c, int axis, int64_t in) {
  return (in + c.pad_begin[axis] + c.pad_end[axis] - (c.k[axis] - 1) * c.dilation[axis] - 1) / c.stride[axis] + 1;
}

// y = conv(x, w) + b in double, x [n, C, d, h, w].
std::vector<double> Reference(const Conv3d& c, const std::vector<float>& x, const Shape& xs,
                              const std::vector<float>& w, const std::vector<float>& b, Shape* ys) {
  const int64_t n = xs[0], in[3] = {xs[2], xs[3], xs[4]};
  const int64_t out[3] = {OutSize(c, 0, in[0]), OutSize(c, 1, in[1]), OutSize(c, 2, in[2])};
  *ys = {n, c.m, out[0], out[1], out[2]};
  const int64_t cg = c.c / c.group, mg = c.m / c.group;
  std::vector<double> y(static_cast<size_t>(n * c.m * out[0] * out[1] * out[2]));
  size_t at = 0;
  for (int64_t b0 = 0; b0 < n; ++b0) {
    for (int64_t o = 0; o < c.m; ++o) {
      const int64_t gi = o / mg;
      for (int64_t z = 0; z < out[0]; ++z) {
        for (int64_t yy = 0; yy < out[1]; ++yy) {
          for (int64_t xx = 0; xx < out[2]; ++xx) {
            double sum = b[static_cast<size_t>(o)];
            for (int64_t i = 0; i < cg; ++i) {
              for (int64_t kd = 0; kd < c.k[0]; ++kd) {
                const int64_t id = z * c.stride[0] + kd * c.dilation[0] - c.pad_begin[0];
                if (id < 0 || id >= in[0]) continue;
                for (int64_t kh = 0; kh < c.k[1]; ++kh) {
                  const int64_t ih = yy * c.stride[1] + kh * c.dilation[1] - c.pad_begin[1];
                  if (ih < 0 || ih >= in[1]) continue;
                  for (int64_t kw = 0; kw < c.k[2]; ++kw) {
                    const int64_t iw = xx * c.stride[2] + kw * c.dilation[2] - c.pad_begin[2];
                    if (iw < 0 || iw >= in[2]) continue;
                    const int64_t ic = gi * cg + i;
                    sum += static_cast<double>(
                               w[static_cast<size_t>(((((o * cg) + i) * c.k[0] + kd) * c.k[1] + kh) * c.k[2] + kw)]) *
                           x[static_cast<size_t>((((b0 * c.c + ic) * in[0] + id) * in[1] + ih) * in[2] + iw)];
                  }
                }
              }
            }
            y[at++] = sum;
          }
        }
      }
    }
  }
  return y;
}

std::vector<float> Random(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

std::string Ints(const int64_t* v, int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string Floats(const std::vector<float>& v) {
  std::ostringstream s;
  s.precision(9);
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str();
}

// A session of the model in text form at `threads`, null (with the test failed) where it does not parse or load.
std::unique_ptr<Session> SessionOf(const std::string& text, int threads) {
  auto model = text::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return nullptr;
  SessionOptions options;
  options.intra_op_num_threads = threads;
  auto session = Session::Create(*model, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(*session) : nullptr;
}

TEST(DnnlFloatConv, MatchesReferenceAndGivesBackItsWeights) {
  if (!kernels::BlockedConvolutionIsFast()) GTEST_SKIP() << "oneDNN has no blocked kernels on this CPU";
  std::mt19937 rng(5);
  Conv3d c;
  c.c = 16;
  c.m = 24;
  const Shape xs{1, c.c, 5, 6, 7};
  const std::vector<float> x = Random(static_cast<size_t>(1 * c.c * 5 * 6 * 7), rng);
  const std::vector<float> w = Random(static_cast<size_t>(c.m * c.c * 27), rng), b = Random(c.m, rng);
  kernels::FloatConvShape s;
  s.in_channels = c.c;
  s.out_channels = c.m;
  s.in = {5, 6, 7};
  s.kernel = {3, 3, 3};
  s.out = {5, 6, 7};
  s.stride = s.dilation = {1, 1, 1};
  s.pad_begin = s.pad_end = {1, 1, 1};
  auto conv = kernels::DnnlFloatConv::Create(s, w.data(), b.data(), 1);
  ASSERT_TRUE(conv.ok()) << conv.status().message();
  ASSERT_NE(*conv, nullptr) << "no fast oneDNN kernel for a 16 -> 24 3x3x3 convolution";
  Shape ys;
  const std::vector<double> want = Reference(c, x, xs, w, b, &ys);
  std::vector<float> y(want.size());
  ASSERT_TRUE((*conv)->Run(x.data(), y.data()).ok());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-4) << "output " << i;
  std::vector<float> back(w.size());
  ASSERT_TRUE((*conv)->CopyPlainWeights(back.data()).ok());
  EXPECT_EQ(back, w);
}

// A one-Conv model of `c` with random weights, run on inputs of `shapes` in turn, at `threads`.
void ExpectSessionMatches(const Conv3d& c, const std::vector<Shape>& shapes, int threads) {
  std::mt19937 rng(11);
  const std::vector<float> w = Random(static_cast<size_t>(c.m * (c.c / c.group) * c.k[0] * c.k[1] * c.k[2]), rng);
  const std::vector<float> b = Random(static_cast<size_t>(c.m), rng);
  const int64_t pads[6] = {c.pad_begin[0], c.pad_begin[1], c.pad_begin[2], c.pad_end[0], c.pad_end[1], c.pad_end[2]};
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[N, " + std::to_string(c.c) +
                           ", D, H, W] x) => (float[N, " + std::to_string(c.m) + ", ?, ?, ?] y) <float[" +
                           std::to_string(c.m) + ", " + std::to_string(c.c / c.group) + ", " + Ints(c.k, 3) +
                           "] w = {" + Floats(w) + "}, float[" + std::to_string(c.m) + "] b = {" + Floats(b) +
                           "}> { y = Conv <group = " + std::to_string(c.group) + ", strides = [" + Ints(c.stride, 3) +
                           "], dilations = [" + Ints(c.dilation, 3) + "], pads = [" + Ints(pads, 6) + "]> (x, w, b) }";
  const std::unique_ptr<Session> session = SessionOf(text, threads);
  ASSERT_NE(session, nullptr);
  for (int round = 0; round < 2; ++round) {  // each shape twice: built, then reused
    for (const Shape& xs : shapes) {
      int64_t count = 1;
      for (int64_t d : xs) count *= d;
      const std::vector<float> x = Random(static_cast<size_t>(count), rng);
      Tensor xt = Tensor::Allocate(DataType::kFloat, xs);
      std::copy(x.begin(), x.end(), xt.data<float>());
      std::vector<Value> got;
      const Status st = session->Run({{"x", xt}}, {}, &got);
      ASSERT_TRUE(st.ok()) << st.message();
      Shape ys;
      const std::vector<double> want = Reference(c, x, xs, w, b, &ys);
      const Tensor& y = got[0].tensor();
      ASSERT_EQ(y.shape(), ys);
      for (int64_t i = 0; i < y.size(); ++i) {
        ASSERT_NEAR(y.data<float>()[i], want[static_cast<size_t>(i)], 1e-4)
            << "input " << ShapeToString(xs) << ", threads " << threads << ", output " << i;
      }
    }
  }
}

TEST(Conv3d, MatchesReferenceAcrossShapesAndThreads) {
  Conv3d plain;
  plain.c = 16;
  plain.m = 32;
  for (int threads : {1, 2}) ExpectSessionMatches(plain, {{1, 16, 4, 9, 10}, {2, 16, 3, 5, 6}}, threads);
}

TEST(Conv3d, StridedDilatedGroupedAndAsymmetricPads) {
  Conv3d c;
  c.c = 8;
  c.m = 16;
  c.group = 2;
  c.k[0] = 1;
  c.stride[1] = c.stride[2] = 2;
  c.dilation[2] = 2;
  c.pad_begin[0] = 0;
  c.pad_end[0] = 0;
  c.pad_end[2] = 2;
  ExpectSessionMatches(c, {{1, 8, 3, 11, 12}, {1, 8, 2, 7, 9}}, 2);
}

// A one-Conv model of 1-D convolution `c` (its last axis; the first two axes' kernel 1 and no padding), run on
// inputs of `widths` in turn with the implementation `impl` forced, at `threads`, against Reference as 3-D.
void ExpectConv1dMatches(const Conv3d& c, const std::vector<int64_t>& widths, const char* impl, int threads) {
  ::setenv("ONYX_FLOAT_CONV1D_IMPL", impl, 1);
  struct Unset {
    ~Unset() { ::unsetenv("ONYX_FLOAT_CONV1D_IMPL"); }
  } unset;
  std::mt19937 rng(13);
  const int64_t k = c.k[2];
  const std::vector<float> w = Random(static_cast<size_t>(c.m * (c.c / c.group) * k), rng);
  const std::vector<float> b = Random(static_cast<size_t>(c.m), rng);
  const std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[1, " + std::to_string(c.c) + ", W] x) => (float[1, " +
      std::to_string(c.m) + ", ?] y) <float[" + std::to_string(c.m) + ", " + std::to_string(c.c / c.group) + ", " +
      std::to_string(k) + "] w = {" + Floats(w) + "}, float[" + std::to_string(c.m) + "] b = {" + Floats(b) +
      "}> { y = Conv <group = " + std::to_string(c.group) + ", strides = [" + std::to_string(c.stride[2]) +
      "], dilations = [" + std::to_string(c.dilation[2]) + "], pads = [" + std::to_string(c.pad_begin[2]) + ", " +
      std::to_string(c.pad_end[2]) + "]> (x, w, b) }";
  const std::unique_ptr<Session> session = SessionOf(text, threads);
  ASSERT_NE(session, nullptr);
  for (int round = 0; round < 2; ++round) {
    for (int64_t width : widths) {
      const std::vector<float> x = Random(static_cast<size_t>(c.c * width), rng);
      Tensor xt = Tensor::Allocate(DataType::kFloat, {1, c.c, width});
      std::copy(x.begin(), x.end(), xt.data<float>());
      std::vector<Value> got;
      const Status st = session->Run({{"x", xt}}, {}, &got);
      ASSERT_TRUE(st.ok()) << st.message();
      Shape ys;
      const std::vector<double> want = Reference(c, x, {1, c.c, 1, 1, width}, w, b, &ys);
      const Tensor& y = got[0].tensor();
      ASSERT_EQ(y.shape(), (Shape{1, c.m, ys[4]}));
      for (int64_t i = 0; i < y.size(); ++i) {
        ASSERT_NEAR(y.data<float>()[i], want[static_cast<size_t>(i)], 1e-4)
            << impl << ", width " << width << ", threads " << threads << ", output " << i;
      }
    }
  }
}

Conv3d Conv1d(int64_t c, int64_t m, int64_t k) {
  Conv3d conv;
  conv.c = c;
  conv.m = m;
  conv.k[0] = conv.k[1] = 1;
  conv.k[2] = k;
  conv.pad_begin[0] = conv.pad_begin[1] = conv.pad_end[0] = conv.pad_end[1] = 0;
  return conv;
}

TEST(Conv1d, BothImplementationsMatchTheReference) {
  Conv3d strided = Conv1d(32, 48, 3);  // a speech front end's layers: kernel 3, stride 2, no padding
  strided.stride[2] = 2;
  strided.pad_begin[2] = strided.pad_end[2] = 0;
  Conv3d first = Conv1d(1, 16, 10);  // its first: one input channel, kernel 10, stride 5
  first.stride[2] = 5;
  first.pad_begin[2] = first.pad_end[2] = 0;
  Conv3d grouped = Conv1d(16, 32, 5);  // grouped, dilated, asymmetric padding
  grouped.group = 4;
  grouped.dilation[2] = 2;
  grouped.pad_begin[2] = 3;
  grouped.pad_end[2] = 1;
  for (const char* impl : {"dnnl", "im2col"}) {
    for (int threads : {1, 2}) {
      ExpectConv1dMatches(strided, {41, 100}, impl, threads);
      ExpectConv1dMatches(first, {200, 57}, impl, threads);
      ExpectConv1dMatches(grouped, {33, 64}, impl, threads);
    }
  }
}

}  // namespace
}  // namespace onyx
