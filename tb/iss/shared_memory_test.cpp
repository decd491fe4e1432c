// The ISS core's support for cores that share memory, on hand-assembled code: the gates that stop
// a core before an access to shared memory or a switch-reaching device access, the reports of
// stores to shared memory, spin detection and fast-forward, and LR/SC reservations broken by
// other cores' stores. Cycle counts are worked out by hand from the default timing table
// (alu 1, load 1, load-use stall 1, store 1, taken branch 3, not taken 1, atomic 1).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "iss/cpu.h"
#include "iss/rv_encode.h"

namespace fs::iss {
namespace {

constexpr uint32_t kCode = 0x1000, kPrivate = 0x8000, kCluster = 0x9000, kShared = 0xA000, kDevice = 0xB000;

// A device whose store to offset 0 reaches the rest of the switch.
// Its reads return 42 and take `read_busy` cycles more.
struct SwitchDevice : MmioDevice {
  int writes = 0;
  uint32_t read_busy = 0;
  Result read(uint32_t, unsigned, uint32_t& v, uint32_t& busy) override {
    v = 42;
    busy = read_busy;
    return Result::kOk;
  }
  Result write(uint32_t, unsigned, uint32_t, uint32_t& busy) override {
    ++writes;
    busy = 0;
    return Result::kOk;
  }
  bool reaches_switch(uint32_t off, bool store) const override { return store && off == 0; }
  // A load of offset 4 is a call that acts beyond the core without reaching the switch.
  bool calls_out(uint32_t off, bool store) const override { return reaches_switch(off, store) || (!store && off == 4); }
};

struct RecordingWatch : StoreWatch {
  std::vector<std::tuple<const uint8_t*, uint32_t, uint64_t>> stores;
  bool yield_on_store = false;
  void stored(const uint8_t* host, uint32_t bytes, uint64_t cycle) override {
    stores.emplace_back(host, bytes, cycle);
    if (yield_on_store) yield = true;
  }
};

struct Machine {
  std::vector<uint8_t> code = std::vector<uint8_t>(4096, 0), priv = std::vector<uint8_t>(256, 0),
                       cluster = std::vector<uint8_t>(256, 0), shared = std::vector<uint8_t>(256, 0);
  SwitchDevice device;
  AddressSpace mem;
  Timing timing;
  explicit Machine(const std::vector<uint32_t>& program) {
    for (size_t k = 0; k < program.size(); ++k) std::memcpy(&code[4 * k], &program[k], 4);
    mem.add(MemRegion{kCode, uint32_t(code.size()), code.data(), false, true, 0, "code"});
    mem.add(MemRegion{kPrivate, 256, priv.data(), true, false, 0, "private"});
    MemRegion c{kCluster, 256, cluster.data(), true, false, 0, "cluster L1"};
    c.sharing = kClusterShared;
    mem.add(c);
    MemRegion s{kShared, 256, shared.data(), true, false, 0, "remote L1"};
    s.sharing = kGlobalShared;
    mem.add(s);
    mem.add(MemRegion{kDevice, 16, nullptr, true, false, 0, "device", &device});
  }
  Cpu cpu() {
    Cpu c(mem, timing);
    c.pc = kCode;
    c.x[10] = kCluster;
    c.x[11] = kShared;
    c.x[12] = kDevice;
    c.x[13] = kPrivate;
    return c;
  }
};

Gates gates(uint64_t cluster, uint64_t shared, uint64_t device) {
  Gates g;
  g.cluster = cluster;
  g.shared = shared;
  g.device = device;
  return g;
}

TEST(IssSharedMemory, GatesStopBeforeSharedAndSwitchAccesses) {
  Machine m({lw(9, 13, 0), addi(5, 0, 1), lw(6, 10, 0), lw(7, 11, 0), sw(5, 12, 0), kEcall});
  Cpu c = m.cpu();
  // All gates at 0: the private load (0..1) and the addi (1..2) run; the load from the cluster's
  // memory would start at cycle 2 > 0.
  ASSERT_EQ(c.run(100, ~0ull, gates(0, 0, 0)), Stop::kGate);
  EXPECT_EQ(c.gate(), GateKind::kCluster);
  EXPECT_EQ(c.pc, kCode + 8);
  EXPECT_EQ(c.cycles, 2u);
  EXPECT_EQ(c.instret, 2u);
  EXPECT_EQ(c.counters.loads, 1u);  // nothing of the gated load happened
  // Cluster gate 2: that load runs (2..3); the remote one would start at 3 > 2.
  ASSERT_EQ(c.run(100, ~0ull, gates(2, 2, 2)), Stop::kGate);
  EXPECT_EQ(c.gate(), GateKind::kShared);
  EXPECT_EQ(c.pc, kCode + 12);
  EXPECT_EQ(c.cycles, 3u);
  // Shared gate 3: the remote load runs (3..4); the device store would start at 4 > 3.
  ASSERT_EQ(c.run(100, ~0ull, gates(~0ull, 3, 3)), Stop::kGate);
  EXPECT_EQ(c.gate(), GateKind::kDevice);
  EXPECT_EQ(c.pc, kCode + 16);
  EXPECT_EQ(c.cycles, 4u);
  EXPECT_EQ(m.device.writes, 0);
  // No gates: the store reaches the device and the program ends.
  ASSERT_EQ(c.run(100), Stop::kEcall);
  EXPECT_EQ(m.device.writes, 1);
  EXPECT_EQ(c.cycles, 5u);
}

TEST(IssSharedMemory, AnIsolatedCoreStopsBeforeEveryAccessThatLeavesItsCluster) {
  // Gates::isolated (a cluster stepped apart from the others): with no count gate, the private
  // load (0..1), the addi (1..2) and the cluster load (2..3) run; the remote load stops it
  // (kLeaves), and so do the device store that reaches the switch and the device load that
  // calls out. A count gate passed still names its own kind.
  for (Cpu::Engine engine : {Cpu::Engine::kFast, Cpu::Engine::kPlain}) {
    Machine m({lw(9, 13, 0), addi(5, 0, 1), lw(6, 10, 0), lw(7, 11, 0), sw(5, 12, 0), lw(8, 12, 4), kEcall});
    Cpu c = m.cpu();
    c.set_engine(engine);
    Gates isolated;
    isolated.isolated = true;
    ASSERT_EQ(c.run(100, ~0ull, isolated), Stop::kGate);
    EXPECT_EQ(c.gate(), GateKind::kLeaves);
    EXPECT_EQ(c.pc, kCode + 12);
    EXPECT_EQ(c.cycles, 3u);
    EXPECT_EQ(c.instret, 3u);
    Gates counted = isolated;
    counted.shared = 2;  // the remote load would start at 3
    ASSERT_EQ(c.run(100, ~0ull, counted), Stop::kGate);
    EXPECT_EQ(c.gate(), GateKind::kShared);
    ASSERT_EQ(c.run(1), Stop::kBudget);  // not isolated: the remote load (3..4)
    EXPECT_EQ(c.x[7], 0u);
    ASSERT_EQ(c.run(100, ~0ull, isolated), Stop::kGate);
    EXPECT_EQ(c.gate(), GateKind::kLeaves);
    EXPECT_EQ(c.pc, kCode + 16);
    EXPECT_EQ(m.device.writes, 0);
    ASSERT_EQ(c.run(1), Stop::kBudget);  // the device store (4..5)
    EXPECT_EQ(m.device.writes, 1);
    ASSERT_EQ(c.run(100, ~0ull, isolated), Stop::kGate);
    EXPECT_EQ(c.gate(), GateKind::kLeaves);
    EXPECT_EQ(c.pc, kCode + 20);
    EXPECT_EQ(c.x[8], 0u);
    ASSERT_EQ(c.run(1), Stop::kBudget);  // the device load (5..6)
    EXPECT_EQ(c.x[8], 42u);
    EXPECT_EQ(c.cycles, 6u);
    EXPECT_EQ(c.instret, 6u);
    ASSERT_EQ(c.run(100, ~0ull, isolated), Stop::kEcall);
  }
}

TEST(IssSharedMemory, AJumpIntoADeviceOrSharedMemoryIsAFetchFaultWithoutItsBytes) {
  // A device has no bytes to show as the instruction, and memory other clusters share may be
  // written meanwhile on another thread: the fault names the pc, with instruction 0. Private
  // memory shows what it holds.
  for (Cpu::Engine engine : {Cpu::Engine::kFast, Cpu::Engine::kPlain}) {
    for (uint32_t target : {kDevice, kShared, kPrivate}) {
      Machine m({jalr(0, 14, 0)});
      m.shared[0] = m.priv[0] = 0x13;  // the low half of an addi, if it were read
      Cpu c = m.cpu();
      c.set_engine(engine);
      c.x[14] = target;
      ASSERT_EQ(c.run(10), Stop::kFault) << target;
      EXPECT_EQ(c.fault().kind, Fault::kFetchAccess);
      EXPECT_EQ(c.fault().pc, target);
      EXPECT_EQ(c.fault().insn, target == kPrivate ? 0x13u : 0u) << target;
    }
  }
}

TEST(IssSharedMemory, ADeviceReadThatTakesTimeCostsItsLoadThoseCycles) {
  // lw x9 from the device (a command issue that waits 7 cycles for a free slot): 1 + 7 = 8
  // cycles, counted as device waiting; then addi x5 = x9 + 1 uses the loaded value: a load-use
  // stall of 1, and its own cycle: 10.
  Machine m({lw(9, 12, 4), addi(5, 9, 1), kEcall});
  m.device.read_busy = 7;
  Cpu c = m.cpu();
  ASSERT_EQ(c.run(100), Stop::kEcall);
  EXPECT_EQ(c.x[9], 42u);
  EXPECT_EQ(c.x[5], 43u);
  EXPECT_EQ(c.cycles, 10u);
  EXPECT_EQ(c.counters.device_wait_cycles, 7u);
  EXPECT_EQ(c.counters.load_use_stalls, 1u);
  EXPECT_EQ(c.counters.loads, 1u);
}

TEST(IssSharedMemory, AGateComparesTheCycleAfterTheStalls) {
  // lw x6 from private memory (0..1), then sw x6 to the cluster's memory: it reads x6 just
  // loaded, so it stalls a cycle and its access is at cycle 2. Gate 1 stops it, stalled (2);
  // gate 2 lets it run (2..3) without stalling again.
  Machine m({lw(6, 13, 0), sw(6, 10, 0), kEcall});
  RecordingWatch watch;
  watch.armed = true;
  Cpu c = m.cpu();
  c.set_store_watch(&watch);
  ASSERT_EQ(c.run(100, ~0ull, gates(1, ~0ull, ~0ull)), Stop::kGate);
  EXPECT_EQ(c.gate(), GateKind::kCluster);
  EXPECT_EQ(c.pc, kCode + 4);
  EXPECT_EQ(c.cycles, 2u);
  EXPECT_EQ(c.instret, 1u);
  EXPECT_EQ(c.counters.stores, 0u);
  ASSERT_EQ(c.run(100, ~0ull, gates(2, ~0ull, ~0ull)), Stop::kEcall);
  EXPECT_EQ(c.cycles, 3u);  // the store 2..3; the ecall stops the core before it costs a cycle
  EXPECT_EQ(c.counters.load_use_stalls, 1u);
  EXPECT_EQ(c.counters.stores, 1u);
  // The store is reported at the cycle it happened, after the stall.
  ASSERT_EQ(watch.stores.size(), 1u);
  EXPECT_EQ(std::get<2>(watch.stores[0]), 2u);
  // Without a gate in between, the same: the stall comes before the store.
  watch.stores.clear();
  Cpu d = m.cpu();
  d.set_store_watch(&watch);
  ASSERT_EQ(d.run(100), Stop::kEcall);
  ASSERT_EQ(watch.stores.size(), 1u);
  EXPECT_EQ(std::get<2>(watch.stores[0]), 2u);
}

TEST(IssSharedMemory, StoresToSharedMemoryAreReportedAndCanYield) {
  Machine m({sw(5, 11, 0), sw(5, 13, 0), sw(5, 10, 4), kEcall});
  RecordingWatch watch;
  Cpu c = m.cpu();
  c.set_store_watch(&watch);
  c.set_cycle_base(100);
  ASSERT_EQ(c.run(100), Stop::kEcall);
  EXPECT_TRUE(watch.stores.empty());  // not armed
  watch.armed = true;
  Cpu d = m.cpu();
  d.set_store_watch(&watch);
  d.set_cycle_base(100);
  ASSERT_EQ(d.run(100), Stop::kEcall);
  // The remote store at cycle 100 and the cluster one at 102; the private one (101) is not told.
  ASSERT_EQ(watch.stores.size(), 2u);
  EXPECT_EQ(watch.stores[0], std::make_tuple(static_cast<const uint8_t*>(m.shared.data()), 4u, uint64_t(100)));
  EXPECT_EQ(watch.stores[1], std::make_tuple(static_cast<const uint8_t*>(m.cluster.data() + 4), 4u, uint64_t(102)));
  // A watch that wants the storing core to stop gets it right after the store.
  watch.stores.clear();
  watch.yield_on_store = true;
  Cpu e = m.cpu();
  e.set_store_watch(&watch);
  ASSERT_EQ(e.run(100), Stop::kYield);
  EXPECT_EQ(e.pc, kCode + 4);
  EXPECT_EQ(e.instret, 1u);
  EXPECT_FALSE(watch.yield);
}

TEST(IssSharedMemory, SpinIsDetectedAndFastForwarded) {
  // loop: lw x6, 0(x11); bne x6, x0, loop; ecall -- with the remote word at 1.
  // A turn: lw (1) + bne reading x6 just loaded (1 stall + 3 taken) = 5 cycles. Loads start at
  // 0, 5, 10; the third matches the second with the same registers and nothing written, so the
  // core stops after it: cycles 11, 5 instructions, period 5, last load at 10.
  Machine m({lw(6, 11, 0), bne(6, 0, -4), kEcall});
  m.shared[0] = 1;
  RecordingWatch watch;
  Cpu c = m.cpu();
  c.set_store_watch(&watch);
  ASSERT_EQ(c.run(1000), Stop::kSpin);
  EXPECT_EQ(c.cycles, 11u);
  EXPECT_EQ(c.instret, 5u);
  EXPECT_EQ(c.pc, kCode + 4);
  EXPECT_EQ(c.spin().host, m.shared.data());
  EXPECT_EQ(c.spin().bytes, 4u);
  EXPECT_EQ(c.spin().load_cycle, 10u);
  EXPECT_EQ(c.spin().period, 5u);
  // Two turns of the wait loop so far: load to load, 0 -> 5 -> 10.
  EXPECT_EQ(c.counters.spin_cycles, 10u);
  // Ten more turns at once: 2 instructions, a load, a taken branch and a stall each.
  c.skip_spin(10);
  EXPECT_EQ(c.cycles, 61u);
  EXPECT_EQ(c.instret, 25u);
  EXPECT_EQ(c.counters.loads, 13u);
  EXPECT_EQ(c.counters.branches, 12u);
  EXPECT_EQ(c.counters.taken, 12u);
  EXPECT_EQ(c.counters.load_use_stalls, 12u);
  EXPECT_EQ(c.counters.accesses[kOtherAccess], 13u);
  EXPECT_EQ(c.counters.spin_cycles, 60u);
  // Of the 25 instructions, the 20 of those ten turns were not interpreted.
  EXPECT_EQ(c.counters.fast_forwarded_instructions, 20u);
  EXPECT_EQ(c.counters.fast_forwarded_turns, 10u);
  // The word is cleared: bne (still taken, 61..65), lw of 0 (65..66), bne not taken (66..68).
  m.shared[0] = 0;
  ASSERT_EQ(c.run(1000), Stop::kEcall);
  EXPECT_EQ(c.cycles, 68u);
  EXPECT_EQ(c.instret, 28u);
  EXPECT_EQ(c.counters.spin_cycles, 60u);  // the load of 0 ends the wait: no turn
  // Without a watch (or with an instruction observer) nothing is detected: the budget runs out.
  // The turns are counted all the same: 500 loads, 499 turns of 5 cycles.
  m.shared[0] = 1;
  Cpu d = m.cpu();
  EXPECT_EQ(d.run(1000), Stop::kBudget);
  EXPECT_EQ(d.instret, 1000u);
  EXPECT_EQ(d.counters.spin_cycles, 499u * 5);
  EXPECT_EQ(d.counters.fast_forwarded_instructions, 0u);
  EXPECT_EQ(d.counters.fast_forwarded_turns, 0u);
}

TEST(IssSharedMemory, ALoopThatReadsACounterIsNotASpin) {
  // loop: rdcycle x7; lw x7, 0(x11); bne x7, x0, loop -- the counter value is dead (the load
  // overwrites x7), so the registers repeat exactly, but a loop like this (a try-lock with a
  // time limit) can end without any store: it must run, not be parked.
  Machine m({rdcycle(7), lw(7, 11, 0), bne(7, 0, -8), kEcall});
  m.shared[0] = 1;
  RecordingWatch watch;
  Cpu c = m.cpu();
  c.set_store_watch(&watch);
  EXPECT_EQ(c.run(999), Stop::kBudget);
  EXPECT_EQ(c.instret, 999u);
  // Reading another CSR (fflags) in the same place does not hide a spin.
  Machine f({csrrs(7, 0x001, 0), lw(7, 11, 0), bne(7, 0, -8), kEcall});
  f.shared[0] = 1;
  Cpu d = f.cpu();
  d.set_store_watch(&watch);
  EXPECT_EQ(d.run(999), Stop::kSpin);
}

TEST(IssSharedMemory, ALoopThatTakesNoCyclesIsNotASpin) {
  // With every cost at 0 a spin loop has period 0: it cannot be fast-forwarded by its period
  // (and must not divide by it); it runs until the budget is used up.
  Machine m({lw(6, 11, 0), bne(6, 0, -4), kEcall});
  // Every cost, whatever fields Timing has: copy zero bytes over it, which is well defined for a
  // trivially copyable struct (memset is not, for a class with default member initializers).
  static_assert(std::is_trivially_copyable_v<Timing>);
  const std::array<unsigned char, sizeof(Timing)> zeros{};
  std::memcpy(&m.timing, zeros.data(), sizeof m.timing);
  m.shared[0] = 1;
  RecordingWatch watch;
  Cpu c = m.cpu();
  c.set_store_watch(&watch);
  EXPECT_EQ(c.run(1000), Stop::kBudget);
  EXPECT_EQ(c.cycles, 0u);
  EXPECT_EQ(c.instret, 1000u);
}

TEST(IssSharedMemory, AStoreByAnotherCoreBreaksAReservation) {
  // Core A: lr.w x5, (x11); sc.w x6, x8, (x11). Core B: sw x7, 0(x11) or sc.w x6, x8, (x11).
  for (int scenario = 0; scenario < 3; ++scenario) {
    Machine a_code({lr_w(5, 11), sc_w(6, 11, 8), kEcall});
    Machine& m = a_code;
    const uint32_t b_prog[2] = {scenario == 1 ? sw(7, 11, 0) : sc_w(6, 11, 8), kEcall};
    std::memcpy(&m.code[256], b_prog, sizeof b_prog);
    Reservations reservations;
    Cpu a = m.cpu(), b = m.cpu();
    a.set_reservations(&reservations);
    b.set_reservations(&reservations);
    b.pc = kCode + 256;
    a.x[8] = 0xAAAA;
    b.x[7] = 0xBBBB;
    b.x[8] = 0xCCCC;
    m.shared[0] = 5;
    ASSERT_EQ(a.run(1), Stop::kBudget);  // the LR
    EXPECT_EQ(a.x[5], 5u);
    if (scenario > 0) {
      ASSERT_EQ(b.run(10), Stop::kEcall);
    }
    ASSERT_EQ(a.run(10), Stop::kEcall);
    uint32_t word;
    std::memcpy(&word, m.shared.data(), 4);
    if (scenario == 1) {
      // B's store came between A's LR and SC: A's SC fails and B's value stays.
      EXPECT_EQ(a.x[6], 1u);
      EXPECT_EQ(word, 0xBBBBu);
    } else {
      // Nobody else wrote (scenario 0), or B's SC without a reservation failed and wrote nothing
      // (scenario 2): A's SC succeeds.
      EXPECT_EQ(a.x[6], 0u) << scenario;
      EXPECT_EQ(word, 0xAAAAu) << scenario;
      if (scenario == 2) {
        EXPECT_EQ(b.x[6], 1u);
      }
    }
    EXPECT_TRUE(reservations.empty());
  }
}

}  // namespace
}  // namespace fs::iss
