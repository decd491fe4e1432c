// A fixed-latency pipeline stage as a SystemC module: items pushed now come out `latency`
// later, in order, handed to a consumer callback. Every block with a constant latency (parser,
// router, scheduler, command unit) uses it instead of spawning a process per item. push_at
// serves a stage whose items take varying times but leave in order (a single engine).
#pragma once
#include <deque>
#include <functional>
#include <systemc>
#include <utility>

#include "common/sc_time_util.h"

namespace fs {

template <typename T>
class DelayLine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(DelayLine);
  DelayLine(sc_core::sc_module_name name, Picos latency, std::function<void(T)> consumer)
      : sc_core::sc_module(name), latency_(latency), consumer_(std::move(consumer)) {
    SC_METHOD(drain);
    sensitive << wake_;
    dont_initialize();
  }

  void push(T item) {
    if (latency_ == 0) {
      consumer_(std::move(item));
      return;
    }
    const Picos due = now_ps() + latency_;
    if (items_.empty()) wake_.notify(ps_time(latency_));
    items_.emplace_back(due, std::move(item));
  }

  // Hands `item` on at `due`, or when the item before it leaves if that is later (items leave
  // in push order); at once if `due` is now and nothing waits.
  void push_at(T item, Picos due) {
    const Picos now = now_ps();
    if (!items_.empty() && due < items_.back().first) due = items_.back().first;
    if (due <= now && items_.empty()) {
      consumer_(std::move(item));
      return;
    }
    if (items_.empty()) wake_.notify(ps_time(due - now));
    items_.emplace_back(due, std::move(item));
  }

  size_t pending() const { return items_.size(); }

 private:
  void drain() {
    const Picos now = now_ps();
    while (!items_.empty() && items_.front().first <= now) {
      T item = std::move(items_.front().second);
      items_.pop_front();
      consumer_(std::move(item));
    }
    if (!items_.empty()) wake_.notify(ps_time(items_.front().first - now));
  }

  Picos latency_;
  std::function<void(T)> consumer_;
  std::deque<std::pair<Picos, T>> items_;
  sc_core::sc_event wake_;
};

}  // namespace fs
