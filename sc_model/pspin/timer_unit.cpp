// The PsPIN unit's timers (see timer_unit.h).
#include "pspin/timer_unit.h"

#include <cstring>

#include "fs_handler.h"
#include "pspin/handler_sets.h"

namespace fs {

TimerUnit::TimerUnit(sc_core::sc_module_name name, Clock clock, const HpuConfig& hpu)
    : sc_core::sc_module(name), to_cluster("to_cluster"), clock_(clock), max_chain_(hpu.max_timer_chain) {
  SC_METHOD(fire);
  sensitive << wake_;
  dont_initialize();
}

void TimerUnit::arm(int set, uint32_t id, unsigned cluster, uint32_t delay_cycles, bool by_timer_run) {
  const Key key{set, id};
  const auto it = timers_.find(key);
  if (it != timers_.end()) {
    due_.erase({it->second.at, it->second.sequence, key});
    timers_.erase(it);
    ++moved;
  } else {
    ++armed;
  }
  if (!by_timer_run) chain_ = 0;
  const Timer t{now_ps() + clock_.cycles_ps(delay_cycles), sequence_++, cluster, by_timer_run};
  timers_.emplace(key, t);
  due_.insert({t.at, t.sequence, key});
  wake();
}

void TimerUnit::cancel(int set, uint32_t id) {
  const auto it = timers_.find({set, id});
  if (it == timers_.end()) return;
  due_.erase({it->second.at, it->second.sequence, it->first});
  timers_.erase(it);
  ++cancelled;
  wake();
}

void TimerUnit::wake() {
  wake_.cancel();
  if (!due_.empty()) wake_.notify(ps_time(std::get<0>(*due_.begin()) - now_ps()));
}

void TimerUnit::fire() {
  while (!due_.empty() && std::get<0>(*due_.begin()) <= now_ps()) {
    const Key key = std::get<2>(*due_.begin());
    const Timer t = timers_.at(key);
    due_.erase(due_.begin());
    timers_.erase(key);
    ++fired;
    if (t.by_timer_run && ++chain_ > max_chain_ && fatal_.empty()) {
      fatal_ = "handler set " + handler_sets()[size_t(key.first)].name + ": timers armed by its timer handler fired " +
               std::to_string(max_chain_) + " times in a row with no packet's handler arming one (timer " +
               std::to_string(key.second) + " re-armed for ever?) at " + std::to_string(now_ps()) + " ps";
      sc_core::sc_stop();
      return;
    }
    auto p = std::make_shared<Packet>();
    p->id = next_packet_id_++;
    const fs_timer_event_t event{key.second, t.cluster};
    p->data.resize(sizeof event);
    std::memcpy(p->data.data(), &event, sizeof event);
    p->arrival = p->received = now_ps();
    p->handler_set = key.first;
    Task task;
    task.pkt = std::move(p);
    task.cluster = t.cluster;
    task.timer = true;
    to_cluster[t.cluster]->submit(std::move(task));
  }
  wake();
}

void TimerUnit::report(StatsTree& out) const {
  out["armed"] = armed, out["moved"] = moved, out["cancelled"] = cancelled, out["fired"] = fired;
  out["pending_at_end"] = timers_.size();
}

}  // namespace fs
