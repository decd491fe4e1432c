// The ring allreduce from the command line (hosts.model = ring, docs/NETWORKS.md): a leaf-spine
// run's summary line and stats (its packet, ACK and link byte counts worked from the segments
// and the paths), with background traffic and the same stats from the same seed, the same keys
// as a run with background traffic only, an allreduce that cannot complete failing the run after
// its stats are written, and what a ring run refuses (each error naming its key).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kLeafSpine =
    "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 ";

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) {
  auto s = nlohmann::json::parse(slurp(dir / name));
  s.erase("wall_seconds");
  return s;
}

// Every path of the stats' objects, an array counted as one leaf ("per_link[]").
void shape(const nlohmann::json& j, const std::string& path, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& kv : j.items()) shape(kv.value(), path + "/" + kv.key(), out);
    return;
  }
  out.insert(path + (j.is_array() ? "[]" : ""));
}

TEST(RingE2e, LeafSpineRingReportsItsAllreduce) {
  ScratchDir dir;
  const CliResult r = flaresim(kLeafSpine + "--hosts.model ring --hosts.bytes 64KiB --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The line docs/NETWORKS.md shows for this command.
  const std::string docs = slurp(FLARESIM_SOURCE_DIR "/docs/NETWORKS.md");
  const size_t at = docs.find("allreduce        ring: 8 hosts, 65536 bytes each, done in ");
  ASSERT_NE(at, std::string::npos);
  const std::string line = docs.substr(at, docs.find('\n', at) + 1 - at);
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out << "\ndocs/NETWORKS.md shows\n" << line;
  EXPECT_NE(line.find(" Gbit/s per host), results OK\n"), std::string::npos) << line;
  EXPECT_EQ(r.out.find("traffic "), std::string::npos) << r.out;  // no background traffic to report
  EXPECT_EQ(r.err, "");
  const auto s = stats_of(dir, "s.json");
  const auto& a = s["allreduce"];
  EXPECT_EQ(a["model"], "ring");
  EXPECT_EQ(a["hosts"], 8);
  EXPECT_EQ(a["bytes"], 65536);
  EXPECT_EQ(a["results_ok"], true);
  EXPECT_EQ(a["unfinished_ranks"], 0);
  EXPECT_EQ(a["retransmissions"], 0);
  // 8 segments of 8 KiB, 8 packets of 1024 element bytes each; in each of the 14 steps every
  // segment is sent once (8 x 8 packets) and acknowledged once: 896 data frames of
  // 42 + 16 + 1024 = 1082 bytes and 112 ACKs of 58.
  EXPECT_EQ(a["packets_sent"], 896);
  EXPECT_EQ(a["acks_sent"], 112);
  EXPECT_EQ(a["bytes_sent"], 896 * 1082 + 112 * 58);
  // On the links: rank r sends to r + 1 and acknowledges to r - 1; hosts 0-3 are on leaf0, 4-7
  // on leaf1. Data from 3 to 4 and from 7 to 0, and ACKs from 4 to 3 and from 0 to 7, cross 4
  // links (through a spine); the other 6 pairs' cross 2. Each pair carries 112 data frames and
  // 14 ACKs: (6 x 2 + 2 x 4) x (112 x 1082 + 14 x 58) bytes.
  EXPECT_EQ(s["network"]["bytes_total"], 20 * (112 * 1082 + 14 * 58));
  const double done_us = a["done_us"].get<double>();
  EXPECT_GT(done_us, 0.0);
  EXPECT_DOUBLE_EQ(a["allreduce_gbps"].get<double>(), 8.0 * 65536 * 8 / (done_us * 1e3));
  EXPECT_EQ(s["traffic"]["pattern"], "none");
  EXPECT_EQ(s["traffic"]["messages"], 0);
  EXPECT_EQ(s["config"]["hosts"]["members"], "all");
}

TEST(RingE2e, WithBackgroundTrafficTheSameSeedGivesTheSameStats) {
  ScratchDir dir;
  const std::string run = kLeafSpine +
                          "--hosts.model ring --hosts.bytes 64KiB --hosts.dtype float32 --hosts.members 1,3,5,7,0 "
                          "--traffic.pattern uniform --traffic.messages 8 --traffic.message_bytes 16KiB "
                          "--routing.multipath ecmp -q ";
  const CliResult a = flaresim(run + "--stats a.json", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(flaresim(run + "--stats b.json", dir).code, 0);
  const auto sa = stats_of(dir, "a.json"), sb = stats_of(dir, "b.json");
  EXPECT_EQ(sa, sb);
  EXPECT_EQ(sa["allreduce"]["hosts"], 5);
  EXPECT_EQ(sa["allreduce"]["results_ok"], true);
  EXPECT_EQ(sa["traffic"]["pattern"], "uniform");
  EXPECT_EQ(sa["traffic"]["messages"], 64);
  // Both ran on the same hosts, each on its own UDP port: nothing arrived unclaimed.
  for (const auto& h : sa["network"]["per_host"]) EXPECT_EQ(h["unclaimed"], 0) << h;
}

TEST(RingE2e, ATimeoutShorterThanAnAcksWayBackIsWarnedAbout) {
  ScratchDir dir;
  // 1 us: less than two 8 KiB segments on a 100 Gbit/s link (2 x 0.655 us) and the way back.
  const CliResult r = flaresim(kLeafSpine + "--hosts.model ring --hosts.bytes 64KiB --hosts.timeout_ns 1000 "
                               "--stats s.json -q",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;  // the results are right all the same
  EXPECT_NE(r.err.find("segments again though the network dropped nothing: hosts.timeout_ns = 1000 ran out while "
                       "their ACKs were on the way (an ACK comes back about two segments' time after the segment's "
                       "last packet went to the NIC, here 2 x 0.655 us); raise hosts.timeout_ns"),
            std::string::npos)
      << r.err;
  const auto s = stats_of(dir, "s.json");
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["allreduce"]["retransmissions"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["network"]["drops"], 0);
}

TEST(RingE2e, ARingRunHasTheKeysOfATrafficRun) {
  ScratchDir dir;
  ASSERT_EQ(flaresim(kLeafSpine + "--hosts.model ring --hosts.bytes 4KiB --stats ring.json -q", dir).code, 0);
  ASSERT_EQ(flaresim(kLeafSpine + "--traffic.pattern permutation --traffic.messages 1 --stats traffic.json -q", dir).code, 0);
  const auto ring = stats_of(dir, "ring.json"), traffic = stats_of(dir, "traffic.json");
  std::set<std::string> kr, kt;
  shape(ring, "", kr);
  shape(traffic, "", kt);
  EXPECT_EQ(kr, kt);
  EXPECT_EQ(traffic["allreduce"]["model"], "none");
  EXPECT_EQ(traffic["allreduce"]["packets_sent"], 0);
  EXPECT_EQ(traffic["allreduce"]["results_ok"], false);
}

TEST(RingE2e, AnAllreduceThatCannotCompleteFailsAfterWritingItsStats) {
  ScratchDir dir;
  // Host b's link queues at most 1000 bytes: every data frame to b (1082 bytes) is dropped, the
  // 58-byte ACKs pass. Ranks a -> b -> c: a's segments of steps 0, 1 and 2 (each sent once it
  // had what it needed from c) never reach b; a sends each 16 times (15 retransmissions) and
  // gives up. b never gets data; c waits for b's step 1. No rank completes.
  write_file(dir / "lossy.topo",
             "switch s0 ports=3 kind=plain\nhost a\nhost b\nhost c\n"
             "link s0:0 a\nlink s0:1 b queue_bytes=1000\nlink s0:2 c\n");
  const CliResult r = flaresim("run --network.topology file --network.file lossy.topo --hosts.model ring "
                               "--hosts.bytes 12KiB --hosts.timeout_ns 2000 --stats s.json",
                               dir);
  EXPECT_EQ(r.code, 1) << r.err;  // the run failed
  EXPECT_NE(r.out.find("allreduce        ring: 3 hosts, 12288 bytes each, done in 0.000 us (0.000 Gbit/s per host), "
                       "results WRONG\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("the ring allreduce did not complete: 3 of 3 ranks are missing packets (3 segments given up "
                       "after 16 sends without an ACK: stats allreduce.gave_up, network.drops) (the stats record it: "
                       "allreduce.results_ok is false)"),
            std::string::npos)
      << r.err;
  const auto s = stats_of(dir, "s.json");
  EXPECT_EQ(s["allreduce"]["results_ok"], false);
  EXPECT_EQ(s["allreduce"]["gave_up"], 3);
  EXPECT_EQ(s["allreduce"]["retransmissions"], 3 * 15);
  EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 3);
  EXPECT_EQ(s["allreduce"]["done_us"], 0.0);
  EXPECT_GT(s["network"]["drops"].get<uint64_t>(), 0u);
}

TEST(RingE2e, ConcurrentGroupsReportAsOneAllreduce) {
  ScratchDir dir;
  // Two rings of 4 (hosts 0-3 on leaf0, 4-7 on leaf1): each pair of neighbours is two links
  // apart, so each ring runs as the single-leaf ring would and both finish together.
  const CliResult r = flaresim(kLeafSpine + "--hosts.model ring --hosts.bytes 64KiB --hosts.groups 2 --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = stats_of(dir, "s.json");
  const auto& a = s["allreduce"];
  EXPECT_EQ(a["groups"], 2);
  EXPECT_EQ(a["hosts"], 8);
  EXPECT_EQ(a["results_ok"], true);
  // Per ring of 4: 4 segments of 16 packets; 6 steps each send all 64 and acknowledge 4.
  EXPECT_EQ(a["packets_sent"], 2 * 6 * 64);
  EXPECT_EQ(a["acks_sent"], 2 * 6 * 4);
  EXPECT_EQ(s["network"]["bytes_between_switches"], 0);  // no ring leaves its leaf
  const double done_us = a["done_us"].get<double>();
  EXPECT_DOUBLE_EQ(a["goodput_gbps"].get<double>(), 65536 * 8 / (done_us * 1e3));
  EXPECT_DOUBLE_EQ(s["network"]["during_allreduce"]["until_us"].get<double>(), done_us);
  char line[200];
  std::snprintf(line, sizeof line,
                "allreduce        ring: 8 hosts in 2 groups, 65536 bytes each, done in %.3f us (%.3f Gbit/s per host; "
                "%.3f over its group's own time), results OK\n",
                done_us, a["allreduce_gbps"].get<double>() / 8, a["goodput_gbps"].get<double>());
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  const CliResult many = flaresim(kLeafSpine + "--hosts.model ring --hosts.groups 5 --hosts.members 0-7", dir);
  EXPECT_EQ(many.code, 2);
  EXPECT_NE(many.err.find("hosts.groups: 5 ring allreduces of at least 2 hosts need 10 members; hosts.members has 8"),
            std::string::npos)
      << many.err;
  const CliResult sparse = flaresim(kLeafSpine + "--hosts.model sparcml --hosts.groups 2", dir);
  EXPECT_EQ(sparse.code, 2);
  EXPECT_NE(sparse.err.find("hosts.groups = 2: hosts.model = sparcml runs one allreduce on hosts.members; concurrent "
                            "ones run with ring, allreduce or canary"),
            std::string::npos)
      << sparse.err;
  const CliResult single = flaresim("run --hosts.model allreduce --hosts.groups 2", dir);
  EXPECT_EQ(single.code, 2);
  EXPECT_NE(single.err.find("hosts.groups = 2: concurrent allreduces run on a network's hosts"), std::string::npos)
      << single.err;
}

TEST(RingE2e, WhatARingRunRefuses) {
  ScratchDir dir;
  const CliResult single = flaresim("run --hosts.model ring", dir);
  EXPECT_EQ(single.code, 2);  // bad input
  EXPECT_NE(single.err.find("hosts.model = ring runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file; a "
                            "file can declare one switch)"),
            std::string::npos)
      << single.err;
  const std::string ring = kLeafSpine + "--hosts.model ring --stats s.json ";
  const CliResult missing = flaresim(ring + "--hosts.members 0-3,9", dir);
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("bad value '0-3,9' for 'hosts.members': host 9 does not exist (the network has 8 hosts, "
                             "0-7)"),
            std::string::npos)
      << missing.err;
  const CliResult alone = flaresim(ring + "--hosts.members 5", dir);
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("bad value '5' for 'hosts.members': the ring allreduce needs 2 to 32768 hosts, not 1"),
            std::string::npos)
      << alone.err;
  const CliResult odd = flaresim(ring + "--hosts.dtype int32 --hosts.elem_bytes 1022", dir);
  EXPECT_EQ(odd.code, 2);
  EXPECT_NE(odd.err.find("bad value '1022' for 'hosts.elem_bytes': not a whole number of int32 elements (4 bytes each)"),
            std::string::npos)
      << odd.err;
  const CliResult lossy = flaresim(ring + "--hosts.loss 0.1", dir);
  EXPECT_EQ(lossy.code, 2);
  EXPECT_NE(lossy.err.find("hosts.loss: the ring allreduce's hosts lose nothing themselves"), std::string::npos)
      << lossy.err;
  // A protocol's in-network allreduce needs switches that can hold it (network.kind is plain here).
  const CliResult protocol = flaresim(kLeafSpine + "--hosts.model sparse_allreduce", dir);
  EXPECT_EQ(protocol.code, 2);
  EXPECT_NE(protocol.err.find("is plain (no packet-processing unit) but Flare sparse tree 0 (root "), std::string::npos)
      << protocol.err;
  EXPECT_TRUE(files_in(dir).empty());  // no stats from a run that never started
}

TEST(RingE2e, InfoListsTheRingBesideTheProtocolsHostModels) {
  ScratchDir dir;
  const CliResult r = flaresim("info", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The core's models first, then every protocol's (a2tp, canary, flare_dense, flare_sparse,
  // netreduce: by name).
  EXPECT_NE(r.out.find("none (a trace drives the switch), ring (network runs: the host-based ring allreduce, "
                       "docs/NETWORKS.md), or a2tp ("),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[none, ring, a2tp, canary, ps, hierarchical_ring, allreduce, sparse_allreduce, sparcml, netreduce, roce_ring, rina]"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hosts.members"), std::string::npos);
}

}  // namespace
}  // namespace fs::test
