// The PsPIN packet-processing unit: L2 packet buffer, global packet scheduler, clusters (with
// their schedulers, DMA, L1 and HPUs), L2 handler memory and the command unit. Matched packets
// enter through `in`; handler output leaves through the command unit's egress ports. Keeps the
// per-handler-set statistics.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/stats.h"
#include "common/zeroed_memory.h"
#include "pspin/cluster.h"
#include "pspin/command_unit.h"
#include "pspin/handler_api.h"
#include "pspin/interleaver.h"
#include "pspin/memory/handler_memory.h"
#include "pspin/packet_buffer.h"
#include "pspin/packet_scheduler.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {

struct HandlerSetStats {
  uint64_t runs = 0;
  Distribution cycles;
  Distribution latency_ps;  // packet arrival at the switch to handler end
  std::map<std::string, uint64_t> outcomes;
  HandlerCounters counters;          // summed over runs (ISS only)
  std::vector<std::string> faults;   // the first 10 fault messages (hpu.on_fault = drop)
  uint64_t log_lines = 0;            // fs_log / fs_log_write calls (written to the log or not)
  // Blocks in flight (handler sets with block ids): a block is open from the start of its first
  // run that was not a drop until the end of the run that completed it.
  // Blocks are keyed (group << 32) | id: two allreduces' block 0 are two blocks.
  struct OpenBlock {
    Picos since = 0;               // the earliest start among its runs
    std::set<uint32_t> ports;      // ingress ports of its runs so far
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
  uint64_t packet_id, cycles;
  std::string outcome;
};

// How far (in PsPIN cycles) interleaved handler runs may execute private code ahead of the
// kernel's time; their shared accesses are held to much less (see interleaver.h).
constexpr unsigned kInterleaveQuantumCycles = 1000;

class PspinUnit : public sc_core::sc_module {
 public:
  sc_core::sc_export<PacketSinkIf> in;

  // `installed` lists the handler sets (indices into handler_sets()) the control plane installs.
  // rtl: the Verilated blocks' context when cfg.rtl chooses any (else unused).
  PspinUnit(sc_core::sc_module_name name, const Config& cfg, const std::vector<int>& installed, DropLedger& drops,
            RtlContext* rtl = nullptr);

  PacketBuffer& packet_buffer() { return buffer_; }
  PacketScheduler& scheduler() { return scheduler_; }
  CommandUnit& command_unit() { return commands_; }
  const std::vector<std::unique_ptr<Cluster>>& clusters() const { return clusters_; }
  ZeroedMemory& handler_memory() { return handler_mem_; }
  // Where handler set `set` (an index into handler_sets()) has its memory; zero sizes if the set
  // is not installed.
  const HandlerSetMemory& set_memory(int set) const { return set_memory_[size_t(set)]; }
  // The installed handler sets (indices into handler_sets()), in installation order.
  const std::vector<int>& installed_sets() const { return installed_; }
  const std::map<std::string, HandlerSetStats>& handler_stats() const { return handler_stats_; }
  const Clock& clock() const { return clock_; }
  // Instruction trace of ISS handler runs (hpu.model = iss); throws InputError otherwise.
  void set_insn_trace(std::ostream* out);
  // The handler log (fs_log lines of either HPU model; pspin/handler_api.h); nullptr: dropped.
  void set_handler_log(std::ostream* out);
  // Called after every handler run (optional).
  void on_handler_run(std::function<void(const HandlerEvent&)> hook) { handler_hook_ = std::move(hook); }
  // A handler fault that stopped the simulation (hpu.on_fault = abort); empty if none.
  const std::string& fatal_error() const { return fatal_; }

 private:
  void finished(Hpu& hpu, Task& task, HandlerRun& run, Picos started);

  Clock clock_;
  DropLedger& drops_;
  ZeroedMemory handler_mem_;
  std::vector<HandlerSetMemory> set_memory_;  // by handler set index
  std::vector<int> installed_;
  std::unique_ptr<HpuEngine> engine_;
  std::unique_ptr<HandlerLog> log_;
  std::unique_ptr<Interleaver> interleaver_;  // ISS HPUs with hpu.interleave = on
  PacketBuffer buffer_;
  PacketScheduler scheduler_;
  CommandUnit commands_;
  std::vector<std::unique_ptr<Cluster>> clusters_;
  std::map<std::string, HandlerSetStats> handler_stats_;
  bool abort_on_fault_ = true;
  std::function<void(const HandlerEvent&)> handler_hook_;
  std::string fatal_;
};

}  // namespace fs
