// A run uses the session's intra-op thread count whatever thread calls it. OpenMP keeps its thread count per
// calling thread, so a session created with 1 thread and run from another thread (a server's HTTP worker, a Python
// or batch worker thread) used to run oneDNN's primitives with OpenMP's default team, one thread per core or what
// the calling thread had set: each such thread then started its own team of OpenMP threads.
#include <dirent.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

std::string Floats(int64_t n, unsigned seed) { return testing::RandomFloatsText(n, seed, 0.05f); }

int ThreadsOfThisProcess() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(SessionRunThreads, ARunFromAnotherThreadKeepsTheSessionsThreadCount) {
  // Convolutions big enough that oneDNN splits them over every thread OpenMP offers.
  auto model = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,32,56,56] x) => (float[1,32,56,56] y) {
  w = Constant<value = float[32,32,3,3] {)" +
                                Floats(32 * 32 * 9, 1) +
                                R"(}>()
  a = Conv<pads = [1,1,1,1]>(x, w)
  y = Conv<pads = [1,1,1,1]>(a, w)
}
)");
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.intra_op_num_threads = 1;
  auto session = Session::Create(*model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Tensor x = Tensor::Allocate(DataType::kFloat, {1, 32, 56, 56}, /*zero=*/true);

  int before = 0, after = 0, omp_after = 0;
  bool ran = false;
  std::thread worker([&] {
    omp_set_num_threads(6);  // what this thread would otherwise give every parallel region
    before = ThreadsOfThisProcess();
    std::vector<Value> out;
    for (int r = 0; r < 3; ++r) ran = (*session)->Run({{"x", Value(x)}}, {}, &out).ok();
    after = ThreadsOfThisProcess();
    omp_after = omp_get_max_threads();
  });
  worker.join();
  ASSERT_TRUE(ran);
  // One thread per run: no OpenMP team was started for the worker.
  EXPECT_EQ(after, before) << "the runs started " << after - before << " threads";
  // And the worker's own setting is back once the run is over.
  EXPECT_EQ(omp_after, 6);
}

}  // namespace
}  // namespace onyx
