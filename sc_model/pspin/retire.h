// The completion ("retire") block of the PsPIN unit: every handler run ends here. It keeps the
// per-handler-set statistics (runs, the handler's cycles and the runtime's entry and exit around
// them, latency, outcomes, ISS counters, faults, blocks in flight), stops the run on a fault when
// hpu.on_fault = abort, tells observers (timelines), and then carries out the run's consequences
// in a fixed order through its ports: the commands the run left (all of a native run's; timer
// commands to the timer unit), the task off the packet scheduler's count and the HPU back to its
// cluster's scheduler. The packet's feedback (not for a timer's run, which held no packet)
// reaches the NIC `nic.feedback_cycles` after the run and its HPU's commands are done: then its
// L2 slot goes back to the packet buffer and its latency as PsPIN measures it (arrival at the
// unit to feedback) counts.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/sc_time_util.h"
#include "common/stats.h"
#include "common/timed_queue.h"
#include "config/config.h"
#include "pspin/channels.h"
#include "net/packet_sink.h"

namespace fs {

struct HandlerSetStats {
  uint64_t runs = 0;
  Distribution cycles;  // the handler's own: its first instruction to its return
  Distribution entry_cycles, exit_cycles;  // the runtime's before and after it (0 natively)
  Distribution latency_ps;  // packet arrival at the switch to handler end
  Distribution pspin_latency_ps;  // packet arrival at the unit to its feedback reaching the NIC
  std::map<std::string, uint64_t> outcomes;
  std::map<std::string, Distribution> cycles_by_outcome;  // the handler's own cycles, per outcome
  HandlerCounters counters;          // summed over runs (ISS only)
  std::vector<std::string> faults;   // the first 10 fault messages (hpu.on_fault = drop)
  uint64_t fault_consequences = 0;   // faults of runs that waited on a word a faulted run left held
  uint64_t log_lines = 0;            // fs_log / fs_log_write calls (written to the log or not)
  uint64_t timer_runs = 0;           // runs of the timer handler (counted in `runs` too)
  // Blocks in flight (handler sets with block ids): a block is open from the start of its first
  // run that was not a drop until the end of the run that completed it.
  // Blocks are keyed (group << 32) | id: two allreduces' block 0 are two blocks.
  struct OpenBlock {
    Picos since = 0;               // the earliest start among its runs
    std::vector<uint32_t> ports;   // ingress ports of its runs so far, ascending
  };
  std::map<uint64_t, OpenBlock> open_blocks;
  // block -> when its last completion's run started: a run of the block that started no later
  // ended after the completing run (runs end out of start order) and belongs to that block.
  std::map<uint64_t, Picos> closed_blocks;
  std::vector<std::pair<Picos, Picos>> block_spans;    // completed blocks: open, completed
  struct BlockOccupancy {
    uint64_t completed = 0, open_at_end = 0, max_open = 0;
    double avg_open = 0;  // time-average over [0, end]
  };
  BlockOccupancy block_occupancy(Picos end) const;
};

// One handler execution, for timelines (Chrome trace): which HPU ran what, when.
struct HandlerEvent {
  unsigned cluster, hpu;
  const std::string* handler_set;
  Picos started, ended;  // execution (after the DMA copy) to the end of the handler's cycles
  uint64_t packet_id, cycles;  // cycles: the HPU's, the runtime's entry and exit included
  uint64_t handler_cycles;     // the handler's own
  std::string outcome;
  uint64_t packet_bytes = 0;     // the packet's length (a timer run's: 0)
  uint64_t dma_wait_cycles = 0;  // of `cycles`, those spent waiting for fs_dma_copy copies
  bool timer = false;            // a timer handler's run
};

// Told of every handler run as it retires (e.g. the Chrome trace of `flaresim run`).
class HandlerRunObserver {
 public:
  virtual ~HandlerRunObserver() = default;
  virtual void handler_ran(const HandlerEvent& e) = 0;
};

class Retire : public sc_core::sc_module, public RetireIf {
 public:
  sc_core::sc_port<CommandIf> to_commands;
  sc_core::sc_port<TimerIf> to_timers;         // fs_timer_arm / fs_timer_cancel
  sc_core::sc_port<BufferReleaseIf> release;   // backward: the packet's L2 slot
  sc_core::sc_port<TaskDoneIf> task_done;      // backward: the packet scheduler's count
  sc_core::sc_port<HpuFreeIf, 0> hpu_free;     // backward: bound once per cluster, in cluster order

  // hpu.on_fault = abort: the first fault stops the simulation; nic.feedback_cycles times the
  // feedback; `clock`: the PsPIN clock.
  Retire(sc_core::sc_module_name name, const HpuConfig& hpu, const NicConfig& nic, Clock clock, DropLedger& drops);

  void retire(RetiredRun r) override;

  const std::map<std::string, HandlerSetStats>& handler_stats() const { return stats_; }
  // The stats' handlers section: one entry per installed handler set (indices into
  // handler_sets()), every key present whether the set ran or not.
  void report(StatsTree& handlers, const std::vector<int>& installed, Picos end) const;
  void observe(HandlerRunObserver* o) { observers_.push_back(o); }
  // A handler fault that stopped the simulation (hpu.on_fault = abort); empty if none.
  const std::string& fatal_error() const { return fatal_; }

 private:
  void report_set(const HandlerSet& set, const HandlerSetStats& st, StatsTree& h, Picos end) const;
  // The outcome's name; counts the run, its fault or drop.
  std::string count(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r);
  // Blocks in flight: the run opens its block, or completes it.
  void track_block(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r);
  // The packet's feedback reached the NIC.
  void fed_back(PacketPtr p);
  // A faulted run's message: the fault, the packet, the fault it is a consequence of, and what
  // it left held.
  std::string fault_report(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r);

  bool abort_on_fault_;
  Clock clock_;
  unsigned feedback_cycles_;
  DropLedger& drops_;
  TimedQueue<PacketPtr> feedback_;  // feedbacks on their way to the NIC
  std::map<std::string, HandlerSetStats> stats_;
  std::vector<HandlerRunObserver*> observers_;
  std::string fatal_;
  // Words faulted runs left held (their bytes), with the fault and the value it left there.
  struct HeldBy {
    std::string fault;
    uint32_t value;
  };
  std::map<const uint8_t*, HeldBy> held_;
};

}  // namespace fs
