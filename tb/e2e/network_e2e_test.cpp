// A network run from the command line as a user makes it (docs/NETWORKS.md): a leaf-spine and a
// topology file with background traffic, the summary and the stats' network and traffic
// sections (their sums agree with the per-link and per-message entries), the same stats from
// the same seed and other ones from another, and the errors a network run gives for what it
// cannot do or a bad topology file (named with its line).
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kLeafSpine =
    "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 "
    "--traffic.pattern uniform --traffic.messages 8 --traffic.message_bytes 16KiB --ports.ecn_bytes 4KiB ";

nlohmann::json without_wall_time(nlohmann::json s) {
  s.erase("wall_seconds");
  return s;
}

TEST(NetworkE2e, LeafSpineRunReportsLinksAndMessages) {
  ScratchDir dir;
  const CliResult r = flaresim(kLeafSpine + "--stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("network          leaf_spine: 4 switches, 8 hosts, 12 links\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("traffic          uniform: 64 of 64 messages complete"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  const auto& n = s["network"];
  ASSERT_EQ(n["per_link"].size(), 24u);  // 12 links, both ways
  uint64_t bytes = 0, between = 0;
  for (const auto& l : n["per_link"]) {
    bytes += l["bytes"].get<uint64_t>();
    const std::string from = l["from"], to = l["to"];
    if (from.rfind("host", 0) != 0 && to.rfind("host", 0) != 0) between += l["bytes"].get<uint64_t>();
    EXPECT_LE(l["utilisation"].get<double>(), 1.0);
  }
  EXPECT_EQ(n["bytes_total"].get<uint64_t>(), bytes);
  EXPECT_EQ(n["bytes_between_switches"].get<uint64_t>(), between);
  // Every message's packets: 16 KiB in 16 packets of 1024 bytes, each frame 1066 bytes; each
  // crosses 2 links (same leaf) or 4 (through a spine).
  const auto& t = s["traffic"];
  ASSERT_EQ(t["per_message"].size(), 64u);
  uint64_t link_frames = 0;
  for (const auto& m : t["per_message"]) {
    EXPECT_TRUE(m["complete"].get<bool>());
    EXPECT_NE(m["src"], m["dst"]);
    const bool same_leaf = m["src"].get<unsigned>() / 4 == m["dst"].get<unsigned>() / 4;
    link_frames += 16 * (same_leaf ? 2 : 4);
  }
  EXPECT_EQ(bytes, link_frames * 1066);
  EXPECT_EQ(t["bytes_received"].get<uint64_t>(), 64u * 16384);
  EXPECT_EQ(t["unfinished"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["end"]["reason"], "finished");
}

TEST(NetworkE2e, EgressCapturesEveryFrameEachHostReceived) {
  // Background traffic on a k = 4 fat tree (8 hosts): the capture has an interface per host and,
  // on each, as many frames as the stats say that host received, in time order.
  ScratchDir dir;
  const CliResult r = flaresim("run --network.topology fat_tree --network.k 4 --traffic.pattern uniform "
                               "--traffic.messages 2 --traffic.message_bytes 4KiB --stats s.json --egress c.pcapng",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  std::map<unsigned, uint64_t> want;
  uint64_t total = 0;
  for (const auto& h : s["network"]["per_host"]) {
    if (h["packets_in"].get<uint64_t>()) want[h["host"].get<unsigned>()] = h["packets_in"].get<uint64_t>();
    total += h["packets_in"].get<uint64_t>();
  }
  ASSERT_GT(total, 0u);
  std::map<unsigned, uint64_t> got;
  double last = -1;
  bool ordered = true;
  std::istringstream in(test::command_output("tshark -r '" + (dir / "c.pcapng") +
                                             "' -T fields -E separator=' ' -e frame.interface_id -e frame.time_relative "
                                             "2>/dev/null"));
  for (unsigned iface; in >> iface;) {
    double t;
    in >> t;
    ++got[iface];
    ordered = ordered && t >= last;
    last = t;
  }
  EXPECT_EQ(got, want);
  EXPECT_TRUE(ordered);
}

TEST(NetworkE2e, SameSeedSameStatsAnotherSeedOthers) {
  ScratchDir dir;
  ASSERT_EQ(flaresim(kLeafSpine + "--routing.multipath ecmp --stats a.json -q", dir).code, 0);
  ASSERT_EQ(flaresim(kLeafSpine + "--routing.multipath ecmp --stats b.json -q", dir).code, 0);
  ASSERT_EQ(flaresim(kLeafSpine + "--routing.multipath ecmp --stats c.json -q --seed 2", dir).code, 0);
  const auto a = without_wall_time(nlohmann::json::parse(slurp(dir / "a.json")));
  const auto b = without_wall_time(nlohmann::json::parse(slurp(dir / "b.json")));
  auto c = without_wall_time(nlohmann::json::parse(slurp(dir / "c.json")));
  EXPECT_EQ(a, b);
  EXPECT_NE(a["traffic"]["per_message"], c["traffic"]["per_message"]);
}

TEST(NetworkE2e, SweepCsvRowHoldsTheNetworkFigures) {
  // The CSV row a sweep collects: the network's, the traffic's and the allreduce's figures, the
  // same values as the JSON of the same run (deterministic: the same seed).
  ScratchDir dir;
  const std::string run = kLeafSpine + "--hosts.model ring --hosts.bytes 16KiB -q ";
  ASSERT_EQ(flaresim(run + "--stats s.json", dir).code, 0);
  const CliResult csv = flaresim(run + "--stats s.csv --stats-format csv", dir);
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::vector<std::string> rows = lines_of(slurp(dir / "s.csv"));
  ASSERT_EQ(rows.size(), 2u);
  const std::vector<std::string> keys = csv_fields(rows[0]), values = csv_fields(rows[1]);
  ASSERT_EQ(keys.size(), values.size());
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  for (const char* key : {"network.bytes_total", "network.bytes_between_switches", "network.ecn_marked",
                          "network.utilisation.p50", "traffic.completed", "traffic.fct_us.p99", "traffic.goodput_gbps",
                          "allreduce.done_us", "allreduce.results_ok", "allreduce.allreduce_gbps"}) {
    const auto at = std::find(keys.begin(), keys.end(), key);
    ASSERT_NE(at, keys.end()) << key;
    nlohmann::json v = s;
    std::string path = key;
    for (size_t dot; (dot = path.find('.')) != std::string::npos; path = path.substr(dot + 1)) v = v[path.substr(0, dot)];
    v = v[path];
    EXPECT_EQ(values[size_t(at - keys.begin())], v.dump()) << key;
  }
}

TEST(NetworkE2e, TopologyFileRunAndItsErrors) {
  ScratchDir dir;
  // A triangle of switches, a host on each; s2 is plain by its own declaration.
  write_file(dir / "tri.topo",
             "# three switches in a ring\n"
             "switch s0 ports=3\nswitch s1 ports=3\nswitch s2 ports=3 kind=plain\n"
             "host a\nhost b\nhost c\n"
             "link s0:0 a\nlink s1:0 b\nlink s2:0 c latency_ns=2000\n"
             "link s0:1 s1:2\nlink s1:1 s2:2\nlink s2:1 s0:2 gbps=40\n");
  const CliResult r = flaresim("run --network.topology file --network.file tri.topo --network.kind plain "
                               "--network.kinds 's*=plain' --traffic.pattern permutation --traffic.messages 2 "
                               "--stats s.json",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("network          file: 3 switches, 3 hosts, 6 links\n"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["traffic"]["completed"], 6);
  EXPECT_EQ(s["inputs"]["topology_file"], "tri.topo");

  write_file(dir / "bad.topo", "switch s0 ports=2\nhost a\nhost b\nlink s0:0 a\nlink s0:0 b\n");
  const CliResult bad = flaresim("run --network.topology file --network.file bad.topo --traffic.pattern uniform", dir);
  EXPECT_EQ(bad.code, 2);  // bad input
  EXPECT_NE(bad.err.find("bad.topo:5: s0:0 is already linked at bad.topo:4"), std::string::npos) << bad.err;

  write_file(dir / "far.topo", "switch s0 ports=2\nhost a\nhost b\nlink s0:0 a\nlink s0:1 c\n");
  const CliResult far = flaresim("run --network.topology file --network.file far.topo --traffic.pattern uniform", dir);
  EXPECT_EQ(far.code, 2);  // bad input
  EXPECT_NE(far.err.find("far.topo:5: unknown node 'c' (no switch or host of that name)"), std::string::npos) << far.err;
}

TEST(NetworkE2e, WhatANetworkRunRefuses) {
  ScratchDir dir;
  const std::string net = "run --network.topology fat_tree --network.k 4 ";
  const CliResult none = flaresim(net, dir);
  EXPECT_EQ(none.code, 2);  // bad input
  // Every host model a network runs: the ring, then the protocols' (by protocol name).
  EXPECT_NE(none.err.find("network.topology = fat_tree: nothing drives the network; set traffic.pattern (uniform, "
                          "permutation or incast) or hosts.model (ring, a2tp, canary, ps, hierarchical_ring, allreduce, "
                          "sparse_allreduce, sparcml, netreduce, roce_ring or rina)\n"),
            std::string::npos)
      << none.err;
  write_file(dir / "t.txt", "0 0 ff\n");
  const CliResult trace = flaresim(net + "--traffic.pattern uniform --trace t.txt", dir);
  EXPECT_EQ(trace.code, 2);  // bad input
  EXPECT_NE(trace.err.find("--trace: not available in a network run (network.topology = fat_tree), whose hosts drive "
                           "it (traffic.*)"),
            std::string::npos)
      << trace.err;
  for (const auto& [lose, why] : std::vector<std::pair<std::string, std::string>>{
           {"host9>leaf0:1", "no node 'host9' in the topology"},
           {"host0>spine0:1", "'host0' has no link to 'spine0'"},
           {"host0>leaf0:0", "'0' is not a frame number (1, 2, ...)"},
           {"host0:3", "expected FROM>TO:N[,N...], e.g. host0>leaf0:1,5"}}) {
    const CliResult r = flaresim(net + "--traffic.pattern uniform --network.lose '" + lose + "'", dir);
    EXPECT_EQ(r.code, 2) << lose;
    EXPECT_NE(r.err.find("bad value '" + lose + "' for 'network.lose': entry '" + lose + "': " + why), std::string::npos)
        << r.err;
  }
  const CliResult calibrated = flaresim(net + "--traffic.pattern uniform --network.kinds spine0=calibrated", dir);
  EXPECT_EQ(calibrated.code, 2);  // bad input
  EXPECT_NE(calibrated.err.find("fat_tree: switch spine0 is calibrated, but hpu.calibration names no calibration "
                                "table (make one with flaresim run --hpu.model iss --calibration-out FILE)"),
            std::string::npos)
      << calibrated.err;
  const CliResult hosts = flaresim(net + "--traffic.pattern uniform --traffic.hosts 0-8", dir);
  EXPECT_EQ(hosts.code, 2);  // bad input
  EXPECT_NE(hosts.err.find("bad value '0-8' for 'traffic.hosts': host 8 does not exist (the network has 8 hosts, 0-7)"),
            std::string::npos)
      << hosts.err;
  EXPECT_TRUE(files_in(dir) == std::set<std::string>{"t.txt"});
}

}  // namespace
}  // namespace fs::test
