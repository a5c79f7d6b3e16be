#include "ops/conversion/cast.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"

namespace onyx::ops {
namespace {

// ---- the source values, widened without loss ----

// Every float-like source (float, double, float16, bfloat16, float8, float4) is exact as a double; every integer
// source (bool and the sub-byte integers included) is exact as 64 bits plus its signedness.
struct Widened {
  bool is_float = false;
  bool is_unsigned = false;
  std::vector<double> d;
  std::vector<uint64_t> u;  // two's complement bits of the integer value
};

bool IsFloatLike(DataType t) { return IsFloatingPoint(t) || IsFloat8(t) || t == DataType::kFloat4E2M1; }

int64_t TruncToInt64(double v) {
  // The range check also rejects NaN.
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return static_cast<int64_t>(v);
  return std::numeric_limits<int64_t>::min();
}

uint64_t TruncToUint64(double v) {
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(TruncToInt64(v));
}

double IntToDouble(uint64_t bits, bool is_unsigned) {
  return is_unsigned ? static_cast<double>(bits) : static_cast<double>(static_cast<int64_t>(bits));
}

Status Widen(const Tensor& in, Widened& w) {
  const int64_t n = in.size();
  const DataType t = in.type();
  w.is_float = IsFloatLike(t);
  w.is_unsigned = IsUnsignedInteger(t);
  if (w.is_float) {
    w.d.resize(static_cast<size_t>(n));
    double* d = w.d.data();
    if (IsFloat8(t)) {
      const uint8_t* p = in.data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = Float8ToFloat(t, p[i]);
      return Status::Ok();
    }
    if (t == DataType::kFloat4E2M1) {
      for (int64_t i = 0; i < n; ++i) d[i] = Float4E2M1ToFloat(GetPackedNibble(in.raw(), i));
      return Status::Ok();
    }
    return Dispatch<FloatTypes>(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = in.data<T>();
      for (int64_t i = 0; i < n; ++i) d[i] = ToDouble(p[i]);
      return Status::Ok();
    });
  }
  w.u.resize(static_cast<size_t>(n));
  uint64_t* u = w.u.data();
  switch (t) {
    case DataType::kInt4:
      for (int64_t i = 0; i < n; ++i) u[i] = static_cast<uint64_t>(static_cast<int64_t>(GetInt4(in.raw(), i)));
      return Status::Ok();
    case DataType::kUint4:
      for (int64_t i = 0; i < n; ++i) u[i] = GetUint4(in.raw(), i);
      return Status::Ok();
    case DataType::kInt2:
      for (int64_t i = 0; i < n; ++i) u[i] = static_cast<uint64_t>(static_cast<int64_t>(GetInt2(in.raw(), i)));
      return Status::Ok();
    case DataType::kUint2:
      for (int64_t i = 0; i < n; ++i) u[i] = GetUint2(in.raw(), i);
      return Status::Ok();
    default:
      break;
  }
  return Dispatch<TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool>>(
      t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = in.data<T>();
        for (int64_t i = 0; i < n; ++i) {
          if constexpr (std::is_same_v<T, bool>) {
            u[i] = p[i] ? 1 : 0;
          } else {
            u[i] = static_cast<uint64_t>(p[i]);  // sign-extends signed types
          }
        }
        return Status::Ok();
      });
}

// ---- strings -> widened values ----

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// from_chars rejects a leading '+'; accept it when a number follows.
std::string_view StripPlus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') return s.substr(1);
  return s;
}

template <typename F>
bool ParseFloating(std::string_view s, F& out) {
  s = StripPlus(Trim(s));
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out, std::chars_format::general);
  if (ptr != end) return false;
  // Out-of-range magnitudes read as infinity or zero, as strtod would give them.
  if (ec == std::errc::result_out_of_range) {
    const bool negative = s[0] == '-';
    // A huge exponent overflows; a tiny one underflows.
    const size_t epos = s.find_first_of("eE");
    const bool tiny = epos != std::string_view::npos && epos + 1 < s.size() && s[epos + 1] == '-';
    out = tiny ? F(0) : std::numeric_limits<F>::infinity();
    if (negative) out = -out;
    return true;
  }
  return ec == std::errc();
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// An integer value of the string: exact for 64-bit integers, else a number truncated toward zero.
bool ParseInteger(std::string_view s, uint64_t& bits, bool& is_unsigned) {
  s = StripPlus(Trim(s));
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  int64_t i64 = 0;
  auto r = std::from_chars(s.data(), end, i64);
  if (r.ec == std::errc() && r.ptr == end) {
    bits = static_cast<uint64_t>(i64);
    is_unsigned = false;
    return true;
  }
  uint64_t u64 = 0;
  r = std::from_chars(s.data(), end, u64);
  if (r.ec == std::errc() && r.ptr == end) {
    bits = u64;
    is_unsigned = true;
    return true;
  }
  double d = 0;
  if (!ParseFloating(s, d)) return false;
  is_unsigned = d >= 9223372036854775808.0;
  bits = is_unsigned ? TruncToUint64(d) : static_cast<uint64_t>(TruncToInt64(d));
  return true;
}

Status BadString(int64_t i, const std::string& s, DataType to) {
  return InvalidArgument("input element " + std::to_string(i) + " ('" + s + "') cannot be read as " +
                         std::string(DataTypeName(to)));
}

Status WidenStrings(const Tensor& in, DataType to, Widened& w) {
  const int64_t n = in.size();
  const std::string* p = in.data<std::string>();
  if (IsFloatLike(to)) {
    w.is_float = true;
    w.d.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      bool ok;
      if (to == DataType::kFloat) {
        // Read float directly: reading double first would round twice.
        float f = 0;
        ok = ParseFloating(p[i], f);
        w.d[static_cast<size_t>(i)] = f;
      } else {
        ok = ParseFloating(p[i], w.d[static_cast<size_t>(i)]);
      }
      if (!ok) return BadString(i, p[i], to);
    }
    return Status::Ok();
  }
  w.is_float = false;
  w.u.resize(static_cast<size_t>(n));
  if (to == DataType::kBool) {
    for (int64_t i = 0; i < n; ++i) {
      const std::string_view s = Trim(p[i]);
      uint64_t& b = w.u[static_cast<size_t>(i)];
      if (EqualsIgnoreCase(s, "true")) {
        b = 1;
      } else if (EqualsIgnoreCase(s, "false")) {
        b = 0;
      } else {
        double d = 0;
        if (!ParseFloating(s, d)) return BadString(i, p[i], to);
        b = d != 0 ? 1 : 0;
      }
    }
    return Status::Ok();
  }
  // Integer destinations. The signedness only matters for integer -> float, so one flag for all elements is fine.
  for (int64_t i = 0; i < n; ++i) {
    bool is_unsigned = false;
    if (!ParseInteger(p[i], w.u[static_cast<size_t>(i)], is_unsigned)) return BadString(i, p[i], to);
  }
  return Status::Ok();
}

// ---- widened values -> destination ----

template <typename T>
T FromWideDouble(double v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(DoubleToFloatRoundToOdd(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;  // NaN is true
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return TruncToUint64(v);
  } else {
    return static_cast<T>(TruncToInt64(v));  // C++20: narrowing keeps the low bits
  }
}

template <typename T>
T FromWideInt(uint64_t bits, bool is_unsigned) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return is_unsigned ? static_cast<T>(bits) : static_cast<T>(static_cast<int64_t>(bits));
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(DoubleToFloatRoundToOdd(IntToDouble(bits, is_unsigned)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return bits != 0;
  } else {
    return static_cast<T>(bits);
  }
}

Status Narrow(const Widened& w, const CastOptions& options, Tensor& out) {
  const int64_t n = out.size();
  const DataType to = out.type();
  if (IsFloat8(to)) {
    uint8_t* p = out.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      const double v =
          w.is_float ? w.d[static_cast<size_t>(i)] : IntToDouble(w.u[static_cast<size_t>(i)], w.is_unsigned);
      p[i] = DoubleToFloat8(to, v, options.saturate, options.round_mode);
    }
    return Status::Ok();
  }
  if (IsSubByte(to)) {
    void* p = out.raw();
    std::memset(p, 0, out.nbytes());  // defined padding bits
    for (int64_t i = 0; i < n; ++i) {
      if (to == DataType::kFloat4E2M1) {
        const double v =
            w.is_float ? w.d[static_cast<size_t>(i)] : IntToDouble(w.u[static_cast<size_t>(i)], w.is_unsigned);
        SetPackedNibble(p, i, FloatToFloat4E2M1(DoubleToFloatRoundToOdd(v)));
        continue;
      }
      const uint64_t bits =
          w.is_float ? static_cast<uint64_t>(TruncToInt64(w.d[static_cast<size_t>(i)])) : w.u[static_cast<size_t>(i)];
      if (to == DataType::kInt4 || to == DataType::kUint4) {
        SetPackedNibble(p, i, static_cast<uint8_t>(bits & 0xf));
      } else {
        SetPacked2Bit(p, i, static_cast<uint8_t>(bits & 0x3));
      }
    }
    return Status::Ok();
  }
  return Dispatch<AllFixedTypes>(to, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    if (w.is_float) {
      for (int64_t i = 0; i < n; ++i) p[i] = FromWideDouble<T>(w.d[static_cast<size_t>(i)]);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = FromWideInt<T>(w.u[static_cast<size_t>(i)], w.is_unsigned);
    }
    return Status::Ok();
  });
}

// ---- direct conversions ----

// Pairs where a plain static_cast computes what widening and narrowing compute: an integer or bool source to any
// integer, bool, float or double destination (the wide value is exact, and one conversion of it rounds or wraps as
// static_cast does), and float <-> double. These are the casts models run on large tensors (MatMulInteger's int32
// sums to float, index and shape arithmetic), so they skip the widened copy and vectorize. Float sources to integers
// keep the general path (its NaN and out-of-range rules).
using DirectIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool>;
using DirectToTypes =
    TypeList<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool>;

bool IsDirectInt(DataType t) { return (IsInteger(t) && !IsSubByte(t)) || t == DataType::kBool; }

template <typename From, typename To>
void ConvertDirect(const From* in, To* out, int64_t n) {
  ParallelFor(n, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] = static_cast<To>(in[i]);
  });
}

// Converts and returns true for the pairs above; false for every other pair.
bool TryDirectCast(const Tensor& in, Tensor& out) {
  const DataType from = in.type(), to = out.type();
  // float <-> float16 / bfloat16 (mixed-precision models cast at every boundary): no double in between.
  if (from == DataType::kFloat && to == DataType::kFloat16) {
    kernels::FloatToHalf(in.data<float>(), reinterpret_cast<uint16_t*>(out.data<Float16>()), in.size());
    return true;
  }
  if (from == DataType::kFloat16 && to == DataType::kFloat) {
    kernels::HalfToFloat(reinterpret_cast<const uint16_t*>(in.data<Float16>()), out.data<float>(), in.size());
    return true;
  }
  if (from == DataType::kFloat && to == DataType::kBFloat16) {
    const float* p = in.data<float>();
    BFloat16* q = out.data<BFloat16>();
    for (int64_t i = 0; i < in.size(); ++i) q[i] = BFloat16(p[i]);
    return true;
  }
  if (from == DataType::kBFloat16 && to == DataType::kFloat) {
    const BFloat16* p = in.data<BFloat16>();
    float* q = out.data<float>();
    for (int64_t i = 0; i < in.size(); ++i) q[i] = BFloat16BitsToFloat(p[i].bits);
    return true;
  }
  const bool float_pair =
      (from == DataType::kFloat || from == DataType::kDouble) && (to == DataType::kFloat || to == DataType::kDouble);
  const bool to_direct = to == DataType::kFloat || to == DataType::kDouble || IsDirectInt(to);
  if (!float_pair && !(IsDirectInt(from) && to_direct)) return false;
  const int64_t n = in.size();
  if (float_pair) {
    return Dispatch<TypeList<float, double>>(from,
                                             [&](auto ftag) {
                                               using From = typename decltype(ftag)::type;
                                               return Dispatch<TypeList<float, double>>(to, [&](auto ttag) {
                                                 ConvertDirect(in.data<From>(),
                                                               out.data<typename decltype(ttag)::type>(), n);
                                                 return Status::Ok();
                                               });
                                             })
        .ok();
  }
  return Dispatch<DirectIntTypes>(from,
                                  [&](auto ftag) {
                                    using From = typename decltype(ftag)::type;
                                    return Dispatch<DirectToTypes>(to, [&](auto ttag) {
                                      ConvertDirect(in.data<From>(), out.data<typename decltype(ttag)::type>(), n);
                                      return Status::Ok();
                                    });
                                  })
      .ok();
}

// ---- numbers -> strings ----

// Shortest decimal digits of a value and its decimal exponent: value = 0.d1d2...dn * 10^(exponent + 1).
struct Decimal {
  std::string digits;  // no leading zeros, at least one digit
  int exponent = 0;    // of the first digit
};

// Reads "d.ddde+XX" / "de-XX" (what to_chars and printf("%e") write for a positive finite value).
Decimal FromScientific(std::string_view s) {
  Decimal d;
  const size_t e = s.find('e');
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') d.digits += s[i];
  }
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
  d.exponent = exp;
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// Shortest digits that round back to `value` through `same` (a predicate on a candidate double).
template <typename Same>
Decimal ShortestDigits(double value, Same&& same) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
    double back = 0;
    std::from_chars(buf, buf + std::strlen(buf), back);
    if (same(back)) return FromScientific(buf);
  }
  std::snprintf(buf, sizeof(buf), "%.16e", value);
  return FromScientific(buf);
}

// numpy's layout of a float: positional within [1e-4, max_positional), scientific outside.
std::string LayOut(bool negative, double magnitude, const Decimal& d, double max_positional) {
  // Built with appends only: GCC 12 warns falsely (-Wrestrict) on `"literal" + std::string` at -O3.
  std::string s = negative ? "-" : "";
  if (magnitude == 0) return s.append("0.0");
  const size_t n = d.digits.size();
  if (magnitude >= 1e-4 && magnitude < max_positional) {
    if (d.exponent >= 0) {
      const size_t int_digits = static_cast<size_t>(d.exponent) + 1;
      if (n <= int_digits) {
        s.append(d.digits).append(int_digits - n, '0').append(".0");
      } else {
        s.append(d.digits, 0, int_digits).append(1, '.').append(d.digits, int_digits, std::string::npos);
      }
    } else {
      s.append("0.").append(static_cast<size_t>(-d.exponent - 1), '0').append(d.digits);
    }
    return s;
  }
  s.append(d.digits, 0, 1);
  if (n > 1) s.append(1, '.').append(d.digits, 1, std::string::npos);
  const int e = d.exponent;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  return s.append(buf);
}

template <typename F>
Decimal ShortestNative(F magnitude) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), magnitude, std::chars_format::scientific);
  return FromScientific(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

// numpy's str() of float, double and float16 scalars: shortest round-trip digits laid out positionally below
// 1e6, 1e16 and 1e3 respectively (numpy >= 2.3; older versions use 1e16 for all three).
enum class NumpyFloat { kFloat, kDouble, kHalf };

std::string FormatNumpy(double value, NumpyFloat kind) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  const bool negative = std::signbit(value);
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return LayOut(negative, 0, {}, 0);
  switch (kind) {
    case NumpyFloat::kFloat:
      return LayOut(negative, magnitude, ShortestNative(static_cast<float>(magnitude)), 1e6);
    case NumpyFloat::kDouble:
      return LayOut(negative, magnitude, ShortestNative(magnitude), 1e16);
    case NumpyFloat::kHalf: {
      auto half_bits = [](double x) { return Float16(DoubleToFloatRoundToOdd(x)).bits; };
      const uint16_t want = half_bits(magnitude);
      return LayOut(negative, magnitude, ShortestDigits(magnitude, [&](double b) { return half_bits(b) == want; }),
                    1e3);
    }
  }
  return "";
}

// ml_dtypes' str() of bfloat16, float8 and float4 scalars: the value as float through an ostream ("%g").
std::string FormatMlDtypes(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(value));
  return buf;
}

}  // namespace

bool IsCastableType(DataType t) {
  return IsValidDataType(static_cast<int32_t>(t)) && t != DataType::kComplex64 && t != DataType::kComplex128;
}

std::string FormatElement(const Tensor& t, int64_t i) {
  const DataType type = t.type();
  switch (type) {
    case DataType::kFloat:
      return FormatNumpy(t.data<float>()[i], NumpyFloat::kFloat);
    case DataType::kDouble:
      return FormatNumpy(t.data<double>()[i], NumpyFloat::kDouble);
    case DataType::kFloat16:
      return FormatNumpy(static_cast<float>(t.data<Float16>()[i]), NumpyFloat::kHalf);
    case DataType::kBFloat16:
      return FormatMlDtypes(static_cast<float>(t.data<BFloat16>()[i]));
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
      return FormatMlDtypes(Float8ToFloat(type, t.data<uint8_t>()[i]));
    case DataType::kFloat4E2M1:
      return FormatMlDtypes(Float4E2M1ToFloat(GetPackedNibble(t.raw(), i)));
    case DataType::kBool:
      return t.data<bool>()[i] ? "True" : "False";
    case DataType::kInt4:
      return std::to_string(GetInt4(t.raw(), i));
    case DataType::kUint4:
      return std::to_string(GetUint4(t.raw(), i));
    case DataType::kInt2:
      return std::to_string(GetInt2(t.raw(), i));
    case DataType::kUint2:
      return std::to_string(GetUint2(t.raw(), i));
    case DataType::kInt8:
      return std::to_string(t.data<int8_t>()[i]);
    case DataType::kInt16:
      return std::to_string(t.data<int16_t>()[i]);
    case DataType::kInt32:
      return std::to_string(t.data<int32_t>()[i]);
    case DataType::kInt64:
      return std::to_string(t.data<int64_t>()[i]);
    case DataType::kUint8:
      return std::to_string(t.data<uint8_t>()[i]);
    case DataType::kUint16:
      return std::to_string(t.data<uint16_t>()[i]);
    case DataType::kUint32:
      return std::to_string(t.data<uint32_t>()[i]);
    case DataType::kUint64:
      return std::to_string(t.data<uint64_t>()[i]);
    case DataType::kString:
      return t.data<std::string>()[i];
    default:
      return "";
  }
}

Status CastInto(const Tensor& in, const CastOptions& options, Tensor& out) {
  const DataType from = in.type();
  const DataType to = out.type();
  if (!IsCastableType(from)) {
    return Unsupported("cannot cast from element type " + std::string(DataTypeName(from)));
  }
  if (!IsCastableType(to)) return Unsupported("cannot cast to element type " + std::string(DataTypeName(to)));
  if (out.size() != in.size()) {
    return Internal("cast output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size()));
  }
  const int64_t n = in.size();
  if (from == to) {
    if (from == DataType::kString) {
      for (int64_t i = 0; i < n; ++i) out.data<std::string>()[i] = in.data<std::string>()[i];
    } else if (in.nbytes() > 0) {
      std::memcpy(out.raw(), in.raw(), in.nbytes());
    }
    return Status::Ok();
  }
  if (to == DataType::kString) {
    std::string* p = out.data<std::string>();
    for (int64_t i = 0; i < n; ++i) p[i] = FormatElement(in, i);
    return Status::Ok();
  }
  if (TryDirectCast(in, out)) return Status::Ok();
  Widened w;
  if (from == DataType::kString) {
    ONYX_RETURN_IF_ERROR(WidenStrings(in, to, w));
  } else {
    ONYX_RETURN_IF_ERROR(Widen(in, w));
  }
  return Narrow(w, options, out);
}

Result<Tensor> CastTensor(const Tensor& in, DataType to, const CastOptions& options) {
  if (!IsCastableType(to)) return Unsupported("cannot cast to element type " + std::string(DataTypeName(to)));
  Tensor out = Tensor::Allocate(to, in.shape());
  ONYX_RETURN_IF_ERROR(CastInto(in, options, out));
  return out;
}

}  // namespace onyx::ops
