// The LR/SC reservations of cores that share memory. A core's LR reserves a word; a store by any
// other core (or a DMA copy) to that word breaks the reservation, so that core's SC fails, as the
// A extension requires. Words are named by their host address, the same for every alias of the
// memory. Cores of different clusters may use it from different threads (the interleaver's
// phase 1): each call is atomic, and as each thread touches only its own cluster's words then,
// what a call finds does not depend on the threads. Plain C++, no SystemC.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace fs::iss {

class Reservations {
 public:
  // `core` reserves the word holding `host` (one reservation per core).
  void reserve(const void* core, const uint8_t* host) {
    std::lock_guard<std::mutex> lock(mutex_);
    drop(core);
    held_.push_back({core, word(host)});
    count_ = held_.size();
  }
  bool holds(const void* core, const uint8_t* host) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::find(held_.begin(), held_.end(), Held{core, word(host)}) != held_.end();
  }
  void release(const void* core) {
    std::lock_guard<std::mutex> lock(mutex_);
    drop(core);
    count_ = held_.size();
  }
  // Bytes [host, host + bytes) were written by `writer` (nullptr: not a core): every other core's
  // reservation on those words is broken.
  void stored(const void* writer, const uint8_t* host, uint32_t bytes) {
    if (empty() || bytes == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const uintptr_t first = word(host), last = word(host + bytes - 1);
    held_.erase(std::remove_if(held_.begin(), held_.end(),
                               [&](const Held& h) { return h.core != writer && h.word >= first && h.word <= last; }),
                held_.end());
    count_ = held_.size();
  }
  bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }

 private:
  struct Held {
    const void* core;
    uintptr_t word;
    bool operator==(const Held& o) const { return core == o.core && word == o.word; }
  };
  static uintptr_t word(const uint8_t* host) { return uintptr_t(host) >> 2; }
  void drop(const void* core) {
    held_.erase(std::remove_if(held_.begin(), held_.end(), [core](const Held& h) { return h.core == core; }),
                held_.end());
  }
  mutable std::mutex mutex_;
  std::vector<Held> held_;
  std::atomic<size_t> count_{0};  // held_.size(), to look at without the lock
};

}  // namespace fs::iss
