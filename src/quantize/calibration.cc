#include "quantize/calibration.h"

#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "format/npy.h"
#include "format/tensor_proto.h"
#include "quantize/calibration_plan.h"
#include "runtime/session.h"

namespace onyx::quantize {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> SortedEntries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path());
  // Natural order: test_data_set_2 before test_data_set_10.
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    const std::string x = a.filename().string(), y = b.filename().string();
    size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
      if (std::isdigit(static_cast<unsigned char>(x[i])) && std::isdigit(static_cast<unsigned char>(y[j]))) {
        size_t ie = i, je = j;
        while (ie < x.size() && std::isdigit(static_cast<unsigned char>(x[ie]))) ++ie;
        while (je < y.size() && std::isdigit(static_cast<unsigned char>(y[je]))) ++je;
        const std::string nx = x.substr(i, ie - i), ny = y.substr(j, je - j);
        if (nx.size() != ny.size()) return nx.size() < ny.size();
        if (nx != ny) return nx < ny;
        i = ie;
        j = je;
      } else {
        if (x[i] != y[j]) return x[i] < y[j];
        ++i;
        ++j;
      }
    }
    return x.size() - i < y.size() - j;
  });
  return out;
}

bool IsDataFile(const fs::path& p) { return p.extension() == ".npy" || p.extension() == ".pb"; }

Result<Value> LoadFile(const std::string& file, const ir::ValueInfo* decl) {
  if (fs::path(file).extension() == ".npy") {
    ONYX_ASSIGN_OR_RETURN(Tensor t, format::LoadNpy(file));
    return Value(std::move(t));
  }
  return format::LoadValueFile(file, decl != nullptr && decl->type ? &*decl->type : nullptr);
}

// Row `row` of a stacked array: [1, ...] or, when the model's input has one dimension less, without the axis.
Tensor Row(const Tensor& all, int64_t row, const ir::ValueInfo* decl) {
  Shape shape = all.shape();
  shape[0] = 1;
  const int64_t row_bytes = static_cast<int64_t>(all.nbytes()) / all.dim(0);
  Tensor t = all.View(all.type(), shape, static_cast<size_t>(row * row_bytes)).Clone();
  if (decl != nullptr && decl->type && decl->type->shape &&
      static_cast<int64_t>(decl->type->shape->size()) == all.rank() - 1) {
    shape.erase(shape.begin());
    auto r = t.Reshaped(shape);
    if (r.ok()) return std::move(r).value();
  }
  return t;
}

const ir::ValueInfo* FindInput(const ir::Graph& g, const std::string& name) {
  for (const auto& in : g.inputs) {
    if (in.name == name) return &in;
  }
  return nullptr;
}

}  // namespace

Result<CalibrationSet> CalibrationSet::Open(const std::string& dir, const ir::Graph& graph, int max_samples) {
  CalibrationSet set;
  set.graph_ = &graph;
  if (!fs::is_directory(dir)) return NotFound("calibration folder '" + dir + "' does not exist");
  const auto inputs = graph.RealInputs();
  std::vector<fs::path> folders, files;
  for (const auto& p : SortedEntries(dir)) {
    if (fs::is_directory(p))
      folders.push_back(p);
    else if (IsDataFile(p))
      files.push_back(p);
  }
  auto input_file = [&](const fs::path& folder, size_t k) -> std::string {
    const std::string name = inputs[k]->name;
    for (const std::string& stem : {"input_" + std::to_string(k), name}) {
      for (const char* ext : {".pb", ".npy"}) {
        if (fs::exists(folder / (stem + ext))) return (folder / (stem + ext)).string();
      }
    }
    return {};
  };
  if (!folders.empty()) {
    for (const auto& folder : folders) {
      Sample s;
      for (size_t k = 0; k < inputs.size(); ++k) {
        std::string f = input_file(folder, k);
        if (f.empty()) {
          return NotFound(folder.string() + ": no input_" + std::to_string(k) + ".pb/.npy or " + inputs[k]->name +
                          ".npy for input '" + inputs[k]->name + "'");
        }
        s.files.emplace_back(inputs[k]->name, std::move(f));
      }
      set.samples_.push_back(std::move(s));
    }
  } else {
    // NAME.npy per input, samples stacked along axis 0?
    bool stacked = !inputs.empty();
    for (const auto* in : inputs) stacked = stacked && fs::exists(fs::path(dir) / (in->name + ".npy"));
    if (stacked) {
      int64_t rows = -1;
      for (const auto* in : inputs) {
        ONYX_ASSIGN_OR_RETURN(Tensor t, format::LoadNpy((fs::path(dir) / (in->name + ".npy")).string()));
        if (t.rank() == 0 || (rows >= 0 && t.dim(0) != rows)) {
          return InvalidArgument(dir + ": stacked calibration arrays need the same number of rows (axis 0)");
        }
        rows = t.dim(0);
        set.stacked_[in->name] = std::move(t);
      }
      for (int64_t r = 0; r < rows; ++r) set.samples_.push_back(Sample{{}, r});
    } else {
      if (inputs.size() != 1) {
        return InvalidArgument(dir +
                               ": loose .npy/.pb files are one sample each, which needs a model with one input "
                               "(this one has " +
                               std::to_string(inputs.size()) + "); use a folder per sample or NAME.npy per input");
      }
      for (const auto& f : files) set.samples_.push_back(Sample{{{inputs[0]->name, f.string()}}, -1});
    }
  }
  if (set.samples_.empty()) return NotFound("calibration folder '" + dir + "' holds no samples");
  if (max_samples > 0 && set.samples_.size() > static_cast<size_t>(max_samples)) {
    set.samples_.resize(static_cast<size_t>(max_samples));
  }
  return set;
}

Result<Feeds> CalibrationSet::Load(size_t i) const {
  const Sample& s = samples_[i];
  Feeds feeds;
  if (s.row >= 0) {
    for (const auto& [name, all] : stacked_) feeds.emplace_back(name, Row(all, s.row, FindInput(*graph_, name)));
    return feeds;
  }
  for (const auto& [name, file] : s.files) {
    auto v = LoadFile(file, FindInput(*graph_, name));
    if (!v.ok()) return v.status().WithContext("calibration input '" + name + "'");
    feeds.emplace_back(name, std::move(v).value());
  }
  return feeds;
}

namespace {

// Runs `f(k)` for k in [0, n) on `threads` threads. Each k touches only its own observer, so the results are the
// same as one thread's; the tensors differ in size, hence the dynamic schedule.
template <typename F>
void ForEachTensor(size_t n, int threads, F&& f) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && n > 1)
  for (size_t k = 0; k < n; ++k) f(k);
}

}  // namespace

Result<std::map<std::string, ObservedTensor>> Calibrate(const ir::Model& model, const std::vector<std::string>& tensors,
                                                        const CalibrationSet& data, const QuantizeOptions& options,
                                                        CalibrationStats* stats) {
  std::map<std::string, ObservedTensor> observed;
  for (const auto& t : tensors) observed.try_emplace(t, options.num_bins);
  if (tensors.empty() || data.size() == 0) return observed;
  // One session (one run per sample) for every observed tensor when their values fit the budget together.
  ONYX_ASSIGN_OR_RETURN(Feeds first, data.Load(0));
  const CalibrationGroups plan = GroupObservedTensors(tensors, ObservedTensorBytes(model, tensors, first),
                                                      std::max<int64_t>(options.max_observed_bytes, 0),
                                                      std::max(options.max_outputs_per_session, 0));
  first.clear();
  stats->observed_bytes_per_run = plan.largest_group_bytes;
  const size_t error_samples = std::min(data.size(), static_cast<size_t>(std::max(options.error_samples, 0)));
  Progress progress{0, static_cast<int64_t>(plan.groups.size() * (data.size() + error_samples)), "calibrating"};
  SessionOptions so;
  so.intra_op_num_threads = options.threads;
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  std::set<std::string> graph_outputs;
  for (const auto& o : model.graph.outputs) graph_outputs.insert(o.name);
  const int32_t qmin = options.activation_type == DataType::kInt8 ? -128 : 0;
  const int32_t qmax = options.activation_type == DataType::kInt8 ? 127 : 255;

  for (const std::vector<std::string>& names : plan.groups) {
    ir::Model probe = model;
    for (const auto& t : names) {
      if (graph_outputs.count(t) == 0) probe.graph.outputs.push_back(ir::ValueInfo{t, {}, {}, {}});
    }
    ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(probe), so));
    ++stats->sessions;
    std::vector<ObservedTensor*> group;
    for (const auto& n : names) group.push_back(&observed.at(n));
    auto run = [&](size_t i, std::vector<Value>* outs) -> Status {
      ONYX_ASSIGN_OR_RETURN(Feeds feeds, data.Load(i));
      Status st = session->Run(feeds, names, outs);
      if (!st.ok()) return st.WithContext("calibration sample " + std::to_string(i));
      ++progress.done;
      if (options.progress) options.progress(progress);
      return Status::Ok();
    };
    std::vector<Value> outs;
    progress.stage = "calibrating";
    for (size_t i = 0; i < data.size(); ++i) {
      ONYX_RETURN_IF_ERROR(run(i, &outs));
      ForEachTensor(group.size(), threads, [&](size_t k) {
        ObservedTensor& o = *group[k];
        if (!outs[k].is_tensor() || outs[k].tensor().type() != DataType::kFloat) {
          o.is_float = false;
          return;
        }
        o.seen = true;
        o.observer.Observe(outs[k].tensor().values<float>());
      });
    }
    ForEachTensor(group.size(), threads, [&](size_t k) {
      ObservedTensor& o = *group[k];
      o.range = o.observer.Range(options.method, options.percentile);
      std::tie(o.scale, o.zero_point) = ActivationParams(o.range.first, o.range.second, options.activation_type);
    });
    // Entropy's clipped range against the tensor's min/max range, measured on the same samples: the squared QDQ
    // error of each (the KL divergence of the histogram does not see that clipping a saturated Relu6 at 1.5
    // moves every saturated value by 4.5).
    const bool compare = options.method == CalibrationMethod::kEntropy;
    struct Candidate {
      std::pair<float, float> range;
      float scale = 1;
      int32_t zero_point = 0;
      ErrorAccumulator error;
      double squared_error = 0, clipped_squared_error = 0;
    };
    std::vector<Candidate> full(compare ? group.size() : 0);
    for (size_t k = 0; k < full.size(); ++k) {
      const ObservedTensor& o = *group[k];
      full[k].range = o.observer.Range(CalibrationMethod::kMinMax, options.percentile);
      std::tie(full[k].scale, full[k].zero_point) =
          ActivationParams(full[k].range.first, full[k].range.second, options.activation_type);
    }
    progress.stage = "measuring";
    for (size_t i = 0; i < error_samples; ++i) {
      ONYX_RETURN_IF_ERROR(run(i, &outs));
      ForEachTensor(group.size(), threads, [&](size_t k) {
        ObservedTensor& o = *group[k];
        if (!o.is_float || !o.seen) return;
        std::span<const float> ref = outs[k].tensor().values<float>();
        std::vector<float> fq(ref.size());
        for (size_t j = 0; j < ref.size(); ++j) fq[j] = FakeQuantize(ref[j], o.scale, o.zero_point, qmin, qmax);
        o.error.Add(ref, fq);
        if (!compare) return;
        Candidate& c = full[k];
        double clipped = 0, whole = 0;
        for (size_t j = 0; j < ref.size(); ++j) {
          const double d = static_cast<double>(fq[j]) - ref[j];
          clipped += d * d;
          fq[j] = FakeQuantize(ref[j], c.scale, c.zero_point, qmin, qmax);
          const double e = static_cast<double>(fq[j]) - ref[j];
          whole += e * e;
        }
        c.clipped_squared_error += clipped;
        c.squared_error += whole;
        c.error.Add(ref, fq);
      });
    }
    for (size_t k = 0; k < full.size(); ++k) {
      ObservedTensor& o = *group[k];
      Candidate& c = full[k];
      if (!o.is_float || !o.seen || error_samples == 0 || c.squared_error >= c.clipped_squared_error) continue;
      o.range = c.range;
      o.scale = c.scale;
      o.zero_point = c.zero_point;
      o.error = c.error;
      o.kept_minmax = true;
    }
  }
  for (const auto& [name, o] : observed) stats->observer_bytes += o.observer.MemoryBytes();
  return observed;
}

}  // namespace onyx::quantize
