// Implementation choices measured on the CPU at hand, remembered between processes. A kernel with several ways to
// compute one shape (oneDNN's direct or Winograd convolution, one thread or the session's) times them once on the
// real shape and keeps the fastest; the result is stored per CPU model in
// $XDG_CACHE_HOME/onyx/tuning/<cpu>.json (default ~/.cache/onyx/tuning/), keyed by the instruction sets in effect
// (kernels/cpu_isa.h TuningIsaName: the cap, and oneDNN's int8 units) and a canonical signature of the operation (kind,
// shapes, strides, pads, post-ops, threads), so that a rule measured on one CPU family is never applied to another.
//
// ONYX_TUNING selects the behaviour: "off" (the kernels' fixed rules, nothing read or written), "cache" (default:
// cached choices; a miss is timed and recorded while the process's budget for it lasts, kMissBudgetMs), "always" (every
// shape re-timed and the cache updated; what `onyx tune MODEL` does). The file is JSON, written whole to a temporary
// name and renamed (readers never see half of it; between processes the last writer wins, after merging what the others
// wrote). A file that cannot be parsed, is too large or belongs to another CPU is ignored with one warning on stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace onyx::kernels {

enum class TuningMode { kOff, kCache, kAlways };

// Parses a value of ONYX_TUNING: "off", "cache" or "always", in any case; empty means cache.
Result<TuningMode> ParseTuningMode(std::string_view text);
const char* TuningModeName(TuningMode mode);

// The mode in force: the override when one is set, else ONYX_TUNING (read on each call, so that a test or a host
// program may change it between sessions). An invalid value counts as "cache", with one warning on stderr.
TuningMode CurrentTuningMode();
// Overrides ONYX_TUNING for this process (`onyx tune` sets kAlways); nullopt removes the override.
void SetTuningModeOverride(std::optional<TuningMode> mode);

// The CPU's model name: /proc/cpuinfo's "model name" (or the cpuid brand string), "unknown-cpu" when neither says.
std::string CpuModelName();
// The CPU as tuning results depend on it: CpuModelName() with cpuid's vendor, family, model and stepping, e.g.
// "Intel(R) Xeon(R) Processor (GenuineIntel 6-143-8)". Cloud machines often report one masked name for several
// generations (an Ice Lake and a Sapphire Rapids both "Intel(R) Xeon(R) Processor"), whose measured choices differ.
std::string CpuIdentity();
// `cpu` as a file name: letters, digits, '.', '-' kept, runs of anything else one '_' (none at either end), at
// most 96 characters.
std::string CpuFileName(std::string_view cpu);
// $XDG_CACHE_HOME/onyx/tuning, or $HOME/.cache/onyx/tuning; empty when neither variable is set.
std::string DefaultTuningDir();

// One measured candidate.
struct TunedTime {
  std::string candidate;  // e.g. "winograd/t2"
  double ms = 0;          // the fastest of the repetitions
};

struct TuningEntry {
  std::string choice;            // the candidate to use
  std::vector<TunedTime> times;  // what was measured (empty when the choice came from elsewhere)
};

// What a process decided for one signature: for `onyx tune`'s report.
struct TuningDecision {
  std::string signature;
  TuningEntry entry;
  bool measured = false;  // timed in this process (false: read from the cache)
};

// Times candidates 0..n-1 by calling run(i): each once to warm up, then rounds that run every candidate in turn
// (drift in the machine's speed then touches all alike), at most `max_rounds`, stopping once `budget_ms` have passed
// after the second round, or earlier once two rounds agree on a fastest candidate 10% ahead of every other; a
// candidate 1.5x slower than the fastest after the first round is not run again (so timing costs least where the
// choice is clear). Candidate i runs on threads[i] threads; a run counts only when the process had the CPUs it
// asked for (process CPU time >= 0.7 x threads x wall time): a run that lost a thread to another process measures
// the machine's load, not the candidate, and a choice taken from it would be kept long after the load is gone.
// Returns the fastest counted time of each in ms; +infinity for a candidate whose run failed or never counted.
// `before` (may be empty) is called ahead of each timed run, outside the timing (FlushFromCaches of the weights of a
// product whose weights come from memory in a real run).
std::vector<double> TimeCandidates(size_t n, const std::function<Status(size_t)>& run, const std::vector<int>& threads,
                                   double budget_ms = 20, int max_rounds = 5,
                                   const std::function<void(size_t)>& before = {});

// Writes back and evicts [data, data + bytes) from every cache level (x86's clflush; elsewhere nothing), so that the
// next run reads it from memory, as a layer's weights are read in a model larger than the caches.
void FlushFromCaches(const void* data, size_t bytes);

// Reads one byte of each page of a 64 MB region (mapped to the kernel's zero page: no memory), so that the address
// translations cached by the TLBs are those of unrelated pages, as after the other layers of a model whose weights
// span more pages than the TLBs hold.
void EvictTranslations();

// Writes `bytes` at `dst` (a copy of `src`, or zeros where `src` is null) from `threads` OpenMP threads in
// interleaved 4 KB pages, page i by thread i mod threads: a kernel timed on buffers placed so finds about half of
// any contiguous share it reads or writes modified in another core's cache, as it does in a model, where the
// previous node, and the one that last wrote the output's buffer, split their work their own way. Timed on buffers
// that only the candidate itself touched run after run, a split that writes the other core's lines is not charged
// for them: ResNet-50's 256 -> 64 1x1 convolution as two one-thread halves timed 0.29 ms that way and ran 0.40-0.50
// in the model on a 2-core Sapphire Rapids Xeon, where oneDNN's own two-thread split kept its 0.28.
void PlaceAsWrittenBy(void* dst, const void* src, size_t bytes, int threads);

// Before a timed run of a matrix product with weights from memory, as a model runs it: A and C (bytes) rewritten by
// `threads` threads as another node's would leave them (PlaceAsWrittenBy; threads > 1), the TLBs' translations
// evicted, the weights and C flushed from every cache.
void PrepareProductTiming(void* a, size_t a_bytes, void* c, size_t c_bytes, const void* weights, size_t weight_bytes,
                          int threads);

// A share of a candidate's time within which a few timed runs cannot tell two candidates apart.
constexpr double kTimingNoise = 0.03;

// The index of the fastest of `ms`, except that `fixed` (the fixed rule's choice) is kept unless the fastest beats
// it by more than `min_gain` (a share of fixed's time): a smaller difference is within the noise of a few runs.
size_t PickFastest(const std::vector<double>& ms, size_t fixed, double min_gain = kTimingNoise);

// The value of environment variable `name` when set and not empty: an implementation a kernel is told to use instead
// of its timed choice (ONYX_FLOAT_MATMUL_IMPL, ONYX_INT8_MATMUL_IMPL: tests and measurements).
std::optional<std::string> ForcedImplementation(const char* name);

// The cache of one CPU model and instruction-set cap, held in memory and mirrored to a JSON file. Thread-safe.
class TuningCache {
 public:
  static constexpr uint64_t kMaxFileBytes = uint64_t{4} << 20;

  // A cache over `dir`/CpuFileName(cpu).json for entries of `isa` (empty dir: in memory only). Nothing is read
  // until the first Find or Record.
  TuningCache(std::string dir, std::string cpu, std::string isa);

  // The process's cache: DefaultTuningDir(), CpuIdentity() and TuningIsaName() (created on first use).
  static std::shared_ptr<TuningCache> Process();
  // Replaces the process's cache by one over `dir` (tests; `onyx tune --cache-dir`). Kernels that hold the old one
  // finish with it.
  static void ResetProcess(const std::string& dir);

  // The entry stored for `signature`, if any; with `recorded_only`, only one recorded by this process (mode always
  // re-times each shape once per process, not once per node).
  std::optional<TuningEntry> Find(const std::string& signature, bool recorded_only = false);
  // Stores `entry` for `signature` and writes the file (merged with what other processes wrote since it was read).
  // A failure to write is returned (and warned about once) but leaves the in-memory entry in place.
  Status Record(const std::string& signature, const TuningEntry& entry);
  // Notes that `signature` was decided as `entry` (measured now, or found in the cache), for Decisions().
  void NoteDecision(const std::string& signature, const TuningEntry& entry, bool measured);
  // Ends the timing of a miss that began at `start`: the index of the candidate to use (PickFastest over `ms`, or
  // `fixed` where some candidate never ran), recorded with the times of all `names` when all ran, the decision noted
  // and the time spent charged to the miss budget.
  size_t DecideMeasured(const std::string& signature, const std::vector<std::string>& names,
                        const std::vector<double>& ms, size_t fixed, double min_gain,
                        std::chrono::steady_clock::time_point start);
  std::vector<TuningDecision> Decisions() const;

  // In mode cache, timing on a miss stops once this process has spent this long on it (creating the candidates'
  // primitives and running them); later misses take the fixed rules, unrecorded, so that a cold cache costs a
  // session at most this much (the next process tunes the next shapes; `onyx tune` fills the cache ahead).
  static constexpr double kMissBudgetMs = 100;
  // Once sessions are created, the budget is also at most kMissTimePerCreationTime times the time their loading and
  // creation took together (AllowMissTime): a small model, created in a few milliseconds, then tunes a few shapes per
  // process instead of spending 100 ms on them, which would be several times its creation and first run.
  static constexpr double kMissTimePerCreationTime = 2;
  bool MissBudgetLeft() const;
  void SpendMissTime(double ms);
  void SetMissBudget(double ms);  // `onyx tune` lifts it (infinity), allowances aside
  // A session's loading and creation took `creation_ms`: the budget may grow by kMissTimePerCreationTime times that.
  void AllowMissTime(double creation_ms);

  std::string path() const;  // the file's path (empty when in memory only)
  // The warnings of loading (a corrupt or foreign file), also printed to stderr once each.
  std::vector<std::string> warnings() const;

 private:
  // Reads the file into `out` (entries of this ISA only); a bad file leaves `out` empty and adds a warning.
  void ReadFile(std::map<std::string, TuningEntry>& out, bool warn);
  void LoadLocked();
  Status WriteLocked();

  const std::string dir_;
  const std::string cpu_;
  const std::string isa_;
  const std::string file_name_;
  mutable std::mutex mutex_;
  bool loaded_ = false;
  std::map<std::string, TuningEntry> entries_;   // this ISA's entries, by signature
  std::map<std::string, TuningEntry> recorded_;  // what this process recorded (written over the others on save)
  std::vector<TuningDecision> decisions_;
  std::vector<std::string> warnings_;
  double miss_ms_ = 0;
  double miss_budget_ms_ = kMissBudgetMs;
  std::optional<double> miss_allowance_ms_;  // what sessions allowed (AllowMissTime); none before the first
};

}  // namespace onyx::kernels
