// The LR/SC reservations of cores that share memory. A core's LR reserves a word; a store by any
// other core (or a DMA copy) to that word breaks the reservation, so that core's SC fails, as the
// A extension requires. Words are named by their host address, the same for every alias of the
// memory. Plain C++, no SystemC.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace fs::iss {

class Reservations {
 public:
  // `core` reserves the word holding `host` (one reservation per core).
  void reserve(const void* core, const uint8_t* host) {
    release(core);
    held_.push_back({core, word(host)});
  }
  bool holds(const void* core, const uint8_t* host) const {
    return std::find(held_.begin(), held_.end(), Held{core, word(host)}) != held_.end();
  }
  void release(const void* core) {
    held_.erase(std::remove_if(held_.begin(), held_.end(), [core](const Held& h) { return h.core == core; }),
                held_.end());
  }
  // Bytes [host, host + bytes) were written by `writer` (nullptr: not a core): every other core's
  // reservation on those words is broken.
  void stored(const void* writer, const uint8_t* host, uint32_t bytes) {
    if (held_.empty() || bytes == 0) return;
    const uintptr_t first = word(host), last = word(host + bytes - 1);
    held_.erase(std::remove_if(held_.begin(), held_.end(),
                               [&](const Held& h) { return h.core != writer && h.word >= first && h.word <= last; }),
                held_.end());
  }
  bool empty() const { return held_.empty(); }

 private:
  struct Held {
    const void* core;
    uintptr_t word;
    bool operator==(const Held& o) const { return core == o.core && word == o.word; }
  };
  static uintptr_t word(const uint8_t* host) { return uintptr_t(host) >> 2; }
  std::vector<Held> held_;
};

}  // namespace fs::iss
