// kernels/binary_arithmetic.h on every Highway target this CPU runs: each result is the scalar IEEE operation's,
// bit for bit (NaN as NaN), for every stepping of the operands, lengths that leave a tail, in place, and the
// repeated-block rows in both operand orders and both block sizes.
#include "kernels/binary_arithmetic.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace onyx::kernels {
namespace {

constexpr BinaryOp kOps[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv};

float Scalar(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
  }
  return 0;
}

// Values with the IEEE corner cases among ordinary ones: NaN, infinities, signed zeros, subnormals, extremes.
std::vector<float> Values(size_t n, uint32_t seed) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::min(),
                            1.0f};
  std::vector<float> v(n);
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = (s >> 28) < 3 ? specials[(s >> 8) % 10] : static_cast<float>(static_cast<int32_t>(s >> 8) % 20001) / 137.0f;
  }
  return v;
}

void ExpectSameBits(float want, float got, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where;
  } else {
    EXPECT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(got)) << where << ": " << want << " vs " << got;
  }
}

template <typename Body>
void ForEachTarget(Body body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    body(std::string(hwy::TargetName(target)));
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(BinaryArithmetic, ArraysAreTheScalarOperationsBitForBit) {
  ForEachTarget([](const std::string& target) {
    for (BinaryOp op : kOps) {
      for (int64_t n : {1, 7, 16, 33, 100}) {
        const std::vector<float> a = Values(static_cast<size_t>(n), 1), b = Values(static_cast<size_t>(n), 2);
        for (int64_t a_step : {0, 1}) {
          for (int64_t b_step : {0, 1}) {
            std::vector<float> out(static_cast<size_t>(n));
            BinaryArrays(op, a.data(), a_step, b.data(), b_step, out.data(), n);
            for (int64_t i = 0; i < n; ++i) {
              ExpectSameBits(Scalar(op, a[static_cast<size_t>(i * a_step)], b[static_cast<size_t>(i * b_step)]),
                             out[static_cast<size_t>(i)],
                             target + " op " + std::to_string(static_cast<int>(op)) + " n " + std::to_string(n) +
                                 " steps " + std::to_string(a_step) + std::to_string(b_step) + " i " +
                                 std::to_string(i));
            }
          }
        }
        // In place over a.
        std::vector<float> inplace = a;
        BinaryArrays(op, inplace.data(), 1, b.data(), 1, inplace.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          ExpectSameBits(Scalar(op, a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]),
                         inplace[static_cast<size_t>(i)], target + " in place");
        }
      }
    }
  });
}

TEST(BinaryArithmetic, BlockRowsRepeatOneBlockAgainstWalkingRows) {
  ForEachTarget([](const std::string& target) {
    for (BinaryOp op : kOps) {
      for (int64_t block : {8, 16}) {
        for (bool a_walks : {true, false}) {
          const int64_t rows = 5;
          const std::vector<float> walk = Values(static_cast<size_t>(rows * block), 3);
          const std::vector<float> fixed = Values(static_cast<size_t>(block), 4);
          std::vector<float> out(walk.size());
          const float* a = a_walks ? walk.data() : fixed.data();
          const float* b = a_walks ? fixed.data() : walk.data();
          BinaryBlockRows(op, a, b, out.data(), rows, block, a_walks);
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t j = 0; j < block; ++j) {
              const float w = walk[static_cast<size_t>(r * block + j)], f = fixed[static_cast<size_t>(j)];
              ExpectSameBits(a_walks ? Scalar(op, w, f) : Scalar(op, f, w), out[static_cast<size_t>(r * block + j)],
                             target + " block " + std::to_string(block) + (a_walks ? " a walks" : " b walks"));
            }
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace onyx::kernels
