#include "kernels/winograd_weights.h"

#include <algorithm>
#include <cstring>
#include <vector>

// The same bytes as oneDNN (built for baseline x86-64, no FMA) only if products and sums round separately, whatever
// -march this file is built with.
#pragma GCC optimize("fp-contract=off")

namespace onyx::kernels {
namespace {

// The weight transforms G of F(2x2, 3x3) (alpha 4) and F(4x4, 3x3) (alpha 6): the constants oneDNN transforms with.
constexpr float kG4[4][3] = {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};
constexpr float kG6[6][3] = {{1.13777777777778f, 0.f, 0.f},
                             {-0.688403361344538f, -0.430252100840336f, -0.26890756302521f},
                             {-0.688403361344538f, 0.430252100840336f, -0.26890756302521f},
                             {0.119514472455649f, 0.179271708683473f, 0.26890756302521f},
                             {0.119514472455649f, -0.179271708683473f, 0.26890756302521f},
                             {0.f, 0.f, 1.f}};

// G w G^T of one 3x3 kernel into `v` (alpha x alpha), summed as oneDNN's reorder sums: along the kernel's rows
// first, t[h][j] = ((0 + w[h][0] g[j][0]) + w[h][1] g[j][1]) + w[h][2] g[j][2], then along its columns,
// v[i][j] = ((0 + g[i][0] t[0][j]) + g[i][1] t[1][j]) + g[i][2] t[2][j]. (The leading 0 + is kept: it turns a -0
// product into +0, as there.)
template <int kAlpha>
void TransformTile(const float* w, const float (&g)[kAlpha][3], float* v) {
  float t[3][kAlpha];
  for (int h = 0; h < 3; ++h) {
    for (int j = 0; j < kAlpha; ++j) {
      float s = 0.0f;
      for (int x = 0; x < 3; ++x) s += w[h * 3 + x] * g[j][x];
      t[h][j] = s;
    }
  }
  for (int i = 0; i < kAlpha; ++i) {
    for (int j = 0; j < kAlpha; ++j) {
      float s = 0.0f;
      for (int k = 0; k < 3; ++k) s += g[i][k] * t[k][j];
      v[i * kAlpha + j] = s;
    }
  }
}

// Where transformed element (u = u_h * alpha + u_w, input channel i, output channel o) goes: both layouts put it at
// u * u_stride + in_offset[i] + out_offset[o] (each index a sum of per-dimension terms).
struct Layout {
  int64_t u_stride = 0;
  std::vector<int64_t> in_offset, out_offset;

  explicit Layout(const dnnl_wino_desc_t& d)
      : in_offset(static_cast<size_t>(d.ic)), out_offset(static_cast<size_t>(d.oc)) {
    const int64_t icb = d.ic_block, ocb = d.oc_block, oc2 = d.oc2_block, nb_ic = d.ic / icb;
    if (d.wino_format == dnnl_wino_wei_aaOio) {
      // [u][oc block][ic][oc in block]
      u_stride = int64_t{d.oc} * d.ic;
      for (int64_t i = 0; i < d.ic; ++i) in_offset[i] = i * ocb;
      for (int64_t o = 0; o < d.oc; ++o) out_offset[o] = (o / ocb) * d.ic * ocb + o % ocb;
    } else if (d.wino_format == dnnl_wino_wei_aaOBiOo) {
      // [u][oc chunk][ic block][ic in block][oc block in chunk][oc in block]
      const int64_t chunks = d.oc / ocb / oc2;
      u_stride = chunks * nb_ic * icb * oc2 * ocb;
      for (int64_t i = 0; i < d.ic; ++i) in_offset[i] = (i / icb) * icb * oc2 * ocb + (i % icb) * oc2 * ocb;
      for (int64_t o = 0; o < d.oc; ++o) {
        const int64_t ob = o / ocb;
        out_offset[o] = (ob / oc2) * nb_ic * icb * oc2 * ocb + (ob % oc2) * ocb + o % ocb;
      }
    } else {
      // OBaaIBOIio: [oc chunk][u][ic chunk][oc block in chunk][ic block in chunk][ic in block][oc in block]
      const int64_t ic2 = d.ic2_block, alpha2 = int64_t{d.alpha} * d.alpha, ic_chunks = nb_ic / ic2;
      const int64_t chunk = ic_chunks * oc2 * ic2 * icb * ocb;  // one u of one oc chunk
      u_stride = chunk;
      for (int64_t i = 0; i < d.ic; ++i) {
        const int64_t ib = i / icb;
        in_offset[i] = (ib / ic2) * oc2 * ic2 * icb * ocb + (ib % ic2) * icb * ocb + (i % icb) * ocb;
      }
      for (int64_t o = 0; o < d.oc; ++o) {
        const int64_t ob = o / ocb;
        out_offset[o] = (ob / oc2) * alpha2 * chunk + (ob % oc2) * ic2 * icb * ocb + o % ocb;
      }
    }
  }
};

template <int kAlpha>
void Transform(const float* weights, int64_t oc, int64_t ic, const Layout& layout, const float (&g)[kAlpha][3],
               float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t o = 0; o < oc; ++o) {
    float v[kAlpha * kAlpha];
    float* out_o = out + layout.out_offset[static_cast<size_t>(o)];
    for (int64_t i = 0; i < ic; ++i) {
      TransformTile<kAlpha>(weights + (o * ic + i) * 9, g, v);
      float* dst = out_o + layout.in_offset[static_cast<size_t>(i)];
      for (int u = 0; u < kAlpha * kAlpha; ++u) dst[u * layout.u_stride] = v[u];
    }
  }
}

}  // namespace

bool TransformWinogradWeights(const float* weights, int64_t oc, int64_t ic, const dnnl::memory::desc& md, float* out) {
  const dnnl_memory_desc_t& c = md.data;
  if (c.format_kind != dnnl_format_kind_wino || c.data_type != dnnl_f32) return false;
  const dnnl_wino_desc_t& d = c.format_desc.wino_desc;
  const bool f23 = (d.wino_format == dnnl_wino_wei_aaOio || d.wino_format == dnnl_wino_wei_aaOBiOo) && d.alpha == 4;
  const bool f43 = d.wino_format == dnnl_wino_wei_OBaaIBOIio && d.alpha == 6;
  if ((!f23 && !f43) || d.r != 3 || d.oc < oc || d.ic < ic || d.oc_block <= 0 || d.ic_block <= 0 || d.oc2_block <= 0 ||
      (f43 && d.ic2_block <= 0) || d.oc % (d.oc_block * d.oc2_block) != 0 ||
      d.ic % (d.ic_block * (f43 ? d.ic2_block : 1)) != 0) {
    return false;
  }
  const size_t elements = static_cast<size_t>(d.alpha) * d.alpha * d.oc * d.ic;
  if (d.size < elements * sizeof(float)) return false;
  // Padded channels hold zeros (oneDNN transforms zero kernels for them: zeros too).
  if (d.oc != oc || d.ic != ic) std::memset(out, 0, elements * sizeof(float));
  const Layout layout(d);
  if (f23) {
    Transform<4>(weights, oc, ic, layout, kG4, out);
  } else {
    Transform<6>(weights, oc, ic, layout, kG6, out);
  }
  return true;
}

}  // namespace onyx::kernels
