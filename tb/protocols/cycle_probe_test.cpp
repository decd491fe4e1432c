// What a handler's cycles count (docs/ISS.md), with the test suite's cycle_probe handler set
// (tb/protocols/cycle_probe/): its four instructions' cycles, worked out by hand from the timing
// table, are the handler's cycles in the stats; the firmware's entry before them and exit after
// them are reported apart as the runtime's, and the HPU is busy for all three. Natively a handler
// has no runtime: its cycles are the native cost model's, the runtime's are 0.
// And what a send costs (docs/ISS.md, "The runtime registers"), with the send_probe handler set:
// two inlined command-register sequences, each access to the runtime registers
// command.register_cycles more than an L1 access, each command issued at its issue load and done
// command.latency_cycles later, the second waiting for a free command slot when the HPU has only
// one; the frames leave when their commands are done, and the packet's feedback waits for them.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fs_packet.h"
#include "iss/elf.h"
#include "net/frame.h"
#include "net/trace_reader.h"
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

// Two runs' distribution: the median is the smaller (nearest rank 1 of 2), p90 and up the larger;
// `histogram` the buckets [lo, hi) holding them (docs/STATS.md: one per value below 8, then four
// per power of two).
nlohmann::json dist(uint64_t min, double avg, uint64_t max, nlohmann::json histogram) {
  return {{"count", 2}, {"min", min}, {"avg", avg}, {"max", max}, {"p50", min},
          {"p90", max}, {"p99", max}, {"p999", max}, {"histogram", histogram}};
}
nlohmann::json bucket(uint64_t lo, uint64_t hi, uint64_t count) { return {{"lo", lo}, {"hi", hi}, {"count", count}}; }

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
  ASSERT_EQ(h["outcomes"], nlohmann::json({{"ok", 2}, {"fault", 0}}));
  // The timing table (docs/ISS.md): ALU 1, load 1 (+1 when the next instruction uses it), jump 2,
  // store 1; an access to the runtime registers command.register_cycles (3) more. The instruction
  // cache (docs/ISS.md): a refill is there 8 cycles after the fetch that misses (each holds the
  // refill port 2 cycles); an instruction in its line's last word (offset 12) fetches the next
  // line ahead, asked for the cycle after it starts, and a jump's target is fetched once that
  // look-ahead is back (a cycle before its line could start).
  // First run, from cycle 0 of the run:
  //   entry:   auipc's line 0x1d000000 refill 0..8, auipc 8..9, addi ..10, jalr ..12       = 12
  //   handler: its line's refill 12..20, lw ..21, lw 1 + 1 load-use ..23, li ..24, ret at 24 (in
  //            the last word: fetches the line after the handler ahead, refill 25..33) ..26 = 14
  //            (the second lw reads the UDP payload's first word at 0x1b00002c: aligned, no +1)
  //   exit:    lui at 0x1d00000c is the return's target: fetched once the look-ahead is back,
  //            at 34 (a hit), so it starts at 34; in the last word it fetches 0x1d000010 ahead
  //            (refill 35..43) ..35; sw enters that line at 35 and waits for it: 43, then 1 + 3
  //            (the EXIT store, to the runtime registers, ends the run) ..47                = 21
  // Second run (10 us later, every line there): entry 4, handler 1 + 2 + 1 + 2 = 6, exit 1 + 4 = 5.
  // Refills for fetches: lines 0x1d000000 and the handler's; ahead: the handler's next line
  // and 0x1d000010. Waiting: 8 + 8 + 8 + 8 = 32.
  EXPECT_EQ(h["cycles"], dist(6, 10.0, 14, {bucket(6, 7, 1), bucket(14, 16, 1)}));
  EXPECT_EQ(h["runtime_cycles"]["entry"], dist(4, 8.0, 12, {bucket(4, 5, 1), bucket(12, 14, 1)}));
  EXPECT_EQ(h["runtime_cycles"]["exit"], dist(5, 13.0, 21, {bucket(5, 6, 1), bucket(20, 24, 1)}));
  const auto& k = h["iss"];
  EXPECT_EQ(k["instructions"], 2 * (3 + 4 + 2));
  EXPECT_EQ(k["icache_misses"], 2);
  EXPECT_EQ(k["icache_prefetches"], 2);
  EXPECT_EQ(k["stall_cycles"]["icache"], 4 * 8);
  EXPECT_EQ(k["stall_cycles"]["load_use"], 2);
  EXPECT_EQ(k["stall_cycles"]["misaligned"], 0);
  // The HPU was busy for the whole runs: 12 + 14 + 21 = 47, then 4 + 6 + 5 = 15.
  EXPECT_EQ(s["hpus"]["per_hpu"][0]["handler_cycles"], 47 + 15);
  std::vector<std::pair<uint64_t, uint64_t>> slices;  // (cycles, handler_cycles) per run
  for (const auto& e : chrome["traceEvents"])
    if (e["ph"] == "X") slices.emplace_back(e["args"]["cycles"], e["args"]["handler_cycles"]);
  EXPECT_EQ(slices, (std::vector<std::pair<uint64_t, uint64_t>>{{47, 14}, {15, 6}}));
}

TEST(CycleProbe, NativeHandlersHaveNoRuntime) {
  // hpu.native_fixed_cycles (40) + hpu.native_cycles_per_byte (1.0) x 64 bytes = 104 per run.
  const nlohmann::json s = run_two("native");
  const auto& h = s["handlers"]["cycle_probe"];
  EXPECT_EQ(h["cycles"], dist(104, 104.0, 104, {bucket(96, 112, 2)}));
  EXPECT_EQ(h["runtime_cycles"]["entry"], dist(0, 0.0, 0, {bucket(0, 1, 2)}));
  EXPECT_EQ(h["runtime_cycles"]["exit"], dist(0, 0.0, 0, {bucket(0, 1, 2)}));
  EXPECT_EQ(s["hpus"]["per_hpu"][0]["handler_cycles"], 2 * 104);
}

// One 76-byte UDP frame from the host on port 0 at t = 0, handled by send_probe on the only HPU
// of the only cluster (ISS, 1 GHz: a cycle is a nanosecond), with `extra` options. 76 bytes and
// 24 of wire overhead take 8 ns at 100 Gbit/s, so every time below is on a cycle boundary.
struct SendRun {
  nlohmann::json stats, chrome;
  std::vector<TraceRecord> egress;          // the frames that left (in the capture's times, from the first)
  std::vector<std::string> instructions;    // the handler's, as the ISS ran them (mnemonic and operands)
};
SendRun run_send_probe(const std::vector<std::string>& extra) {
  ScratchDir dir;
  uint8_t host[6], sw[6], payload[34] = {0};
  fs_host_mac(0, host);
  fs_switch_mac(sw);
  const Bytes f = build_udp_frame(host, sw, fs_host_ipv4(0), FS_SWITCH_IPV4, 5002, 5002, payload, sizeof payload);
  EXPECT_EQ(f.size(), 76u);
  {
    std::ofstream t(dir / "t.txt");
    write_text_trace(t, {{0, 0, f, ""}});
  }
  std::vector<std::string> args = {"run", "--trace", dir / "t.txt", "--stats", dir / "s.json", "--chrome-trace",
                                   dir / "c.json", "--egress", dir / "e.pcapng", "--trace-insn", dir / "i.txt",
                                   "--parser.rules", "udp_dport=5002 -> send_probe", "--pspin.clusters", "1",
                                   "--pspin.hpus_per_cluster", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::string err;
  EXPECT_EQ(cli_in_process(args, nullptr, &err), 0) << err;
  SendRun r;
  r.stats = nlohmann::json::parse(slurp(dir / "s.json"));
  r.chrome = nlohmann::json::parse(slurp(dir / "c.json"));
  r.egress = read_trace(dir / "e.pcapng", TraceOptions{});
  const iss::ElfImage elf = iss::read_elf(FLARESIM_HANDLER_ELF_DIR "/send_probe.elf");
  const uint32_t handler = elf.symbols.at("send_probe_handler"), ret = elf.symbols.at("_fs_handler_return");
  std::istringstream lines(slurp(dir / "i.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string cycle, cluster, hpu, set, pc, word, text;
    ls >> cycle >> cluster >> hpu >> set >> pc >> word;
    std::getline(ls, text);
    const uint32_t at = uint32_t(std::stoul(pc, nullptr, 16));
    if (at < handler || at == ret) continue;  // the firmware's
    if (at > handler + 0x100) continue;
    text = text.substr(text.find_first_not_of(' '));
    r.instructions.push_back(text.substr(0, text.find("  ")));  // the disassembly, without the written register
  }
  return r;
}

// The hand-work below rests on these instructions (the compiler's: the two inlined sequences
// reload pkt_len and ingress_port, since the stores to the registers might have changed them;
// the frame the first send reads is in memory before its sequence and nothing moves across its
// issue load, firmware/fs_api_rv32.h), the handler 16-byte aligned at 0x1d000020 so that it fills
// the lines 0x1d000020, ..30, ..40.
const std::vector<std::string> kSendProbeCode = {
    "lw a4, 0(a0)", "lw a2, 4(a0)", "lw a3, 16(a0)", "lui a5, 0x1a000",  // pkt, pkt_len, ingress_port; the base
    "sw a4, 0(a5)", "sw a2, 4(a5)", "sw a3, 8(a5)",                      // CMD_ADDR, CMD_LEN, CMD_PORT
    "addi a3, zero, 1", "sw a3, 28(a5)",                                 // CMD_TYPE = send (line 0x30)
    "lw a2, 32(a5)", "lw a6, 4(a0)", "lw a1, 16(a0)",                    // the first CMD_ISSUE; reloads
    "sw a4, 0(a5)", "sw a6, 4(a5)", "sw a1, 8(a5)", "sw a3, 28(a5)",     // the second sequence (line 0x40 at the 3rd)
    "lw a0, 32(a5)", "or a0, a0, a2", "jalr zero, 0(ra)"};              // the second CMD_ISSUE; first | second

TEST(CycleProbe, ASendIsAnInlinedCommandSequenceTimedAsThePspinCommandInterface) {
  const iss::ElfImage elf = iss::read_elf(FLARESIM_HANDLER_ELF_DIR "/send_probe.elf");
  ASSERT_EQ(elf.symbols.at("send_probe_handler"), 0x1d000020u);
  const SendRun r = run_send_probe({});
  EXPECT_EQ(r.instructions, kSendProbeCode);
  const auto& h = r.stats["handlers"]["send_probe"];
  // Cycles from the run's start (every line cold): a load 1, a store 1, an ALU instruction 1,
  // ret 2, +3 for each access to the runtime registers (command.register_cycles), +1 for the load
  // whose result the next instruction uses. The instruction cache as in cycle_probe's test above:
  // a refill is there 8 cycles after its fetch; an instruction in its line's last word fetches
  // the next line ahead, asked for the cycle after it starts; an instruction running across a
  // line's end waits for the next line. Lines: A 0x1d000000 (entry, handler return), B
  // 0x1d000010 (the EXIT store), C 0x..20, D 0x..30, E 0x..40.
  //   entry 0..12 (as cycle_probe's); the handler's line C: refill 12..20
  //   lw lw lw lui (0x20..0x26) 1 each -> 24 | sw (0x2a) 4 -> 28 | sw (0x2c, C's last word: D
  //   ahead, refill 29..37) 4 -> 32 | sw (0x2e) 4 -> 36 | li (0x30) waits for D: 37..38 | sw 4 ->
  //   42 | the first issue load (0x34), at handler cycle 42 - 12 = 30: 4 -> 46 | lw (0x36, 4
  //   bytes) lw (0x3a) 1 each -> 48
  //   | sw (0x3c, D's last word: E ahead, refill 49..57) 4 -> 52 | sw (0x3e, 4 bytes across D's
  //   end) waits for E: 57, 4 -> 61 | sw sw 4 each -> 69 | the second issue load (0x46), at
  //   handler cycle 57: 4, +1 as `or` uses it -> 74 | or 1 -> 75 | ret (0x4a, not a last word;
  //   target 0x0c in A, there) 2 -> 77: handler 77 - 12 = 65
  //   exit: lui (0x0c, A's last word: B ahead, refill 78..86) 1 -> 78 | sw (0x10) waits for B:
  //   86, 1 + 3 -> 90: exit 13; the run 90 cycles
  EXPECT_EQ(h["cycles"]["max"], 65);
  EXPECT_EQ(h["runtime_cycles"]["entry"]["max"], 12);  // as cycle_probe's (above)
  EXPECT_EQ(h["runtime_cycles"]["exit"]["max"], 13);
  EXPECT_EQ(h["iss"]["stall_cycles"]["command"], 0);  // 2 commands, 4 slots
  EXPECT_EQ(h["outcomes"], nlohmann::json({{"ok", 1}, {"fault", 0}}));
  // The timeline (ns): the frame is in at 8; the parser's 2 cycles: 10, into the PsPIN unit. The
  // NIC writes it into L2 (76 bytes: 2 beats) and hands it on 3 cycles later: 15; the packet
  // scheduler 1: 16; the cluster scheduler asks for its copy 2 later, 18, which moves 2 beats and
  // is done 13 after: the run starts at 33. Entry 12: the handler starts at 45. Its first command
  // is issued at 45 + 30 = 75 and done (the frame in the egress queue, leaving at once) 4
  // later, 79; the second is issued at 45 + 57 = 102 and leaves at 106. The run ends at 33 + 12
  // + 65 + 13 = 123 with both commands done; its feedback reaches the NIC 2 cycles later, 125:
  // 115 ns after the packet entered the unit.
  ASSERT_EQ(r.egress.size(), 2u);
  EXPECT_EQ(r.egress[1].time - r.egress[0].time, 27000u);
  EXPECT_EQ(r.egress[0].port, 0u);
  const auto& lat = r.stats["egress_latency"][0];  // the switch's arrival (0) to each departure
  EXPECT_EQ(lat["port"], 0);
  EXPECT_DOUBLE_EQ(lat["latency_ns"]["min"].get<double>(), 79.0);
  EXPECT_DOUBLE_EQ(lat["latency_ns"]["max"].get<double>(), 106.0);
  std::vector<nlohmann::json> runs;
  for (const auto& e : r.chrome["traceEvents"])
    if (e["ph"] == "X") runs.push_back(e);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NEAR(runs[0]["ts"].get<double>(), 0.033, 1e-9);
  EXPECT_EQ(runs[0]["args"]["cycles"], 12 + 65 + 13);
  EXPECT_DOUBLE_EQ(h["latency_ns"]["max"].get<double>(), 123.0);  // arrival at the switch to handler end
  EXPECT_DOUBLE_EQ(h["pspin_latency_ns"]["max"].get<double>(), 115.0);
  EXPECT_EQ(r.stats["packet_buffer"]["max_packets"], 1);
}

TEST(CycleProbe, AnIssueWaitsWhenEveryCommandSlotIsHeld) {
  // One command slot, 50 cycles a command: the first is issued at handler cycle 30 and done at
  // 80; the second's issue load, at 57, waits those 23 cycles for the slot: 4 + 23 + 1 = 28
  // cycles, and the handler takes 65 + 23 = 88. The frames leave at 45 + 80 = 125 and
  // 45 + 130 = 175 ns (the timeline above). The run ends at 33 + 12 + 88 + 13 = 146, before the
  // second command is done: the feedback waits for it, 175 + 2 = 177, 167 ns after the packet
  // entered the unit (10).
  const SendRun r = run_send_probe({"--command.per_hpu", "1", "--command.latency_cycles", "50"});
  EXPECT_EQ(r.instructions, kSendProbeCode);
  const auto& h = r.stats["handlers"]["send_probe"];
  EXPECT_EQ(h["cycles"]["max"], 88);
  EXPECT_EQ(h["iss"]["stall_cycles"]["command"], 23);
  ASSERT_EQ(r.egress.size(), 2u);
  EXPECT_EQ(r.egress[1].time - r.egress[0].time, 50000u);
  EXPECT_DOUBLE_EQ(r.stats["egress_latency"][0]["latency_ns"]["min"].get<double>(), 125.0);
  EXPECT_DOUBLE_EQ(r.stats["egress_latency"][0]["latency_ns"]["max"].get<double>(), 175.0);
  EXPECT_DOUBLE_EQ(h["latency_ns"]["max"].get<double>(), 146.0);
  EXPECT_DOUBLE_EQ(h["pspin_latency_ns"]["max"].get<double>(), 167.0);
}

}  // namespace
}  // namespace fs::test
