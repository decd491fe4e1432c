// The PsPIN unit's timers (fs_timer_arm, fs_timer_cancel): each handler set's timers by id, armed
// or moved and cancelled by the commands of finished handler runs (the retire block), and fired
// in time order (ties: in the order they were armed) as tasks for the cluster whose handler armed
// them, where the set's timer handler runs like a packet handler on a copy of the timer event
// (fs_timer_event_t). A timer keeps the simulation going until it fires. A handler that re-arms
// a timer from its timer handler forever would keep it going for ever: after hpu.max_timer_chain
// fires in a row of timers armed by timer runs (no packet's handler armed one in between), the
// run stops with an error naming the set.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "common/sc_time_util.h"
#include "common/stats_tree.h"
#include "config/config.h"
#include "pspin/channels.h"

namespace fs {

class TimerUnit : public sc_core::sc_module, public TimerIf {
 public:
  sc_core::sc_port<TaskSinkIf, 0> to_cluster;  // bound once per cluster, in cluster order

  SC_HAS_PROCESS(TimerUnit);
  // Its parameters: the PsPIN clock and the hpu section (max_timer_chain).
  TimerUnit(sc_core::sc_module_name name, Clock clock, const HpuConfig& hpu);

  void arm(int set, uint32_t id, unsigned cluster, uint32_t delay_cycles, bool by_timer_run) override;
  void cancel(int set, uint32_t id) override;

  void report(StatsTree& out) const;
  // The error that stopped the run (a timer re-armed for ever); empty if none.
  const std::string& fatal_error() const { return fatal_; }

  uint64_t armed = 0, moved = 0, cancelled = 0, fired = 0;

 private:
  struct Timer {
    Picos at;
    uint64_t sequence;
    unsigned cluster;
    bool by_timer_run;
  };
  using Key = std::pair<int, uint32_t>;  // handler set, id
  void fire();  // SC_METHOD: every timer due now
  void wake();  // for the earliest timer

  Clock clock_;
  uint64_t max_chain_;
  std::map<Key, Timer> timers_;
  std::set<std::tuple<Picos, uint64_t, Key>> due_;  // (at, sequence, timer)
  uint64_t sequence_ = 0, next_packet_id_ = 1ull << 56, chain_ = 0;
  std::string fatal_;
  sc_core::sc_event wake_;
};

}  // namespace fs
