// Assembly of the PsPIN unit and handler bookkeeping (see pspin_unit.h).
#include "pspin/pspin_unit.h"

#include <algorithm>

#include "common/errors.h"
#include "pspin/calibration.h"
#include "pspin/handler_api.h"
#include "pspin/iss_engine.h"
#include "pspin/memory/hpu_address_map.h"
#include "rtl_params.h"
#include "rtl_bridge/cluster_sched_rtl.h"
#include "rtl_bridge/icrc_rtl.h"
#include "rtl_bridge/pkt_sched_rtl.h"

namespace fs {

namespace {
std::unique_ptr<PktSchedCore> pkt_sched_core(const Config& cfg, RtlContext* rtl) {
  if (!cfg.rtl.pkt_sched) return nullptr;  // the C++ model
  if (!rtl) throw SimError("--rtl pkt_sched: no RTL context");
  return std::make_unique<PktSchedRtl>(*rtl);
}
// The command unit's CRC engine (command.icrc = stamp): the C++ twin, or with --rtl crc32 the
// Verilated icrc_engine.
std::unique_ptr<IcrcCore> command_icrc(const Config& cfg, RtlContext* rtl) {
  if (cfg.command.icrc == IcrcStamp::kOff) return nullptr;
  if (!cfg.rtl.crc32) return std::make_unique<IcrcEngineModel>(rtl_param::icrc_engine::BYTES);
  if (!rtl) throw SimError("--rtl crc32: no RTL context");
  return std::make_unique<IcrcRtl>(*rtl);
}
}  // namespace

PspinUnit::PspinUnit(sc_core::sc_module_name name, const Config& cfg, const std::vector<int>& installed,
                     DropLedger& drops, RtlContext* rtl, const NextHopIf* routes)
    : sc_core::sc_module(name),
      in("in"),
      routes_(routes),
      clock_(Clock::from_ghz(cfg.pspin.clock_ghz)),
      memory_(cfg.pspin, cfg.hpu),
      installed_(installed),
      engine_(make_engine(cfg)),
      buffer_("packet_buffer", cfg.packet_buffer, cfg.nic, clock_, drops),
      scheduler_("packet_scheduler", cfg.scheduler, cfg.pspin, clock_, pkt_sched_core(cfg, rtl)),
      retire_("retire", cfg.hpu, cfg.nic, clock_, drops),
      commands_("command_unit", cfg.command, clock_, command_icrc(cfg, rtl)),
      timers_("timer_unit", clock_, cfg.hpu) {
  if (cfg.hpu.model == HpuModel::kIss && cfg.hpu.interleave == OnOff::kOn)
    interleaver_ = std::make_unique<Interleaver>(
        "interleaver", clock_, cfg.pspin.clusters, cfg.hpu.sync_cycles,
        // The earliest a run can start after a dispatch: the dispatch delay and a DMA copy's latency.
        cfg.pspin.dispatch_cycles + cfg.dma.latency_cycles,
        // Packet copies are reserved this far ahead of their request.
        cfg.pspin.dispatch_cycles, kInterleaveQuantumCycles, cfg.hpu.threads);
  if (auto* iss = dynamic_cast<IssEngine*>(engine_.get()); iss && interleaver_)
    iss->set_store_watch([il = interleaver_.get()](unsigned cluster) { return il->store_watch(cluster); });
  const HpuServices svc = hpu_services(cfg);
  for (unsigned c = 0; c < cfg.pspin.clusters; ++c)
    clusters_.push_back(std::make_unique<Cluster>(
        ("cluster" + std::to_string(c)).c_str(), c, cfg.pspin, cfg.scheduler, cfg.dma, svc,
        cfg.rtl.cluster_sched ? std::make_unique<ClusterSchedRtl>(*rtl, "cluster_sched" + std::to_string(c)) : nullptr));

  // The netlist. Forward: in -> packet buffer -> packet scheduler -> cluster c (its scheduler ->
  // HPU h) -> retire; the commands an HPU issues, and those a run leaves to the retire block ->
  // command unit -> egress (bound by the switch). (The HPUs reach the command unit through
  // their environment, HpuEnvironment::commands, as they reach their cluster's DMA engine.)
  in.bind(buffer_);
  buffer_.to_scheduler.bind(scheduler_);
  for (auto& cluster : clusters_) {
    scheduler_.to_cluster.bind(*cluster);
    for (const auto& hpu : cluster->hpus()) hpu->retire.bind(retire_);
  }
  retire_.to_commands.bind(commands_);
  // Timers: retire arms and cancels them; a timer that fires is a task for its cluster.
  retire_.to_timers.bind(timers_);
  for (auto& cluster : clusters_) timers_.to_cluster.bind(*cluster);
  // Backward: retire frees the scheduler's count and the HPU, and, once its feedback reaches the
  // NIC, the packet's L2 slot.
  retire_.release.bind(buffer_);
  retire_.task_done.bind(scheduler_);
  for (auto& cluster : clusters_) retire_.hpu_free.bind(*cluster);

  install_handler_sets(cfg);
}

std::unique_ptr<HpuEngine> PspinUnit::make_engine(const Config& cfg) const {
  if (cfg.hpu.model != HpuModel::kIss) {
    if (cfg.hpu.calibration.empty()) return std::make_unique<NativeEngine>(cfg.hpu, cfg.dma);
    auto table = std::make_shared<const CalibrationTable>(CalibrationTable::read(cfg.hpu.calibration));
    return std::make_unique<NativeEngine>(cfg.hpu, cfg.dma, std::move(table));
  }
  check_fits_address_map(cfg.pspin, memory_.l1_layout());
  auto iss = std::make_unique<IssEngine>(cfg.hpu, cfg.icache, cfg.dma, cfg.command);
  for (int set : installed_) iss->preload(handler_sets()[size_t(set)]);
  return iss;
}

// What every HPU uses of the unit: its engine, the interleaver, the memories, the command unit
// (each cluster adds its DMA engine).
HpuServices PspinUnit::hpu_services(const Config& cfg) {
  HpuServices svc;
  svc.clock = clock_;
  svc.interleaver = interleaver_.get();
  svc.engine = engine_.get();
  svc.env.num_ports = cfg.ports.count;
  svc.env.period_ps = clock_.period_ps;
  svc.env.routes = routes_;
  svc.env.commands = &commands_;
  svc.memory = &memory_;
  return svc;
}

void PspinUnit::set_handler_log(std::ostream* out) {
  log_ = std::make_unique<HandlerLog>(out);
  engine_->set_handler_log(log_.get());
}

void PspinUnit::report_memory(StatsTree& out) const {
  out.make_object();
  for (int set : installed_) {
    const HandlerSetMemory& m = memory_.set_memory(set);
    StatsTree& s = out[handler_sets()[size_t(set)].name];
    s["l1_offset"] = m.l1_offset, s["l1_bytes"] = m.l1_bytes, s["l2_offset"] = m.l2_offset, s["l2_bytes"] = m.l2_bytes;
  }
}

void PspinUnit::install_handler_sets(const Config& cfg) {
  std::vector<std::string> names;
  std::vector<MemoryNeed> needs;
  const uint64_t l1 = memory_.l1_layout().state_bytes(), l2 = memory_.l2_handler_bytes();
  for (int set : installed_) {
    names.push_back(handler_sets()[size_t(set)].name);
    needs.push_back(handler_sets()[size_t(set)].control->memory_need(cfg, l1, l2));
  }
  const std::vector<HandlerSetMemory> layout = lay_out_handler_memory(names, needs, l1, l2);
  for (size_t i = 0; i < installed_.size(); ++i) {
    memory_.assign(installed_[i], layout[i]);
    if (!needs[i].none) handler_sets()[size_t(installed_[i])].control->install(cfg, memory_.install_target(installed_[i]));
  }
}

void PspinUnit::set_insn_trace(std::ostream& out, const InsnTraceOptions& options) {
  auto* iss = dynamic_cast<IssEngine*>(engine_.get());
  if (!iss) throw InputError("--trace-insn needs --hpu.model iss (native handlers run no instructions)");
  for (const std::string& set : options.sets) {
    const int k = find_handler_set(set);
    if (k < 0 || std::find(installed_.begin(), installed_.end(), k) == installed_.end())
      throw InputError("--trace-sets: no handler set '" + set + "' is installed (parser.rules installs them)");
  }
  insn_trace_ = std::make_unique<InsnTrace>(out, options);
  out << InsnTrace::header() << '\n';
  iss->set_insn_trace(insn_trace_.get());
  if (interleaver_) interleaver_->run_on_one_thread();  // the trace is written as the cores run
}

}  // namespace fs
