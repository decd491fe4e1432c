// The PsPIN unit's handler-run interleaver (see interleaver.h).
#include "pspin/interleaver.h"

#include <algorithm>

namespace fs {

namespace {
constexpr Picos kNever = ~Picos(0);
}

Interleaver::Interleaver(sc_core::sc_module_name name, Clock clock, unsigned clusters, unsigned sync_cycles,
                         unsigned start_lookahead_cycles, unsigned switch_lookahead_cycles, unsigned quantum_cycles)
    : sc_core::sc_module(name),
      period_(clock.period_ps),
      per_period_(1.0 / double(clock.period_ps)),
      sync_(clock.cycles_ps(std::max(1u, sync_cycles))),
      start_lookahead_(clock.cycles_ps(start_lookahead_cycles)),
      switch_lookahead_(clock.cycles_ps(switch_lookahead_cycles)),
      quantum_(clock.cycles_ps(std::max(std::max(1u, sync_cycles), quantum_cycles))),
      by_cluster_(clusters) {
  SC_THREAD(run);
}

void Interleaver::expect(Picos start) { expected_.insert(start); }

void Interleaver::add(SteppedRun* run, unsigned cluster, Picos start, sc_core::sc_event* done) {
  auto it = expected_.find(start);
  if (it != expected_.end()) expected_.erase(it);
  uint32_t id;
  if (free_ids_.empty()) {
    id = uint32_t(entries_.size());
    entries_.emplace_back();
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
  }
  Entry& e = entries_[id];
  e = Entry{};
  e.run = run;
  e.cluster = cluster;
  e.start = e.local = start;
  e.done = done;
  e.sequence = sequence_++;
  by_cluster_[cluster].push_back(Slot{start, id});
  ++active_;
  run_added_.notify(sc_core::SC_ZERO_TIME);
}

void Interleaver::set_local(uint32_t id, Picos t) {
  Entry& e = entries_[id];
  e.local = t;
  for (Slot& s : by_cluster_[e.cluster])
    if (s.id == id) s.local = t;
}

void Interleaver::remove(uint32_t id) {
  auto& peers = by_cluster_[entries_[id].cluster];
  peers.erase(std::find_if(peers.begin(), peers.end(), [id](const Slot& s) { return s.id == id; }));
  free_ids_.push_back(id);
  --active_;
}

// A spinning run leaves the time order until its word is stored to, or until its watchdog would
// fire (then it goes on from there and faults).
void Interleaver::park(uint32_t id) {
  Entry& e = entries_[id];
  e.spin = e.run->spin();
  e.parked = true;
  ++parked_spins;
  const uintptr_t first = uintptr_t(e.spin.host) / 4, last = (uintptr_t(e.spin.host) + e.spin.bytes - 1) / 4;
  for (uintptr_t w = first; w <= last; ++w) {
    watchers_[w].push_back(id);
    watched_.set(w % watched_.size());
  }
  armed = true;
  const uint64_t now_cycles = e.run->cycles();
  const uint64_t turns = e.spin.deadline > now_cycles ? (e.spin.deadline - now_cycles + e.spin.period - 1) / e.spin.period : 0;
  set_local(id, e.start + (now_cycles + turns * e.spin.period) * period_);
}

void Interleaver::unpark(uint32_t id, uint64_t iterations) {
  Entry& e = entries_[id];
  e.parked = false;
  const uintptr_t first = uintptr_t(e.spin.host) / 4, last = (uintptr_t(e.spin.host) + e.spin.bytes - 1) / 4;
  for (uintptr_t w = first; w <= last; ++w) {
    auto it = watchers_.find(w);
    if (it == watchers_.end()) continue;
    auto& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), id), v.end());
    if (v.empty()) watchers_.erase(it);
  }
  armed = !watchers_.empty();
  watched_.reset();
  for (const auto& w : watchers_) watched_.set(w.first % watched_.size());
  e.run->skip_spin(iterations);
  set_local(id, e.start + e.run->cycles() * period_);
  e.last = SteppedRun::Step::kRunning;
}

void Interleaver::stored(const uint8_t* host, uint32_t bytes, uint64_t cycle) {
  if (bytes == 0 || current_ == ~0u) return;
  // `cycle` counts from the writer's start cycle; its run started at a picosecond time.
  const Entry& writer = entries_[current_];
  const Picos at = writer.start + (cycle - writer.start / period_) * period_;
  const uint64_t writer_sequence = writer.sequence;
  std::vector<uint32_t> woken;
  for (uintptr_t w = uintptr_t(host) / 4; w <= (uintptr_t(host) + bytes - 1) / 4; ++w) {
    if (!watched_.test(w % watched_.size())) continue;
    auto it = watchers_.find(w);
    if (it == watchers_.end()) continue;
    for (uint32_t id : it->second)
      if (std::find(woken.begin(), woken.end(), id) == woken.end()) woken.push_back(id);
  }
  for (uint32_t id : woken) {
    // The spin's loads start at load_cycle + i * period (i >= 1); the first to start after the
    // store (at the same time: after it if the spinner comes later in the tie order) sees it.
    const Entry& e = entries_[id];
    const SteppedRun::SpinWait& s = e.spin;
    const Picos first_load = e.start + (s.load_cycle + s.period) * period_;
    uint64_t i = 1;
    if (at >= first_load) {
      const Picos step = s.period * period_;
      i = 1 + (at - first_load) / step;
      const Picos load = e.start + (s.load_cycle + i * s.period) * period_;
      if (load < at || (load == at && e.sequence < writer_sequence)) ++i;
    }
    unpark(id, i - 1);
  }
  // The writer stops after this store, so that the woken runs take their turns in time order.
  if (!woken.empty()) yield = true;
}

bool Interleaver::step_cluster(unsigned c, const Limits& lim, Picos& wake) {
  using Step = SteppedRun::Step;
  const std::vector<Slot>& runs = by_cluster_[c];
  bool stepped = false;
  for (;;) {
    // The run furthest behind (the oldest among equals: `runs` is in the order they were added)
    // and the time of the next one.
    uint32_t id = ~0u;
    Picos first = kNever, next = kNever;
    for (const Slot& r : runs) {
      if (r.local < first) {
        next = first;
        first = r.local;
        id = r.id;
      } else if (r.local < next) {
        next = r.local;
      }
    }
    if (first >= lim.window_end) return stepped;
    Entry& m = entries_[id];
    if (m.parked) {  // nobody stored to its word before its watchdog time
      const uint64_t at = (m.local - m.start) / period_, now_cycles = m.run->cycles();
      unpark(id, at > now_cycles ? (at - now_cycles) / m.spin.period : 0);
      continue;
    }
    // Waiting for the kernel: for time to pass (waking at m's own time, the latest that keeps
    // every run at or after the kernel's time, lets every access in the next lookahead go at
    // once), or for a run that may start earlier to be added, which wakes the process anyway.
    if ((m.last == Step::kWaitsShared && m.local > lim.shared) || (m.last == Step::kWaitsSwitch && m.local > lim.switch_)) {
      const Picos ahead = m.last == Step::kWaitsShared ? start_lookahead_ + sync_ - period_ : switch_lookahead_;
      if (m.local > lim.now + ahead) wake = std::min(wake, m.local);
      return stepped;
    }
    // In the run's own cycles: a gate lets an access go while the run's count is at most the gate.
    // Peers and kernel limits allow accesses at their time (ties go by the order of stepping);
    // the window allows only accesses that start before its end, so windows do not overlap.
    auto cycles_at = [&](Picos t) -> uint64_t { return whole_cycles(t - m.start); };
    const uint64_t in_window = whole_cycles(lim.window_end - m.start + period_ - 1) - 1;  // last cycle before the end
    iss::Gates gates;
    gates.cluster = std::min(cycles_at(std::min(next, lim.shared)), in_window);
    gates.shared = std::min(cycles_at(lim.shared), in_window);
    gates.device = std::min(cycles_at(std::min(next, lim.switch_)), in_window);
    ++steps;
    current_ = id;
    m.last = m.run->advance(in_window + 1, gates);
    current_ = ~0u;
    stepped = true;
    set_local(id, m.start + m.run->cycles() * period_);
    if (m.last == Step::kEnded) {
      m.done->notify(m.local > lim.now ? ps_time(m.local - lim.now) : sc_core::SC_ZERO_TIME);
      remove(id);
    } else if (m.last == Step::kSpins) {
      park(id);
    }
  }
}

void Interleaver::run() {
  for (;;) {
    if (active_ == 0) {
      wait(run_added_);
      continue;
    }
    Limits lim;
    lim.now = now_ps();
    // Shared accesses must stay before any run that may still start; switch accesses within the
    // scheduler's lookahead of now; everything within the quantum.
    const Picos next_start = expected_.empty() ? kNever : *expected_.begin();
    // (To within the sync window, like accesses from different clusters.)
    lim.shared = std::min(lim.now + start_lookahead_, next_start) + (sync_ - period_);
    lim.switch_ = std::min(lim.now + switch_lookahead_, next_start);
    const Picos horizon = lim.now + quantum_;
    Picos earliest = kNever;
    for (const auto& runs : by_cluster_)
      for (const Slot& r : runs) earliest = std::min(earliest, r.local);
    Picos wake = kNever;
    bool stepped = false;
    if (earliest + sync_ <= horizon) {
      lim.window_end = earliest + sync_;
      ++windows;
      for (unsigned c = 0; c < by_cluster_.size(); ++c)
        if (!by_cluster_[c].empty() && step_cluster(c, lim, wake)) stepped = true;
    } else {
      wake = earliest + sync_ - quantum_;  // when the whole window is within the quantum
    }
    if (stepped || active_ == 0) continue;
    ++kernel_waits;
    if (wake == kNever)
      wait(run_added_);
    else
      wait(ps_time(wake - lim.now), run_added_);
  }
}

}  // namespace fs
