#include "quantize/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace onyx::quantize {

namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same float; JSON has no inf/nan, so those become null.
std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

template <typename T>
std::string JsonArray(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + JsonNumber(static_cast<double>(v[i]));
  return out + "]";
}

std::string ScaleText(const std::vector<float>& s) {
  char buf[64];
  if (s.empty()) return "-";
  if (s.size() == 1) {
    std::snprintf(buf, sizeof buf, "%.6g", s[0]);
  } else {
    auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    std::snprintf(buf, sizeof buf, "%.4g..%.4g (%zu)", *lo, *hi, s.size());
  }
  return buf;
}

}  // namespace

std::string ReportToJson(const QuantizeReport& r) {
  std::ostringstream o;
  o << "{\n  \"mode\": " << JsonString(r.mode);
  if (!r.calibration_method.empty()) o << ",\n  \"calibration_method\": " << JsonString(r.calibration_method);
  o << ",\n  \"calibration_samples\": " << r.calibration_samples << ",\n  \"calibration_sessions\": " << r.sessions
    << ",\n  \"observer_bytes\": " << r.observer_bytes
    << ",\n  \"observed_bytes_per_run\": " << r.observed_bytes_per_run << ",\n  \"opset\": [" << r.opset_from << ", "
    << r.opset_to << "],\n  \"quantized_nodes\": {";
  bool first = true;
  for (const auto& [op, n] : r.quantized_nodes) {
    o << (first ? "" : ", ") << JsonString(op) << ": " << n;
    first = false;
  }
  o << "},\n  \"tensors\": [";
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    const TensorReport& t = r.tensors[i];
    o << (i ? ",\n" : "\n") << "    {\"name\": " << JsonString(t.name) << ", \"kind\": " << JsonString(t.kind)
      << ", \"type\": " << JsonString(t.type) << ", \"axis\": " << t.axis;
    if (t.block_size > 0) o << ", \"block_size\": " << t.block_size;
    if (t.kind == "activation")
      o << ", \"range\": [" << JsonNumber(t.range_min) << ", " << JsonNumber(t.range_max) << "]";
    o << ", \"scale\": " << JsonArray(t.scales) << ", \"zero_point\": " << JsonArray(t.zero_points);
    if (t.error_measured) {
      o << ", \"cosine\": " << JsonNumber(t.error.cosine)
        << ", \"max_abs_error\": " << JsonNumber(t.error.max_abs_error);
    }
    o << "}";
  }
  o << "\n  ],\n  \"outputs\": [";
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputReport& out = r.outputs[i];
    o << (i ? ",\n" : "\n") << "    {\"name\": " << JsonString(out.name) << ", \"samples\": " << out.samples
      << ", \"cosine\": " << JsonNumber(out.error.cosine)
      << ", \"max_abs_error\": " << JsonNumber(out.error.max_abs_error);
    if (out.top1_agreement >= 0) o << ", \"top1_agreement\": " << JsonNumber(out.top1_agreement);
    o << "}";
  }
  o << "\n  ],\n  \"notes\": [";
  for (size_t i = 0; i < r.notes.size(); ++i) o << (i ? ", " : "") << JsonString(r.notes[i]);
  o << "]\n}\n";
  return o.str();
}

std::string ReportToText(const QuantizeReport& r, bool per_tensor_lines) {
  std::ostringstream o;
  o << "mode " << r.mode;
  if (!r.calibration_method.empty())
    o << ", calibration " << r.calibration_method << " on " << r.calibration_samples << " samples";
  o << "; opset " << r.opset_from << " -> " << r.opset_to << "; quantized nodes:";
  for (const auto& [op, n] : r.quantized_nodes) o << " " << op << " " << n;
  o << "\n";
  double worst_cos = 1;
  std::string worst;
  char line[512];
  for (const TensorReport& t : r.tensors) {
    if (t.error_measured && t.error.cosine < worst_cos) {
      worst_cos = t.error.cosine;
      worst = t.name;
    }
    if (!per_tensor_lines) continue;
    std::string zp = t.zero_points.empty() ? "-" : std::to_string(t.zero_points[0]);
    if (t.error_measured) {
      std::snprintf(line, sizeof line, "  %-10s %-5s %-40s scale %-24s zp %-5s cos %.6f max err %.4g\n", t.kind.c_str(),
                    t.type.c_str(), t.name.c_str(), ScaleText(t.scales).c_str(), zp.c_str(), t.error.cosine,
                    t.error.max_abs_error);
    } else {
      std::snprintf(line, sizeof line, "  %-10s %-5s %-40s scale %-24s zp %-5s\n", t.kind.c_str(), t.type.c_str(),
                    t.name.c_str(), ScaleText(t.scales).c_str(), zp.c_str());
    }
    o << line;
  }
  o << r.tensors.size() << " tensors quantized";
  if (!worst.empty()) {
    std::snprintf(line, sizeof line, "; lowest cosine %.6f (%s)", worst_cos, worst.c_str());
    o << line;
  }
  o << "\n";
  for (const OutputReport& out : r.outputs) {
    std::snprintf(line, sizeof line, "output %s: float vs quantized over %lld samples: cosine %.6f, max abs error %.4g",
                  out.name.c_str(), static_cast<long long>(out.samples), out.error.cosine, out.error.max_abs_error);
    o << line;
    if (out.top1_agreement >= 0) {
      std::snprintf(line, sizeof line, ", top-1 agreement %.2f%%", 100 * out.top1_agreement);
      o << line;
    }
    o << "\n";
  }
  for (const std::string& n : r.notes) o << "note: " << n << "\n";
  return o.str();
}

}  // namespace onyx::quantize
