// kernels::TransformWinogradWeights against oneDNN's own reorder into the Winograd weight layouts it picks here.
#include "kernels/winograd_weights.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/dnnl_util.h"

namespace onyx::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// The weights descriptor of oneDNN's Winograd convolution for a 3x3, stride 1, pad 1 layer (null when it has none).
std::optional<memory::desc> WinogradWeightsDesc(int64_t oc, int64_t ic, int64_t hw) {
  const memory::desc src({1, ic, hw, hw}, memory::data_type::f32, Tag::nChw16c);
  const memory::desc dst({1, oc, hw, hw}, memory::data_type::f32, Tag::nChw16c);
  const memory::desc w({oc, ic, 3, 3}, memory::data_type::f32, Tag::any);
  try {
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, src, w, dst, {1, 1}, {1, 1}, {1, 1});
    const dnnl::convolution_forward::primitive_desc pd(desc, DnnlEngine());
    if (pd.weights_desc().data.format_kind != dnnl_format_kind_wino) return std::nullopt;
    return pd.weights_desc();
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

TEST(WinogradWeights, SameBytesAsOneDnnsReorder) {
  std::set<int> formats;
  int compared = 0;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const auto& [oc, ic, hw] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{64, 64, 56},
                                                                                     {128, 128, 28},
                                                                                     {256, 256, 14},
                                                                                     {512, 512, 7},
                                                                                     {96, 32, 20},
                                                                                     {48, 80, 12},
                                                                                     {512, 256, 28},
                                                                                     {64, 512, 56},
                                                                                     {160, 96, 9}}) {
    const auto md = WinogradWeightsDesc(oc, ic, hw);
    if (!md) continue;
    std::vector<float> w(static_cast<size_t>(oc * ic * 9));
    for (float& x : w) x = dist(rng);
    memory plain({{oc, ic, 3, 3}, memory::data_type::f32, Tag::oihw}, DnnlEngine(), w.data());
    memory want(*md, DnnlEngine());
    dnnl::reorder(plain, want).execute(DnnlStream(), plain, want);
    DnnlStream().wait();
    memory got(*md, DnnlEngine());
    std::memset(got.get_data_handle(), 0x7f, md->get_size());  // garbage where nothing is written
    ASSERT_TRUE(TransformWinogradWeights(w.data(), oc, ic, *md, static_cast<float*>(got.get_data_handle())))
        << oc << "x" << ic;
    const size_t n = static_cast<size_t>(md->data.format_desc.wino_desc.alpha) * md->data.format_desc.wino_desc.alpha *
                     md->data.format_desc.wino_desc.oc * md->data.format_desc.wino_desc.ic;
    EXPECT_EQ(std::memcmp(got.get_data_handle(), want.get_data_handle(), n * sizeof(float)), 0)
        << oc << "x" << ic << " format " << md->data.format_desc.wino_desc.wino_format;
    formats.insert(md->data.format_desc.wino_desc.wino_format);
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "oneDNN offers no float Winograd convolution on this CPU";
  std::string seen;
  for (int f : formats) seen += std::to_string(f) + " ";
  RecordProperty("formats", seen);
  std::printf("compared %d layers, wino formats seen: %s\n", compared, seen.c_str());
}

TEST(WinogradWeights, DeclinesOtherLayouts) {
  const memory::desc blocked({64, 64, 3, 3}, memory::data_type::f32, Tag::OIhw16i16o);
  std::vector<float> w(64 * 64 * 9), out(64 * 64 * 9);
  EXPECT_FALSE(TransformWinogradWeights(w.data(), 64, 64, blocked, out.data()));
}

}  // namespace
}  // namespace onyx::kernels
