// The PsPIN packet-processing unit as a netlist (pspin_unit.cpp reads as one): L2 packet buffer,
// global packet scheduler, clusters (each with its scheduler, DMA, L1 and HPUs), the retire block
// where every handler run ends, and the command unit, joined by the named channels of
// channels.h; plus the memories (pspin/memory/), the HPU engine and the handler sets' control plane.
// Matched packets enter through `in`; handler output leaves through the command unit's egress
// ports.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "common/stats.h"
#include "pspin/cluster.h"
#include "pspin/command_unit.h"
#include "pspin/handler_api.h"
#include "pspin/insn_trace.h"
#include "pspin/interleaver.h"
#include "pspin/memory/pspin_memory.h"
#include "pspin/packet_buffer.h"
#include "pspin/packet_scheduler.h"
#include "pspin/retire.h"
#include "pspin/timer_unit.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {

// How far (in PsPIN cycles) interleaved handler runs may execute private code ahead of the
// kernel's time; their shared accesses are held to much less (see interleaver.h).
constexpr unsigned kInterleaveQuantumCycles = 1000;

class PspinUnit : public sc_core::sc_module {
 public:
  sc_core::sc_export<PacketSinkIf> in;

  // `installed` lists the handler sets (indices into handler_sets()) the control plane installs.
  // rtl: the Verilated blocks' context when cfg.rtl chooses any (else unused).
  // routes: what fs_next_hop asks (the switch's router; nullptr: -1).
  PspinUnit(sc_core::sc_module_name name, const Config& cfg, const std::vector<int>& installed, DropLedger& drops,
            RtlContext* rtl = nullptr, const NextHopIf* routes = nullptr);

  PacketBuffer& packet_buffer() { return buffer_; }
  PacketScheduler& scheduler() { return scheduler_; }
  CommandUnit& command_unit() { return commands_; }
  const Retire& retire() const { return retire_; }
  const std::vector<std::unique_ptr<Cluster>>& clusters() const { return clusters_; }
  PspinMemory& memory() { return memory_; }
  // Where handler set `set` (an index into handler_sets()) has its memory; zero sizes if the set
  // is not installed.
  const HandlerSetMemory& set_memory(int set) const { return memory_.set_memory(set); }
  // The installed handler sets (indices into handler_sets()), in installation order.
  const std::vector<int>& installed_sets() const { return installed_; }
  // The stats' handler_memory section: each installed set's ranges.
  void report_memory(StatsTree& out) const;
  const std::map<std::string, HandlerSetStats>& handler_stats() const { return retire_.handler_stats(); }
  const Clock& clock() const { return clock_; }
  // Instruction trace of the ISS handler runs `options` takes (hpu.model = iss); throws
  // InputError otherwise, or for a handler set the filter names that is not installed.
  void set_insn_trace(std::ostream& out, const InsnTraceOptions& options);
  // Told of every handler run (optional).
  void observe_handler_runs(HandlerRunObserver* o) { retire_.observe(o); }
  // The handler log (fs_log lines of either HPU model; pspin/handler_api.h); nullptr: dropped.
  void set_handler_log(std::ostream* out);
  // A handler fault that stopped the simulation (hpu.on_fault = abort); empty if none.
  const std::string& fatal_error() const {
    return retire_.fatal_error().empty() ? timers_.fatal_error() : retire_.fatal_error();
  }
  const TimerUnit& timers() const { return timers_; }

 private:
  const NextHopIf* routes_;  // declared first: the HPUs' services take it
  std::unique_ptr<HpuEngine> make_engine(const Config& cfg) const;
  HpuServices hpu_services(const Config& cfg);
  // The control plane: gives the handler sets their memory and installs them.
  void install_handler_sets(const Config& cfg);

  Clock clock_;
  PspinMemory memory_;
  std::vector<int> installed_;
  std::unique_ptr<HpuEngine> engine_;
  std::unique_ptr<HandlerLog> log_;
  std::unique_ptr<InsnTrace> insn_trace_;
  std::unique_ptr<Interleaver> interleaver_;  // ISS HPUs with hpu.interleave = on
  PacketBuffer buffer_;
  PacketScheduler scheduler_;
  std::vector<std::unique_ptr<Cluster>> clusters_;
  Retire retire_;
  CommandUnit commands_;
  TimerUnit timers_;
};

}  // namespace fs
