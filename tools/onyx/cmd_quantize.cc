// onyx quantize MODEL -o OUT.onnx: makes a quantized model (dynamic, static QDQ or weight-only), in ONNX Runtime's
// formats, and reports each quantized tensor's parameters and error (docs/quantization.md).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cli.h"
#include "quantize/quantize.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx quantize MODEL -o OUT.onnx [--mode dynamic|static|weight-only] [options]\n\n"
      "Writes a quantized copy of an ONNX model as standard ONNX that onyx and ONNX Runtime run:\n"
      "  dynamic      MatMul/Gemm/Conv with constant weights: int8 weights, activations quantized at run time\n"
      "               (DynamicQuantizeLinear -> MatMulInteger/ConvInteger -> Cast -> Mul); for transformers, MLPs\n"
      "  static       QDQ: QuantizeLinear/DequantizeLinear on activations with ranges from a calibration set,\n"
      "               int8 weights and int32 biases behind DequantizeLinear; for CNNs\n"
      "  weight-only  MatMul weights as blockwise int4/int8 behind DequantizeLinear (opset 21, block_size)\n\n"
      "options:\n"
      "  -o, --output FILE         the quantized model (written to a temporary file, then renamed)\n"
      "  --mode M                  dynamic (default), static or weight-only\n"
      "  --per-channel             weights: one scale per output channel (default: one per tensor)\n"
      "  --reduce-range            weights in 7 bits ([-64, 64]) for CPUs without VNNI\n"
      "  --calibration DIR         static: test_data_set_N/input_K.pb folders, folders of .npy, one .npy per\n"
      "                            sample (one-input models) or NAME.npy per input stacking samples on axis 0\n"
      "  --calibrate-method M      static: minmax (default), percentile or entropy\n"
      "  --percentile P            percentile method: the share of |x| kept (default 99.999)\n"
      "  --activation-type T       static: uint8 (default) or int8\n"
      "  --format F                static: qdq (default: QuantizeLinear/DequantizeLinear around float operators)\n"
      "                            or qoperator (QLinearConv, QLinearMatMul, com.microsoft QLinearAdd, ... as\n"
      "                            ONNX Runtime's QuantFormat.QOperator; groups without such a form keep QDQ)\n"
      "  --max-samples N           static: use the first N calibration samples\n"
      "  --bins N                  histogram bins per observed tensor (default 2048)\n"
      "  --calibration-memory MB   static: observed values one calibration run may hold (default 1024): all\n"
      "                            observed tensors share one run per sample when they fit, else groups do\n"
      "  --outputs-per-session N   static: at most N observed tensors per calibration session (default: any)\n"
      "  --no-prepare              static: quantize the graph as it is (default: fold BatchNormalization, Pad,\n"
      "                            per-channel Mul/Add into Conv and MatMul + Add into Gemm first, standard ONNX)\n"
      "  --no-bias-correction      static: keep the biases (default: subtract the mean error the int8 weights\n"
      "                            add to each output channel over the calibration samples)\n"
      "  --op-types A,B,...        operators to quantize (default: the mode's set)\n"
      "  --exclude NODE...         node names to leave in float (comma-separated or repeated)\n"
      "  --bits 4|8                weight-only: bits per weight (default 4)\n"
      "  --block N                 weight-only: weights per block along K, a power of two 16..256 (default 32)\n"
      "  --threads N               calibration threads (default: every usable CPU)\n"
      "  --report FILE.json        write the report as JSON\n"
      "  --verbose                 print one line per quantized tensor\n"
      "  --quiet                   print nothing on success\n\n"
      "Exit codes: 0 quantized, 1 quantization failed, 2 usage error, 3 unsupported model.\n");
}

void SplitInto(const std::string& v, std::vector<std::string>* out) {
  for (size_t start = 0; start <= v.size();) {
    const size_t comma = std::min(v.find(',', start), v.size());
    if (comma > start) out->push_back(v.substr(start, comma - start));
    start = comma + 1;
  }
}

// One line on stderr, redrawn in place: "calibrating [#####.....] 120/400".
void DrawProgress(const quantize::Progress& p) {
  constexpr int kWidth = 30;
  const int filled = p.total > 0 ? static_cast<int>(kWidth * p.done / p.total) : 0;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r%-11s [%s] %lld/%lld", p.stage.c_str(), bar.c_str(), static_cast<long long>(p.done),
               static_cast<long long>(p.total));
  std::fflush(stderr);
}

}  // namespace

int QuantizeMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string input, output, report_path;
  quantize::QuantizeOptions options;
  bool quiet = false, verbose = false, mode_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return false;
      }
      *out = args[++i];
      return true;
    };
    std::string v;
    if (a == "--per-channel") {
      options.per_channel = true;
    } else if (a == "--reduce-range") {
      options.reduce_range = true;
    } else if (a == "--no-prepare") {
      options.prepare = false;
    } else if (a == "--no-bias-correction") {
      options.bias_correction = false;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--exclude") {
      if (!value(&v)) return kExitUsage;
      SplitInto(v, &options.exclude);
      // Further bare words up to the next option are node names too.
      while (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-' && !input.empty()) {
        SplitInto(args[++i], &options.exclude);
      }
    } else if (a == "-o" || a == "--output" || a == "--mode" || a == "--calibration" || a == "--calibrate-method" ||
               a == "--percentile" || a == "--activation-type" || a == "--format" || a == "--max-samples" ||
               a == "--bins" || a == "--outputs-per-session" || a == "--calibration-memory" || a == "--op-types" ||
               a == "--bits" || a == "--block" || a == "--threads" || a == "--report") {
      if (!value(&v)) return kExitUsage;
      if (a == "-o" || a == "--output") {
        output = v;
      } else if (a == "--report") {
        report_path = v;
      } else if (a == "--calibration") {
        options.calibration_dir = v;
      } else if (a == "--op-types") {
        SplitInto(v, &options.op_types);
      } else if (a == "--mode") {
        mode_given = true;
        if (v == "dynamic")
          options.mode = quantize::Mode::kDynamic;
        else if (v == "static")
          options.mode = quantize::Mode::kStatic;
        else if (v == "weight-only")
          options.mode = quantize::Mode::kWeightOnly;
        else {
          Error("--mode takes dynamic, static or weight-only, got '" + v + "'");
          return kExitUsage;
        }
      } else if (a == "--calibrate-method") {
        if (v == "minmax")
          options.method = quantize::CalibrationMethod::kMinMax;
        else if (v == "percentile")
          options.method = quantize::CalibrationMethod::kPercentile;
        else if (v == "entropy")
          options.method = quantize::CalibrationMethod::kEntropy;
        else {
          Error("--calibrate-method takes minmax, percentile or entropy, got '" + v + "'");
          return kExitUsage;
        }
      } else if (a == "--format") {
        if (v == "qdq" || v == "QDQ") {
          options.format = quantize::Format::kQdq;
        } else if (v == "qoperator" || v == "QOperator") {
          options.format = quantize::Format::kQOperator;
        } else {
          Error("--format takes qdq or qoperator, got '" + v + "'");
          return kExitUsage;
        }
      } else if (a == "--activation-type") {
        if (v == "uint8")
          options.activation_type = DataType::kUint8;
        else if (v == "int8")
          options.activation_type = DataType::kInt8;
        else {
          Error("--activation-type takes uint8 or int8, got '" + v + "'");
          return kExitUsage;
        }
      } else if (a == "--percentile") {
        if (!ParseFloatArg(a, v, 50, 100, &options.percentile)) return kExitUsage;
      } else if (a == "--max-samples") {
        if (!ParseIntArg(a, v, 1, 1 << 30, &options.max_samples)) return kExitUsage;
      } else if (a == "--bins") {
        if (!ParseIntArg(a, v, 256, 1 << 16, &options.num_bins)) return kExitUsage;
      } else if (a == "--calibration-memory") {
        double mb = 0;
        if (!ParseFloatArg(a, v, 0.001, 1 << 24, &mb)) return kExitUsage;
        options.max_observed_bytes = static_cast<int64_t>(mb * (1 << 20));
      } else if (a == "--outputs-per-session") {
        if (!ParseIntArg(a, v, 1, 1 << 20, &options.max_outputs_per_session)) return kExitUsage;
      } else if (a == "--bits") {
        if (!ParseIntArg(a, v, 4, 8, &options.bits) || (options.bits != 4 && options.bits != 8)) {
          if (options.bits != 4 && options.bits != 8) Error("--bits takes 4 or 8, got '" + v + "'");
          return kExitUsage;
        }
      } else if (a == "--block") {
        if (!ParseIntArg(a, v, 16, 256, &options.block)) return kExitUsage;
        if ((options.block & (options.block - 1)) != 0) {
          Error("--block must be a power of two, got " + v);
          return kExitUsage;
        }
      } else if (a == "--threads") {
        if (!ParseIntArg(a, v, 0, 1024, &options.threads)) return kExitUsage;
      }
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "' (see 'onyx quantize --help')");
      return kExitUsage;
    } else if (input.empty()) {
      input = a;
    } else {
      Error("more than one MODEL given");
      return kExitUsage;
    }
  }
  if (input.empty() || output.empty()) {
    Error("usage: onyx quantize MODEL -o OUT.onnx [--mode dynamic|static|weight-only] (see 'onyx quantize --help')");
    return kExitUsage;
  }
  if (!mode_given && !options.calibration_dir.empty()) options.mode = quantize::Mode::kStatic;
  if (options.mode == quantize::Mode::kStatic && options.calibration_dir.empty()) {
    Error("--mode static needs --calibration DIR");
    return kExitUsage;
  }
  if (options.mode != quantize::Mode::kStatic && !options.calibration_dir.empty()) {
    Error("--calibration applies to --mode static only");
    return kExitUsage;
  }
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  bool drew = false;
  if (tty && !quiet) {
    options.progress = [&drew](const quantize::Progress& p) {
      DrawProgress(p);
      drew = true;
    };
  }
  auto report = quantize::QuantizeFile(input, output, options);
  if (drew) std::fprintf(stderr, "\r\033[K");
  if (!report.ok()) {
    Error(report.status().message());
    return report.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  if (!report_path.empty()) {
    std::ofstream f(report_path, std::ios::binary | std::ios::trunc);
    f << quantize::ReportToJson(*report);
    if (!f) {
      Error(report_path + ": cannot write the report");
      return kExitFailure;
    }
  }
  if (!quiet) {
    std::printf("%s -> %s\n%s", input.c_str(), output.c_str(), quantize::ReportToText(*report, verbose).c_str());
  }
  return kExitOk;
}

}  // namespace onyx::cli
