#include "serve/model_repository.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

namespace onyx::serve {
namespace fs = std::filesystem;

namespace {

constexpr const char* kReady = "READY";
constexpr const char* kUnavailable = "UNAVAILABLE";

bool IsSavedModelDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::exists(dir / "saved_model.pb", ec);
}

// The model in a version folder: model.onnx, else the one model file or SavedModel folder there.
Result<std::string> FindModelFile(const fs::path& version_dir) {
  std::error_code ec;
  if (IsSavedModelDir(version_dir)) return version_dir.string();
  if (fs::is_regular_file(version_dir / "model.onnx", ec)) return (version_dir / "model.onnx").string();
  static const std::set<std::string> kExtensions = {".onnx", ".keras", ".h5", ".hdf5", ".json", ".pb", ".tflite"};
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(version_dir, ec)) {
    if ((e.is_regular_file(ec) && kExtensions.count(e.path().extension().string()) > 0) || IsSavedModelDir(e.path())) {
      found.push_back(e.path().string());
    }
  }
  if (ec) return IoError("cannot list " + version_dir.string() + ": " + ec.message());
  if (found.empty()) {
    return NotFound("no model in " + version_dir.string() +
                    " (model.onnx, or one .onnx/.keras/.h5/.json/.pb/.tflite file or SavedModel folder)");
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    return InvalidArgument(version_dir.string() + " holds several models (" + found[0] + ", " + found[1] +
                           "): name the one to serve model.onnx or leave one");
  }
  return found[0];
}

// Numeric subfolders of a model folder.
std::vector<int64_t> ListVersions(const fs::path& model_dir) {
  std::vector<int64_t> versions;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(model_dir, ec)) {
    const std::string n = e.path().filename().string();
    if (!e.is_directory(ec) || n.empty() || n.size() > 18 ||
        !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    versions.push_back(std::stoll(n));
  }
  return versions;
}

}  // namespace

Result<ModelControlMode> ParseModelControlMode(const std::string& text) {
  if (text == "none") return ModelControlMode::kNone;
  if (text == "poll") return ModelControlMode::kPoll;
  if (text == "explicit") return ModelControlMode::kExplicit;
  return InvalidArgument("unknown model control mode '" + text + "' (none, poll or explicit)");
}

ModelRepository::ModelRepository(RepositoryOptions options, RunQueue& runs, MetricsRegistry& metrics)
    : options_(std::move(options)), runs_(runs), metrics_(metrics) {}

ModelRepository::~ModelRepository() = default;

std::vector<std::string> ModelRepository::ScanNames() const {
  if (options_.root.empty()) return {options_.single_name};
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(options_.root, ec)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory(ec) && !n.empty() && n[0] != '.') names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ModelRepository::Signature(const std::string& name) const {
  if (options_.root.empty()) return "";
  // Every file's path, size and modification time: a new version folder, a replaced model or an edited config.json
  // changes it.
  std::string signature;
  std::error_code ec;
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(fs::path(options_.root) / name, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const auto size = it->file_size(ec);
    const auto time = it->last_write_time(ec).time_since_epoch().count();
    lines.push_back(it->path().string() + " " + std::to_string(size) + " " + std::to_string(time));
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) signature += l + "\n";
  return signature;
}

ModelRepository::ModelEntry ModelRepository::LoadEntry(const std::string& name) const {
  ModelEntry entry;
  entry.state = kUnavailable;
  auto load_version = [&](int64_t version, const std::string& path, const ModelConfig& config) {
    VersionEntry& v = entry.versions[version];
    const std::string version_name = std::to_string(version);
    auto model =
        ServedModel::Load(name, version_name, path, config, options_.defaults, runs_, metrics_.For(name, version_name));
    if (model.ok()) {
      v.state = kReady;
      v.model = std::move(model).value();
    } else {
      v.state = kUnavailable;
      v.reason = model.status().message();
    }
  };
  if (options_.root.empty()) {
    load_version(1, options_.single_path, ModelConfig{});
  } else {
    const fs::path dir = fs::path(options_.root) / name;
    entry.signature = Signature(name);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      entry.reason = "no folder " + dir.string();
      return entry;
    }
    auto config = LoadModelConfig(dir.string());
    if (!config.ok()) {
      entry.reason = config.status().message();
      return entry;
    }
    const std::vector<int64_t> available = ListVersions(dir);
    const std::vector<int64_t> selected = SelectVersions(*config, available);
    if (selected.empty()) {
      entry.reason = available.empty() ? "no version folders (numeric names) in " + dir.string()
                                       : "no version in " + dir.string() + " matches config.json's version_policy";
      return entry;
    }
    for (int64_t version : selected) {
      auto path = FindModelFile(dir / std::to_string(version));
      if (path.ok()) {
        load_version(version, *path, *config);
      } else {
        entry.versions[version] = {kUnavailable, path.status().message(), nullptr};
      }
    }
  }
  for (const auto& [version, v] : entry.versions) {
    if (v.model) entry.state = kReady;
    if (!v.reason.empty() && entry.reason.empty())
      entry.reason = "version " + std::to_string(version) + ": " + v.reason;
  }
  return entry;
}

void ModelRepository::Install(const std::string& name, ModelEntry entry) {
  ModelEntry old;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = models_[name];
    old = std::move(slot);
    slot = std::move(entry);
  }
  // `old` goes out of scope here, without the lock: the last reference to an idle version frees it (joining its
  // batcher thread, returning its memory).
}

void ModelRepository::LoadInParallel(const std::vector<std::string>& names) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < names.size(); i = next++) Install(names[i], LoadEntry(names[i]));
  };
  const size_t n = std::min<size_t>(names.size(), static_cast<size_t>(std::max(options_.load_threads, 1)));
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
}

Status ModelRepository::LoadStartup(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  if (!options_.root.empty()) {
    std::error_code ec;
    if (!fs::is_directory(options_.root, ec))
      return NotFound("model repository '" + options_.root + "' is not a folder");
  }
  std::vector<std::string> to_load = names;
  if (options_.mode != ModelControlMode::kExplicit) {
    to_load = ScanNames();
  } else {
    const std::vector<std::string> known = ScanNames();
    for (const auto& n : names) {
      if (std::find(known.begin(), known.end(), n) == known.end()) {
        return NotFound("--load-model '" + n + "': no such model folder in " + options_.root);
      }
    }
  }
  LoadInParallel(to_load);
  return Status::Ok();
}

Status ModelRepository::Load(const std::string& name) {
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  const std::vector<std::string> known = ScanNames();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    return NotFound("no model '" + name + "' in the repository");
  }
  ModelEntry entry = LoadEntry(name);
  const std::string state = entry.state, reason = entry.reason;
  Install(name, std::move(entry));
  if (state != kReady) return InvalidArgument("failed to load '" + name + "': " + reason);
  return Status::Ok();
}

Status ModelRepository::Unload(const std::string& name) {
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (models_.find(name) == models_.end()) return NotFound("model '" + name + "' is not loaded");
  }
  ModelEntry unloaded;
  unloaded.state = kUnavailable;
  unloaded.reason = "unloaded";
  Install(name, std::move(unloaded));
  return Status::Ok();
}

void ModelRepository::Poll() {
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  const std::vector<std::string> names = ScanNames();
  std::vector<std::string> signatures;  // read before locking: walking the folders is slow
  for (const auto& n : names) signatures.push_back(Signature(n));
  std::vector<std::string> changed, removed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = models_.find(names[i]);
      if (it == models_.end() || it->second.signature != signatures[i]) changed.push_back(names[i]);
    }
    for (const auto& [n, entry] : models_) {
      if (std::find(names.begin(), names.end(), n) == names.end()) removed.push_back(n);
    }
  }
  LoadInParallel(changed);
  for (const auto& n : removed) {
    ModelEntry old;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = models_.find(n);
      old = std::move(it->second);
      models_.erase(it);
    }
  }
}

nlohmann::json ModelRepository::Index(bool ready_only) const {
  nlohmann::json index = nlohmann::json::array();
  const std::vector<std::string> names = ScanNames();
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<std::string> all(names.begin(), names.end());
  for (const auto& [n, entry] : models_) all.insert(n);
  for (const auto& name : all) {
    auto it = models_.find(name);
    if (it == models_.end()) {
      if (!ready_only) index.push_back({{"name", name}});
      continue;
    }
    const ModelEntry& entry = it->second;
    if (entry.versions.empty()) {
      if (!ready_only) index.push_back({{"name", name}, {"state", entry.state}, {"reason", entry.reason}});
      continue;
    }
    for (const auto& [version, v] : entry.versions) {
      if (ready_only && v.state != kReady) continue;
      nlohmann::json item = {{"name", name}, {"version", std::to_string(version)}, {"state", v.state}};
      if (!v.reason.empty()) item["reason"] = v.reason;
      index.push_back(std::move(item));
    }
  }
  return index;
}

Result<std::shared_ptr<ServedModel>> ModelRepository::Find(const std::string& name, const std::string& version) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) return NotFound("model '" + name + "' is not loaded");
  const ModelEntry& entry = it->second;
  if (version.empty()) {
    for (auto v = entry.versions.rbegin(); v != entry.versions.rend(); ++v) {
      if (v->second.model) return v->second.model;
    }
    return NotFound("model '" + name + "' is not ready" + (entry.reason.empty() ? "" : ": " + entry.reason));
  }
  for (const auto& [number, v] : entry.versions) {
    if (std::to_string(number) != version) continue;
    if (v.model) return v.model;
    return NotFound("model '" + name + "' version " + version + " is not ready: " + v.reason);
  }
  return NotFound("model '" + name + "' has no version '" + version + "'");
}

std::vector<std::string> ModelRepository::Versions(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> versions;
  auto it = models_.find(name);
  if (it == models_.end()) return versions;
  for (const auto& [number, v] : it->second.versions) {
    if (v.model) versions.push_back(std::to_string(number));
  }
  return versions;
}

}  // namespace onyx::serve
