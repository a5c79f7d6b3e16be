// Prepared weights (reordered into a primitive's layout, Winograd-transformed, packed) shared by every kernel of the
// process that prepares the same source bytes the same way. Models reuse one initializer in several nodes: a
// detector's heads run the same convolutions on each pyramid level (RetinaNet: 50 Conv nodes over 10 weights), and a
// kernel per node used to keep a prepared copy of its own (RetinaNet-ResNet50-FPN held ~650 MB of prepared weights
// for 136 MB of initializers).
//
// An entry lives as long as some kernel holds the result (the cache keeps weak references). Callers keep the source
// bytes alive and unchanged while they hold a result, which makes the source address a sound key: while an entry is
// alive, no other bytes can occupy that address.
#pragma once

#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace onyx::kernels {

// Key: what, besides the source address, decides the prepared bytes (dims, layout, tile...); needs operator==.
template <typename T, typename Key>
class SharedWeightsCache {
 public:
  // The prepared weights of `source` for `key` when a kernel still holds them, else make()'s result (a
  // std::shared_ptr<const T>, or null on failure, not recorded), recorded for the next caller.
  template <typename Make>
  std::shared_ptr<const T> Get(const void* source, const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : entries_) {
      if (e.source != source || !(e.key == key)) continue;
      if (auto held = e.prepared.lock()) return held;
    }
    std::shared_ptr<const T> made = std::forward<Make>(make)();
    if (made == nullptr) return made;
    // Entries whose weights no kernel holds any more go first (their source may be gone: the address is free).
    std::erase_if(entries_, [](const Entry& e) { return e.prepared.expired(); });
    entries_.push_back(Entry{source, key, made});
    return made;
  }

 private:
  struct Entry {
    const void* source;
    Key key;
    std::weak_ptr<const T> prepared;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace onyx::kernels
