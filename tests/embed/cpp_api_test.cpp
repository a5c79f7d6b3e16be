// The C++ API (onyx.hpp) beyond what examples/embed covers: models (load, check, infer shapes, convert opset, save,
// sessions from models and bytes), conversion from TFLite, RunInto, profiles, errors as onyx::Error with their code,
// and four threads running one Session on different inputs at once (each must get back its own input).
//
//   cpp_api_test DATA_DIR CLASSIFIER.onnx TFLITE_MODEL WORK_DIR
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <onyx/onyx.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_failures = 0;

void Expect(bool condition, const std::string& what) {
  std::printf("%s %s\n", condition ? "ok  " : "FAIL", what.c_str());
  if (!condition) ++g_failures;
}

// Runs `body`, which must throw onyx::Error with `code` and a message containing `needle`.
template <typename Body>
void ExpectError(const std::string& what, onyx::ErrorCode code, const std::string& needle, Body body) {
  try {
    body();
    Expect(false, what + ": no exception");
  } catch (const onyx::Error& e) {
    const bool good = e.code() == code && std::string(e.what()).find(needle) != std::string::npos;
    Expect(good, what + ": " + e.what());
  }
}

void TestModel(const std::string& classifier, const std::string& work) {
  onyx::Model model = onyx::Model::Load(classifier);
  Expect(model.Check(true).empty(), "classifier passes the full check");
  const std::vector<onyx::IoInfo> inputs = model.Inputs();
  Expect(inputs.size() == 1 && inputs[0].name == "x" && inputs[0].rank_known && inputs[0].shape.size() == 4 &&
             inputs[0].shape[1] == 3 && inputs[0].shape[0] == -1 && !inputs[0].dim_names[0].empty() &&
             inputs[0].element_type == ONYX_ELEMENT_FLOAT,
         "model input metadata: x float [sym,3,sym,sym]");
  model.InferShapes();
  onyx::Model converted = model.ConvertOpset(17);
  Expect(converted.Opset() == 17 && model.Opset() != 17, "ConvertOpset(17) leaves the original alone");
  const std::string saved = work + "/converted.onnx";
  converted.Save(saved);
  Expect(onyx::Model::Load(saved).Opset("ai.onnx") == 17, "saved model loads back at opset 17");

  std::ifstream f(saved, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> pixels(1 * 3 * 48 * 192, 0.25f);
  const std::vector<onyx::NamedTensor> feed = {{"x", onyx::Tensor::View(pixels, {1, 3, 48, 192})}};
  const onyx::Session from_bytes = onyx::Session::Load(bytes.data(), bytes.size());
  const onyx::Session from_model = onyx::Session::Load(model, onyx::SessionOptions().SetOptimizationLevel(0));
  const std::vector<float> a = from_bytes.Run(feed).at(0).ToVector<float>();
  std::vector<float> b(2, -1.0f);
  from_model.RunInto(feed, {from_model.Outputs().at(0).name}, {onyx::Tensor::View(b, {1, 2})});
  Expect(a.size() == 2 && std::abs(a[0] - b[0]) < 1e-5f && std::abs(a[1] - b[1]) < 1e-5f && b[0] >= 0,
         "opset-17 session from bytes and unoptimized session from the model agree");

  ExpectError("Model::Load of a missing file", ONYX_IO_ERROR, "missing.onnx",
              [&] { onyx::Model::Load(work + "/missing.onnx"); });
  ExpectError("wrong input name", ONYX_INVALID_ARGUMENT, "'y' is not an input", [&] {
    from_bytes.Run({{"y", onyx::Tensor::View(pixels, {1, 3, 48, 192})}});
  });
  ExpectError("wrong element type", ONYX_INVALID_ARGUMENT, "expects tensor(float)", [&] {
    std::vector<int32_t> ints(pixels.size());
    from_bytes.Run({{"x", onyx::Tensor::View(ints, {1, 3, 48, 192})}});
  });
  ExpectError("Value::data<T> with the wrong T", ONYX_INVALID_ARGUMENT, "element type",
              [&] { from_bytes.Run(feed).at(0).data<double>(); });
  ExpectError("RunInto with fewer buffers than names", ONYX_INVALID_ARGUMENT, "buffers",
              [&] { from_model.RunInto(feed, {"softmax_0.tmp_0"}, {}); });
  ExpectError("negative threads", ONYX_INVALID_ARGUMENT, "-1", [] { onyx::SessionOptions().SetThreads(-1); });
}

void TestConvert(const std::string& tflite) {
  onyx::Model model = onyx::Convert(tflite, 17);
  Expect(model.Opset() == 17 && !model.Inputs().empty() && !model.Outputs().empty(),
         "Convert(" + tflite.substr(tflite.rfind('/') + 1) + ") gives an opset-17 model with inputs and outputs");
  Expect(model.Check().empty(), "the converted model passes the checker");
  ExpectError("Convert of a non-model", ONYX_INVALID_ARGUMENT, "not a model onyx converts",
              [] { onyx::Convert("/etc/hostname"); });
}

// Four threads, one Session, each feeding its own values through Identity many times.
void TestThreads(const std::string& data_dir) {
  const onyx::Session session =
      onyx::Session::Load(data_dir + "/identity.onnx", onyx::SessionOptions().SetThreads(1).EnableProfiling());
  std::atomic<int> mismatches{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        float x = static_cast<float>(t * 100000 + i);
        try {
          const std::vector<onyx::Value> out = session.Run({{"x", onyx::Tensor::View(&x, {1})}}, {"y"});
          x = -1;  // the output must be a copy, not the caller's memory
          if (out.at(0).data<float>()[0] != static_cast<float>(t * 100000 + i)) ++mismatches;
        } catch (const onyx::Error&) {
          ++errors;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Expect(mismatches == 0 && errors == 0, "4 threads x 2000 runs on one Session: every output is its own input (" +
                                             std::to_string(mismatches.load()) + " mismatches, " +
                                             std::to_string(errors.load()) + " errors)");
  const std::vector<onyx::ProfileEntry> profile = session.Profile();
  int64_t calls = 0;
  for (const auto& e : profile) calls += e.op == "Identity" ? e.calls : 0;
  Expect(calls == 8000, "the profile counts 8000 Identity calls (got " + std::to_string(calls) + ")");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: cpp_api_test DATA_DIR CLASSIFIER.onnx TFLITE_MODEL WORK_DIR\n");
    return 2;
  }
  try {
    onyx::CheckApiVersion();
    Expect(!onyx::Version().empty(), "version " + onyx::Version());
    TestModel(argv[2], argv[4]);
    TestConvert(argv[3]);
    TestThreads(argv[1]);
  } catch (const onyx::Error& e) {
    std::printf("FAIL unexpected onyx::Error (code %d): %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  std::printf("%d failed\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
