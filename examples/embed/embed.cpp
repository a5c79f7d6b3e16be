// embed: the onyx C++ API with one Session shared by several threads. Each thread runs the model on the same input
// (read in place from the caller's memory) a few times; every result must equal the first one. Prints the model's
// inputs and outputs, then the first output's elements.
//
//   embed MODEL.onnx INPUT.npy [THREADS=2] [RUNS=3]
//
// Output: "input NAME TYPE [dims]" / "output NAME TYPE [dims]" lines (symbolic dims by name), then
// "value <index> <element>" lines. Exit status 1 on any error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <onyx/onyx.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

// A C-order float32 .npy file.
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

NpyArray ReadNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f && !f.eof()) throw std::runtime_error("cannot read " + path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error(path + " is not .npy");
  const bool v1 = bytes[6] == 1;
  size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  size_t offset = 10;
  if (!v1) {
    header_len |= (static_cast<size_t>(static_cast<unsigned char>(bytes[10])) << 16) |
                  (static_cast<size_t>(static_cast<unsigned char>(bytes[11])) << 24);
    offset = 12;
  }
  const std::string header = bytes.substr(offset, header_len);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) {
    throw std::runtime_error(path + " is not a C-order float32 array");
  }
  NpyArray a;
  size_t count = 1;
  const char* p = header.c_str() + header.find("'shape': (") + std::strlen("'shape': (");
  while (*p != ')') {
    char* end = nullptr;
    const long long d = std::strtoll(p, &end, 10);
    if (end == p) break;
    a.shape.push_back(d);
    count *= static_cast<size_t>(d);
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  if (bytes.size() < offset + header_len + count * sizeof(float)) throw std::runtime_error(path + " is truncated");
  a.data.resize(count);
  std::memcpy(a.data.data(), bytes.data() + offset + header_len, count * sizeof(float));
  return a;
}

void PrintInfo(const char* what, const onyx::IoInfo& info) {
  std::cout << what << " " << info.name << " " << info.element_type << " [";
  for (size_t i = 0; i < info.shape.size(); ++i) {
    if (i > 0) std::cout << ",";
    if (info.shape[i] >= 0) {
      std::cout << info.shape[i];
    } else {
      std::cout << (info.dim_names[i].empty() ? "?" : info.dim_names[i]);
    }
  }
  std::cout << "]\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: embed MODEL.onnx INPUT.npy [THREADS=2] [RUNS=3]\n";
    return 2;
  }
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 3;
  try {
    onyx::CheckApiVersion();
    const NpyArray input = ReadNpy(argv[2]);
    // One intra-op thread per run: the parallelism here is between the callers' threads.
    const onyx::Session session = onyx::Session::Load(argv[1], onyx::SessionOptions().SetThreads(1));
    for (const auto& in : session.Inputs()) PrintInfo("input", in);
    for (const auto& out : session.Outputs()) PrintInfo("output", out);
    const std::string input_name = session.Inputs().at(0).name;

    std::vector<std::vector<std::vector<float>>> results(static_cast<size_t>(threads));
    std::vector<std::string> errors(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        try {
          for (int r = 0; r < runs; ++r) {
            std::vector<onyx::Value> out = session.Run({{input_name, onyx::Tensor::View(input.data, input.shape)}});
            results[static_cast<size_t>(t)].push_back(out.at(0).ToVector<float>());
          }
        } catch (const onyx::Error& e) {
          errors[static_cast<size_t>(t)] = e.what();
        }
      });
    }
    for (auto& w : workers) w.join();
    for (const auto& e : errors) {
      if (!e.empty()) throw onyx::Error(ONYX_INTERNAL, e);
    }
    const std::vector<float>& first = results.at(0).at(0);
    for (const auto& per_thread : results) {
      for (const auto& r : per_thread) {
        if (r != first) {
          std::cerr << "embed: runs on different threads gave different results\n";
          return 1;
        }
      }
    }
    for (size_t i = 0; i < first.size(); ++i) std::printf("value %zu %.7g\n", i, static_cast<double>(first[i]));
    std::printf("threads %d runs %d: all results equal\n", threads, runs);
  } catch (const onyx::Error& e) {
    std::cerr << "embed: " << e.what() << " (code " << e.code() << ")\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "embed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
