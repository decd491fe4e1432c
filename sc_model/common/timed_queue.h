// Items due at times known in advance, pushed in any order, handed to a consumer callback when
// the kernel reaches their time: in time order, and in push order among items due at the same
// time. For stages whose items take varying times and may overtake each other (a handler's
// feedback waits for its commands; commands come from HPUs that run ahead of the kernel), where
// DelayLine (common/delay_line.h) keeps push order.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <systemc>
#include <utility>

#include "common/sc_time_util.h"

namespace fs {

template <typename T>
class TimedQueue : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TimedQueue);
  TimedQueue(sc_core::sc_module_name name, std::function<void(T)> consumer)
      : sc_core::sc_module(name), consumer_(std::move(consumer)) {
    SC_METHOD(drain);
    sensitive << wake_;
    dont_initialize();
  }

  // Hands `item` on at `due` (now if `due` has passed).
  void push_at(T item, Picos due) {
    const Picos now = now_ps();
    if (due < now) due = now;
    items_.emplace(Key{due, seq_++}, std::move(item));
    wake_.notify(ps_time(items_.begin()->first.due - now));  // an earlier notification wins
  }

  size_t pending() const { return items_.size(); }

 private:
  struct Key {
    Picos due;
    uint64_t seq;
    bool operator<(const Key& o) const { return due != o.due ? due < o.due : seq < o.seq; }
  };

  void drain() {
    const Picos now = now_ps();
    while (!items_.empty() && items_.begin()->first.due <= now) {
      T item = std::move(items_.begin()->second);
      items_.erase(items_.begin());
      consumer_(std::move(item));
    }
    if (!items_.empty()) wake_.notify(ps_time(items_.begin()->first.due - now));
  }

  std::function<void(T)> consumer_;
  std::map<Key, T> items_;
  uint64_t seq_ = 0;
  sc_core::sc_event wake_;
};

}  // namespace fs
