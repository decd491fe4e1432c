// What a handler's cycles count (docs/ISS.md), with the test suite's cycle_probe handler set
// (tb/protocols/cycle_probe/): its four instructions' cycles, worked out by hand from the timing
// table, are the handler's cycles in the stats; the firmware's entry before them and exit after
// them are reported apart as the runtime's, and the HPU is busy for all three. Natively a handler
// has no runtime: its cycles are the native cost model's, the runtime's are 0.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fs_packet.h"
#include "iss/elf.h"
#include "net/frame.h"
#include "net/trace_writer.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Two 64-byte UDP frames from the host on port 0, 10 us apart: the only HPU of the only cluster
// runs both, the second with a warm instruction cache.
nlohmann::json run_two(const std::string& model, nlohmann::json* chrome = nullptr) {
  ScratchDir dir;
  uint8_t host[6], sw[6], payload[22] = {0};
  fs_host_mac(0, host);
  fs_switch_mac(sw);
  const Bytes f = build_udp_frame(host, sw, fs_host_ipv4(0), FS_SWITCH_IPV4, 5002, 5002, payload, sizeof payload);
  {
    std::ofstream t(dir / "t.txt");
    write_text_trace(t, {{0, 0, f, ""}, {10 * kPicosPerUs, 0, f, ""}});
  }
  std::string err;
  EXPECT_EQ(cli_in_process({"run", "--trace", dir / "t.txt", "--stats", dir / "s.json", "--chrome-trace",
                            dir / "c.json", "--parser.rules", "udp_dport=5002 -> cycle_probe", "--pspin.clusters", "1",
                            "--pspin.hpus_per_cluster", "1", "--hpu.model", model},
                           nullptr, &err),
            0)
      << err;
  if (chrome) *chrome = nlohmann::json::parse(slurp(dir / "c.json"));
  return nlohmann::json::parse(slurp(dir / "s.json"));
}

nlohmann::json dist(uint64_t min, double avg, uint64_t max) {
  return {{"count", 2}, {"min", min}, {"avg", avg}, {"max", max}, {"p99", max}};
}

TEST(CycleProbe, HandlerCyclesFromItsFirstInstructionToItsReturnOnTheIss) {
  // The hand-work rests on where the code lies: the firmware (crt0.S) at 0x1d000000, its
  // 4-byte instructions auipc, addi | jalr (the call) | lui (the return point, the line's last
  // word), sw, j; the handler's four 4-byte instructions in a 16-byte line of their own.
  const iss::ElfImage elf = iss::read_elf(FLARESIM_HANDLER_ELF_DIR "/cycle_probe.elf");
  ASSERT_EQ(elf.symbols.at("_fs_entry"), 0x1d000000u);
  ASSERT_EQ(elf.symbols.at("_fs_handler_call"), 0x1d000008u);
  ASSERT_EQ(elf.symbols.at("_fs_handler_return"), 0x1d00000cu);
  const uint32_t handler = elf.symbols.at("cycle_probe_handler");
  ASSERT_EQ(handler % 16, 0u);
  ASSERT_GE(handler, 0x1d000020u);  // past the firmware's two lines

  nlohmann::json chrome;
  const nlohmann::json s = run_two("iss", &chrome);
  const auto& h = s["handlers"]["cycle_probe"];
  ASSERT_EQ(h["outcomes"], nlohmann::json({{"ok", 2}}));
  // The timing table (docs/ISS.md): ALU 1, load 1 (+1 when the next instruction uses it), jump 2,
  // store 1. The instruction cache (docs/ISS.md): a refill is there 8 cycles after the fetch
  // that misses (each holds the refill port 2 cycles); an instruction in its line's last word
  // (offset 12) fetches the next line ahead, asked for the cycle after it starts, and a jump's
  // target is fetched once that look-ahead is back (a cycle before its line could start).
  // First run, from cycle 0 of the run:
  //   entry:   auipc's line 0x1d000000 refill 0..8, auipc 8..9, addi ..10, jalr ..12       = 12
  //   handler: its line's refill 12..20, lw ..21, lw 1 + 1 load-use ..23, li ..24, ret at 24 (in
  //            the last word: fetches the line after the handler ahead, refill 25..33) ..26 = 14
  //            (the second lw reads the UDP payload's first word at 0x1b00002c: aligned, no +1)
  //   exit:    lui at 0x1d00000c is the return's target: fetched once the look-ahead is back,
  //            at 34 (a hit), so it starts at 34; in the last word it fetches 0x1d000010 ahead
  //            (refill 35..43) ..35; sw enters that line at 35 and waits for it: 43..44     = 18
  // Second run (10 us later, every line there): entry 4, handler 1 + 2 + 1 + 2 = 6, exit 2.
  // Refills for fetches: lines 0x1d000000 and the handler's; ahead: the handler's next line
  // and 0x1d000010. Waiting: 8 + 8 + 8 + 8 = 32.
  EXPECT_EQ(h["cycles"], dist(6, 10.0, 14));
  EXPECT_EQ(h["runtime_cycles"]["entry"], dist(4, 8.0, 12));
  EXPECT_EQ(h["runtime_cycles"]["exit"], dist(2, 10.0, 18));
  const auto& k = h["iss"];
  EXPECT_EQ(k["instructions"], 2 * (3 + 4 + 2));
  EXPECT_EQ(k["icache_misses"], 2);
  EXPECT_EQ(k["icache_prefetches"], 2);
  EXPECT_EQ(k["stall_cycles"]["icache"], 4 * 8);
  EXPECT_EQ(k["stall_cycles"]["load_use"], 2);
  EXPECT_EQ(k["stall_cycles"]["misaligned"], 0);
  // The HPU was busy for the whole runs: 12 + 14 + 18 = 44, then 4 + 6 + 2 = 12.
  EXPECT_EQ(s["hpus"]["per_hpu"][0]["handler_cycles"], 44 + 12);
  std::vector<std::pair<uint64_t, uint64_t>> slices;  // (cycles, handler_cycles) per run
  for (const auto& e : chrome["traceEvents"])
    if (e["ph"] == "X") slices.emplace_back(e["args"]["cycles"], e["args"]["handler_cycles"]);
  EXPECT_EQ(slices, (std::vector<std::pair<uint64_t, uint64_t>>{{44, 14}, {12, 6}}));
}

TEST(CycleProbe, NativeHandlersHaveNoRuntime) {
  // hpu.native_fixed_cycles (40) + hpu.native_cycles_per_byte (1.0) x 64 bytes = 104 per run.
  const nlohmann::json s = run_two("native");
  const auto& h = s["handlers"]["cycle_probe"];
  EXPECT_EQ(h["cycles"], dist(104, 104.0, 104));
  EXPECT_EQ(h["runtime_cycles"]["entry"], dist(0, 0.0, 0));
  EXPECT_EQ(h["runtime_cycles"]["exit"], dist(0, 0.0, 0));
  EXPECT_EQ(s["hpus"]["per_hpu"][0]["handler_cycles"], 2 * 104);
}

}  // namespace
}  // namespace fs::test
