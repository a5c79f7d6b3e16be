#include "kernels/tuning_cache.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <cpuid.h>
#include <omp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/safe_file.h"
#include "core/safe_write.h"
#include "kernels/cpu_isa.h"
#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

// Names the file's layout; a file with another value is someone else's (or a later onyx's) and is left alone.
constexpr const char* kFormat = "onyx-tuning-1";
// TimeCandidates: a candidate this many times slower than the fastest after one round is not timed again, and rounds
// stop once the fastest leads every other by this share.
constexpr double kDropSlowerThan = 1.5;
constexpr double kClearLead = 0.1;

std::string Lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Prints each distinct warning once per process: a corrupt file read by every session would otherwise repeat it.
void WarnOnce(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(message).second) std::fprintf(stderr, "onyx: warning: %s\n", message.c_str());
}

std::mutex& OverrideMutex() {
  static std::mutex mutex;
  return mutex;
}
std::optional<TuningMode>& Override() {
  static std::optional<TuningMode> mode;
  return mode;
}

std::string CpuidBrand() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000004u) return "";
  char brand[49] = {};
  for (unsigned leaf = 0; leaf < 3; ++leaf) {
    __get_cpuid(0x80000002u + leaf, &a, &b, &c, &d);
    std::memcpy(brand + 16 * leaf, &a, 4);
    std::memcpy(brand + 16 * leaf + 4, &b, 4);
    std::memcpy(brand + 16 * leaf + 8, &c, 4);
    std::memcpy(brand + 16 * leaf + 12, &d, 4);
  }
  return brand;
}

std::string Trim(std::string s) {
  const auto not_space = [](unsigned char ch) { return !std::isspace(ch); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

nlohmann::json EntryToJson(const TuningEntry& e) {
  nlohmann::json times = nlohmann::json::object();
  for (const auto& t : e.times) times[t.candidate] = t.ms;
  return {{"choice", e.choice}, {"times_ms", times}};
}

// An entry as stored; nullopt when its fields are missing or of the wrong types.
std::optional<TuningEntry> EntryFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("choice") || !j["choice"].is_string()) return std::nullopt;
  TuningEntry e;
  e.choice = j["choice"].get<std::string>();
  if (e.choice.empty()) return std::nullopt;
  if (j.contains("times_ms")) {
    if (!j["times_ms"].is_object()) return std::nullopt;
    for (const auto& [name, ms] : j["times_ms"].items()) {
      if (!ms.is_number()) return std::nullopt;
      e.times.push_back({name, ms.get<double>()});
    }
  }
  return e;
}

}  // namespace

Result<TuningMode> ParseTuningMode(std::string_view text) {
  const std::string s = Lower(text);
  if (s.empty() || s == "cache") return TuningMode::kCache;
  if (s == "off") return TuningMode::kOff;
  if (s == "always") return TuningMode::kAlways;
  return InvalidArgument("ONYX_TUNING must be off, cache or always, got '" + std::string(text) + "'");
}

const char* TuningModeName(TuningMode mode) {
  switch (mode) {
    case TuningMode::kOff:
      return "off";
    case TuningMode::kCache:
      return "cache";
    case TuningMode::kAlways:
      return "always";
  }
  return "cache";
}

TuningMode CurrentTuningMode() {
  {
    std::lock_guard<std::mutex> lock(OverrideMutex());
    if (Override()) return *Override();
  }
  const char* env = std::getenv("ONYX_TUNING");
  if (env == nullptr) return TuningMode::kCache;
  auto mode = ParseTuningMode(env);
  if (!mode.ok()) {
    WarnOnce(mode.status().message() + "; using cache");
    return TuningMode::kCache;
  }
  return *mode;
}

void SetTuningModeOverride(std::optional<TuningMode> mode) {
  std::lock_guard<std::mutex> lock(OverrideMutex());
  Override() = mode;
}

std::string CpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = Trim(line.substr(colon + 1));
    if (!name.empty()) return name;
  }
  std::string brand = Trim(CpuidBrand());
  return brand.empty() ? "unknown-cpu" : brand;
}

std::string CpuIdentity() {
  std::string identity = CpuModelName();
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return identity;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return identity;
  // Family and model as the vendors' manuals combine them with the extended fields.
  const unsigned base_family = (a >> 8) & 0xf;
  const unsigned family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
  const unsigned model =
      (base_family == 0x6 || base_family == 0xf) ? (((a >> 16) & 0xf) << 4) | ((a >> 4) & 0xf) : (a >> 4) & 0xf;
  const unsigned stepping = a & 0xf;
  return identity + " (" + Trim(vendor) + " " + std::to_string(family) + "-" + std::to_string(model) + "-" +
         std::to_string(stepping) + ")";
}

std::string CpuFileName(std::string_view cpu) {
  std::string out;
  for (char c : cpu) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (keep) {
      out += c;
    } else if (out.empty() || out.back() != '_') {
      out += '_';
    }
    if (out.size() >= 96) break;
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '_')) out.erase(out.begin());
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "unknown-cpu" : out;
}

std::string DefaultTuningDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/onyx/tuning";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/onyx/tuning";
  return "";
}

TuningCache::TuningCache(std::string dir, std::string cpu, std::string isa)
    : dir_(std::move(dir)), cpu_(std::move(cpu)), isa_(std::move(isa)), file_name_(CpuFileName(cpu_) + ".json") {}

namespace {
std::mutex& ProcessMutex() {
  static std::mutex mutex;
  return mutex;
}
std::shared_ptr<TuningCache>& ProcessCache() {
  static std::shared_ptr<TuningCache> cache;
  return cache;
}
}  // namespace

std::shared_ptr<TuningCache> TuningCache::Process() {
  std::lock_guard<std::mutex> lock(ProcessMutex());
  auto& cache = ProcessCache();
  if (!cache) cache = std::make_shared<TuningCache>(DefaultTuningDir(), CpuIdentity(), TuningIsaName());
  return cache;
}

void TuningCache::ResetProcess(const std::string& dir) {
  auto fresh = std::make_shared<TuningCache>(dir, CpuIdentity(), TuningIsaName());
  std::lock_guard<std::mutex> lock(ProcessMutex());
  ProcessCache() = std::move(fresh);
}

std::string TuningCache::path() const { return dir_.empty() ? "" : dir_ + "/" + file_name_; }

void TuningCache::ReadFile(std::map<std::string, TuningEntry>& out, bool warn) {
  if (dir_.empty()) return;
  std::error_code ec;
  if (!std::filesystem::exists(path(), ec)) return;
  auto bad = [&](const std::string& why) {
    if (!warn) return;
    const std::string message = "tuning cache " + path() + " ignored: " + why;
    warnings_.push_back(message);
    WarnOnce(message);
  };
  auto file = ReadOnlyFile::OpenInside(dir_, file_name_, "tuning cache");
  if (!file.ok()) return bad(file.status().message());
  if (file->size() > kMaxFileBytes) {
    return bad("it has " + std::to_string(file->size()) + " bytes, more than the limit of " +
               std::to_string(kMaxFileBytes));
  }
  auto text = file->ReadAll();
  if (!text.ok()) return bad(text.status().message());
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("format") || j["format"] != kFormat) return bad(std::string("format is not '") + kFormat + "'");
  if (!j.contains("cpu") || j["cpu"] != cpu_) return bad("it was measured on another CPU");
  if (!j.contains("entries") || !j["entries"].is_object()) return bad("no 'entries' object");
  const std::string prefix = isa_ + "|";
  size_t skipped = 0;
  for (const auto& [key, value] : j["entries"].items()) {
    if (key.rfind(prefix, 0) != 0) continue;  // another instruction-set cap's entry
    auto entry = EntryFromJson(value);
    if (!entry) {
      ++skipped;
      continue;
    }
    out[key.substr(prefix.size())] = *entry;
  }
  if (skipped > 0 && warn) {
    const std::string message =
        "tuning cache " + path() + ": " + std::to_string(skipped) + " malformed entries skipped";
    warnings_.push_back(message);
    WarnOnce(message);
  }
}

void TuningCache::LoadLocked() {
  if (loaded_) return;
  loaded_ = true;
  ReadFile(entries_, true);
}

std::optional<TuningEntry> TuningCache::Find(const std::string& signature, bool recorded_only) {
  std::lock_guard<std::mutex> lock(mutex_);
  LoadLocked();
  const auto& from = recorded_only ? recorded_ : entries_;
  auto it = from.find(signature);
  if (it == from.end()) return std::nullopt;
  return it->second;
}

Status TuningCache::Record(const std::string& signature, const TuningEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  LoadLocked();
  entries_[signature] = entry;
  recorded_[signature] = entry;
  Status st = WriteLocked();
  if (!st.ok()) WarnOnce("tuning cache not saved: " + st.message());
  return st;
}

Status TuningCache::WriteLocked() {
  if (dir_.empty()) return Status::Ok();
  // What the file holds now (other processes may have added shapes since this one read it): every entry of a
  // well-formed file of this CPU, of every ISA cap, kept; a bad file is replaced.
  nlohmann::json entries = nlohmann::json::object();
  {
    std::error_code ec;
    if (std::filesystem::exists(path(), ec)) {
      auto file = ReadOnlyFile::OpenInside(dir_, file_name_, "tuning cache");
      if (file.ok() && file->size() <= kMaxFileBytes) {
        auto text = file->ReadAll();
        if (text.ok()) {
          const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
          if (!j.is_discarded() && j.is_object() && j.contains("format") && j["format"] == kFormat &&
              j.contains("cpu") && j["cpu"] == cpu_ && j.contains("entries") && j["entries"].is_object()) {
            entries = j["entries"];
          }
        }
      }
    }
  }
  for (const auto& [signature, entry] : recorded_) entries[isa_ + "|" + signature] = EntryToJson(entry);
  const nlohmann::json doc{{"format", kFormat}, {"cpu", cpu_}, {"entries", entries}};
  std::string text = doc.dump(1);
  text += '\n';
  if (text.size() > kMaxFileBytes) return Internal("tuning cache " + path() + " would exceed its size limit");
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Internal("cannot create the tuning cache folder " + dir_ + ": " + ec.message());
  ONYX_ASSIGN_OR_RETURN(AtomicFileWriter writer, AtomicFileWriter::Create(dir_, file_name_, "tuning cache"));
  ONYX_RETURN_IF_ERROR(writer.Append(text));
  return writer.Commit();
}

void TuningCache::NoteDecision(const std::string& signature, const TuningEntry& entry, bool measured) {
  std::lock_guard<std::mutex> lock(mutex_);
  decisions_.push_back({signature, entry, measured});
}

std::vector<TuningDecision> TuningCache::Decisions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return decisions_;
}

bool TuningCache::MissBudgetLeft() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (miss_ms_ >= miss_budget_ms_) return false;
  // `onyx tune` (an infinite budget) times every shape whatever the sessions allowed.
  return std::isinf(miss_budget_ms_) || !miss_allowance_ms_ || miss_ms_ < *miss_allowance_ms_;
}

void TuningCache::SetMissBudget(double ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  miss_budget_ms_ = ms;
}

void TuningCache::AllowMissTime(double creation_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  miss_allowance_ms_ = miss_allowance_ms_.value_or(0) + kMissTimePerCreationTime * std::max(0.0, creation_ms);
}

void TuningCache::SpendMissTime(double ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  miss_ms_ += ms;
}

std::vector<std::string> TuningCache::warnings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return warnings_;
}

std::vector<double> TimeCandidates(size_t n, const std::function<Status(size_t)>& run, const std::vector<int>& threads,
                                   double budget_ms, int max_rounds, const std::function<void(size_t)>& before) {
  using Clock = std::chrono::steady_clock;
  // The CPU clocks of the OpenMP threads the candidates run on (the calling thread's team, which oneDNN's parallel
  // regions reuse). The process's own CPU clock will not do: Linux adds another thread's running time to it only at
  // its next tick or switch, so a 2-thread run of 100 us reads as ~1 thread.
  int most_threads = 1;
  for (int t : threads) most_threads = std::max(most_threads, t);
  std::vector<clockid_t> clocks(static_cast<size_t>(most_threads));
  pthread_getcpuclockid(pthread_self(), &clocks[0]);
  for (auto& c : clocks) c = clocks[0];
  int team = 1;
#pragma omp parallel num_threads(most_threads)
  {
    const int k = omp_get_thread_num();
    if (k < most_threads) pthread_getcpuclockid(pthread_self(), &clocks[static_cast<size_t>(k)]);
#pragma omp single
    team = omp_get_num_threads();
  }
  auto cpu_ms = [&](int n) {  // the CPU time of the team's first n threads
    double sum = 0;
    for (int k = 0; k < std::min(n, team); ++k) {
      timespec ts{};
      clock_gettime(clocks[static_cast<size_t>(k)], &ts);
      sum += static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
    }
    return sum;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n, inf);
  std::vector<bool> failed(n, false);
  for (size_t i = 0; i < n; ++i) failed[i] = !run(i).ok();
  const auto start = Clock::now();
  std::vector<bool> dropped(n, false);
  for (int round = 0; round < max_rounds; ++round) {
    for (size_t i = 0; i < n; ++i) {
      if (failed[i] || dropped[i]) continue;
      const int want = i < threads.size() ? std::max(threads[i], 1) : 1;
      if (before) before(i);
      const double cpu0 = cpu_ms(want);
      const auto t0 = Clock::now();
      if (!run(i).ok()) {
        failed[i] = true;
        best[i] = inf;
        continue;
      }
      const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const double cpu = cpu_ms(want) - cpu0;
      if (cpu >= 0.7 * std::min(want, team) * wall) best[i] = std::min(best[i], wall);
    }
    if (round >= 1 && std::chrono::duration<double, std::milli>(Clock::now() - start).count() > budget_ms) break;
    // Rounds are spent where the order is in doubt: a candidate kDropSlowerThan times slower than the fastest after
    // the first round is not run again (its one time stands: the noise of a run adds time, so the fastest is not
    // slower than measured), and once two rounds agree on a fastest kClearLead ahead of every other, no more rounds.
    const double fastest = *std::min_element(best.begin(), best.end());
    if (!std::isfinite(fastest)) continue;
    bool leader_seen = false;
    bool all_counted = true;  // every candidate that runs has a counted time
    double runner_up = inf;
    for (size_t i = 0; i < n; ++i) {
      if (best[i] == fastest && !leader_seen) {
        leader_seen = true;
      } else {
        runner_up = std::min(runner_up, best[i]);
      }
      if (std::isfinite(best[i]) && best[i] > kDropSlowerThan * fastest) dropped[i] = true;
      all_counted = all_counted && (failed[i] || std::isfinite(best[i]));
    }
    if (round >= 1 && all_counted && fastest < (1 - kClearLead) * runner_up) break;
  }
  return best;
}

#if defined(__x86_64__) || defined(__i386__)
namespace {

constexpr size_t kFlushLine = 64;  // the smallest x86 cache line: flushing each 64 bytes covers any line size

// clflushopt: the flushes of one buffer overlap instead of running one after another (clflush): 9.4 MB of cached
// weights (a ResNet-50 layer-4 convolution's) took 5.5 ms with clflush and 0.4 ms with clflushopt on an Intel Xeon
// (Sapphire Rapids), before every timed run of every candidate, out of the cold cache's timing budget.
__attribute__((target("clflushopt"))) void FlushOpt(const char* p, size_t bytes) {
  for (size_t off = 0; off < bytes; off += kFlushLine) _mm_clflushopt(const_cast<char*>(p + off));
  if (bytes > 0) _mm_clflushopt(const_cast<char*>(p + bytes - 1));
}

bool HasClflushopt() {
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;  // CPUID.(7,0):EBX bit 23
  }();
  return has;
}

}  // namespace
#endif

void FlushFromCaches(const void* data, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  const auto* p = static_cast<const char*>(data);
  if (HasClflushopt()) {
    FlushOpt(p, bytes);
  } else {
    for (size_t off = 0; off < bytes; off += kFlushLine) _mm_clflush(p + off);
    if (bytes > 0) _mm_clflush(p + bytes - 1);
  }
  _mm_mfence();  // the flushes done before the timed run starts
#else
  (void)data;
  (void)bytes;
#endif
}

void PlaceAsWrittenBy(void* dst, const void* src, size_t bytes, int threads) {
  constexpr size_t kPage = 4096;
  const int team = std::max(threads, 1);
  const size_t pages = (bytes + kPage - 1) / kPage;
  RunTasks(team, team, [&](int64_t k) {
    for (size_t page = static_cast<size_t>(k); page < pages; page += static_cast<size_t>(team)) {
      const size_t off = page * kPage, n = std::min(kPage, bytes - off);
      char* to = static_cast<char*>(dst) + off;
      if (src != nullptr) {
        std::memcpy(to, static_cast<const char*>(src) + off, n);
      } else {
        std::memset(to, 0, n);
      }
    }
  });
}

void EvictTranslations() {
  constexpr size_t kBytes = size_t{64} << 20;
  constexpr size_t kPage = 4096;  // the smallest page size: one read per 4 KB touches every page of any larger size
  static const char* const region = [] {
    void* p = mmap(nullptr, kBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return static_cast<const char*>(nullptr);
    (void)madvise(p, kBytes, MADV_NOHUGEPAGE);  // 4 KB pages: a huge zero page would take one TLB entry for 2 MB
    return static_cast<const char*>(p);
  }();
  if (region == nullptr) return;
  const volatile char* pages = region;  // volatile: every read happens
  for (size_t off = 0; off < kBytes; off += kPage) (void)pages[off];
}

void PrepareProductTiming(void* a, size_t a_bytes, void* c, size_t c_bytes, const void* weights, size_t weight_bytes,
                          int threads) {
  if (threads > 1) {
    PlaceAsWrittenBy(a, nullptr, a_bytes, threads);
    PlaceAsWrittenBy(c, nullptr, c_bytes, threads);
  }
  EvictTranslations();
  FlushFromCaches(weights, weight_bytes);
  // C comes from memory too: a model's output buffer was last written a whole run earlier (A, the previous node's
  // output, is where its writers left it).
  FlushFromCaches(c, c_bytes);
}

std::optional<std::string> ForcedImplementation(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

size_t TuningCache::DecideMeasured(const std::string& signature, const std::vector<std::string>& names,
                                   const std::vector<double>& ms, size_t fixed, double min_gain,
                                   std::chrono::steady_clock::time_point start) {
  TuningEntry entry{names[fixed], {}};
  size_t pick = fixed;
  if (std::all_of(ms.begin(), ms.end(), [](double t) { return std::isfinite(t); })) {
    pick = PickFastest(ms, fixed, min_gain);
    entry.choice = names[pick];
    for (size_t i = 0; i < names.size(); ++i) entry.times.push_back({names[i], ms[i]});
    (void)Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
  }
  NoteDecision(signature, entry, true);
  SpendMissTime(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return pick;
}

size_t PickFastest(const std::vector<double>& ms, size_t fixed, double min_gain) {
  if (ms.empty()) return fixed;
  size_t best = fixed < ms.size() ? fixed : 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    if (ms[i] < ms[best]) best = i;
  }
  if (fixed < ms.size() && best != fixed && ms[best] >= ms[fixed] * (1 - min_gain)) return fixed;
  return best;
}

}  // namespace onyx::kernels
