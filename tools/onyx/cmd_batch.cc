// onyx batch MODEL --inputs DIR|GLOB... --output-dir DIR: scores many inputs, stacking them into batches along the
// first dimension when the model's inputs allow it, with a progress bar, resumable, a bad input reported and skipped.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "batch_items.h"
#include "cli.h"
#include "core/cpu_count.h"
#include "core/safe_write.h"
#include "format/npy.h"
#include "open_model.h"

namespace onyx::cli {

namespace fs = std::filesystem;

namespace {

void Help() {
  std::printf(
      "usage: onyx batch MODEL --inputs DIR|GLOB [--inputs ...] --output-dir DIR [--batch-size N] [--threads N]\n"
      "                  [--workers N] [--layout nchw|nhwc] [--mean M[,M,M]] [--std S[,S,S]] [--raw] [--quiet]\n\n"
      "Runs MODEL on every item the --inputs name (a folder's entries or a glob pattern): a test_data_set folder\n"
      "(input_N.pb), a folder of NAME.npy files (one per model input), one .npy or .pb tensor, or an image (JPEG,\n"
      "PNG, BMP, WebP, TIFF, PNM, JPEG 2000: decoded, resized bilinearly to the model's input, scaled to [0, 1]\n"
      "unless --raw, then (x - mean) / std per channel). Each item's outputs go to OUT/NAME.npy (one output) or\n"
      "OUT/NAME/OUTPUT.npy. Items whose outputs exist are skipped (resumable); an unreadable item is reported and\n"
      "skipped. When every input's first dimension is dynamic, items of the same shape are stacked into batches.\n\n"
      "options:\n"
      "  --inputs DIR|GLOB   where the items are (repeatable)\n"
      "  --output-dir DIR    where the outputs go (created)\n"
      "  --batch-size N      items per run when the model takes batches (default 8)\n"
      "  --threads N         intra-op threads of each run (default 1)\n"
      "  --workers N         runs at the same time on one shared session (default: cores / threads)\n"
      "  --layout L          images: nchw or nhwc (default: from the input's shape)\n"
      "  --mean, --std       images: per-channel normalization after scaling (default 0 and 1)\n"
      "  --raw               images: keep 0..255 instead of scaling to [0, 1]\n"
      "  --quiet             no progress bar\n\n"
      "Exit codes: 0 every item done, 1 some items failed (listed), 2 usage error.\n");
}

bool ParseFloats(const std::string& option, const std::string& text, std::vector<float>* out) {
  out->clear();
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    double v = 0;
    if (!ParseFloatArg(option, text.substr(start, comma - start), -1e30, 1e30, &v)) return false;
    out->push_back(static_cast<float>(v));
    start = comma + 1;
  }
  return !out->empty();
}

// Stacks same-shaped tensors along the first dimension.
Tensor Stack(const std::vector<const Tensor*>& parts) {
  Shape shape = parts[0]->shape();
  shape[0] = 0;
  for (const Tensor* p : parts) shape[0] += p->dim(0);
  Tensor out = Tensor::Allocate(parts[0]->type(), shape);
  char* dst = static_cast<char*>(out.raw());
  for (const Tensor* p : parts) {
    std::memcpy(dst, p->raw(), p->nbytes());
    dst += p->nbytes();
  }
  return out;
}

Status WriteNpyAtomically(const Tensor& t, const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, format::SerializeNpy(t));
  const fs::path p(path);
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  ONYX_ASSIGN_OR_RETURN(AtomicFileWriter w,
                        AtomicFileWriter::Create(p.parent_path().string(), p.filename().string(), "output"));
  ONYX_RETURN_IF_ERROR(w.Append(bytes));
  return w.Commit();
}

struct Progress {
  std::mutex mutex;
  size_t done = 0, failed = 0, total = 0;
  std::vector<std::string> failures;  // "path: reason"
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool bar = false;

  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  void Draw() {  // holds mutex
    if (!bar) return;
    const size_t finished = done + failed;
    const int width = 30;
    const int filled = total ? static_cast<int>(width * finished / total) : width;
    const double s = Seconds();
    std::fprintf(stderr, "\r[%-*s] %zu/%zu items, %zu failed, %.1f items/s", width, std::string(filled, '#').c_str(),
                 finished, total, failed, s > 0 ? static_cast<double>(done) / s : 0.0);
    std::fflush(stderr);
  }
  void Done(size_t n) {
    std::lock_guard<std::mutex> lock(mutex);
    done += n;
    Draw();
  }
  void Fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    ++failed;
    failures.push_back(what);
    Draw();
  }
};

class BatchRunner {
 public:
  BatchRunner(const Session& session, std::vector<const ir::ValueInfo*> inputs, std::vector<std::string> outputs,
              std::string output_dir, const ImageOptions& image, bool batchable, Progress& progress)
      : session_(session),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        output_dir_(std::move(output_dir)),
        image_(image),
        batchable_(batchable),
        progress_(progress) {}

  // Reads, runs and writes `items`, stacking those of the same shapes when the model takes batches.
  void Process(const std::vector<BatchItem>& items) {
    std::vector<std::pair<const BatchItem*, std::vector<Tensor>>> ready;
    for (const auto& item : items) {
      auto tensors = ReadBatchItem(item, inputs_, image_);
      if (!tensors.ok()) {
        progress_.Fail(item.path + ": " + tensors.status().message());
        continue;
      }
      ready.emplace_back(&item, std::move(tensors).value());
    }
    // Consecutive runs of items with the same shapes form the batches.
    for (size_t begin = 0; begin < ready.size();) {
      size_t end = begin + 1;
      while (batchable_ && end < ready.size() && SameShapes(ready[begin].second, ready[end].second)) ++end;
      RunGroup(ready, begin, end);
      begin = end;
    }
  }

 private:
  static bool SameShapes(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].shape() != b[i].shape() || a[i].type() != b[i].type()) return false;
    }
    return true;
  }

  using Ready = std::vector<std::pair<const BatchItem*, std::vector<Tensor>>>;

  void RunGroup(const Ready& ready, size_t begin, size_t end) {
    if (end - begin == 1) {
      RunOne(*ready[begin].first, ready[begin].second);
      return;
    }
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      std::vector<const Tensor*> parts;
      for (size_t k = begin; k < end; ++k) parts.push_back(&ready[k].second[i]);
      feeds.emplace_back(inputs_[i]->name, Value(Stack(parts)));
    }
    std::vector<Value> outs;
    Status st = session_.Run(feeds, outputs_, &outs);
    const int64_t rows = feeds[0].second.tensor().dim(0);
    bool splittable = st.ok();
    for (const auto& v : outs) {
      splittable = splittable && v.is_tensor() && v.tensor().rank() >= 1 && v.tensor().dim(0) == rows &&
                   v.tensor().type() != DataType::kString;
    }
    if (!splittable) {
      // A failing batch (one bad item) or outputs that do not follow the batch: item by item.
      for (size_t k = begin; k < end; ++k) RunOne(*ready[k].first, ready[k].second);
      return;
    }
    int64_t row = 0;
    for (size_t k = begin; k < end; ++k) {
      const int64_t n = ready[k].second[0].dim(0);
      std::vector<Tensor> mine;
      for (const auto& v : outs) {
        const Tensor& t = v.tensor();
        Shape s = t.shape();
        s[0] = n;
        const size_t row_bytes = t.nbytes() / static_cast<size_t>(rows);
        mine.push_back(t.View(t.type(), s, static_cast<size_t>(row) * row_bytes));
      }
      row += n;
      Write(*ready[k].first, mine);
    }
  }

  void RunOne(const BatchItem& item, const std::vector<Tensor>& tensors) {
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t i = 0; i < inputs_.size(); ++i) feeds.emplace_back(inputs_[i]->name, Value(tensors[i]));
    std::vector<Value> outs;
    Status st = session_.Run(feeds, outputs_, &outs);
    if (!st.ok()) {
      progress_.Fail(item.path + ": " + st.message());
      return;
    }
    std::vector<Tensor> result;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!outs[i].is_tensor()) {
        progress_.Fail(item.path + ": output '" + outputs_[i] + "' is a " + outs[i].KindName() + ", not a tensor");
        return;
      }
      result.push_back(outs[i].tensor());
    }
    Write(item, result);
  }

  void Write(const BatchItem& item, const std::vector<Tensor>& results) {
    for (size_t i = 0; i < results.size(); ++i) {
      Status st = WriteNpyAtomically(results[i], BatchOutputPath(output_dir_, item, outputs_[i], outputs_.size() == 1));
      if (!st.ok()) {
        progress_.Fail(item.path + ": " + st.message());
        return;
      }
    }
    progress_.Done(1);
  }

  const Session& session_;
  std::vector<const ir::ValueInfo*> inputs_;
  std::vector<std::string> outputs_;
  std::string output_dir_;
  ImageOptions image_;
  bool batchable_;
  Progress& progress_;
};

}  // namespace

int BatchMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  std::string model_path, output_dir;
  std::vector<std::string> input_args;
  int batch_size = 8, threads = 1, workers = 0;
  bool quiet = false;
  ImageOptions image;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--quiet") {
      quiet = true;
    } else if (a == "--raw") {
      image.raw = true;
    } else if (a == "--inputs" || a == "--output-dir" || a == "--batch-size" || a == "--threads" || a == "--workers" ||
               a == "--layout" || a == "--mean" || a == "--std") {
      if (!has_value) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      if (a == "--inputs") {
        input_args.push_back(v);
      } else if (a == "--output-dir") {
        output_dir = v;
      } else if (a == "--batch-size") {
        if (!ParseIntArg(a, v, 1, 1 << 20, &batch_size)) return kExitUsage;
      } else if (a == "--threads") {
        if (!ParseIntArg(a, v, 1, 1024, &threads)) return kExitUsage;
      } else if (a == "--workers") {
        if (!ParseIntArg(a, v, 1, 1024, &workers)) return kExitUsage;
      } else if (a == "--layout") {
        if (v != "nchw" && v != "nhwc") {
          Error("--layout must be nchw or nhwc, got '" + v + "'");
          return kExitUsage;
        }
        image.layout = v;
      } else if (!ParseFloats(a, v, a == "--mean" ? &image.mean : &image.std)) {
        return kExitUsage;
      }
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "' (see 'onyx batch --help')");
      return kExitUsage;
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      Error("more than one MODEL given");
      return kExitUsage;
    }
  }
  if (model_path.empty() || input_args.empty() || output_dir.empty()) {
    Error("onyx batch needs MODEL, --inputs and --output-dir (see 'onyx batch --help')");
    return kExitUsage;
  }
  for (float s : image.std) {
    if (s == 0.0f) {
      Error("--std values must not be 0");
      return kExitUsage;
    }
  }
  if (workers == 0) workers = std::max(1, UsableCpuCount() / threads);

  SessionOptions options;
  options.intra_op_num_threads = threads;
  auto session = OpenModel(model_path, options);
  if (!session.ok()) {
    Error(session.status().message());
    return kExitFailure;
  }
  const ir::Graph& graph = (*session)->model().graph;
  std::vector<const ir::ValueInfo*> inputs = graph.RealInputs();
  std::vector<std::string> outputs;
  for (const auto& o : graph.outputs) outputs.push_back(o.name);
  bool batchable = batch_size > 1 && !inputs.empty();
  for (const auto* in : inputs) {
    const bool dynamic_first = in->type && in->type->is_tensor() && in->type->shape && !in->type->shape->empty() &&
                               !(*in->type->shape)[0].is_value() && in->type->elem_type != DataType::kString;
    batchable = batchable && dynamic_first;
  }

  auto listed = ListBatchItems(input_args);
  if (!listed.ok()) {
    Error(listed.status().message());
    return kExitUsage;
  }
  std::vector<BatchItem> pending;
  size_t skipped = 0;
  for (auto& item : *listed) {
    bool all_there = true;
    for (const auto& o : outputs) {
      all_there = all_there && fs::exists(BatchOutputPath(output_dir, item, o, outputs.size() == 1));
    }
    if (all_there) {
      ++skipped;
    } else {
      pending.push_back(std::move(item));
    }
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) {
    Error("cannot create '" + output_dir + "': " + ec.message());
    return kExitFailure;
  }

  Progress progress;
  progress.total = pending.size();
  progress.bar = !quiet && ::isatty(2);
  BatchRunner runner(**session, inputs, outputs, output_dir, image, batchable, progress);
  const size_t chunk = batchable ? static_cast<size_t>(batch_size) : 1;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      const size_t begin = next.fetch_add(chunk);
      if (begin >= pending.size()) return;
      const size_t end = std::min(pending.size(), begin + chunk);
      runner.Process(std::vector<BatchItem>(pending.begin() + static_cast<std::ptrdiff_t>(begin),
                                            pending.begin() + static_cast<std::ptrdiff_t>(end)));
    }
  };
  std::vector<std::thread> pool;
  const int n_workers = std::max(1, std::min<int>(workers, static_cast<int>((pending.size() + chunk - 1) / chunk)));
  for (int w = 1; w < n_workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (progress.bar) std::fprintf(stderr, "\n");

  const double seconds = progress.Seconds();
  std::sort(progress.failures.begin(), progress.failures.end());
  for (const auto& f : progress.failures) Error(f);
  if (!quiet) {
    std::printf("%zu done, %zu skipped (outputs exist), %zu failed; %.1f items/s (%s, %d worker%s x %d thread%s)\n",
                progress.done, skipped, progress.failed,
                seconds > 0 ? static_cast<double>(progress.done) / seconds : 0.0,
                batchable ? ("batches of up to " + std::to_string(batch_size)).c_str() : "one item per run", n_workers,
                n_workers == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
  }
  return progress.failed > 0 ? kExitFailure : kExitOk;
}

}  // namespace onyx::cli
