// End to end: the closed-loop sparse hosts (hosts.model = sparse_allreduce) without the
// flare_sparse handler: a parser rule sends their packets to no handler set, so the switch
// answers nothing whatever that handler does. Unanswered, every host sends every block
// kMaxSendAttempts (16) times and gives it up, and the traffic in hosts.details is 16 times what
// `gen flare-sparse` puts in a trace of the same configuration (the hosts and the generator send
// one workload). Answered by hand: result packets in a trace, entering on a port of their own and
// flooded to the hosts (broadcast), complete the hosts' blocks when a block's last packet and all
// the shards it announces are there, spills merged, duplicates ignored. Then with the switch's
// flare_sparse handler: gen's printed run line verifies, and closed-loop hosts get from an array
// root exactly the reference's pairs, from spilling hash storage more.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "protocols/flare_sparse/sparse_verify.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(E2ESparseHosts, UnansweredHostsResendEveryBlockAndCountTheirTraffic) {
  ScratchDir dir;
  // 2048 int32 elements, 16 pairs a packet, density 0.05: 7 blocks of 320, 102 non-zeros a host.
  const std::string workload = "--hosts.bytes 8KiB --hosts.elem_bytes 128 --flare_sparse.density 0.05 --sim.seed 5";
  ASSERT_EQ(flaresim("gen flare-sparse --hosts 3 " + workload + " -o t.txt", dir).code, 0);
  std::map<unsigned, uint64_t> packets, bytes;
  for (const std::string& line : lines_of(slurp(dir / "t.txt"))) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string time, kind, hex;
    unsigned port = 0;
    ls >> time >> port >> kind >> hex;
    ++packets[port];
    bytes[port] += hex.size() / 2;
  }
  uint64_t reference_pairs = 0;
  for (const std::string& line : lines_of(slurp(dir / "t.txt.expected")))
    if (line.rfind("result ", 0) == 0) reference_pairs += std::stoull(line.substr(line.find("count=") + 6));

  const CliResult r = flaresim("run --hosts.model sparse_allreduce --flare_sparse.ports 0-2 " + workload +
                                   " --parser.rules 'udp_dport=9 -> flare_dense' --hosts.window 2"
                                   " --hosts.timeout_ns 2000 --stats s.json",
                               dir);
  EXPECT_EQ(r.code, 1) << r.err;  // the verification fails
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& h = s["hosts"];
  EXPECT_EQ(h["model"], "sparse_allreduce");
  EXPECT_EQ(h["hosts"], 3);
  EXPECT_EQ(h["blocks"], 7);
  EXPECT_EQ(h["sends"], 3 * 7 * 16);
  EXPECT_EQ(h["retransmissions"], 3 * 7 * 15);
  EXPECT_EQ(h["gave_up"], 3 * 7);
  EXPECT_EQ(h["blocks_completed"], 0);
  EXPECT_EQ(h["results"], 0);
  EXPECT_EQ(h["max_in_flight"], 2);
  EXPECT_EQ(h["allreduce_gbps"], 0.0);
  const nlohmann::json& d = h["details"];
  EXPECT_EQ(d["reference_pairs"], reference_pairs);
  EXPECT_EQ(d["contrib_pairs"], 3 * 16 * 102);
  EXPECT_EQ(d["result_packets"], 0);
  EXPECT_EQ(d["result_pairs"], 0);
  ASSERT_EQ(d["per_host"].size(), 3u);
  uint64_t all_packets = 0;
  for (unsigned p = 0; p < 3; ++p) {
    const nlohmann::json& e = d["per_host"][p];
    EXPECT_EQ(e["rank"], p);
    EXPECT_EQ(e["port"], p);
    EXPECT_EQ(e["contrib_packets"], 16 * packets[p]) << p;
    EXPECT_EQ(e["contrib_bytes"], 16 * bytes[p]) << p;
    EXPECT_EQ(e["contrib_pairs"], 16 * 102) << p;
    all_packets += 16 * packets[p];
  }
  EXPECT_EQ(d["contrib_packets"], all_packets);
  const nlohmann::json& v = s["verify"]["hosts"];
  EXPECT_EQ(v["checked"], true);
  EXPECT_EQ(v["expected_packets"], 3 * 7);
  EXPECT_EQ(v["missing"], 3 * 7);
  EXPECT_NE(r.err.find("flaresim: verify: port 0: missing result ar=0 block=0\n"), std::string::npos) << r.err;
}

// 2048 int32 elements, 16 pairs a packet, density 0.05: 7 blocks of 320, 102 non-zeros a host;
// 4 ports: hosts on 0-2, results entering on 3.
const std::string kWorkload =
    "--ports.count 4 --hosts.bytes 8KiB --hosts.elem_bytes 128 --flare_sparse.density 0.05 --sim.seed 5";

// A `flare_sparse` trace line of a result packet entering on port 3 at `ns`.
std::string result_line(unsigned ns, uint32_t block, unsigned shard, bool last, unsigned shards,
                        const std::vector<std::pair<uint32_t, int32_t>>& pairs) {
  std::string line = std::to_string(ns) + "ns 3 flare_sparse kind=result rank=65535 block=" + std::to_string(block) +
                     " shard=" + std::to_string(shard) + " last=" + (last ? "1" : "0") +
                     " shards=" + std::to_string(shards) + " pairs=";
  for (size_t i = 0; i < pairs.size(); ++i)
    line += (i ? "," : "") + std::to_string(pairs[i].first) + ":" + std::to_string(pairs[i].second);
  return line + (pairs.empty() ? "-\n" : "\n");
}

std::vector<std::pair<uint32_t, int32_t>> pairs_of(const SparseExpectedBlock& b) {
  std::vector<std::pair<uint32_t, int32_t>> out;
  for (const SparsePair& p : b.pairs) out.push_back({p.index, int32_t(p.bits)});
  return out;
}

TEST(E2ESparseHosts, ResultPacketsCompleteBlocksSpillsMergedDuplicatesIgnored) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen flare-sparse --hosts 3 " + kWorkload + " -o t.txt", dir).code, 0);
  const SparseExpected e = read_sparse_expected(dir / "t.txt.expected");
  ASSERT_EQ(e.blocks.size(), 7u);
  // The hosts send all 7 blocks within 2 us; the results come at 5 us.
  std::string trace;
  uint64_t packets = 0, pairs = 0;
  auto add = [&](unsigned ns, uint32_t block, unsigned shard, bool last, unsigned shards,
                 const std::vector<std::pair<uint32_t, int32_t>>& p) {
    trace += result_line(ns, block, shard, last, shards, p);
    ++packets;
    pairs += p.size();
  };
  // Block 0: a spill with every value less one, then the last packet adding 1 at each index.
  std::vector<std::pair<uint32_t, int32_t>> spill = pairs_of(e.blocks[0]), ones = spill;
  for (auto& p : spill) p.second = int32_t(uint32_t(p.second) - 1);
  for (auto& p : ones) p.second = 1;
  add(5000, 0, 0, false, 0, spill);
  add(5100, 0, 1, true, 2, ones);
  // Block 1: the last packet (the second half) before the spill (the first half).
  const std::vector<std::pair<uint32_t, int32_t>> b1 = pairs_of(e.blocks[1]);
  const size_t half = b1.size() / 2;
  add(5200, 1, 1, true, 2, {b1.begin() + long(half), b1.end()});
  add(5300, 1, 0, false, 0, {b1.begin(), b1.begin() + long(half)});
  for (uint32_t b = 2; b < 7; ++b) add(5400 + 100 * b, b, 0, true, 1, pairs_of(e.blocks[b]));
  write_file(dir / "results.txt", trace);

  const CliResult r = flaresim("run --hosts.model sparse_allreduce --flare_sparse.ports 0-2 " + kWorkload +
                                   " --parser.rules 'udp_dport=9 -> flare_dense' --flare.ports 0-2 --trace results.txt --stats s.json",
                               dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& h = s["hosts"];
  EXPECT_EQ(h["blocks_completed"], 3 * 7);
  EXPECT_EQ(h["gave_up"], 0);
  EXPECT_EQ(h["retransmissions"], 0);
  EXPECT_EQ(h["sends"], 3 * 7);
  EXPECT_EQ(h["results"], 3 * packets);
  EXPECT_EQ(h["details"]["result_packets"], 3 * packets);
  EXPECT_EQ(h["details"]["result_pairs"], 3 * pairs);
  // Every result packet reached every host: the 4 ports' frames of 62 bytes + 8 per pair.
  EXPECT_EQ(h["details"]["result_bytes"], 3 * (62 * packets + 8 * pairs));
  // Done when the last result packet, entering at 6 us, has crossed the switch to the hosts.
  EXPECT_GT(h["done_us"].get<double>(), 6.0);
  EXPECT_LT(h["done_us"].get<double>(), 6.5);
  // allreduce_gbps: 3 hosts x 8 KiB over done_us.
  EXPECT_DOUBLE_EQ(h["allreduce_gbps"].get<double>(), 3 * 8192 * 8.0 / (h["done_us"].get<double>() * 1e-6) / 1e9);
  const nlohmann::json& v = s["verify"]["hosts"];
  EXPECT_EQ(v["ok"], true);
  EXPECT_EQ(v["matched"], 3 * 7);
}

TEST(E2ESparseHosts, AMissingShardKeepsTheBlockOpenAndADuplicateIsIgnored) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen flare-sparse --hosts 3 " + kWorkload + " -o t.txt", dir).code, 0);
  const SparseExpected e = read_sparse_expected(dir / "t.txt.expected");
  std::string trace;
  for (uint32_t b = 0; b < 7; ++b) {
    if (b == 1) {  // the last packet announces 2, shard 0 never comes
      trace += result_line(5000 + 100 * b, b, 1, true, 2, pairs_of(e.blocks[b]));
    } else {
      trace += result_line(5000 + 100 * b, b, 0, true, 1, pairs_of(e.blocks[b]));
    }
  }
  trace += result_line(6000, 2, 0, true, 1, {{0, 1}});  // block 2 again: a duplicate, ignored
  write_file(dir / "results.txt", trace);
  const CliResult r = flaresim("run --hosts.model sparse_allreduce --flare_sparse.ports 0-2 " + kWorkload +
                                   " --parser.rules 'udp_dport=9 -> flare_dense' --flare.ports 0-2 --trace results.txt --stats s.json",
                               dir);
  EXPECT_EQ(r.code, 1);
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& h = s["hosts"];
  EXPECT_EQ(h["blocks_completed"], 3 * 6);
  EXPECT_EQ(h["gave_up"], 3);
  EXPECT_EQ(h["retransmissions"], 3 * 15);  // block 1, sent 16 times by each host
  const nlohmann::json& v = s["verify"]["hosts"];
  EXPECT_EQ(v["matched"], 3 * 6);
  EXPECT_EQ(v["missing"], 3);
  EXPECT_EQ(v["duplicate"], 3);
  EXPECT_NE(r.err.find("flaresim: verify: port 0: missing result ar=0 block=1: shards 0 of 0..1 not received\n"),
            std::string::npos)
      << r.err;
}

TEST(E2ESparseHosts, WithTheSparseHandlerGensRunLineAndTheHostsVerify) {
  ScratchDir dir;
  const CliResult g = flaresim("gen flare-sparse --hosts 3 --bytes 8KiB --elem-bytes 128 --density 0.05 --seed 5 "
                               "--distribution clustered --overlap 0.5 -o t.txt",
                               dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string prefix = "run it with: ";
  const size_t at = g.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << g.out;
  const std::string line = g.out.substr(at + prefix.size(), g.out.find('\n', at) - at - prefix.size());
  const int status = std::system(("cd '" + dir.path() + "' && " + line + " >'" + dir / "run.out" + "' 2>&1").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << line << "\n" << slurp(dir / "run.out");
  EXPECT_NE(slurp(dir / "run.out").find("verify           OK: 21 of 21"), std::string::npos) << slurp(dir / "run.out");

  // The same workload from closed-loop hosts. The root's array storage sends each block's
  // non-zero results once, 1024 pair bytes (128 int32 pairs) a packet: exactly the reference.
  const SparseExpected e = read_sparse_expected(dir / "t.txt.expected");
  uint64_t reference_pairs = 0, result_packets = 0;
  for (const SparseExpectedBlock& b : e.blocks) {
    reference_pairs += b.pairs.size();
    result_packets += std::max<uint64_t>(1, (b.pairs.size() + 127) / 128);
  }
  const std::string hosts = "run --hosts.model sparse_allreduce --flare_sparse.ports 0-2 --hosts.bytes 8KiB "
                            "--hosts.elem_bytes 128 --flare_sparse.density 0.05 --sim.seed 5 --flare_sparse.distribution "
                            "clustered --flare_sparse.overlap 0.5 --parser.rules 'udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse' ";
  const CliResult a = flaresim(hosts + "--stats a.json", dir);
  EXPECT_EQ(a.code, 0) << a.err;
  const nlohmann::json sa = nlohmann::json::parse(slurp(dir / "a.json"));
  EXPECT_EQ(sa["flare_sparse"]["allreduces"][0]["storage"], "array");
  EXPECT_EQ(sa["verify"]["hosts"]["matched"], 3 * 7);
  EXPECT_EQ(sa["hosts"]["blocks_completed"], 3 * 7);
  EXPECT_EQ(sa["hosts"]["details"]["reference_pairs"], reference_pairs);
  EXPECT_EQ(sa["hosts"]["details"]["result_pairs"], 3 * reference_pairs);
  EXPECT_EQ(sa["hosts"]["details"]["result_packets"], 3 * result_packets);
  // Hash storage of 16 slots and 8-pair spill buffers: spills, more packets and pairs, still right.
  const CliResult h = flaresim(hosts + "--flare_sparse.storage hash --flare_sparse.hash_slots 16 "
                                       "--flare_sparse.max_payload 64 --stats h.json",
                               dir);
  EXPECT_EQ(h.code, 0) << h.err;
  const nlohmann::json sh = nlohmann::json::parse(slurp(dir / "h.json"));
  EXPECT_EQ(sh["verify"]["hosts"]["matched"], 3 * 7);
  EXPECT_GT(sh["handlers"]["flare_sparse"]["outcomes"]["spilled"].get<uint64_t>(), 0u);
  EXPECT_GT(sh["hosts"]["details"]["result_pairs"].get<uint64_t>(), 3 * reference_pairs);
}

}  // namespace
}  // namespace fs::test
