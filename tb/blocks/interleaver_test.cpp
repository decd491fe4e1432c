// Tests of the PsPIN handler-run interleaver (sc_model/pspin/interleaver.h) with scripted fake
// stepped runs: time order of cluster-shared accesses within a cluster, of global-shared accesses
// across clusters (1-cycle and large sync windows), expected starts holding shared accesses back,
// device accesses waiting for the switch lookahead, spin parking (the turn a store wakes a
// spinner at, ties with the writer, the watchdog deadline), and a window's two phases (what an
// access beyond a cluster sees, a spinner woken by another cluster's phase 1). Every expected time is derived by
// hand in the comments from the rules in interleaver.cpp; the clock is 1 GHz (1000 ps a cycle).
#include "pspin/interleaver.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blocks/sc_testbench.h"

namespace fs_tb {
namespace {

namespace iss = fs::iss;
using fs::Interleaver;
using fs::SteppedRun;
using Step = fs::SteppedRun::Step;

constexpr Picos kPeriod = 1000;
constexpr Picos kNever = ~Picos(0);

// What an operation of a fake run touches: only its own state, memory its cluster shares
// (gated by gates.cluster), memory shared with other clusters (gates.shared) or a device that
// reaches the rest of the switch (gates.device).
enum class Kind { kPrivate, kCluster, kShared, kDevice };

// One scripted operation: `cycles` cycles of work, starting at the run's cycle count.
//  kPlain: just the cycles (an access if `kind` is not kPrivate).
//  kStore: writes 1 to *word (tells the StoreWatch, as Cpu::run does for shared stores).
//  kSpin:  loads *word (a load of `cycles` cycles) every `period` cycles until it reads non-zero.
struct Op {
  Kind kind = Kind::kPrivate;
  enum Action { kPlain, kStore, kSpin } action = kPlain;
  uint64_t cycles = 1;
  uint32_t* word = nullptr;
  uint64_t period = 0;
};
Op priv(uint64_t n) { return Op{Kind::kPrivate, Op::kPlain, n}; }
Op cluster_access(uint64_t n = 1) { return Op{Kind::kCluster, Op::kPlain, n}; }
Op shared_access(uint64_t n = 1) { return Op{Kind::kShared, Op::kPlain, n}; }
Op device_access(uint64_t n = 1) { return Op{Kind::kDevice, Op::kPlain, n}; }
Op store(uint32_t* word, Kind kind = Kind::kShared) { return Op{kind, Op::kStore, 1, word}; }
Op spin(uint32_t* word, uint64_t load_cycles, uint64_t period, Kind kind = Kind::kShared) {
  return Op{kind, Op::kSpin, load_cycles, word, period};
}

// One access as it was made.
struct Access {
  std::string run;
  Kind kind;
  Op::Action action;
  uint64_t cycle;   // the run's cycle count when the access started
  Picos at;         // its time: the run's start + cycle periods
  Picos kernel;     // the kernel's time when the interleaver made it
  uint32_t value;   // spin loads: the value read
};

// A stepped run whose work is a list of operations. advance() honours the gates exactly as
// Cpu::run does: before an access it stops while its cycle count is past the matching gate
// (kWaitsShared for cluster/shared memory, kWaitsSwitch for a device), and, isolated, before any
// shared or device access (kLeaves); otherwise it goes on while its cycle count is below the
// target.
class FakeRun : public SteppedRun {
 public:
  FakeRun(std::string name, Picos start, std::vector<Op> ops, std::vector<Access>* log, iss::StoreWatch* watch,
          uint64_t max_cycles)
      : name_(std::move(name)), start_(start), ops_(std::move(ops)), log_(log), watch_(watch), max_(max_cycles) {}

  Step advance(uint64_t target, const iss::Gates& gates) override {
    ++advances;
    for (;;) {
      if (pc_ == ops_.size()) return end(false);
      if (cycles_ > max_) return end(true);  // the watchdog (hpu.max_cycles in the ISS)
      if (cycles_ >= target) return Step::kRunning;
      const Op& op = ops_[pc_];
      if (in_spin_) {  // the rest of a spin turn after a load that read 0 (private work)
        cycles_ += op.period - op.cycles;
        in_spin_ = false;
        continue;
      }
      if (op.kind == Kind::kCluster && cycles_ > gates.cluster) return Step::kWaitsShared;
      if (op.kind == Kind::kShared && cycles_ > gates.shared) return Step::kWaitsShared;
      if (op.kind == Kind::kDevice && cycles_ > gates.device) return Step::kWaitsSwitch;
      if (gates.isolated && (op.kind == Kind::kShared || op.kind == Kind::kDevice)) return Step::kLeaves;
      const uint64_t at = cycles_;
      switch (op.action) {
        case Op::kPlain:
          if (op.kind != Kind::kPrivate) record(op, at, 0);
          cycles_ += op.cycles;
          ++pc_;
          break;
        case Op::kStore:
          *op.word = 1;
          record(op, at, 1);
          // As the ISS: the store's absolute cycle counts from the cycle the run started in.
          if (watch_ && watch_->armed) watch_->stored(host(op.word), 4, start_ / kPeriod + at);
          cycles_ += op.cycles;
          ++pc_;
          if (watch_ && watch_->yield) {  // Cpu::run's kYield, which IssEngine reports as kRunning
            watch_->yield = false;
            return Step::kRunning;
          }
          break;
        case Op::kSpin: {
          const uint32_t v = *op.word;
          record(op, at, v);
          cycles_ += op.cycles;
          if (v) {
            ++pc_;
            break;
          }
          in_spin_ = true;
          spin_ = SpinWait{host(op.word), 4, at, op.period, max_ + 1, op.kind == Kind::kShared};
          return Step::kSpins;
        }
      }
    }
  }
  uint64_t cycles() const override { return cycles_; }
  SpinWait spin() const override { return spin_; }
  void skip_spin(uint64_t iterations) override {
    cycles_ += iterations * spin_.period;
    skipped += iterations;
    ++resumes;
  }
  fs::HandlerRun finish() override {
    fs::HandlerRun r;
    r.cycles = cycles_;
    if (watchdog) r.fault = name_ + ": watchdog";
    return r;
  }

  uint64_t skipped = 0, resumes = 0, advances = 0;
  bool ended = false, watchdog = false;

 private:
  static const uint8_t* host(const uint32_t* w) { return reinterpret_cast<const uint8_t*>(w); }
  Step end(bool by_watchdog) {
    EXPECT_FALSE(ended) << name_ << " advanced after it ended";
    ended = true;
    watchdog = by_watchdog;
    return Step::kEnded;
  }
  void record(const Op& op, uint64_t cycle, uint32_t value) {
    log_->push_back(Access{name_, op.kind, op.action, cycle, start_ + cycle * kPeriod, fs::now_ps(), value});
  }

  std::string name_;
  Picos start_;
  std::vector<Op> ops_;
  std::vector<Access>* log_;
  iss::StoreWatch* watch_;
  uint64_t max_;
  size_t pc_ = 0;
  uint64_t cycles_ = 0;
  bool in_spin_ = false;
  SpinWait spin_;
};

// Records when a run's `done` event fires.
struct DoneProbe : sc_core::sc_module {
  SC_HAS_PROCESS(DoneProbe);
  explicit DoneProbe(sc_core::sc_module_name n) : sc_core::sc_module(n) { SC_THREAD(run); }
  sc_core::sc_event done;
  Picos at = kNever;
  int fired = 0;
  void run() {
    for (;;) {
      wait(done);
      at = fs::now_ps();
      ++fired;
    }
  }
};

struct Params {
  unsigned clusters = 2, sync = 1, start_lookahead = 100, switch_lookahead = 100, quantum = 1000;
};

struct Bench {
  explicit Bench(const Params& p)
      : il("interleaver", fs::Clock::from_ghz(1.0), p.clusters, p.sync, p.start_lookahead, p.switch_lookahead,
           p.quantum) {}

  // A run added to `cluster` at kernel time `start` (runs added at the same time: in call order).
  FakeRun& run(const std::string& name, unsigned cluster, Picos start, std::vector<Op> ops,
               uint64_t max_cycles = 1000000) {
    runs.push_back(std::make_unique<FakeRun>(name, start, std::move(ops), &log, il.store_watch(cluster), max_cycles));
    probes.push_back(std::make_unique<DoneProbe>(("done_" + name).c_str()));
    FakeRun* r = runs.back().get();
    DoneProbe* d = probes.back().get();
    script.at(start, [this, r, cluster, start, d]() { il.add(r, cluster, start, &d->done); });
    return *r;
  }
  // Announces at kernel time `when` a run that will start at `start`.
  void expect(Picos when, Picos start) {
    script.at(when, [this, start]() { il.expect(start); });
  }
  Picos done_at(size_t i) const { return probes[i]->at; }
  int fired(size_t i) const { return probes[i]->fired; }
  void simulate() { sc_core::sc_start(fs::ps_time(Picos(10'000'000'000))); }  // 10 ms at most

  // (run, time) of the logged accesses, optionally of one kind only.
  std::vector<std::pair<std::string, Picos>> order() const {
    std::vector<std::pair<std::string, Picos>> v;
    for (const Access& a : log) v.emplace_back(a.run, a.at);
    return v;
  }
  // (cycle, value read) of one run's spin loads.
  std::vector<std::pair<uint64_t, uint32_t>> spin_loads(const std::string& name) const {
    std::vector<std::pair<uint64_t, uint32_t>> v;
    for (const Access& a : log)
      if (a.run == name && a.action == Op::kSpin) v.emplace_back(a.cycle, a.value);
    return v;
  }

  std::vector<Access> log;
  Script script{"script"};
  Interleaver il;
  std::vector<std::unique_ptr<FakeRun>> runs;
  std::vector<std::unique_ptr<DoneProbe>> probes;
};

using Order = std::vector<std::pair<std::string, Picos>>;

void expect_nondecreasing(const std::vector<Access>& log) {
  for (size_t i = 1; i < log.size(); ++i)
    EXPECT_LE(log[i - 1].at, log[i].at) << "access " << i << " (" << log[i].run << " at " << log[i].at
                                        << " ps) logged after " << log[i - 1].run << " at " << log[i - 1].at << " ps";
}

TEST(BlocksInterleaver, ClusterAccessesOfOneClusterInTimeOrder) {
  quiet_systemc();
  // Cluster 0, sync 1, start lookahead 100 cycles. A starts at 0; B is announced at 0 and starts
  // at 2000 ps. Cluster-shared accesses (1 cycle each):
  //   A = P3 C P2 C P1 C: accesses at cycles 3, 6, 8 -> 3000, 6000, 8000 ps; ends at 9 cycles.
  //   B = C P1 C P4 C:    accesses at cycles 0, 2, 7 -> 2000, 4000, 9000 ps; ends at 8 cycles.
  // Before B is added, shared = min(now + 100 cycles, 2000) + 0 = 2000: A stops before its access
  // at 3000 (cycle 3 > gate 2). Then the run furthest behind goes until it passes the other, so
  // the accesses come out merged by time: B 2000, A 3000, B 4000, A 6000, A 8000, B 9000.
  // done: A at 0 + 9 * 1000 = 9000 ps, B at 2000 + 8 * 1000 = 10000 ps.
  Bench b(Params{});
  b.expect(0, 2000);
  b.run("A", 0, 0, {priv(3), cluster_access(), priv(2), cluster_access(), priv(1), cluster_access()});
  b.run("B", 0, 2000, {cluster_access(), priv(1), cluster_access(), priv(4), cluster_access()});
  b.simulate();
  EXPECT_EQ(b.order(), (Order{{"B", 2000}, {"A", 3000}, {"B", 4000}, {"A", 6000}, {"A", 8000}, {"B", 9000}}));
  expect_nondecreasing(b.log);
  EXPECT_EQ(b.done_at(0), 9000u);
  EXPECT_EQ(b.done_at(1), 10000u);
  EXPECT_EQ(b.fired(0), 1);
  EXPECT_EQ(b.fired(1), 1);
}

TEST(BlocksInterleaver, ClusterAccessesInTimeOrderWithinLargeSyncWindow) {
  quiet_systemc();
  // Within a cluster the order does not depend on the sync window: with sync 1000 cycles the
  // window [0, 1000000 ps) holds everything, but each run only goes until it passes the other.
  // A and B (both cluster 0) start at 0, A added first:
  //   A = P3 C P2 C P1 C: accesses at 3000, 6000, 8000 ps; ends at 9000.
  //   B = C P1 C P4 C:    accesses at 0, 2000, 7000 ps;    ends at 8000.
  // Merged by time: B 0, B 2000, A 3000, A 6000, B 7000, A 8000.
  Params p;
  p.sync = 1000;
  Bench b(p);
  b.run("A", 0, 0, {priv(3), cluster_access(), priv(2), cluster_access(), priv(1), cluster_access()});
  b.run("B", 0, 0, {cluster_access(), priv(1), cluster_access(), priv(4), cluster_access()});
  b.simulate();
  EXPECT_EQ(b.order(), (Order{{"B", 0}, {"B", 2000}, {"A", 3000}, {"A", 6000}, {"B", 7000}, {"A", 8000}}));
  expect_nondecreasing(b.log);
  EXPECT_EQ(b.done_at(0), 9000u);
  EXPECT_EQ(b.done_at(1), 8000u);
}

TEST(BlocksInterleaver, SyncOneCycleOrdersGlobalAccessesExactly) {
  quiet_systemc();
  // sync 1: "accesses from different clusters to shared memory ... 1 cycle makes that exact".
  // A (cluster 0) and B (cluster 1) start at 0, added in that order; each makes global-shared
  // accesses at cycles 0, 1, 2 (0, 1000, 2000 ps) and ends at 3 cycles (3000 ps).
  // Exact time order, equal times by cluster order (= the order added): A0 B0 A1 B1 A2 B2.
  Bench b(Params{});
  b.run("A", 0, 0, {shared_access(), shared_access(), shared_access()});
  b.run("B", 1, 0, {shared_access(), shared_access(), shared_access()});
  b.simulate();
  expect_nondecreasing(b.log);
  EXPECT_EQ(b.order(), (Order{{"A", 0}, {"B", 0}, {"A", 1000}, {"B", 1000}, {"A", 2000}, {"B", 2000}}));
  EXPECT_EQ(b.done_at(0), 3000u);
  EXPECT_EQ(b.done_at(1), 3000u);
}

TEST(BlocksInterleaver, LargeSyncWindowRunsClusterByCluster) {
  quiet_systemc();
  // The same runs with sync 1000 cycles (quantum = max(sync, 1000) = 1000 cycles). The first
  // window is [0, 1000000 ps): cluster 0 runs A to the window's end first (A's gate is cycle
  // 1000, far past its accesses, so it ends), then cluster 1 runs B: A0 A1 A2 B0 B1 B2.
  Params p;
  p.sync = 1000;
  Bench b(p);
  b.run("A", 0, 0, {shared_access(), shared_access(), shared_access()});
  b.run("B", 1, 0, {shared_access(), shared_access(), shared_access()});
  b.simulate();
  EXPECT_EQ(b.order(), (Order{{"A", 0}, {"A", 1000}, {"A", 2000}, {"B", 0}, {"B", 1000}, {"B", 2000}}));
  EXPECT_EQ(b.done_at(0), 3000u);
  EXPECT_EQ(b.done_at(1), 3000u);
}

TEST(BlocksInterleaver, ExpectedStartHoldsBackSharedAccesses) {
  quiet_systemc();
  // sync 4 cycles, start lookahead 100 cycles. At 0, a run is announced for t = 10000 ps and A
  // (cluster 0) starts: 20 global-shared accesses, at cycles 0..19. B (cluster 1) is added at
  // 10000: 3 global-shared accesses (10000, 11000, 12000 ps), ends at 13000.
  // Until B is added, shared = min(now + 100000, 10000) + (4 - 1) * 1000 = 13000 ps, so A makes
  // its accesses at 0..13000 (14 of them; the gate lets an access at 13000 go) and stops before
  // the one at 14000, and the kernel, with nothing to step, goes to 10000 and B is added.
  // Then the window [10000, 14000): A (at 14000) does not step; B makes its 3 accesses and ends
  // (done at 13000). Then A makes the rest, 14000..19000, and ends at 20 cycles (20000 ps).
  Params p;
  p.sync = 4;
  Bench b(p);
  std::vector<Op> a_ops(20, shared_access());
  size_t logged_before_b = 0;
  b.expect(0, 10000);
  b.run("A", 0, 0, a_ops);
  b.script.at(10000, [&]() { logged_before_b = b.log.size(); });  // before B's add (added later)
  b.run("B", 1, 10000, {shared_access(), shared_access(), shared_access()});
  b.simulate();
  ASSERT_EQ(logged_before_b, 14u);
  for (size_t i = 0; i < logged_before_b; ++i) {
    EXPECT_LE(b.log[i].at, 10000u + (4 - 1) * kPeriod) << "access " << i << " ran ahead of the expected start";
    EXPECT_LT(b.log[i].kernel, 10000u);
  }
  Order want;
  for (Picos t = 0; t <= 13000; t += 1000) want.emplace_back("A", t);
  want.insert(want.end(), {{"B", 10000}, {"B", 11000}, {"B", 12000}});
  for (Picos t = 14000; t <= 19000; t += 1000) want.emplace_back("A", t);
  EXPECT_EQ(b.order(), want);
  EXPECT_EQ(b.done_at(0), 20000u);
  EXPECT_EQ(b.done_at(1), 13000u);
}

TEST(BlocksInterleaver, DeviceAccessWaitsForSwitchLookahead) {
  quiet_systemc();
  // Switch lookahead 2 cycles: switch_ = now + 2000 ps. A (cluster 0, start 0) = P1 D P3 D P1.
  //  - The device access at cycle 1 (1000 ps) is within 0 + 2000: made at kernel time 0.
  //  - The one at cycle 5 (5000 ps) is past 2000: A waits (kWaitsSwitch) and the interleaver
  //    wakes at A's own time, 5000 (it is past now + lookahead), and makes it then.
  // A ends at 1+1+3+1+1 = 7 cycles: done at 7000 ps.
  Params p;
  p.switch_lookahead = 2;
  Bench b(p);
  b.run("A", 0, 0, {priv(1), device_access(), priv(3), device_access(), priv(1)});
  b.simulate();
  ASSERT_EQ(b.log.size(), 2u);
  EXPECT_EQ(b.log[0].at, 1000u);
  EXPECT_EQ(b.log[0].kernel, 0u);
  EXPECT_EQ(b.log[1].at, 5000u);
  EXPECT_EQ(b.log[1].kernel, 5000u);
  for (const Access& a : b.log) EXPECT_LE(a.at, a.kernel + 2 * kPeriod);  // never past the lookahead
  EXPECT_EQ(b.done_at(0), 7000u);
}

// The spin tests: S (cluster 0, start 0) = P2, then a spin on a global-shared word (a load of
// 1 cycle every 5 cycles), then P3. Its first load starts at cycle 2 and reads 0: it parks with
// load_cycle 2, period 5, at cycle 3 (after the load). Its later loads would start at
// 2 + 5i (i >= 1): 7, 12, 17, 22, ... Woken to turn i, it skips i - 1 turns (cycle 3 + 5(i - 1)),
// does the rest of the turn (4 cycles) and loads at 2 + 5i, which reads 1, then ends after
// 1 + 3 more cycles: at 2 + 5i + 4.
// The writer W (cluster 1) stores 1 to the word (1 cycle) and ends after P1.

TEST(BlocksInterleaver, SpinResumesAtFirstLoadAfterStore) {
  quiet_systemc();
  // W (added after S, start 0) = P15 store P1: the store at cycle 15 = 15000 ps.
  // Loads at 7000, 12000 are before it; the first after is i = 3 at cycle 17 (17000 ps):
  // 2 turns skipped; S ends at 17 + 4 = 21 -> 21000 ps. W ends at 17 -> 17000 ps.
  Bench b(Params{});
  uint32_t word = 0;
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&word, 1, 5), priv(3)});
  FakeRun& w = b.run("W", 1, 0, {priv(15), store(&word), priv(1)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}, {17, 1}}));
  EXPECT_EQ(s.skipped, 2u);
  EXPECT_EQ(s.resumes, 1u);
  EXPECT_FALSE(s.watchdog);
  EXPECT_TRUE(w.ended);
  EXPECT_EQ(b.done_at(0), 21000u);
  EXPECT_EQ(b.done_at(1), 17000u);
}

TEST(BlocksInterleaver, SpinStoreBeforeNextLoadSkipsNoTurn) {
  quiet_systemc();
  // W (added after S, start 0) = P4 store P1: the store at cycle 4 = 4000 ps, after S's first
  // load (2000) and before its next one (i = 1, at 7000): S resumes with no turn skipped, sees
  // the store at cycle 7 and ends at 7 + 4 = 11 -> 11000 ps. W ends at 6 -> 6000 ps.
  Bench b(Params{});
  uint32_t word = 0;
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&word, 1, 5), priv(3)});
  b.run("W", 1, 0, {priv(4), store(&word), priv(1)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}, {7, 1}}));
  EXPECT_EQ(s.skipped, 0u);
  EXPECT_EQ(s.resumes, 1u);
  EXPECT_EQ(b.done_at(0), 11000u);
  EXPECT_EQ(b.done_at(1), 6000u);
}

TEST(BlocksInterleaver, WokenSpinnerTakesItsTurnBeforeWriterGoesOn) {
  quiet_systemc();
  // Same cluster (0), a cluster-shared word, sync 1000 cycles (so only the per-cluster order
  // separates the runs). S (added first) = P2 spin P3; W = P4 store P1 C P3 C. S parks after its
  // load at 2000; W's store at 4000 is before S's next load (i = 1, at 7000). The writer stops
  // after the store, so S is back in the time order before W goes on: W's access at 6000, S's
  // load at 7000 (sees 1), W's access at 10000. Both end at cycle 11: 11000 ps.
  Params p;
  p.sync = 1000;
  Bench b(p);
  uint32_t word = 0;
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&word, 1, 5, Kind::kCluster), priv(3)});
  b.run("W", 0, 0, {priv(4), store(&word, Kind::kCluster), priv(1), cluster_access(), priv(3), cluster_access()});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.order(), (Order{{"S", 2000}, {"W", 4000}, {"W", 6000}, {"S", 7000}, {"W", 10000}}));
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}, {7, 1}}));
  EXPECT_EQ(s.skipped, 0u);
  EXPECT_EQ(b.done_at(0), 11000u);
  EXPECT_EQ(b.done_at(1), 11000u);
}

TEST(BlocksInterleaver, SpinAddedAfterWriterSeesStoreAtSameCycle) {
  quiet_systemc();
  // W is added first, then S (both at 0). W = P17 store P1: the store at cycle 17 = 17000 ps,
  // the same time as S's load i = 3 (2 + 15 = 17). S comes later in the tie order, so that load
  // goes after the store and sees it: 2 turns skipped, S ends at 17 + 4 = 21 -> 21000 ps.
  // W ends at 19 -> 19000 ps.
  Bench b(Params{});
  uint32_t word = 0;
  FakeRun& w = b.run("W", 1, 0, {priv(17), store(&word), priv(1)});
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&word, 1, 5), priv(3)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}, {17, 1}}));
  EXPECT_EQ(s.skipped, 2u);
  EXPECT_TRUE(w.ended);
  EXPECT_EQ(b.done_at(0), 19000u);
  EXPECT_EQ(b.done_at(1), 21000u);
}

TEST(BlocksInterleaver, SpinAddedBeforeWriterMissesStoreAtSameCycle) {
  quiet_systemc();
  // S is added first, then W (both at 0); the store is at 17000 ps again. Now S's load at
  // cycle 17 comes before the store in the tie order and reads 0: the first load that sees it
  // is i = 4 at cycle 22. 3 turns skipped, S ends at 22 + 4 = 26 -> 26000 ps. W: 19000 ps.
  Bench b(Params{});
  uint32_t word = 0;
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&word, 1, 5), priv(3)});
  b.run("W", 1, 0, {priv(17), store(&word), priv(1)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}, {22, 1}}));
  EXPECT_EQ(s.skipped, 3u);
  EXPECT_EQ(b.done_at(0), 26000u);
  EXPECT_EQ(b.done_at(1), 19000u);
}

TEST(BlocksInterleaver, SpinSeesStoreOfWriterStartedBetweenCycles) {
  quiet_systemc();
  // Starts between clock edges. W (cluster 1) starts at 1500 ps = P16 store P1: the store is at
  // 1500 + 16 * 1000 = 17500 ps, reported as absolute cycle floor(1500 / 1000) + 16 = 17; W
  // ends at 1500 + 18 * 1000 = 19500 ps. Two spinners on the word start at 2000 ps in cluster 0,
  // added after W (announced at 0, so W's store waits for them: shared = 2000 until then):
  //   S1 = spin P3: loads at 2000 + (0 + 5i) * 1000 = 2000, 7000, 12000, 17000, 22000, ...
  //   S2 = P1 spin P3: loads at 2000 + (1 + 5i) * 1000 = 3000, 8000, 13000, 18000, ...
  // The first loads after 17500: S1's at 22000 (its cycle 20; i = 4, 3 turns skipped), ending at
  // cycle 24 = 26000 ps; S2's at 18000 (its cycle 16; i = 3, 2 turns skipped), ending at cycle
  // 20 = 22000 ps. (Taking the store at 17000 would let S1 see it at 17000; at 18500, S2 would
  // miss it at 18000.)
  Bench b(Params{});
  uint32_t word = 0;
  b.expect(0, 1500);
  b.expect(0, 2000);
  b.expect(0, 2000);
  b.run("W", 1, 1500, {priv(16), store(&word), priv(1)});
  FakeRun& s1 = b.run("S1", 0, 2000, {spin(&word, 1, 5), priv(3)});
  FakeRun& s2 = b.run("S2", 0, 2000, {priv(1), spin(&word, 1, 5), priv(3)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 2u);
  EXPECT_EQ(b.spin_loads("S1"), (std::vector<std::pair<uint64_t, uint32_t>>{{0, 0}, {20, 1}}));
  EXPECT_EQ(b.spin_loads("S2"), (std::vector<std::pair<uint64_t, uint32_t>>{{1, 0}, {16, 1}}));
  EXPECT_EQ(s1.skipped, 3u);
  EXPECT_EQ(s2.skipped, 2u);
  EXPECT_EQ(b.done_at(0), 19500u);
  EXPECT_EQ(b.done_at(1), 26000u);
  EXPECT_EQ(b.done_at(2), 22000u);
}

TEST(BlocksInterleaver, SpinWithoutStoreResumesAtDeadline) {
  quiet_systemc();
  // S's watchdog fires past cycle 50 (deadline 51). W = P17, a store to another word, P1: that
  // does not wake S. S parked at cycle 3 stays parked until the first turn boundary at or after
  // the deadline: 3 + ceil((51 - 3) / 5) * 5 = 3 + 10 * 5 = 53. There it is resumed (10 turns
  // skipped, no further load) and its watchdog ends it: done at 53000 ps. W ends at 19000 ps.
  Bench b(Params{});
  uint32_t words[2] = {0, 0};
  FakeRun& s = b.run("S", 0, 0, {priv(2), spin(&words[0], 1, 5), priv(3)}, 50);
  b.run("W", 1, 0, {priv(17), store(&words[1]), priv(1)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 0}}));
  EXPECT_EQ(s.skipped, 10u);
  EXPECT_EQ(s.resumes, 1u);
  EXPECT_TRUE(s.watchdog);
  EXPECT_EQ(s.cycles(), 53u);
  EXPECT_EQ(b.done_at(0), 53000u);
  EXPECT_EQ(b.done_at(1), 19000u);
}

TEST(BlocksInterleaver, AccessesBeyondAClusterSeeEveryClustersPhaseOne) {
  quiet_systemc();
  // Sync 1000 cycles: one window [0, 1000000 ps). S (cluster 0) = P2, a spin load of a word of
  // cluster 1's L1 (shared memory for S), P3; W (cluster 1) = P4, a store of 1 to that word (its
  // own L1), P1. Phase 1: S stops before its load (cycle 2); W stores at cycle 4 (4..5) and
  // ends at 6.
  // Phase 2: S's load at cycle 2 already reads 1 (to within the window, as the window promises),
  // so S does not spin and ends at 2 + 1 + 3 = 6 -> 6000 ps. (Stepped cluster by cluster, S would
  // have read 0 and spun until the turn after the store.)
  Params p;
  p.sync = 1000;
  Bench b(p);
  uint32_t word = 0;
  b.run("S", 0, 0, {priv(2), spin(&word, 1, 5), priv(3)});
  b.run("W", 1, 0, {priv(4), store(&word, Kind::kCluster), priv(1)});
  b.simulate();
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{2, 1}}));
  EXPECT_EQ(b.il.parked_spins(), 0u);
  EXPECT_EQ(b.done_at(0), 6000u);
  EXPECT_EQ(b.done_at(1), 6000u);
}

TEST(BlocksInterleaver, AStoreInPhaseOneWakesAnotherClustersSpinnerAfterIt) {
  quiet_systemc();
  // Sync 4 cycles. S (cluster 0) spins on a word of cluster 1's L1 from cycle 0 (load 1 cycle,
  // a turn every 5), then P3; W (cluster 1) = P12, a store of 1 to the word (its own L1), P1.
  // Window [0, 4000): phase 1 stops S before its load; W runs P12 to cycle 12. Phase 2: S loads
  // 0 at cycle 0 and parks, watching a word beyond its cluster.
  // Window [12000, 16000): in phase 1 W stores at 12000 (and ends at 14 -> 14000 ps); S is
  // another cluster's run, so it wakes after the phase: its loads are at 5000 + 5000 i, the first
  // after the store is at 15000 (2 turns skipped). In phase 2 S loads 1 at cycle 15, then P3:
  // it ends at 15 + 1 + 3 = 19 -> 19000 ps.
  Params p;
  p.sync = 4;
  Bench b(p);
  uint32_t word = 0;
  FakeRun& s = b.run("S", 0, 0, {spin(&word, 1, 5), priv(3)});
  b.run("W", 1, 0, {priv(12), store(&word, Kind::kCluster), priv(1)});
  b.simulate();
  EXPECT_EQ(b.il.parked_spins(), 1u);
  EXPECT_EQ(b.spin_loads("S"), (std::vector<std::pair<uint64_t, uint32_t>>{{0, 0}, {15, 1}}));
  EXPECT_EQ(s.skipped, 2u);
  EXPECT_EQ(s.resumes, 1u);
  EXPECT_EQ(b.done_at(0), 19000u);
  EXPECT_EQ(b.done_at(1), 14000u);
}

}  // namespace
}  // namespace fs_tb
