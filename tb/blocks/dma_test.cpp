// Tests of a cluster's DMA engine (sc_model/pspin/dma.h) and the PsPIN clock: copy completion
// times for one and several transfers (bandwidth serialised, latency pipelined), rounding of
// partial cycles, an idle engine, and the engine's counters. All expected times by hand.
#include "pspin/dma.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "blocks/sc_testbench.h"

namespace fs_tb {
namespace {

using fs::Clock;
using fs::Dma;

// 1 GHz clock (1000 ps), latency 4 cycles, 16 bytes per cycle.
struct DmaBench {
  Dma dma{"dma", Clock::from_ghz(1.0), fs::DmaConfig{4, 16}};
  Script s1{"s1"}, s2{"s2"};
};

TEST(BlocksDma, ClockPeriods) {
  EXPECT_EQ(Clock::from_ghz(1.0).period_ps, 1000u);
  EXPECT_EQ(Clock::from_ghz(2.0).period_ps, 500u);
  EXPECT_EQ(Clock::from_ghz(0.5).period_ps, 2000u);
  EXPECT_EQ(Clock::from_ghz(0.3).period_ps, 3333u);  // 3333.33 rounded to the nearest ps
  EXPECT_EQ(Clock::from_ghz(1.0).cycles_ps(68), 68000u);
}

TEST(BlocksDma, OneKibCopyTakes64PlusLatencyCycles) {
  quiet_systemc();
  // 1024 bytes / 16 per cycle = 64 cycles, + 4 cycles latency = 68 cycles = 68 ns after t.
  DmaBench b;
  Picos done = 0, returned = 0;
  b.s1.at(10000, [&]() {
    returned = b.dma.schedule(0);  // a 0-byte reservation: no transfer cycles, latency only
    b.dma.copy(1024);
    done = fs::now_ps();
  });
  sc_core::sc_start();
  EXPECT_EQ(returned, 10000u + 4000u);
  EXPECT_EQ(done, 10000u + 68000u);
  EXPECT_EQ(b.dma.transfers, 2u);
  EXPECT_EQ(b.dma.bytes_moved, 1024u);
  EXPECT_EQ(b.dma.busy_cycles, 64u);
}

TEST(BlocksDma, TwoCopiesSerialiseBandwidthPipelineLatency) {
  quiet_systemc();
  // Two 1024-byte copies requested at 0: the first moves bytes 0..64 ns and completes at
  // 64 + 4 = 68 ns; the second moves bytes 64..128 ns and completes at 128 + 4 = 132 ns.
  DmaBench b;
  std::vector<Picos> done;
  b.s1.at(0, [&]() { b.dma.copy(1024); done.push_back(fs::now_ps()); });
  b.s2.at(0, [&]() { b.dma.copy(1024); done.push_back(fs::now_ps()); });
  sc_core::sc_start();
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, (std::vector<Picos>{68000, 132000}));
  EXPECT_EQ(b.dma.transfers, 2u);
  EXPECT_EQ(b.dma.bytes_moved, 2048u);
  EXPECT_EQ(b.dma.busy_cycles, 128u);
}

TEST(BlocksDma, PartialCyclesRoundUp) {
  quiet_systemc();
  // Each request on an idle engine (requests 100 ns apart):
  //   1 byte   -> ceil(1/16)  = 1 cycle  + 4 = 5 cycles
  //   16 bytes -> 1 cycle + 4 = 5 cycles
  //   17 bytes -> ceil(17/16) = 2 cycles + 4 = 6 cycles
  //   1025     -> ceil(1025/16) = 65 cycles + 4 = 69 cycles
  DmaBench b;
  std::vector<Picos> took;
  const uint64_t sizes[] = {1, 16, 17, 1025};
  for (int i = 0; i < 4; ++i)
    b.s1.at(Picos(i) * 100000, [&, i]() {
      const Picos t0 = fs::now_ps();
      b.dma.copy(sizes[i]);
      took.push_back(fs::now_ps() - t0);
    });
  sc_core::sc_start();
  EXPECT_EQ(took, (std::vector<Picos>{5000, 5000, 6000, 69000}));
  EXPECT_EQ(b.dma.busy_cycles, 1u + 1u + 2u + 65u);
}

TEST(BlocksDma, QueuedBehindBusyEngineThenIdle) {
  quiet_systemc();
  // 0 ns: 1024 bytes -> engine busy until 64 ns, done at 68 ns.
  // 30 ns: 16 bytes -> waits for the engine: moves 64..65 ns, done at 69 ns.
  // 200 ns: 16 bytes -> engine idle: moves 200..201 ns, done at 205 ns.
  DmaBench b;
  std::vector<Picos> done;
  b.s1.at(0, [&]() { done.push_back(b.dma.schedule(1024)); });
  b.s1.at(30000, [&]() { done.push_back(b.dma.schedule(16)); });
  b.s1.at(200000, [&]() { done.push_back(b.dma.schedule(16)); });
  sc_core::sc_start();
  EXPECT_EQ(done, (std::vector<Picos>{68000, 69000, 205000}));
}

TEST(BlocksDma, FasterClock) {
  quiet_systemc();
  // 2 GHz (500 ps), latency 4, 16 B/cycle: 1024 bytes = 68 cycles = 34 ns.
  Dma dma("dma", Clock::from_ghz(2.0), fs::DmaConfig{4, 16});
  Script s("s");
  Picos done = 0;
  s.at(1000, [&]() { dma.copy(1024); done = fs::now_ps(); });
  sc_core::sc_start();
  EXPECT_EQ(done, 1000u + 34000u);
}

}  // namespace
}  // namespace fs_tb
