// The Keras readers on hostile files: sizes claimed by an HDF5 dataset or a zip member that the file does not hold,
// configs nested deep enough to overflow the stack, HDF5 groups that contain themselves, datasets whose data lives
// in other files. Each must be a one-line error (naming the limit and how to raise it), never an abort or a read
// outside the file. The .h5 and .keras files are
// written by h5py and zipfile (Debian python3-h5py) at the start of the suite.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "convert/keras/converter.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using convert::keras::ConvertKerasFile;
using convert::keras::ConvertOptions;

// Writes the hostile files into the folder given as argv[1].
const char* kWriteFiles = R"PY(
import json, os, struct, sys, zipfile
import h5py, numpy as np
os.chdir(sys.argv[1])
dense = {"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [None, 3]}}]}}

def h5(name, make_kernel):
    with h5py.File(name, "w") as f:
        f.attrs["model_config"] = json.dumps(dense)
        g = f.create_group("model_weights")
        g.attrs["layer_names"] = [b"d"]
        d = g.create_group("d")
        d.attrs["weight_names"] = [b"d/kernel:0", b"d/bias:0"]
        make_kernel(d, "d/kernel:0")
        d.create_dataset("d/bias:0", data=np.array([0.5, -0.5], np.float32))

# 2^52 float32 elements (16 PiB): the allocation itself fails.
h5("huge.h5", lambda d, n: d.create_dataset(n, shape=(2**26, 2**26), dtype="f4"))
# 256 MiB claimed, nothing stored (HDF5 would hand back fill values).
h5("unstored.h5", lambda d, n: d.create_dataset(n, shape=(2**16, 2**10), dtype="f4"))
# 4 GiB claimed by a gzip-compressed dataset of which one chunk is written.
def sparse_gzip(d, n):
    ds = d.create_dataset(n, shape=(2**16, 2**14), dtype="f4", chunks=(256, 256), compression="gzip")
    ds[0:256, 0:256] = 1.0
h5("gzip_unstored.h5", sparse_gzip)
# Control: real weights, compressed and not, convert.
h5("ok.h5", lambda d, n: d.create_dataset(n, data=np.arange(6, dtype=np.float32).reshape(3, 2)))
h5("ok_gzip.h5", lambda d, n: d.create_dataset(n, data=np.zeros((3, 2), np.float32), compression="gzip"))

# Datasets whose data lives in other files: raw bytes of any file (external storage), another HDF5 file's dataset
# (a virtual dataset), an external link to another file's dataset.
np.arange(6, dtype=np.float32).tofile("outside.bin")
with h5py.File("outside.h5", "w") as f:
    f["x"] = np.arange(6, dtype=np.float32).reshape(3, 2)
h5("external_storage.h5",
   lambda d, n: d.create_dataset(n, shape=(3, 2), dtype="f4", external=[(os.path.abspath("outside.bin"), 0, 24)]))
def virtual(d, n):
    layout = h5py.VirtualLayout(shape=(3, 2), dtype="f4")
    layout[:] = h5py.VirtualSource(os.path.abspath("outside.h5"), "x", shape=(3, 2))
    d.create_virtual_dataset(n, layout)
h5("virtual.h5", virtual)
def external_link(d, n):
    d[n] = h5py.ExternalLink(os.path.abspath("outside.h5"), "/x")
h5("external_link.h5", external_link)

# A .keras archive whose weights group contains itself (a hard-link cycle).
with h5py.File("cycle.weights.h5", "w") as f:
    g = f.create_group("layers/dense")
    g["self"] = g
with zipfile.ZipFile("cycle.keras", "w") as z:
    z.writestr("config.json", json.dumps(dense))
    z.write("cycle.weights.h5", "model.weights.h5")

# A .keras archive whose model.weights.h5 claims 1 GB from a few deflated bytes (both headers patched, so the
# archive stays consistent for libzip's checks).
with zipfile.ZipFile("bomb.keras", "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("config.json", json.dumps(dense))
    z.writestr("model.weights.h5", b"\0" * 1000)
data = bytearray(open("bomb.keras", "rb").read())
name = b"model.weights.h5"
for sig, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
    at = 0
    while True:
        at = data.find(sig, at)
        if at < 0:
            break
        name_at = at + (30 if sig == b"PK\x03\x04" else 46)
        if data[name_at:name_at + len(name)] == name:
            struct.pack_into("<I", data, at + size_at, 1_000_000_000)
        at += 4
open("bomb.keras", "wb").write(bytes(data))
)PY";

class KerasLimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("onyx_keras_limits_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed())));
    fs::create_directories(*dir_);
    const std::string script = (*dir_ / "write_files.py").string();
    std::ofstream(script) << kWriteFiles;
    const std::string cmd = "/usr/bin/python3 " + script + " " + dir_->string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return;
    char buf[256];
    while (fgets(buf, sizeof buf, p) != nullptr) python_output_ += buf;
    written_ = pclose(p) == 0;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!written_) GTEST_SKIP() << "python3-h5py could not write the test files: " << python_output_;
  }
  static std::string Path(const std::string& name) { return (*dir_ / name).string(); }
  // The conversion's error message (empty when it succeeded).
  static std::string ConvertError(const std::string& name) {
    auto r = ConvertKerasFile(Path(name), ConvertOptions{});
    return r.ok() ? std::string() : r.status().message();
  }

  static fs::path* dir_;
  static bool written_;
  static std::string python_output_;
};

fs::path* KerasLimitsTest::dir_ = nullptr;
bool KerasLimitsTest::written_ = false;
std::string KerasLimitsTest::python_output_;

TEST_F(KerasLimitsTest, RealWeightsConvert) {
  EXPECT_EQ(ConvertError("ok.h5"), "");
  EXPECT_EQ(ConvertError("ok_gzip.h5"), "");
}

TEST_F(KerasLimitsTest, DatasetOfPetabytesIsRefusedBeforeAllocating) {
  const std::string e = ConvertError("huge.h5");
  EXPECT_NE(e.find("ONYX_MAX_FILE_BYTES"), std::string::npos) << e;
  EXPECT_NE(e.find("d/kernel:0"), std::string::npos) << e;
}

TEST_F(KerasLimitsTest, DatasetLargerThanItsStorageIsRefused) {
  const std::string e = ConvertError("unstored.h5");
  EXPECT_NE(e.find("claims 268435456 bytes but the file stores"), std::string::npos) << e;
  const std::string g = ConvertError("gzip_unstored.h5");
  EXPECT_NE(g.find("claims 4294967296 bytes but the file stores"), std::string::npos) << g;
}

TEST_F(KerasLimitsTest, DataInOtherFilesIsNotRead) {
  const std::string e = ConvertError("external_storage.h5");
  EXPECT_NE(e.find("keeps its data in external files"), std::string::npos) << e;
  const std::string v = ConvertError("virtual.h5");
  EXPECT_NE(v.find("is a virtual dataset"), std::string::npos) << v;
  const std::string l = ConvertError("external_link.h5");
  EXPECT_NE(l.find("dataset '/model_weights/d/d/kernel:0' not found"), std::string::npos) << l;
}

TEST_F(KerasLimitsTest, ZipMemberClaimingMoreThanDeflateCanInflateIsRefused) {
  const std::string e = ConvertError("bomb.keras");
  EXPECT_NE(e.find("model.weights.h5' claims 1000000000 bytes from"), std::string::npos) << e;
}

TEST_F(KerasLimitsTest, WeightGroupThatContainsItselfIsRefused) {
  const std::string e = ConvertError("cycle.keras");
  EXPECT_NE(e.find("nested more than 64 levels deep (raise the limit with ONYX_MAX_MODEL_NESTING)"), std::string::npos)
      << e;
}

// `levels` Sequential models, each holding an input and the next; a Dense layer innermost.
std::string NestedModels(int levels) {
  std::string s;
  for (int i = 0; i < levels; ++i) {
    s += R"({"class_name": "Sequential", "config": {"name": "s)" + std::to_string(i) +
         R"(", "layers": [{"class_name": "InputLayer", "config": {"name": "in)" + std::to_string(i) +
         R"(", "batch_input_shape": [null, 3]}}, )";
  }
  s += R"({"class_name": "Dense", "config": {"name": "d", "units": 2}})";
  for (int i = 0; i < levels; ++i) s += "]}}";
  return R"({"modelTopology": )" + s + "}";
}

TEST_F(KerasLimitsTest, ModelsNestedTooDeepAreRefused) {
  // The top model and 65 below it: the innermost is nested 65 levels deep.
  std::ofstream(Path("models66.json")) << NestedModels(66);
  const std::string e = ConvertError("models66.json");
  EXPECT_NE(e.find("models nested more than 64 levels deep (raise the limit with ONYX_MAX_MODEL_NESTING)"),
            std::string::npos)
      << e;
  // Within the limit, nesting is no error of its own (the Dense layer has no weights in this file).
  std::ofstream(Path("models65.json")) << NestedModels(65);
  const std::string ok = ConvertError("models65.json");
  EXPECT_NE(ok.find("missing weight #0 (kernel)"), std::string::npos) << ok;
}

TEST_F(KerasLimitsTest, JsonNestedTooDeepIsRefused) {
  const int levels = 200000;  // deep enough to overflow the stack of any recursive copy or walk
  std::ofstream(Path("deep.json")) << R"({"modelTopology": {"class_name": "Sequential", "config": )"
                                   << std::string(levels, '[') << std::string(levels, ']') << "}}";
  const std::string e = ConvertError("deep.json");
  EXPECT_NE(e.find("JSON nested more than 1000 levels deep (raise the limit with ONYX_MAX_JSON_DEPTH)"),
            std::string::npos)
      << e;
  // Brackets inside strings (escaped quotes included) are no nesting.
  std::ofstream(Path("brackets.json")) << R"({"modelTopology": {"class_name": "Sequential", "config": {"name": "\")"
                                       << std::string(2000, '[') << R"(", "layers": []}}})";
  const std::string b = ConvertError("brackets.json");
  EXPECT_NE(b.find("no layers"), std::string::npos) << b;
}

}  // namespace
}  // namespace onyx
