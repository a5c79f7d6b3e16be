// AveragePool in ONNX Runtime's summation order (ops/nn/pool_ort_order.h) as a session at optimization level disabled
// runs it, checked bit for bit against ONNX Runtime 1.30's outputs: 1-D and 3-D windows (which pool.cc's always-on
// order covers since session 30, as it did 2-D ones: those match at level all too), ceil_mode with count_include_pad
// and AveragePool-19 with dilations (which it does not cover). The expected values are ONNX Runtime's
// (onnxruntime-node 1.30, CPU, optimization disabled) for the input below, written as bits; for the cases outside the
// always-on order onyx differs from them in some elements at level all, so the test tells the orders apart.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "op_test_helpers.h"

namespace onyx {
namespace {

struct PoolCase {
  std::string label;
  int64_t opset;
  std::vector<int64_t> shape, kernel, strides, pads, dilations;
  int64_t ceil_mode, count_include_pad;
  std::vector<uint32_t> expected;  // ONNX Runtime's output bits
};

// x[i] = ((i * 7919 + 13) mod 2001 - 1000) / 37 in float: the same bits in numpy and here.
Tensor Input(const Shape& shape) {
  Tensor t = Tensor::Allocate(DataType::kFloat, Shape(shape));
  for (int64_t i = 0; i < t.size(); ++i) {
    t.data<float>()[i] = static_cast<float>((i * 7919 + 13) % 2001 - 1000) / 37.0f;
  }
  return t;
}

const std::vector<PoolCase>& Cases() {
  static const std::vector<PoolCase> cases = {
      {"1-D, stride 2, pads 2/1 (MLAS's 1-D loop)",
       17,
       {1, 2, 24},
       {5},
       {2},
       {2, 1},
       {},
       0,
       0,
       {0x40e29837, 0x413fe9dc, 0x4191bacf, 0x4159f22a, 0x41106eb4, 0x408dd67d, 0xbe260dd6, 0xc098375a,
        0xc1159f22, 0xc15f2298, 0xc1945306, 0xc1afe453, 0x41c06eb3, 0x41ae0dd6, 0x41894c1c, 0x414914c2,
        0x40ff2298, 0x4058375a, 0xbf9bacfa, 0xc0b9f22a, 0xc1267c8a, 0xc1700000, 0xc19cc1bb, 0xc1b85307}},
      {"3-D 3x3x3, pads 1 (MLAS's 3-D vector kernel)",
       17,
       {1, 1, 4, 5, 6},
       {3, 3, 3},
       {1, 1, 1},
       {1, 1, 1, 1, 1, 1},
       {},
       0,
       0,
       {0x40a5f22b, 0x40c94c1d, 0x41080000, 0x40c67c8b, 0x4079f22b, 0x40306eb4, 0x3f0c1bad, 0x3f66a172, 0x3fcdd67d,
        0xbf306eb2, 0xc03f2297, 0xc0845307, 0x3e914c1b, 0xbf5d67c7, 0xc04a60de, 0xc0aeb3e4, 0xc0f8375b, 0xc10e7c8a,
        0x4090dd68, 0x4058375a, 0x3f8a60dd, 0xbf9bacfb, 0xc060dd69, 0xc0953070, 0x41327c8a, 0x41201bad, 0x40f6b3e5,
        0x40ad306f, 0x404759f3, 0x3ffbacfb, 0x3ca60f00, 0x3ebf6c72, 0x3f8a60e0, 0xbf9bacf9, 0xbf024e6b, 0xbe1f2295,
        0x3f23bf6c, 0x3efc27fb, 0x3e4af480, 0xc00657a3, 0xc0192d5b, 0xc0229836, 0x3ff06eb4, 0x3f3acf92, 0xbfc8a60f,
        0xc07759f3, 0xc08517d5, 0xc089cd43, 0x40c3e454, 0x409f2299, 0x402b3e45, 0x3ec1bacc, 0xbff59f24, 0xc0445308,
        0x4103e453, 0x40e306eb, 0x40998375, 0x40200000, 0x3e4f9152, 0xbf722981, 0xbfa60dd5, 0xc01c8a60, 0xc097c8a6,
        0xc0e14c1c, 0xc0550b88, 0xbfbc8a5d, 0x3f5306ee, 0xbea60dd1, 0xc027c8a6, 0xc09d67c8, 0xc04d7414, 0xc016c655,
        0x40a22984, 0x407acf91, 0x3fcf914b, 0xbf2cf91a, 0xbf784ff9, 0xbf8efdb4, 0x405350b7, 0x4009cd42, 0xbe139a77,
        0xbee07afc, 0xbf3b945f, 0x3df914ce, 0x401acf91, 0x3fa29839, 0xbf83759c, 0xbea3bf67, 0x3ec657a4, 0x400f914c,
        0xc086b3e5, 0xc0ab75a0, 0xc0f4f915, 0xc11f3e45, 0xc04f2299, 0x3df914c0, 0x401acf91, 0x3fa29837, 0xbf8375a1,
        0xc054c1bc, 0x3ec6579c, 0x400f914c, 0x40d5306d, 0x40b06eb4, 0x404dd67c, 0x3f6b3e44, 0x3fd024e5, 0x3ffd67c8,
        0x3ff22984, 0x3f3e4534, 0xbfc6eb3d, 0xbf58caf2, 0xbe0efdb2, 0x3fdbacf9, 0xc0a00000, 0xc0c4c1bb, 0xc1072298,
        0xc0c7914c, 0xc080dd68, 0xbf2b3e44}},
      {"2-D stride 2, ceil_mode, count_include_pad (ONNX Runtime's own loop)",
       17,
       {1, 1, 9, 9},
       {3, 3},
       {2, 2},
       {1, 1, 1, 1},
       {},
       1,
       1,
       {0x3f8874db, 0x41050b88, 0x40a81273, 0x400c1bac, 0xbd939a72, 0x3ffa3bf7, 0xbf0375a0, 0xc0a3759f, 0x40142e1f,
        0x405024e6, 0xbfc9cd45, 0x3e4af48e, 0x40f3e454, 0x4041bad0, 0xbe8efdb5, 0xc0a3759e, 0xc0a32bd2, 0x4014c1ba,
        0xc0114c1c, 0x400caf47, 0x4035d057, 0x3ffb632b, 0xbf8caf4a, 0xc0853070, 0x3fd9f229}},
      {"AveragePool-19, dilations 2, count_include_pad (ONNX Runtime's own loop)",
       19,
       {1, 1, 9, 9},
       {3, 3},
       {1, 1},
       {2, 2, 2, 2},
       {2, 2},
       0,
       1,
       {0xc0813fcf, 0x3f72ee4e, 0xc092bd1e, 0xbddd67e4, 0x408bd1e0, 0x40359f24, 0x40ea1712, 0x4037ed8d, 0x40fb9460,
        0x40998fc3, 0x4071c71c, 0x40b55555, 0x40845307, 0x4026a171, 0x3f8939a7, 0xbeeb3e47, 0xbe9cd430, 0xbfa9e5db,
        0xc09a3bf7, 0xbeaf4787, 0xc0d0b882, 0xc033e454, 0x3f66a175, 0xbfb2bd1a, 0x40142e24, 0xbeeb3e3c, 0x4080939b,
        0xbf139a84, 0x4079a85c, 0x403632bd, 0x40d1dfb7, 0x40885c40, 0x40ff2299, 0x40b59f23, 0x40722984, 0x401024e7,
        0xc015e8f1, 0xc077ed8e, 0xc0b9f22a, 0xc101bad0, 0xc08caf48, 0xc0d632bd, 0xc03ed8cc, 0xc07f6c64, 0x3ef914c2,
        0xc083759e, 0x3ebd1df9, 0xc01cd42c, 0x3fa17109, 0xbf849cd4, 0x402b3e45, 0x40cc657c, 0x3e812732, 0x409759f2,
        0x40c49cd5, 0x40939a85, 0x40dd67c9, 0x4093e453, 0x4014c1bb, 0x3cdd678e, 0xc0114c1c, 0xbfc1bacf, 0xc042e205,
        0xc0fd8064, 0xc03bc594, 0xc0ecf915, 0xc03b632c, 0xc08eb3e4, 0x3c939a39, 0x408fdb19, 0xbf812734, 0x407ea799,
        0x40dd98fc, 0x40bcecc7, 0x410db196, 0x40ea60de, 0x40b95e8e, 0x40885c41, 0x402eb3e4, 0x3fe8efdc, 0x3f4c7e13}},
  };
  return cases;
}

Tensor RunPool(const PoolCase& pc, optimizer::OptLevel level) {
  testing::OpTest t = testing::Op("AveragePool", pc.opset)
                          .Attr("kernel_shape", pc.kernel)
                          .Attr("strides", pc.strides)
                          .Attr("pads", pc.pads)
                          .Attr("ceil_mode", pc.ceil_mode)
                          .Attr("count_include_pad", pc.count_include_pad)
                          .Input(Value(Input(Shape(pc.shape))));
  if (!pc.dilations.empty()) t.Attr("dilations", pc.dilations);
  t.options.optimization_level = level;
  t.options.intra_op_num_threads = 1;
  return testing::RunOk(t);
}

int64_t Mismatches(const Tensor& y, const std::vector<uint32_t>& expected) {
  if (y.size() != static_cast<int64_t>(expected.size())) return -1;
  int64_t bad = 0;
  for (int64_t i = 0; i < y.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, y.data<float>() + i, sizeof(bits));
    bad += bits != expected[static_cast<size_t>(i)];
  }
  return bad;
}

TEST(PoolOrtOrder, AveragePoolMatchesOnnxRuntimeBitForBit) {
  for (const PoolCase& pc : Cases()) {
    EXPECT_EQ(Mismatches(RunPool(pc, optimizer::OptLevel::kDisabled), pc.expected), 0) << pc.label;
  }
}

TEST(PoolOrtOrder, WithoutTheOrderSomeElementsDiffer) {
  // The same cases at level all, where the order is off (onyx's double-precision sums) except where pool.cc takes it
  // always (1-D to 3-D windows without dilation that stay within the padded input): ONNX Runtime's bits there, not
  // elsewhere, so the test above would fail without the order.
  for (const PoolCase& pc : Cases()) {
    const bool always_on = pc.shape.size() != 4;  // the 1-D and 3-D cases; the 2-D ones use ceil_mode or dilations
    const int64_t mismatches = Mismatches(RunPool(pc, optimizer::OptLevel::kAll), pc.expected);
    if (always_on) {
      EXPECT_EQ(mismatches, 0) << pc.label;
    } else {
      EXPECT_GT(mismatches, 0) << pc.label;
    }
  }
}

// A pad as large as the kernel (ONNX Runtime refuses such a model; onyx runs it): a window of padding rows only
// sums nothing. The 2-D vector kernel read the row past the input there (ASan: heap-buffer-overflow).
TEST(PoolOrtOrder, WindowOfPaddingOnly) {
  const PoolCase pc{"kernel 1x2, pads 0/0/1/1", 17, {1, 3, 2, 11}, {1, 2}, {1, 1}, {0, 0, 1, 1}, {}, 0, 1, {}};
  const Tensor y = RunPool(pc, optimizer::OptLevel::kDisabled);
  ASSERT_EQ(y.shape(), (Shape{1, 3, 3, 11}));
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t w = 0; w < 11; ++w) EXPECT_EQ(y.data<float>()[(c * 3 + 2) * 11 + w], 0.0f) << c << "," << w;
  }
}

}  // namespace
}  // namespace onyx
