// The retire block (see retire.h).
#include "pspin/retire.h"

#include <algorithm>

#include "pspin/handler_counters.h"


namespace fs {

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

namespace {

// The set's counters at their paths ("group.key" inside object `group`) of handler_counters.def.
void report_counters(const HandlerCounters& k, StatsTree& out) {
  out.make_object();
  for (const HandlerCounterInfo& c : kHandlerCounters) {
    const std::string path = c.json;
    const size_t dot = path.find('.');
    StatsTree& node = dot == std::string::npos ? out[path] : out[path.substr(0, dot)][path.substr(dot + 1)];
    node = k.*c.field;
  }
}

// The blocks a run left open (handlers that keep block state waited for more packets): the
// first kMaxListed by (group, block), each with when it opened and the ports its packets came
// from, so that a protocol can tell which ports it still waits on.
constexpr size_t kMaxListed = 64;
void report_open_blocks(const HandlerSetStats& st, StatsTree& list) {
  list.make_array();
  size_t n = 0;
  for (const auto& kv : st.open_blocks) {
    if (n++ == kMaxListed) break;
    StatsTree& b = list.append();
    b["group"] = uint32_t(kv.first >> 32), b["block"] = uint32_t(kv.first);
    b["since_us"] = double(kv.second.since) / double(kPicosPerUs);
    b["ports"] = kv.second.ports;
  }
}

}  // namespace

void Retire::report(StatsTree& handlers, const std::vector<int>& installed, Picos end) const {
  handlers.make_object();
  // Every installed set, and any other that ran (a set's packets can only reach it installed,
  // but the stats must not hide a run), with every key: a set that never ran reports zeros.
  std::vector<const HandlerSet*> sets;
  for (int i : installed) sets.push_back(&handler_sets()[size_t(i)]);
  for (const auto& kv : stats_)
    if (std::none_of(sets.begin(), sets.end(), [&](const HandlerSet* s) { return s->name == kv.first; }))
      sets.push_back(&handler_sets()[size_t(find_handler_set(kv.first))]);
  const HandlerSetStats none;
  for (const HandlerSet* set : sets) {
    const auto it = stats_.find(set->name);
    report_set(*set, it == stats_.end() ? none : it->second, handlers[set->name], end);
  }
}

void Retire::report_set(const HandlerSet& set, const HandlerSetStats& st, StatsTree& h, Picos end) const {
  h["runs"] = st.runs;
  st.cycles.report(h["cycles"]);
  st.entry_cycles.report(h["runtime_cycles"]["entry"]);
  st.exit_cycles.report(h["runtime_cycles"]["exit"]);
  st.latency_ps.report(h["latency_ns"], 1000.0);
  st.pspin_latency_ps.report(h["pspin_latency_ns"], 1000.0);
  // Outcomes: the set's own, then `fault`, then codes it does not declare (if any ran).
  StatsTree& outcomes = h["outcomes"].make_object();
  StatsTree& by_outcome = h["cycles_by_outcome"].make_object();
  auto outcome = [&](const std::string& name) {
    const auto n = st.outcomes.find(name);
    outcomes[name] = n == st.outcomes.end() ? 0 : n->second;
    const auto c = st.cycles_by_outcome.find(name);
    (c == st.cycles_by_outcome.end() ? Distribution() : c->second).report(by_outcome[name], 1.0, false);
  };
  for (const HandlerOutcome& oc : set.outcomes) outcome(oc.name);
  outcome("fault");
  for (const auto& kv : st.outcomes)
    if (!outcomes.members().count(kv.first)) outcome(kv.first);
  report_counters(st.counters, h["iss"]);
  h["faults"] = st.faults;
  h["fault_consequences"] = st.fault_consequences;
  h["log_lines"] = st.log_lines;
  h["timer_runs"] = st.timer_runs;
  const HandlerSetStats::BlockOccupancy b = st.block_occupancy(end);
  StatsTree& blocks = h["blocks"];
  blocks["completed"] = b.completed, blocks["open_at_end"] = b.open_at_end;
  blocks["max_open"] = b.max_open, blocks["avg_open"] = b.avg_open;
  report_open_blocks(st, blocks["open"]);
}

Retire::Retire(sc_core::sc_module_name name, const HpuConfig& hpu, const NicConfig& nic, Clock clock,
               DropLedger& drops)
    : sc_core::sc_module(name),
      to_commands("to_commands"),
      to_timers("to_timers"),
      release("release"),
      task_done("task_done"),
      hpu_free("hpu_free"),
      abort_on_fault_(hpu.on_fault == FaultAction::kAbort),
      clock_(clock),
      feedback_cycles_(nic.feedback_cycles),
      drops_(drops),
      feedback_("feedback", [this](PacketPtr p) { fed_back(std::move(p)); }) {}

void Retire::retire(RetiredRun r) {
  const HandlerSet& set = handler_sets()[size_t(r.task.pkt->handler_set)];
  HandlerSetStats& st = stats_[set.name];
  const std::string outcome = count(set, st, r);
  if (r.run.fault.empty() && !r.task.timer) track_block(set, st, r);
  if (!observers_.empty()) {
    const HandlerEvent e{r.cluster, r.hpu, &set.name, r.started, now_ps(), r.task.pkt->id,
                         r.run.cycles, r.run.handler_cycles(), outcome,
                         r.task.timer ? 0 : r.task.pkt->data.size(), r.run.counters.dma_wait_cycles, r.task.timer};
    for (HandlerRunObserver* o : observers_) o->handler_ran(e);
  }
  for (HandlerCommand& cmd : r.run.commands) {
    if (cmd.kind == HandlerCommand::kTimerArm)
      to_timers->arm(r.task.pkt->handler_set, cmd.timer_id, r.cluster, cmd.delay_cycles, r.task.timer);
    else if (cmd.kind == HandlerCommand::kTimerCancel)
      to_timers->cancel(r.task.pkt->handler_set, cmd.timer_id);
    else
      to_commands->issue(r.cluster, r.hpu, now_ps(), std::move(cmd), r.task.pkt);
  }
  if (!r.task.timer) {  // a timer's run held no L2 slot and no scheduler count
    task_done->done(r.task.cluster);
    // PsPIN's HPU sends the feedback once its commands are done, too.
    const Picos done = std::max(now_ps(), to_commands->done_at(r.cluster, r.hpu));
    feedback_.push_at(r.task.pkt, done + clock_.cycles_ps(feedback_cycles_));
  }
  hpu_free[r.cluster]->hpu_free(r.hpu);
}

void Retire::fed_back(PacketPtr p) {
  p->fed_back = now_ps();
  stats_[handler_sets()[size_t(p->handler_set)].name].pspin_latency_ps.add(p->fed_back - p->unit_in);
  release->release(*p);
}

std::string Retire::count(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r) {
  ++st.runs;
  st.cycles.add(r.run.handler_cycles());
  st.entry_cycles.add(r.run.entry_cycles);
  st.exit_cycles.add(r.run.exit_cycles);
  st.latency_ps.add(now_ps() - r.task.pkt->arrival);
  st.counters += r.run.counters;
  st.log_lines += r.run.log_lines;
  st.timer_runs += r.task.timer;
  if (!r.run.fault.empty()) {
    const std::string where = fault_report(set, st, r);
    if (abort_on_fault_ && fatal_.empty()) {
      fatal_ = where;
      sc_core::sc_stop();
    }
    if (st.faults.size() < 10) st.faults.push_back(where);
    ++st.outcomes["fault"];
    st.cycles_by_outcome["fault"].add(r.run.handler_cycles());
    drops_.count_handler(set.name, "fault");
    return "fault";
  }
  const bool known = r.run.outcome >= 0 && size_t(r.run.outcome) < set.outcomes.size();
  const std::string outcome = outcome_name(set, r.run.outcome);
  ++st.outcomes[outcome];
  st.cycles_by_outcome[outcome].add(r.run.handler_cycles());
  if (known && set.outcomes[size_t(r.run.outcome)].drop) drops_.count_handler(set.name, outcome);
  return outcome;
}

std::string Retire::fault_report(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r) {
  const std::string packet = r.task.timer ? std::string("a timer event") : "packet " + std::to_string(r.task.pkt->id);
  std::string where = r.run.fault + "; " + packet + " from port " + std::to_string(r.task.pkt->ingress_port);
  // A run that waited on a word an earlier faulted run left held (and that still holds what
  // that run wrote) is a consequence of that fault, not a fault of its own.
  const auto cause = r.run.waiting_on ? held_.find(r.run.waiting_on) : held_.end();
  if (cause != held_.end() && HandlerRun::word_at(cause->first) == cause->second.value) {
    where = "consequence of " + cause->second.fault + ", which left the word it waited on held: " + where;
    ++st.fault_consequences;
  }
  if (!r.run.held.empty()) {
    where += "; the run left " + std::to_string(r.run.held.size()) +
             " shared word(s) changed by its atomics, which no one will release (a lock it held?): ";
    for (size_t k = 0; k < r.run.held.size(); ++k) {
      const HandlerRun::HeldWord& h = r.run.held[k];
      where += (k ? "; " : "") + h.what;
      held_[h.host] = HeldBy{"the fault of handler set " + set.name + " on " + packet, HandlerRun::word_at(h.host)};
    }
  }
  return where;
}

void Retire::track_block(const HandlerSet& set, HandlerSetStats& st, const RetiredRun& r) {
  const bool known = r.run.outcome >= 0 && size_t(r.run.outcome) < set.outcomes.size();
  const HandlerOutcome* oc = known ? &set.outcomes[size_t(r.run.outcome)] : nullptr;
  if (!oc || set.block_id_offset < 0 || oc->drop || oc->no_block) return;
  const uint64_t block = uint64_t(r.task.pkt->block_group) << 32 | r.task.pkt->block_id;
  // A run that started no later than the run that completed its block ended after it (runs end
  // out of start order) and belongs to that block, unless a new one is open already.
  const auto closed = st.closed_blocks.find(block);
  if (closed != st.closed_blocks.end() && r.started <= closed->second && !st.open_blocks.count(block)) return;
  // A block is open from the earliest start among its runs.
  auto it = st.open_blocks.emplace(block, HandlerSetStats::OpenBlock{r.started, {}}).first;
  it->second.since = std::min(it->second.since, r.started);
  std::vector<uint32_t>& ports = it->second.ports;  // a handful: a sorted vector, no allocation per run
  const auto at = std::lower_bound(ports.begin(), ports.end(), uint32_t(r.task.pkt->ingress_port));
  if (at == ports.end() || *at != r.task.pkt->ingress_port) ports.insert(at, r.task.pkt->ingress_port);
  if (oc->completes_block) {
    st.block_spans.emplace_back(it->second.since, now_ps());
    st.open_blocks.erase(it);
    st.closed_blocks[block] = r.started;
  }
}

}  // namespace fs
