// Advances every stepped handler run of the PsPIN unit (the ISS HPUs of all clusters) in
// simulated-time order, inside one SystemC process.
//  - Within a cluster the run furthest behind executes next, until it passes the next one, so the
//    cluster's L1 banks, instruction cache, and the locks and buffers its HPUs share see them in
//    exactly the order the instructions' times dictate.
//  - Clusters take turns in windows of `sync` cycles (each runs its HPUs to the window's end, in
//    cluster order), so accesses from different clusters to shared memory (another cluster's L1,
//    L2 handler memory) are in time order to within the window; 1 cycle makes that exact.
//  - An access to shared memory never runs ahead of a run that may still start: only before the
//    earliest start of a run not yet added (a packet copy already reserved, or one the cluster
//    schedulers could still dispatch: `start_lookahead` after now).
//  - An access that reaches the rest of the switch (a handler DMA) happens only within
//    `switch_lookahead` of the kernel's time, so it queues on the cluster DMA in request order with
//    the packet copies the cluster scheduler reserves `switch_lookahead` ahead.
//  - No run executes more than `quantum` ahead of the kernel's time.
// A run spinning on a shared word (a lock) is parked instead of stepped: it watches the word, and
// the first store to it puts the run back at the first turn of its loop that sees the store, with
// the skipped turns accounted. The process yields to the kernel only when no run can go on.
// Ties are broken by the order runs were added, so runs repeat exactly.
#pragma once
#include <bitset>
#include <deque>
#include <unordered_map>
#include <set>
#include <vector>

#include "iss/cpu.h"
#include "pspin/hpu.h"

namespace fs {

class Interleaver : public sc_core::sc_module, public RunInterleaver, public iss::StoreWatch {
 public:
  SC_HAS_PROCESS(Interleaver);
  Interleaver(sc_core::sc_module_name name, Clock clock, unsigned clusters, unsigned sync_cycles,
              unsigned start_lookahead_cycles, unsigned switch_lookahead_cycles, unsigned quantum_cycles);

  void expect(Picos start) override;
  void add(SteppedRun* run, unsigned cluster, Picos start, sc_core::sc_event* done) override;
  // StoreWatch: wakes the runs spinning on the words stored to.
  void stored(const uint8_t* host, uint32_t bytes, uint64_t cycle) override;

  // For profiling: steps of runs, windows, waits for the kernel, spins parked.
  uint64_t steps = 0, windows = 0, kernel_waits = 0, parked_spins = 0;

 private:
  struct Entry {
    SteppedRun* run = nullptr;
    unsigned cluster = 0;
    Picos start = 0, local = 0;  // local: start + the cycles the run has used
    sc_core::sc_event* done = nullptr;
    uint64_t sequence = 0;
    SteppedRun::Step last = SteppedRun::Step::kRunning;
    bool parked = false;
    SteppedRun::SpinWait spin;
  };
  // A cluster's view of one of its runs: where it is, kept next to the others for the scans.
  struct Slot {
    Picos local;
    uint32_t id;
  };
  // The kernel's constraints on one pass over the runs.
  struct Limits {
    Picos now, shared, switch_, window_end;
  };
  void run();  // SC_THREAD
  // Steps cluster c's runs in time order up to the window's end; false if it could not step
  // any. `wake`: when a run that waits for the kernel can go on (kNever: when a run is added).
  bool step_cluster(unsigned c, const Limits& lim, Picos& wake);
  void set_local(uint32_t id, Picos t);
  void remove(uint32_t id);
  void park(uint32_t id);
  void unpark(uint32_t id, uint64_t iterations);

  // d / period_, rounded down, without a division (the interleaver converts times every step).
  uint64_t whole_cycles(Picos d) const {
    uint64_t q = uint64_t(double(d) * per_period_);
    if (q * period_ > d)
      --q;
    else if ((q + 1) * period_ <= d)
      ++q;
    return q;
  }

  Picos period_;
  double per_period_;
  Picos sync_, start_lookahead_, switch_lookahead_, quantum_;
  std::deque<Entry> entries_;         // by id (ids are reused)
  std::vector<uint32_t> free_ids_;
  size_t active_ = 0;
  std::vector<std::vector<Slot>> by_cluster_;  // the active runs of each cluster, oldest first
  std::unordered_map<uintptr_t, std::vector<uint32_t>> watchers_;  // word (host address / 4) -> parked runs
  std::bitset<4096> watched_;  // word % 4096 of every watched word: most stores need no lookup
  std::multiset<Picos> expected_;     // starts of runs not added yet
  uint64_t sequence_ = 0;
  uint32_t current_ = ~0u;            // the run being stepped
  sc_core::sc_event run_added_;
};

}  // namespace fs
