// Assembly of the PsPIN unit and handler bookkeeping (see pspin_unit.h).
#include "pspin/pspin_unit.h"

#include <algorithm>

#include "common/errors.h"
#include "pspin/handler_api.h"
#include "pspin/iss_engine.h"
#include "rtl_bridge/cluster_sched_rtl.h"
#include "rtl_bridge/pkt_sched_rtl.h"

namespace fs {

namespace {
std::unique_ptr<PktSchedCore> pkt_sched_core(const Config& cfg, RtlContext* rtl) {
  if (!cfg.rtl.pkt_sched) return nullptr;  // the C++ model
  if (!rtl) throw SimError("--rtl pkt_sched: no RTL context");
  return std::make_unique<PktSchedRtl>(*rtl);
}
}  // namespace

PspinUnit::PspinUnit(sc_core::sc_module_name name, const Config& cfg, const std::vector<int>& installed,
                     DropLedger& drops, RtlContext* rtl)
    : sc_core::sc_module(name),
      in("in"),
      clock_(Clock::from_ghz(cfg.pspin.clock_ghz)),
      drops_(drops),
      handler_mem_(cfg.pspin.l2_handler_bytes),
      set_memory_(handler_sets().size()),
      installed_(installed),
      buffer_("packet_buffer", cfg.packet_buffer.bytes, drops),
      scheduler_("packet_scheduler", PacketScheduler::parse_policy(cfg.scheduler.policy), cfg.pspin.clusters,
                 cfg.pspin.hpus_per_cluster, cfg.scheduler.subset, clock_.cycles_ps(cfg.scheduler.latency_cycles),
                 [this](Task t) { clusters_[t.cluster]->submit(std::move(t)); }, pkt_sched_core(cfg, rtl)),
      commands_("command_unit", clock_.cycles_ps(cfg.command.latency_cycles)) {
  if (cfg.hpu.model == "iss") {
    auto iss = std::make_unique<IssEngine>(cfg, uint32_t(Cluster::l1_state_bytes(cfg)));
    for (int set : installed) iss->preload(handler_sets()[size_t(set)]);
    engine_ = std::move(iss);
  } else
    engine_ = std::make_unique<NativeEngine>(cfg.hpu.native_fixed_cycles, cfg.hpu.native_cycles_per_byte,
                                             cfg.dma.latency_cycles, cfg.dma.bytes_per_cycle);
  abort_on_fault_ = cfg.hpu.on_fault == "abort";
  in.bind(buffer_);
  buffer_.to_scheduler.bind(scheduler_);

  if (cfg.hpu.model == "iss" && cfg.hpu.interleave == "on")
    interleaver_ = std::make_unique<Interleaver>(
        "interleaver", clock_, cfg.pspin.clusters, cfg.hpu.sync_cycles,
        // The earliest a run can start after a dispatch: the dispatch delay and a DMA copy's latency.
        cfg.pspin.dispatch_cycles + cfg.dma.latency_cycles,
        // Packet copies are reserved this far ahead of their request.
        cfg.pspin.dispatch_cycles, kInterleaveQuantumCycles);
  if (auto* iss = dynamic_cast<IssEngine*>(engine_.get())) iss->set_store_watch(interleaver_.get());

  HpuServices svc;
  svc.clock = clock_;
  svc.interleaver = interleaver_.get();
  svc.num_clusters = cfg.pspin.clusters;
  svc.engine = engine_.get();
  svc.env.num_ports = cfg.ports.count;
  svc.env.num_clusters = cfg.pspin.clusters;
  svc.env.cluster_l1 = [this](uint32_t c, uint32_t* size) -> uint8_t* {
    if (c >= clusters_.size()) return nullptr;
    if (size) *size = clusters_[c]->l1_state_size();
    return clusters_[c]->l1_state();
  };
  svc.env.dma = [this](uint32_t c, Picos request, uint64_t bytes) -> Picos {
    return clusters_.at(c)->dma().schedule_at(request, bytes, true);
  };
  svc.env.period_ps = clock_.period_ps;
  svc.handler_mem = handler_mem_.data();
  svc.set_memory = &set_memory_;
  svc.finished = [this](Hpu& h, Task& t, HandlerRun& r, Picos s) { finished(h, t, r, s); };
  for (unsigned c = 0; c < cfg.pspin.clusters; ++c)
    clusters_.push_back(std::make_unique<Cluster>(
        ("cluster" + std::to_string(c)).c_str(), c, cfg, svc,
        cfg.rtl.cluster_sched ? std::make_unique<ClusterSchedRtl>(*rtl, "cluster_sched" + std::to_string(c)) : nullptr));

  // Control plane: give the handler sets the parser rules refer to their memory and install them.
  std::vector<std::string> names;
  std::vector<MemoryNeed> needs;
  for (int set : installed) {
    names.push_back(handler_sets()[size_t(set)].name);
    needs.push_back(handler_sets()[size_t(set)].control->memory_need(cfg, Cluster::l1_state_bytes(cfg), handler_mem_.size()));
  }
  const std::vector<HandlerSetMemory> layout =
      lay_out_handler_memory(names, needs, Cluster::l1_state_bytes(cfg), handler_mem_.size());
  for (size_t i = 0; i < installed.size(); ++i) {
    const HandlerSetMemory& m = set_memory_[size_t(installed[i])] = layout[i];
    const InstallTarget target{handler_mem_.data() + m.l2_offset, m.l2_bytes, m.l1_bytes, cfg.pspin.clusters};
    handler_sets()[size_t(installed[i])].control->install(cfg, target);
  }
}

void PspinUnit::set_insn_trace(std::ostream* out) {
  auto* iss = dynamic_cast<IssEngine*>(engine_.get());
  if (!iss) throw InputError("--trace-insn needs --hpu.model iss (native handlers run no instructions)");
  iss->set_insn_trace(out);
}

void PspinUnit::set_handler_log(std::ostream* out) {
  log_ = std::make_unique<HandlerLog>(out);
  engine_->set_handler_log(log_.get());
}

HandlerSetStats::BlockOccupancy HandlerSetStats::block_occupancy(Picos end) const {
  BlockOccupancy o;
  o.completed = block_spans.size();
  o.open_at_end = open_blocks.size();
  std::vector<std::pair<Picos, int>> steps;  // +1 when a block opens, -1 when it completes
  for (const auto& s : block_spans) steps.push_back({s.first, 1}), steps.push_back({s.second, -1});
  for (const auto& b : open_blocks) steps.push_back({b.second.since, 1});
  std::sort(steps.begin(), steps.end());  // at one instant, completions (-1) before openings
  int64_t level = 0;
  Picos last = 0;
  double area = 0;
  for (const auto& st : steps) {
    area += double(level) * double(st.first - last);
    last = st.first;
    level += st.second;
    o.max_open = std::max<uint64_t>(o.max_open, uint64_t(level));
  }
  if (end > last) area += double(level) * double(end - last);
  o.avg_open = end ? area / double(end) : 0.0;
  return o;
}

void PspinUnit::finished(Hpu& hpu, Task& task, HandlerRun& run, Picos started) {
  const HandlerSet& set = handler_sets()[size_t(task.pkt->handler_set)];
  HandlerSetStats& st = handler_stats_[set.name];
  std::string outcome_name;
  ++st.runs;
  st.cycles.add(run.cycles);
  st.latency_ps.add(now_ps() - task.pkt->arrival);
  st.counters += run.counters;
  st.log_lines += run.log_lines;
  if (!run.fault.empty()) {
    const std::string where = run.fault + " on packet " + std::to_string(task.pkt->id) + " from port " +
                              std::to_string(task.pkt->ingress_port);
    if (abort_on_fault_ && fatal_.empty()) {
      fatal_ = where;
      sc_core::sc_stop();
    }
    if (st.faults.size() < 10) st.faults.push_back(where);
    outcome_name = "fault";
    ++st.outcomes["fault"];
    drops_.count(set.name + ".fault");
  } else {
    const bool known = run.outcome >= 0 && size_t(run.outcome) < set.outcomes.size();
    const std::string outcome = known ? set.outcomes[size_t(run.outcome)].name : "code_" + std::to_string(run.outcome);
    ++st.outcomes[outcome];
    if (known && set.outcomes[size_t(run.outcome)].drop) drops_.count(set.name + "." + outcome);
    outcome_name = outcome;
    const uint64_t block = uint64_t(task.pkt->block_group) << 32 | task.pkt->block_id;
    const auto closed = st.closed_blocks.find(block);
    const bool of_closed_block = closed != st.closed_blocks.end() && started <= closed->second &&
                                 !st.open_blocks.count(block);
    const HandlerOutcome* oc = known ? &set.outcomes[size_t(run.outcome)] : nullptr;
    if (oc && set.block_id_offset >= 0 && !oc->drop && !oc->no_block && !of_closed_block) {
      // Runs end out of start order: a block is open from the earliest start among its runs.
      auto it = st.open_blocks.emplace(block, HandlerSetStats::OpenBlock{started, {}}).first;
      it->second.since = std::min(it->second.since, started);
      it->second.ports.insert(task.pkt->ingress_port);
      if (oc->completes_block) {
        st.block_spans.emplace_back(it->second.since, now_ps());
        st.open_blocks.erase(it);
        st.closed_blocks[block] = started;
      }
    }
  }
  if (handler_hook_)
    handler_hook_(HandlerEvent{task.cluster, hpu.index(), &set.name, started, now_ps(), task.pkt->id, run.cycles,
                               outcome_name});
  for (HandlerCommand& cmd : run.commands) commands_.issue(std::move(cmd), task.pkt);
  buffer_.release(*task.pkt);
  scheduler_.done(task.cluster);
}

}  // namespace fs
