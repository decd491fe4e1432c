// End to end: the default parser rules send Flare packets with the sparse flag to flare_sparse and
// the others to flare_dense, on the same UDP port. A default switch (flare_sparse.ports empty)
// gives the sparse set no memory and installs nothing for it, on native and ISS HPUs alike: its
// packets are dropped as flare_sparse.not_installed while a dense allreduce beside them completes;
// and a dense run is the same, cycle for cycle, as under the dense rule alone (the default rule
// before the sparse set had one).
#include <nlohmann/json.hpp>

#include "protocols/flare_sparse/sparse_frame.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// A text trace line "<ns>ns <port> hex <bytes>".
std::string hex_line(unsigned ns, uint16_t port, const Bytes& frame) {
  static const char digits[] = "0123456789abcdef";
  std::string line = std::to_string(ns) + "ns " + std::to_string(port) + " hex ";
  for (uint8_t b : frame) line += {digits[b >> 4], digits[b & 15]};
  return line + "\n";
}

flare_sparse_header_t sparse_header(uint32_t block, uint16_t rank, uint8_t flags, uint16_t shard, uint16_t shards) {
  flare_sparse_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  h.flags = flags;
  h.dtype = FLARE_INT32;
  h.op = FLARE_OP_SUM;
  h.allreduce_id = 0;
  h.block_id = block;
  h.sender_rank = rank;
  h.shard = shard;
  h.shards = shards;
  return h;
}

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) { return nlohmann::json::parse(slurp(dir / name)); }

TEST(E2EFlareSparseDefault, SparsePacketsAreDroppedAsNotInstalledBesideADenseAllreduce) {
  ScratchDir dir;
  // Block 0 of dense allreduce 0 from ports 0 and 1 (flare.ports 0-1), and three sparse packets
  // of allreduce 0: a first shard with two pairs, a last one (2 shards) with one pair, and a
  // header-only last packet (an all-zero block).
  std::string trace = "0ns 0 flare block=0 values=1,2\n0ns 1 flare block=0 values=3,4\n";
  trace += hex_line(100, 0, build_sparse_packet(sparse_header(5, 0, 0, 0, 0), 0, {{3, 7}, {9, 1}}));
  trace += hex_line(200, 0, build_sparse_packet(sparse_header(5, 0, FLARE_FLAG_LAST, 1, 2), 0, {{12, 5}}));
  trace += hex_line(300, 1, build_sparse_packet(sparse_header(6, 1, FLARE_FLAG_LAST, 0, 1), 1, {}));
  write_file(dir / "t.txt", trace);
  for (const std::string model : {"native", "iss"}) {
    SCOPED_TRACE(model);
    const CliResult r =
        flaresim("run --trace t.txt --flare.ports 0-1 -q --hpu.model " + model + " --stats " + model + ".json", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = stats_of(dir, model + ".json");
    EXPECT_EQ(s["totals"]["packets_in"], 5);
    EXPECT_EQ(s["totals"]["matched"], 5);
    EXPECT_EQ(s["totals"]["routed"], 0);
    EXPECT_EQ(s["handlers"]["flare_sparse"]["runs"], 3);
    for (const auto& [outcome, count] : s["handlers"]["flare_sparse"]["outcomes"].items())
      EXPECT_EQ(count, outcome == "not_installed" ? 3 : 0) << outcome;
    EXPECT_EQ(s["drops"]["by_handler"]["flare_sparse"]["not_installed"], 3);
    EXPECT_EQ(s["drops"]["total"], 3);
    EXPECT_EQ(s["handler_memory"]["flare_sparse"],
              (nlohmann::json{{"l1_bytes", 0}, {"l1_offset", 0}, {"l2_bytes", 0}, {"l2_offset", 0}}));
    EXPECT_EQ(s["flare_sparse"]["allreduces"], nlohmann::json::array());
    // The dense block completes: its result goes to both hosts.
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["ok"], 1);
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["result_sent"], 1);
    EXPECT_EQ(s["totals"]["packets_out"], 2);
    EXPECT_EQ(s["handler_memory"]["flare_dense"]["l1_offset"], 0);
    EXPECT_EQ(s["handler_memory"]["flare_dense"]["l2_offset"], 0);
  }
}

// The stats of a run without what the sparse and Canary sets add (and without what differs
// between any two runs): what a run under the dense rule alone must equal.
nlohmann::json dense_part(nlohmann::json s) {
  s.erase("wall_seconds");
  s.erase("inputs");
  s["config"]["parser"].erase("rules");
  for (const char* set : {"flare_sparse", "canary"}) {
    s["handlers"].erase(set);
    s["drops"]["by_handler"].erase(set);
    s["handler_memory"].erase(set);
  }
  return s;
}

TEST(E2EFlareSparseDefault, DenseRunsAreTheSameAsUnderTheDenseRuleAlone) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB --seed 5 -o t.txt", dir).code, 0);
  const std::string example = FLARESIM_SOURCE_DIR "/traces/examples/allreduce-16x32KiB.pcapng";
  struct Case {
    std::string name, args;
  } cases[] = {{"example-native", "--trace '" + example + "' --verify '" + example + ".expected'"},
               {"small-iss", "--trace t.txt --flare.ports 0-3 --verify t.txt.expected --hpu.model iss"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const CliResult both = flaresim("run " + c.args + " -q --stats a.json --egress a.pcapng", dir);
    ASSERT_EQ(both.code, 0) << both.err;
    const CliResult dense = flaresim(
        "run " + c.args + " -q --stats b.json --egress b.pcapng --parser.rules 'udp_dport=4950 -> flare_dense'", dir);
    ASSERT_EQ(dense.code, 0) << dense.err;
    const auto a = stats_of(dir, "a.json"), b = stats_of(dir, "b.json");
    EXPECT_EQ(a["config"]["parser"]["rules"],
              "udp_dport=4952 -> canary; udp_dport=4950,payload[1]&0x80=0 -> flare_dense; "
              "udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse");
    EXPECT_EQ(a["handlers"]["flare_sparse"]["runs"], 0);
    EXPECT_EQ(a["handlers"]["canary"]["runs"], 0);
    EXPECT_FALSE(b["handlers"].contains("canary"));
    EXPECT_GT(a["handlers"]["flare_dense"]["runs"].get<uint64_t>(), 0u);
    EXPECT_FALSE(b["handlers"].contains("flare_sparse"));
    EXPECT_EQ(dense_part(a), dense_part(b));
    EXPECT_EQ(slurp(dir / "a.pcapng"), slurp(dir / "b.pcapng"));
  }
}

}  // namespace
}  // namespace fs::test
