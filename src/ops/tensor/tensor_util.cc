#include "ops/tensor/tensor_util.h"

#include <emmintrin.h>  // SSE2: baseline x86-64, as the library is built

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ops/common/op_util.h"
#include "ops/common/parallel.h"

namespace onyx::ops::movement {

Tensor UnpackSubByte(const Tensor& t) {
  Tensor out = Tensor::Allocate(DataType::kUint8, t.shape());
  const int bits = DataTypeBits(t.type());
  uint8_t* o = out.data<uint8_t>();
  for (int64_t i = 0; i < t.size(); ++i) o[i] = GetSubByte(t.raw(), bits, i);
  return out;
}

Tensor PackSubByte(const Tensor& bytes, DataType type) {
  Tensor out = Tensor::Allocate(type, bytes.shape(), /*zero=*/true);
  const int bits = DataTypeBits(type);
  const uint8_t* b = bytes.data<uint8_t>();
  for (int64_t i = 0; i < bytes.size(); ++i) SetSubByte(out.raw(), bits, i, b[i]);
  return out;
}

namespace {

// Drops dims of size 1 and merges neighbours that are contiguous across them on both sides.
void CollapseDims(const Shape& shape, const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides,
                  Shape* dims, std::vector<int64_t>* ss, std::vector<int64_t>* ds) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!dims->empty() && ss->back() == src_strides[i] * shape[i] && ds->back() == dst_strides[i] * shape[i]) {
      dims->back() *= shape[i];
      ss->back() = src_strides[i];
      ds->back() = dst_strides[i];
      continue;
    }
    dims->push_back(shape[i]);
    ss->push_back(src_strides[i]);
    ds->push_back(dst_strides[i]);
  }
}

// The collapsed copy as runs of contiguous elements: false unless the innermost dim is contiguous on both sides;
// else the run length and the dims (with their strides) that the runs repeat over.
bool ContiguousRuns(const Shape& dims, const std::vector<int64_t>& ss, const std::vector<int64_t>& ds, Shape* outer,
                    std::vector<int64_t>* outer_src, std::vector<int64_t>* outer_dst, int64_t* run) {
  if (dims.empty()) {
    *run = 1;
    return true;
  }
  if (ss.back() != 1 || ds.back() != 1) return false;
  *run = dims.back();
  outer->assign(dims.begin(), dims.end() - 1);
  outer_src->assign(ss.begin(), ss.end() - 1);
  outer_dst->assign(ds.begin(), ds.end() - 1);
  return true;
}

// One 16 x 16 tile of bytes transposed: dst[a * dst_stride + b] = src[b * src_stride + a]. Sixteen rows in
// registers, then four rounds of interleaving (8-, 16-, 32-, 64-bit lanes), each pairing rows two, four and eight
// apart, leave column a of the tile in register a.
void Transpose16x16Bytes(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride) {
  __m128i r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * src_stride));
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm_unpacklo_epi8(r[i], r[i + 1]);      // rows i, i+1 interleaved: columns 0-7
    t[i + 1] = _mm_unpackhi_epi8(r[i], r[i + 1]);  // columns 8-15
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm_unpacklo_epi16(t[i], t[i + 2]);          // rows i..i+3: columns 0-3
    r[i + 1] = _mm_unpackhi_epi16(t[i], t[i + 2]);      // 4-7
    r[i + 2] = _mm_unpacklo_epi16(t[i + 1], t[i + 3]);  // 8-11
    r[i + 3] = _mm_unpackhi_epi16(t[i + 1], t[i + 3]);  // 12-15
  }
  for (int h = 0; h < 16; h += 8) {
    for (int j = 0; j < 4; ++j) {
      t[h + 2 * j] = _mm_unpacklo_epi32(r[h + j], r[h + 4 + j]);      // rows h..h+7: columns 4j, 4j+1
      t[h + 2 * j + 1] = _mm_unpackhi_epi32(r[h + j], r[h + 4 + j]);  // 4j+2, 4j+3
    }
  }
  for (int j = 0; j < 8; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * j) * dst_stride), _mm_unpacklo_epi64(t[j], t[j + 8]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * j + 1) * dst_stride), _mm_unpackhi_epi64(t[j], t[j + 8]));
  }
}

// One 4 x 4 tile of 4-byte values transposed (as Transpose16x16Bytes), in two rounds of interleaving.
void Transpose4x4Words(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride) {
  __m128i r[4], t[4];
  for (int i = 0; i < 4; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * src_stride));
  t[0] = _mm_unpacklo_epi32(r[0], r[1]);
  t[1] = _mm_unpackhi_epi32(r[0], r[1]);
  t[2] = _mm_unpacklo_epi32(r[2], r[3]);
  t[3] = _mm_unpackhi_epi32(r[2], r[3]);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_unpacklo_epi64(t[0], t[2]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + dst_stride), _mm_unpackhi_epi64(t[0], t[2]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * dst_stride), _mm_unpacklo_epi64(t[1], t[3]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * dst_stride), _mm_unpackhi_epi64(t[1], t[3]));
}

// A full 16 x 16 tile (dst[a * dk + b] = src[b * sd + a]) in registers where the element size has a vector
// transpose; false otherwise.
template <typename E>
bool TransposeFullTile(const E* src, int64_t sd, E* dst, int64_t dk) {
  if constexpr (sizeof(E) == 1) {
    Transpose16x16Bytes(reinterpret_cast<const uint8_t*>(src), sd, reinterpret_cast<uint8_t*>(dst), dk);
    return true;
  } else if constexpr (sizeof(E) == 4) {
    for (int a = 0; a < 16; a += 4) {
      for (int b = 0; b < 16; b += 4) {
        Transpose4x4Words(reinterpret_cast<const uint32_t*>(src) + b * sd + a, sd,
                          reinterpret_cast<uint32_t*>(dst) + a * dk + b, dk);
      }
    }
    return true;
  } else {
    return false;
  }
}

// dst[a * dk + b] = src[b * sd + a] for a in [a_lo, a_hi), b < N, where a group of N <= 4 values is contiguous in the
// destination (dk == N): planes interleaved, an RGB image's NCHW -> NHWC. With N known the compiler keeps the
// group's loads and stores in registers; 16 x 16 tiles would be 3 wide here and run element by element.
template <int N, typename E>
void InterleavePlanes(const E* src, int64_t sd, E* dst, int64_t a_lo, int64_t a_hi) {
  for (int64_t a = a_lo; a < a_hi; ++a) {
    for (int b = 0; b < N; ++b) dst[a * N + b] = src[b * sd + a];
  }
}

// dst[a * dk + b] = src[b * N + a] for a < N, b in [b_lo, b_hi), where a group of N <= 4 values is contiguous in the
// source: NHWC -> NCHW of an RGB image (a converted TensorFlow model's first Transpose).
template <int N, typename E>
void DeinterleavePlanes(const E* src, E* dst, int64_t dk, int64_t b_lo, int64_t b_hi) {
  for (int64_t b = b_lo; b < b_hi; ++b) {
    for (int a = 0; a < N; ++a) dst[a * dk + b] = src[b * N + a];
  }
}

// The transposing copy of TiledTranspose (source axis k contiguous, nk long; destination axis d contiguous, nd long,
// strided sd in the source; k strided dk in the destination) where one side's contiguous axis is a group of 2-4
// values packed next to each other (InterleavePlanes, DeinterleavePlanes), in chunks of 4096 groups per work item;
// false elsewhere.
template <typename E, typename OuterOffsets>
bool TransposeSmallGroups(const E* in, E* out, int64_t nk, int64_t nd, int64_t sd, int64_t dk, int64_t outer_count,
                          const OuterOffsets& outer_offsets) {
  const bool interleave = nd >= 2 && nd <= 4 && dk == nd;
  const bool deinterleave = !interleave && nk >= 2 && nk <= 4 && sd == nk;
  if (!interleave && !deinterleave) return false;
  constexpr int64_t kChunk = 4096;
  const int64_t n = interleave ? nd : nk, along = interleave ? nk : nd;
  const int64_t chunks = (along + kChunk - 1) / kChunk;
  ParallelFor(outer_count * chunks, kChunk * n, [&](int64_t lo, int64_t hi) {
    for (int64_t w = lo; w < hi; ++w) {
      int64_t src_off = 0, dst_off = 0;
      outer_offsets(w / chunks, &src_off, &dst_off);
      const int64_t c0 = (w % chunks) * kChunk, c1 = std::min(along, c0 + kChunk);
      const E* src = in + src_off;
      E* dst = out + dst_off;
      if (interleave) {
        if (n == 2) InterleavePlanes<2>(src, sd, dst, c0, c1);
        if (n == 3) InterleavePlanes<3>(src, sd, dst, c0, c1);
        if (n == 4) InterleavePlanes<4>(src, sd, dst, c0, c1);
      } else {
        if (n == 2) DeinterleavePlanes<2>(src, dst, dk, c0, c1);
        if (n == 3) DeinterleavePlanes<3>(src, dst, dk, c0, c1);
        if (n == 4) DeinterleavePlanes<4>(src, dst, dk, c0, c1);
      }
    }
  });
  return true;
}

// A transposing copy (Transpose, NHWC <-> NCHW, the head split of attention): the destination's innermost axis is
// strided in the source and some other axis is contiguous there. Copies in square tiles over those two axes, so
// both sides are read and written a cache line at a time (full tiles of 1- and 4-byte values through vector
// registers); the remaining axes are walked outside. Large copies split their tiles between the threads.
template <typename E>
bool TiledTranspose(const E* in, E* out, const Shape& dims, const std::vector<int64_t>& ss,
                    const std::vector<int64_t>& ds) {
  const size_t rank = dims.size();
  if (rank < 2 || ds.back() != 1 || ss.back() == 1) return false;
  size_t k = rank;  // the axis contiguous in the source
  for (size_t i = 0; i + 1 < rank; ++i) {
    if (ss[i] == 1) k = i;
  }
  if (k == rank) return false;
  const size_t d = rank - 1;
  const int64_t nk = dims[k], nd = dims[d], sd = ss[d], dk = ds[k];
  // Scratch kept per thread (see CopyScratch).
  thread_local Shape outer_scratch;
  thread_local std::vector<int64_t> strides_scratch[2];
  Shape& outer = outer_scratch;
  std::vector<int64_t>& os = strides_scratch[0];
  std::vector<int64_t>& od = strides_scratch[1];
  outer.clear();
  os.clear();
  od.clear();
  for (size_t i = 0; i < rank; ++i) {
    if (i == k || i == d) continue;
    outer.push_back(dims[i]);
    os.push_back(ss[i]);
    od.push_back(ds[i]);
  }
  // Outer position w's source and destination offsets.
  auto outer_offsets = [&](int64_t w, int64_t* src_off, int64_t* dst_off) {
    int64_t rest = w;
    *src_off = 0;
    *dst_off = 0;
    for (size_t i = outer.size(); i-- > 0;) {
      const int64_t idx = rest % outer[i];
      rest /= outer[i];
      *src_off += idx * os[i];
      *dst_off += idx * od[i];
    }
  };
  if (TransposeSmallGroups(in, out, nk, nd, sd, dk, NumElements(outer), outer_offsets)) return true;
  constexpr int64_t kTile = 16;
  // Rows [k_lo, k_hi) of the destination (tiles of the source's contiguous axis) of one outer position.
  auto block = [&](const E* src, E* dst, int64_t k_lo, int64_t k_hi) {
    for (int64_t k0 = k_lo; k0 < k_hi; k0 += kTile) {
      const int64_t k1 = std::min(k_hi, k0 + kTile);
      for (int64_t d0 = 0; d0 < nd; d0 += kTile) {
        const int64_t d1 = std::min(nd, d0 + kTile);
        if (k1 - k0 == kTile && d1 - d0 == kTile && TransposeFullTile(src + k0 + d0 * sd, sd, dst + k0 * dk + d0, dk)) {
          continue;
        }
        for (int64_t a = k0; a < k1; ++a) {
          const E* s = src + a;
          E* t = dst + a * dk;
          for (int64_t b = d0; b < d1; ++b) t[b] = s[b * sd];
        }
      }
    }
  };
  const int64_t outer_count = NumElements(outer);
  const int64_t k_tiles = (nk + kTile - 1) / kTile;
  // Work items: (outer position, band of 16 destination rows), ~16 * nd elements each; ParallelFor keeps small
  // copies on one thread.
  ParallelFor(outer_count * k_tiles, kTile * nd, [&](int64_t lo, int64_t hi) {
    for (int64_t w = lo; w < hi; ++w) {
      int64_t src_off = 0, dst_off = 0;
      outer_offsets(w / k_tiles, &src_off, &dst_off);
      const int64_t k0 = (w % k_tiles) * kTile;
      block(in + src_off, out + dst_off, k0, std::min(nk, k0 + kTile));
    }
  });
  return true;
}

// The collapsed dims and strides of one StridedCopy, kept per thread and reused: copies run many times per model
// run (Transpose, Slice, Concat, Split, attention's head splits), and fresh vectors would cost ~9 heap allocations
// each time (issue 18). Used through references bound on the calling thread, so that lambdas running on other
// threads read this thread's copy.
struct CopyScratch {
  Shape dims, outer;
  std::vector<int64_t> ss, ds;
  std::vector<int64_t> outer_strides[2];  // source, destination
  std::vector<int64_t> strides[2];        // source, destination (the uncollapsed walk)
};

}  // namespace

void StridedCopy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides, Tensor& dst,
                 int64_t dst_offset, const std::vector<int64_t>& dst_strides, const Shape& shape) {
  if (NumElements(shape) == 0) return;
  thread_local CopyScratch scratch_of_thread;
  CopyScratch& scratch = scratch_of_thread;
  Shape& dims = scratch.dims;
  std::vector<int64_t>& ss = scratch.ss;
  std::vector<int64_t>& ds = scratch.ds;
  dims.clear();
  ss.clear();
  ds.clear();
  CollapseDims(shape, src_strides, dst_strides, &dims, &ss, &ds);
  Shape& outer = scratch.outer;
  std::vector<int64_t>& outer_src = scratch.outer_strides[0];
  std::vector<int64_t>& outer_dst = scratch.outer_strides[1];
  outer.clear();
  outer_src.clear();
  outer_dst.clear();
  int64_t run = 0;
  // Concat, Split, Slice and the like mostly move long contiguous runs: copy those with memcpy.
  if (!IsSubByte(src.type()) && src.type() != DataType::kString &&
      ContiguousRuns(dims, ss, ds, &outer, &outer_src, &outer_dst, &run)) {
    const size_t elem = DataTypeStorageBytes(src.type(), 1);
    const auto* in = static_cast<const uint8_t*>(src.raw()) + src_offset * static_cast<int64_t>(elem);
    auto* out = static_cast<uint8_t*>(dst.raw()) + dst_offset * static_cast<int64_t>(elem);
    const size_t bytes = static_cast<size_t>(run) * elem;
    if (outer.empty()) {
      // Large runs are split across the threads: the data often sits in the caches of the cores that produced it.
      constexpr int64_t kChunk = 64 * 1024;
      const auto chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
      ParallelFor(chunks, kChunk / 8, [&](int64_t lo, int64_t hi) {
        const size_t begin = static_cast<size_t>(lo * kChunk);
        const size_t end = std::min(bytes, static_cast<size_t>(hi * kChunk));
        std::memcpy(out + begin, in + begin, end - begin);
      });
      return;
    }
    const std::vector<int64_t>(&strides)[2] = scratch.outer_strides;
    const int64_t outer_count = NumElements(outer);
    if (outer.size() == 1 && bytes <= 512) {
      // Short runs at one stride (a channels-last Split or Concat: each pixel's channels) in 16-byte moves instead of a
      // memcpy call per run (four 1600-pixel splits of 64-byte runs: 71 -> 37-43 us).
      const int64_t step_in = outer_src[0] * static_cast<int64_t>(elem),
                    step_out = outer_dst[0] * static_cast<int64_t>(elem);
      ParallelFor(outer_count, static_cast<int64_t>(bytes) / 8 + 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const uint8_t* from = in + i * step_in;
          uint8_t* to = out + i * step_out;
          CopyShortRun(to, from, bytes);
        }
      });
      return;
    }
    if (outer_count > 1 && static_cast<int64_t>(bytes) * outer_count >= (int64_t{1} << 17)) {
      // Many runs (a Concat of several images or rows): split them across the threads.
      ParallelFor(outer_count, static_cast<int64_t>(bytes) / 8 + 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          int64_t rest = i, os = 0, od = 0;
          for (size_t d = outer.size(); d-- > 0;) {
            const int64_t idx = rest % outer[d];
            rest /= outer[d];
            os += idx * outer_src[d];
            od += idx * outer_dst[d];
          }
          std::memcpy(out + od * static_cast<int64_t>(elem), in + os * static_cast<int64_t>(elem), bytes);
        }
      });
      return;
    }
    ForEachStrided(outer, strides, [&](int64_t, const int64_t* off) {
      std::memcpy(out + off[1] * static_cast<int64_t>(elem), in + off[0] * static_cast<int64_t>(elem), bytes);
    });
    return;
  }
  if (!IsSubByte(src.type()) && src.type() != DataType::kString) {
    const uint8_t* in = static_cast<const uint8_t*>(src.raw());
    uint8_t* out = static_cast<uint8_t*>(dst.raw());
    bool done = false;
    switch (DataTypeStorageBytes(src.type(), 1)) {
      case 1:
        done = TiledTranspose(in + src_offset, out + dst_offset, dims, ss, ds);
        break;
      case 2:
        done = TiledTranspose(reinterpret_cast<const uint16_t*>(in) + src_offset,
                              reinterpret_cast<uint16_t*>(out) + dst_offset, dims, ss, ds);
        break;
      case 4:
        done = TiledTranspose(reinterpret_cast<const uint32_t*>(in) + src_offset,
                              reinterpret_cast<uint32_t*>(out) + dst_offset, dims, ss, ds);
        break;
      case 8:
        done = TiledTranspose(reinterpret_cast<const uint64_t*>(in) + src_offset,
                              reinterpret_cast<uint64_t*>(out) + dst_offset, dims, ss, ds);
        break;
      default:
        break;
    }
    if (done) return;
  }
  std::vector<int64_t>(&strides)[2] = scratch.strides;
  strides[0].assign(src_strides.begin(), src_strides.end());
  strides[1].assign(dst_strides.begin(), dst_strides.end());
  if (IsSubByte(src.type())) {
    const int bits = DataTypeBits(src.type());
    ForEachStrided(shape, strides, [&](int64_t, const int64_t* off) {
      SetSubByte(dst.raw(), bits, dst_offset + off[1], GetSubByte(src.raw(), bits, src_offset + off[0]));
    });
    return;
  }
  Status s = DispatchCopy(src.type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C* in = src.data<C>() + src_offset;
    C* out = dst.data<C>() + dst_offset;
    ForEachStrided(shape, strides, [&](int64_t, const int64_t* off) { out[off[1]] = in[off[0]]; });
    return Status::Ok();
  });
  (void)s;  // every type that is not sub-byte is handled
}

Tensor Permute(const Tensor& in, const Shape& view_shape, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> in_strides = RowMajorStrides(view_shape);
  Shape out_shape(perm.size());
  std::vector<int64_t> src_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out_shape[i] = view_shape[static_cast<size_t>(perm[i])];
    src_strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  int64_t last_moved = -1;
  bool order_kept = true;
  for (int64_t p : perm) {
    if (view_shape[static_cast<size_t>(p)] == 1) continue;
    order_kept = order_kept && p > last_moved;
    last_moved = p;
  }
  if (order_kept) {
    if (auto view = in.Reshaped(out_shape); view.ok()) return std::move(view).value();
  }
  Tensor out = Tensor::Allocate(in.type(), out_shape);
  StridedCopy(in, 0, src_strides, out, 0, RowMajorStrides(out_shape), out_shape);
  return out;
}

Status FillWith(const Tensor& value, Tensor& out) {
  if (IsSubByte(out.type())) {  // packed elements: the strided copy, over bytes zeroed first (the padding bits)
    std::fill_n(static_cast<uint8_t*>(out.raw()), out.nbytes(), uint8_t{0});
    StridedCopy(value, 0, std::vector<int64_t>(out.shape().size(), 0), out, 0, RowMajorStrides(out.shape()),
                out.shape());
    return Status::Ok();
  }
  return DispatchCopy(out.type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    std::fill_n(out.data<C>(), out.size(), value.data<C>()[0]);
    return Status::Ok();
  });
}

Result<std::vector<int64_t>> IntsInput(const KernelContext& ctx, size_t i, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(i));
  if (!IsInteger(t->type()) || IsSubByte(t->type())) {
    return InvalidArgument("input '" + what + "' (" + std::to_string(i) + ") has element type " +
                           std::string(DataTypeName(t->type())) + ", expected an integer type");
  }
  if (t->rank() > 1) {
    return InvalidArgument("input '" + what + "' (" + std::to_string(i) + ") has shape " + ShapeToString(t->shape()) +
                           ", expected a 1-D tensor");
  }
  return t->ToInt64Vector();
}

bool HoldsInts(const Tensor& t, const std::vector<int64_t>& values) {
  if (!IsInteger(t.type()) || IsSubByte(t.type()) || t.rank() > 1 || t.size() != static_cast<int64_t>(values.size())) {
    return false;
  }
  for (int64_t i = 0; i < t.size(); ++i) {
    if (t.IntAt(i) != values[static_cast<size_t>(i)]) return false;
  }
  return true;
}

int64_t DimProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
  return n;
}

}  // namespace onyx::ops::movement
