// The models a server serves, laid out as Triton's model repository:
//   DIR/<model>/config.json             optional (serve/model_config.h)
//   DIR/<model>/<version>/model.onnx    versions are numeric folders; the model file is model.onnx or the one
//                                       .onnx/.keras/.h5/.hdf5/.json/.pb/.tflite file or SavedModel folder there
// or one model file (`onyx serve MODEL`: a repository of one, version 1). Model control as Triton's: kNone loads
// everything at start and nothing after; kPoll also rescans on Poll() (new models and versions load, removed ones
// unload, changed ones reload); kExplicit loads what Load() names. Loads of several models run in parallel; a model
// that fails to load is UNAVAILABLE with the reason in the index, and the others serve on. A reload swaps the new
// versions in when they are ready; unloaded versions are freed once their in-flight requests finish (shared_ptr).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "serve/metrics.h"
#include "serve/run_queue.h"
#include "serve/served_model.h"

namespace onyx::serve {

enum class ModelControlMode { kNone, kPoll, kExplicit };
Result<ModelControlMode> ParseModelControlMode(const std::string& text);  // none | poll | explicit

struct RepositoryOptions {
  std::string root;  // the repository folder; empty with single_path
  std::string single_path, single_name;
  ModelControlMode mode = ModelControlMode::kNone;
  ServingDefaults defaults;
  int load_threads = 4;  // models loaded at once
};

class ModelRepository {
 public:
  // `runs` and `metrics` outlive the repository.
  ModelRepository(RepositoryOptions options, RunQueue& runs, MetricsRegistry& metrics);
  ~ModelRepository();
  ModelRepository(const ModelRepository&) = delete;
  ModelRepository& operator=(const ModelRepository&) = delete;

  ModelControlMode mode() const { return options_.mode; }

  // Loads what the server starts with: every model (modes none and poll) or `names` (explicit), in parallel.
  // Returns an error only for an unreadable repository folder or a name not in it; models that fail to load are
  // reported by Index().
  Status LoadStartup(const std::vector<std::string>& names);
  // Loads (or reloads) one model; the error says why it failed (also kept for Index()).
  Status Load(const std::string& name);
  Status Unload(const std::string& name);
  // Rescans the folder (kPoll): loads new and changed models, unloads removed ones.
  void Poll();

  // POST /v2/repository/index: [{"name", "version"?, "state"?, "reason"?}] for every model in the folder.
  nlohmann::json Index(bool ready_only) const;
  // The loaded version `version` of `name`, or its highest loaded version when `version` is empty. NotFound (with
  // the model's state and reason) otherwise.
  Result<std::shared_ptr<ServedModel>> Find(const std::string& name, const std::string& version) const;
  // The loaded versions of `name`, ascending.
  std::vector<std::string> Versions(const std::string& name) const;

 private:
  struct VersionEntry {
    std::string state;  // READY or UNAVAILABLE
    std::string reason;
    std::shared_ptr<ServedModel> model;
  };
  struct ModelEntry {
    std::string state;  // READY (at least one version serves), UNAVAILABLE
    std::string reason;
    std::string signature;  // of the files it was loaded from (kPoll notices changes by it)
    std::map<int64_t, VersionEntry> versions;
  };

  ModelEntry LoadEntry(const std::string& name) const;  // slow; no lock held
  void Install(const std::string& name, ModelEntry entry);
  std::vector<std::string> ScanNames() const;
  std::string Signature(const std::string& name) const;
  void LoadInParallel(const std::vector<std::string>& names);

  const RepositoryOptions options_;
  RunQueue& runs_;
  MetricsRegistry& metrics_;
  std::mutex load_mutex_;  // one Load/Unload/Poll at a time (each may load several models in parallel)
  mutable std::mutex mutex_;
  std::map<std::string, ModelEntry> models_;
};

}  // namespace onyx::serve
