// A protocol added without touching the simulator's core: the test suite's pkt_counter
// (tb/protocols/pkt_counter/) registers itself through the plug-in interface alone, and its
// configuration key, handler set, trace syntax, generator, verifier and stats section work
// through the same CLI code paths as Flare's. Beside flare_dense, each handler set keeps its own
// L1 and L2 memory: the counter writes from offset 0 of its range, where Flare's block locks
// would be if the two sets shared memory (a Flare handler then spins into the watchdog on the
// ISS and never returns natively).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/simulation.h"
#include "config/config_io.h"
#include "common/errors.h"
#include "support/cli_runner.h"
#include "net/frame.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/flare_setup.h"
#include "protocols/flare_dense/verify.h"
#include "protocols/pkt_counter/pkt_counter.h"
#include "pspin/handler_sets.h"

namespace fs::test {
namespace {

// Runs the CLI in this process (where the test protocol is registered), capturing stdout.
int cli(std::vector<std::string> args, std::string* out = nullptr) { return cli_in_process(std::move(args), out); }

TEST(PluginProtocol, EveryPartIsRegisteredThroughTheInterface) {
  ASSERT_NE(find_protocol("pkt_counter"), nullptr);
  const ConfigKey* slots = find_config_key("pkt_counter.slots");
  ASSERT_NE(slots, nullptr);
  EXPECT_EQ(slots->show(Config{}), "64");
  const int set = find_handler_set("pkt_counter");
  ASSERT_GE(set, 0);
  EXPECT_EQ(handler_sets()[size_t(set)].outcomes.size(), size_t(PKT_COUNTER_OUTCOME_COUNT));
  EXPECT_EQ(handler_sets()[size_t(set)].outcomes[PKT_COUNTER_NO_SLOT].name, "no_slot");
  // The counter asks for no default rule: the default rules are Canary's and Flare's alone (dense
  // and sparse share the UDP port; the sparse flag, bit 7 of payload byte 1, tells them apart).
  EXPECT_EQ(Config{}.parser.rules,
            "udp_dport=4952 -> canary; udp_dport=4950,payload[1]&0x80=0 -> flare_dense; "
            "udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse");

  std::string info;
  ASSERT_EQ(cli({"info"}, &info), 0);
  EXPECT_NE(info.find("  pkt_counter.slots = 64\n      ports the counter counts (0 .. slots-1)\n"), std::string::npos);
  EXPECT_NE(info.find("  pkt_counter  the test suite's packet counter\n      flaresim gen: pkt_counter\n"), std::string::npos);
  EXPECT_NE(info.find("  pkt_counter  the test suite's packet counter (tb/protocols/pkt_counter)\n"), std::string::npos);

  // Its text-trace syntax: a 64-byte UDP payload to port 5000 from the host on the line's port.
  const std::string text = "0ns 3 count\n1us 4 count bytes=8\n";
  const std::vector<TraceRecord> recs =
      parse_trace("t.txt", reinterpret_cast<const uint8_t*>(text.data()), text.size(), TraceOptions{});
  ASSERT_EQ(recs.size(), 2u);
  const FrameInfo f = parse_frame(recs[0].data.data(), recs[0].data.size());
  ASSERT_TRUE(f.ok && f.udp);
  EXPECT_EQ(f.udp_dport, PKT_COUNTER_UDP_PORT);
  EXPECT_EQ(f.l4_len, 64u);
  EXPECT_EQ(f.src_ip, fs_host_ipv4(3));
  EXPECT_EQ(recs[1].data.size(), 42u + 8u);
  // Its keyword joins the reader's messages.
  const std::string bad = "0ns 1 counted\n";
  try {
    parse_trace("t.txt", reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), TraceOptions{});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.txt:1: unknown token 'counted' (expected hex or count or eth or flare or flare_sparse or ip or tcp or udp)");
  }
  const std::string short_line = "0ns 1\n";
  try {
    parse_trace("t.txt", reinterpret_cast<const uint8_t*>(short_line.data()), short_line.size(), TraceOptions{});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.txt:1: expected '<time> <port> hex <bytes>' or '<time> <port> count [bytes=N]' or "
                           "'<time> <port> eth|flare|flare_sparse|ip|tcp|udp key=value...'");
  }
}

// gen, run with --verify, stats: 3 ports x 5 packets on one cluster, so every port's last answer
// counts its 5 packets. Frames are 42 + 64 = 106 bytes: 15 of them are 1590 bytes.
void gen_run_verify(const std::string& hpu_model) {
  ScratchDir dir;
  const std::string trace = dir / "t.txt";
  ASSERT_EQ(cli({"gen", "pkt_counter", "--ports", "3", "--packets", "5", "-o", trace}), 0);
  EXPECT_EQ(slurp(trace + ".expected"), "pkt-counter-expected 1\nport 0 packets 5\nport 1 packets 5\nport 2 packets 5\n");
  std::string out;
  ASSERT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--verify", trace + ".expected",
                 "--parser.rules", "udp_dport=5000 -> pkt_counter", "--pspin.clusters", "1", "--hpu.model", hpu_model,
                 "--pkt_counter.slots", "4"},
                &out),
            0);
  EXPECT_NE(out.find("verify           OK: 15 of 15 result packets match"), std::string::npos) << out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["pkt_counter"]["by_port"], nlohmann::json({{"0", 5}, {"1", 5}, {"2", 5}}));
  EXPECT_EQ(s["pkt_counter"]["packets"], 15);
  EXPECT_EQ(s["pkt_counter"]["bytes"], 1590);
  EXPECT_EQ(s["handlers"]["pkt_counter"]["outcomes"]["ok"], 15);
  EXPECT_EQ(s["config"]["pkt_counter"]["slots"], 4);
  // Alone, the counter gets exactly what it asked for: 4 x (4 + 1) bytes of L1, 12 of L2.
  EXPECT_EQ(s["handler_memory"]["pkt_counter"],
            nlohmann::json({{"l1_offset", 0}, {"l1_bytes", 20}, {"l2_offset", 0}, {"l2_bytes", 12}}));
  EXPECT_EQ(s["totals"]["packets_out"], 15);
}

TEST(PluginProtocol, GenRunVerifyAndStatsNative) { gen_run_verify("native"); }
TEST(PluginProtocol, GenRunVerifyAndStatsIss) { gen_run_verify("iss"); }

// Flare's allreduce (4 hosts x 16 KiB, int32 sum) and counter packets from the same hosts, one
// counter packet beside every contribution, on the default 4x8 switch.
void side_by_side(const std::string& hpu_model) {
  AllreduceGenOptions o;
  o.hosts = 4;
  o.bytes = 16 * 1024;
  const AllreduceWorkload w = generate_allreduce(o);
  ScratchDir dir;
  std::vector<TraceRecord> records;
  for (const TraceRecord& r : w.records) {
    records.push_back(r);
    uint8_t host[6], sw[6];
    fs_host_mac(r.port, host);
    fs_switch_mac(sw);
    const Bytes payload(64, 0);
    records.push_back(TraceRecord{r.time, r.port,
                                  build_udp_frame(host, sw, fs_host_ipv4(r.port), FS_SWITCH_IPV4, PKT_COUNTER_UDP_PORT,
                                                  PKT_COUNTER_UDP_PORT, payload.data(), payload.size()),
                                  ""});
  }
  {
    std::ofstream t(dir / "t.txt");
    write_text_trace(t, records);
  }
  RunRequest req;
  req.trace_path = dir / "t.txt";
  FlareVerifier flare(expected_of(w));
  req.verifier = &flare;  // given every departing frame as it leaves
  req.cfg.parser.rules = "udp_dport=4950 -> flare_dense; udp_dport=5000 -> pkt_counter";
  find_config_key("hpu.model")->set(req.cfg, hpu_model);
  flare_config(req.cfg).ports = "0-3";
  const RunResult r = run_simulation(req);
  const VerifyReport rep = flare.report();
  EXPECT_TRUE(rep.ok) << (rep.problems.empty() ? "" : rep.problems[0]);
  EXPECT_EQ(rep.matched, 16u * 4u);
  const auto& s = r.stats;
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["ok"], 16 * 3);
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["result_sent"], 16);
  EXPECT_EQ(s["handlers"]["pkt_counter"]["outcomes"]["ok"], 64);
  EXPECT_EQ(s["pkt_counter"]["by_port"], nlohmann::json({{"0", 16}, {"1", 16}, {"2", 16}, {"3", 16}}));
  EXPECT_EQ(s["pkt_counter"]["packets"], 64);
  // L1 state area: 1 MiB - 8 x 9216 = 974848 bytes. The counter names its size, 64 x 4 + 4 = 260
  // bytes, and comes first; Flare shares the rest from the next 64-byte boundary, 320. In L2
  // both name sizes and go in installation order: Flare's table (8 + 16 + 16 x 72 = 1176 bytes)
  // and its allreduces' ports (16 x 256 x 4 = 16384 bytes), 17560 bytes,
  // then the counter's 12 bytes at the next 64-byte boundary, 17600.
  EXPECT_EQ(s["handler_memory"]["pkt_counter"],
            nlohmann::json({{"l1_offset", 0}, {"l1_bytes", 260}, {"l2_offset", 17600}, {"l2_bytes", 12}}));
  EXPECT_EQ(s["handler_memory"]["flare_dense"],
            nlohmann::json({{"l1_offset", 320}, {"l1_bytes", 974848 - 320}, {"l2_offset", 0}, {"l2_bytes", 17560}}));
  // Flare lays its allreduce out in its own share, after its 1176-byte copy of the table:
  // floor((974528 - 1176) / 1096) block states.
  EXPECT_EQ(s["flare"]["allreduces"][0]["states_per_cluster"], (974528 - 1176) / 1096);
}

TEST(PluginSideBySide, FlareAndCounterKeepTheirOwnMemoryNative) { side_by_side("native"); }
TEST(PluginSideBySide, FlareAndCounterKeepTheirOwnMemoryIss) { side_by_side("iss"); }

}  // namespace
}  // namespace fs::test
