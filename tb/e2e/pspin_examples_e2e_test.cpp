// End to end: PsPIN's examples (handlers/pspin_examples/) through `flaresim gen` and `flaresim
// run` on the default (PsPIN-sized, 4x8) switch, with ISS and native HPUs. The traffic is PsPIN's
// driver's; each example's result is worked out here from the generated trace, independently of
// the generator's expected file, and compared with what the switch sent: pingpong's replies byte
// for byte and port for port, aggregate's sums, reduce's element-wise sums and histogram's
// counts. Also the option checks, and a verifier that catches a wrong expectation.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/trace_reader.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// A packet of a generated trace, taken apart by the documented layout (pspin_examples.h): a
// 42-byte Ethernet/IPv4/UDP header, the 12-byte message header, then little-endian words.
struct TracePacket {
  Picos time = 0;
  uint16_t port = 0;
  Bytes frame;
  uint32_t msg = 0, index = 0, packets = 0, result_port = 0;
  std::vector<uint32_t> words;
};

uint32_t be(const Bytes& f, size_t at, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | f[at + size_t(i)];
  return v;
}
uint32_t le(const Bytes& f, size_t at) { return f[at] | f[at + 1] << 8 | f[at + 2] << 16 | uint32_t(f[at + 3]) << 24; }

std::vector<TracePacket> read_packets(const std::string& path) {
  std::vector<TracePacket> out;
  for (const TraceRecord& r : read_trace(path, TraceOptions{})) {
    TracePacket p{r.time, r.port, r.data, 0, 0, 0, 0, {}};
    p.msg = be(r.data, 42, 4), p.index = be(r.data, 46, 2), p.packets = be(r.data, 48, 2), p.result_port = be(r.data, 50, 2);
    for (size_t at = 54; at + 4 <= r.data.size(); at += 4) p.words.push_back(le(r.data, at));
    out.push_back(std::move(p));
  }
  return out;
}

// The result frames the switch sent for an example, added up per message: {port, frames, words}.
struct Got {
  std::set<uint32_t> ports;
  unsigned frames = 0;
  std::vector<uint32_t> words;
};
std::map<uint32_t, Got> results_of(const std::vector<TraceRecord>& egress) {
  std::map<uint32_t, Got> got;
  for (const TraceRecord& r : egress) {
    Got& g = got[be(r.data, 42, 4)];
    g.ports.insert(r.port);
    ++g.frames;
    const size_t n = (r.data.size() - 54) / 4;
    if (g.words.size() < n) g.words.resize(n, 0);
    for (size_t i = 0; i < n; ++i) g.words[i] += le(r.data, 54 + 4 * i);
  }
  return got;
}

struct ExampleRun {
  std::vector<TracePacket> in;
  std::vector<TraceRecord> egress;
  nlohmann::json stats;
};

// gen 2 messages of 6 packets (seed 5), run them through the set on `model`, --verify included.
ExampleRun gen_and_run(const ScratchDir& dir, const std::string& set, unsigned udp_port, const std::string& model) {
  ExampleRun r;
  const CliResult g = flaresim("gen " + set + " --messages 2 --packets 6 --seed 5 -o t.txt", dir);
  EXPECT_EQ(g.code, 0) << g.err;
  const CliResult c = flaresim("run --trace t.txt --parser.rules 'udp_dport=" + std::to_string(udp_port) + " -> " + set +
                                   "' --stats s.json --egress e.pcapng --verify t.txt.expected --hpu.model " + model,
                               dir);
  EXPECT_EQ(c.code, 0) << set << " " << model << ": " << c.err;
  EXPECT_NE(c.out.find("verify           OK"), std::string::npos) << c.out;
  r.in = read_packets(dir / "t.txt");
  r.egress = read_trace(dir / "e.pcapng", TraceOptions{});
  r.stats = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(r.in.size(), 12u);
  EXPECT_EQ(r.stats["handlers"][set]["runs"], 12) << set << " " << model;
  return r;
}

// The data examples: every message's packets handled, one of them completing it.
void expect_messages_done(const ExampleRun& r, const std::string& set) {
  EXPECT_EQ(r.stats["handlers"][set]["outcomes"],
            nlohmann::json({{"ok", 10}, {"message_done", 2}, {"after_done", 0}, {"fault", 0}, {"malformed", 0},
                            {"no_state", 0}, {"result_not_sent", 0}, {"too_long", 0}}));
  EXPECT_EQ(r.stats["handlers"][set]["blocks"]["completed"], 2);
  EXPECT_EQ(r.stats["handlers"][set]["blocks"]["open_at_end"], 0);
}

TEST(E2EPspinExamples, GenWritesTheTrafficOfPspinsDriver) {
  ScratchDir dir;
  // The defaults: PsPIN's generic driver's one message of 32 packets of 1024 bytes (IPv4), one
  // every 20 ns. A 1038-byte frame takes (1038 + 24) x 8 / 100 = 84.96 ns on a 100 Gbit/s port,
  // so the stream needs 5 ports (5 x 20 ns >= 84.96 ns > 4 x 20 ns), packet k on port k mod 5.
  const CliResult g = flaresim("gen pspin_pingpong -o t.txt", dir);
  ASSERT_EQ(g.code, 0) << g.err;
  // The run line names the binary as it was started (here by its absolute path).
  EXPECT_EQ(g.out, "wrote t.txt (1 message of 32 packets of 1024 bytes, on ports 0-4) and t.txt.expected\n"
                   "run it with: " FLARESIM_BIN " run --parser.rules 'udp_dport=9101 -> pspin_pingpong' --trace t.txt "
                   "--stats stats.json --verify t.txt.expected\n");
  const std::vector<TracePacket> p = read_packets(dir / "t.txt");
  ASSERT_EQ(p.size(), 32u);
  for (uint32_t k = 0; k < 32; ++k) {
    EXPECT_EQ(p[k].time, Picos(k) * 20 * kPicosPerNs);
    EXPECT_EQ(p[k].port, k % 5);
    EXPECT_EQ(p[k].frame.size(), 1038u);
    EXPECT_EQ(be(p[k].frame, 16, 2), 1024u);  // IPv4 total length
    EXPECT_EQ(be(p[k].frame, 36, 2), 9101u);  // UDP destination port
    EXPECT_EQ(p[k].msg, 0u);
    EXPECT_EQ(p[k].index, k);
    EXPECT_EQ(p[k].packets, 32u);
    EXPECT_EQ(p[k].result_port, 0u);
    EXPECT_EQ(p[k].words.size(), (1024u - 20 - 8 - 12) / 4);
  }
  // Messages: 40 ns after a message's last packet; a message's results go to its first packet's port.
  ASSERT_EQ(flaresim("gen pspin_examples --example pspin_histogram_l1 --messages 2 --packets 3 --hosts 5 -o h.pcapng", dir).code, 0);
  const std::vector<TracePacket> h = read_packets(dir / "h.pcapng");
  ASSERT_EQ(h.size(), 6u);
  const Picos want[] = {0, 20, 40, 80, 100, 120};
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(h[k].time, want[k] * kPicosPerNs);
    EXPECT_EQ(h[k].msg, k / 3);
    EXPECT_EQ(h[k].result_port, k < 3 ? 0u : 3u);
    for (uint32_t w : h[k].words) EXPECT_LT(w, 1024u);  // bin indices
  }
}

TEST(E2EPspinExamples, GenRefusesWhatCannotRun) {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pspin_pingpong --hosts 4",
       "flaresim: --hosts: 4 ports cannot carry a packet every 20ns: a 1038-byte frame takes 84.96ns on a 100 Gbit/s link "
       "(ports.gbps); give more hosts or a longer gap\n"},
      {"pspin_pingpong --hosts 65", "flaresim: --hosts: 65 hosts, but the switch has 64 ports (ports.count)\n"},
      {"pspin_pingpong --size 1026",
       "flaresim: --size: 1026 bytes; an IPv4 packet of 40 header bytes (IPv4, UDP, message header) and 1 to 2032 32-bit "
       "data words: 44 to 8168, a multiple of 4\n"},
      {"pspin_reduce_l1 --messages 1025", "flaresim: --messages: 1025 messages; 1 to 1024 (the message states of the handlers' memory)\n"},
      {"pspin_reduce_l1 --packets 0", "flaresim: --packets: 0 packets per message; 1 to 65535 (the message header's count)\n"},
      {"pspin_examples --example reduce",
       "flaresim: --example: no example 'reduce' (pspin_empty, pspin_pingpong, pspin_aggregate_global, pspin_reduce_l1, "
       "pspin_histogram_l1)\n"},
      {"pspin_empty --gap 1ns --message-gap 1ns --messages 100 --packets 1",
       "flaresim: --gap: even 64 ports (ports.count) cannot carry a packet every 1ns: a 1038-byte frame takes 84.96ns on a "
       "100 Gbit/s link (ports.gbps)\n"},
      {"pspin_empty --seed 2 --sim.seed 3", "flaresim: --seed and --sim.seed both given: give one\n"},
  };
  for (const auto& [args, err] : cases) {
    const CliResult r = flaresim("gen " + args + " -o t.txt", dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, err) << args;
    EXPECT_FALSE(exists(dir / "t.txt")) << args;
  }
  // A faster port carries more: at 400 Gbit/s a frame takes 21.24 ns, so 2 ports do.
  const CliResult r = flaresim("gen pspin_empty --ports.gbps 400 -o t.txt", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("on ports 0-1)"), std::string::npos) << r.out;
}

class E2EPspinExamplesModels : public testing::TestWithParam<std::string> {};

TEST_P(E2EPspinExamplesModels, EmptySendsNothing) {
  ScratchDir dir;
  const ExampleRun r = gen_and_run(dir, "pspin_empty", 9100, GetParam());
  EXPECT_TRUE(r.egress.empty());
  EXPECT_EQ(r.stats["handlers"]["pspin_empty"]["outcomes"], nlohmann::json({{"ok", 12}, {"fault", 0}}));
}

TEST_P(E2EPspinExamplesModels, PingpongRepliesToEveryPacketOnItsPort) {
  ScratchDir dir;
  const ExampleRun r = gen_and_run(dir, "pspin_pingpong", 9101, GetParam());
  // Each packet back on its ingress port, MACs, IPv4 addresses and UDP ports swapped.
  std::map<uint16_t, std::multiset<Bytes>> want, got;
  for (const TracePacket& p : r.in) {
    Bytes f = p.frame;
    std::swap_ranges(f.begin(), f.begin() + 6, f.begin() + 6);
    std::swap_ranges(f.begin() + 26, f.begin() + 30, f.begin() + 30);
    std::swap_ranges(f.begin() + 34, f.begin() + 36, f.begin() + 36);
    want[p.port].insert(f);
  }
  for (const TraceRecord& e : r.egress) got[e.port].insert(e.data);
  EXPECT_EQ(got, want);
  EXPECT_EQ(r.egress.size(), 12u);
}

TEST_P(E2EPspinExamplesModels, AggregateSendsEachMessagesSum) {
  ScratchDir dir;
  const ExampleRun r = gen_and_run(dir, "pspin_aggregate_global", 9102, GetParam());
  expect_messages_done(r, "pspin_aggregate_global");
  std::map<uint32_t, uint32_t> sum;
  std::map<uint32_t, uint32_t> port;
  for (const TracePacket& p : r.in) {
    for (uint32_t w : p.words) sum[p.msg] += w;
    if (p.index == 0) port[p.msg] = p.port;
  }
  const std::map<uint32_t, Got> got = results_of(r.egress);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [msg, g] : got) {
    EXPECT_EQ(g.frames, 1u);
    EXPECT_EQ(g.ports, std::set<uint32_t>{port[msg]});
    EXPECT_EQ(g.words, std::vector<uint32_t>{sum[msg]}) << "message " << msg;
  }
}

TEST_P(E2EPspinExamplesModels, ReduceSendsEachMessagesElementWiseSums) {
  ScratchDir dir;
  const ExampleRun r = gen_and_run(dir, "pspin_reduce_l1", 9103, GetParam());
  expect_messages_done(r, "pspin_reduce_l1");
  std::map<uint32_t, std::vector<uint32_t>> sum;
  std::map<uint32_t, uint32_t> port;
  for (const TracePacket& p : r.in) {
    sum[p.msg].resize(p.words.size(), 0);
    for (size_t i = 0; i < p.words.size(); ++i) sum[p.msg][i] += p.words[i];
    if (p.index == 0) port[p.msg] = p.port;
  }
  const std::map<uint32_t, Got> got = results_of(r.egress);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [msg, g] : got) {
    EXPECT_EQ(g.frames, 4u);  // one per cluster of the 4x8 switch
    EXPECT_EQ(g.ports, std::set<uint32_t>{port[msg]});
    EXPECT_EQ(g.words, sum[msg]) << "message " << msg;
  }
}

TEST_P(E2EPspinExamplesModels, HistogramSendsEachMessagesCounts) {
  ScratchDir dir;
  const ExampleRun r = gen_and_run(dir, "pspin_histogram_l1", 9104, GetParam());
  expect_messages_done(r, "pspin_histogram_l1");
  std::map<uint32_t, std::vector<uint32_t>> counts;
  for (const TracePacket& p : r.in) {
    counts[p.msg].resize(1024, 0);
    for (uint32_t w : p.words) ++counts[p.msg].at(w);
  }
  const std::map<uint32_t, Got> got = results_of(r.egress);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [msg, g] : got) {
    EXPECT_EQ(g.frames, 4u);
    EXPECT_EQ(g.words, counts[msg]) << "message " << msg;
    uint32_t total = 0;
    for (uint32_t c : g.words) total += c;
    EXPECT_EQ(total, 6u * 246);  // every word of every packet counted
  }
  EXPECT_EQ(r.stats["pspin_examples"]["pspin_histogram_l1"]["message_states"],
            r.stats["handler_memory"]["pspin_histogram_l1"]["l1_bytes"].get<uint32_t>() / 4160);
}

INSTANTIATE_TEST_SUITE_P(Models, E2EPspinExamplesModels, testing::Values("iss", "native"));

TEST(E2EPspinExamples, VerifyFailsOnAWrongSumAndNamesTheMessage) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen pspin_aggregate_global --messages 1 --packets 4 -o t.txt", dir).code, 0);
  std::string expected = slurp(dir / "t.txt.expected");
  const size_t at = expected.find("hex=");
  ASSERT_NE(at, std::string::npos);
  const size_t hex = at + 4;
  const std::string good = expected.substr(hex, 8);
  expected.replace(hex, 8, good == "00000000" ? "01000000" : "00000000");
  write_file(dir / "t.txt.expected", expected);
  const CliResult r = flaresim("run --trace t.txt --parser.rules 'udp_dport=9102 -> pspin_aggregate_global' --stats s.json "
                               "--verify t.txt.expected --hpu.model native -q",
                               dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("flaresim: verify: message 0: word 0 adds up to "), std::string::npos) << r.err;
  // A result line in a file for an example that has none names the line.
  write_file(dir / "bad.expected", "pspin-examples-expected 1\nexample pspin_empty\nresult msg=0 port=0 words=1 hex=00000000\n");
  const CliResult b = flaresim("run --trace t.txt --stats s.json --verify bad.expected", dir);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("bad.expected:3: pspin_empty has no result lines"), std::string::npos) << b.err;
}

}  // namespace
}  // namespace fs::test
