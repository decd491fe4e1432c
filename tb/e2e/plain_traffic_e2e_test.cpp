// Plain traffic through the whole simulator: text traces of frames built by scapy
// (tb/e2e/plain_traffic.py), run by the flaresim CLI, read back from the stats and, for the
// egress capture, by tshark. The learning bridge (the default route learn) with every decision
// worked out by hand; the old default (drop) and IPv4/IPv6 routes on the same frames; the flow
// scheduling policy keeping each flow on the cluster zlib's CRC-32 of its 5-tuple names (Chrome
// trace), waiting when that cluster is full, the same with the RTL scheduler; bad keys refused.
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/python_script.h"

namespace fs::test {
namespace {

const std::string kFourPorts = " --ports.count 4 --flare.ports 0-3";

// The frames tshark reads from an egress capture, per port: "src>dst" or "src>dst@vlan".
std::map<unsigned, std::vector<std::string>> egress_by_port(const ScratchDir& dir, const std::string& pcapng) {
  const std::string out = dir / "tshark.txt";
  const std::string cmd = "tshark -r '" + pcapng +
                          "' -T fields -E separator=, -e frame.interface_id -e eth.src -e eth.dst -e vlan.id >'" +
                          out + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::map<unsigned, std::vector<std::string>> ports;
  std::istringstream in(slurp(out));
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string port, src, dst, vlan;
    std::getline(ls, port, ','), std::getline(ls, src, ','), std::getline(ls, dst, ','), std::getline(ls, vlan, ',');
    ports[unsigned(std::stoul(port))].push_back(src.substr(15) + ">" + dst.substr(15) + (vlan.empty() ? "" : "@" + vlan));
  }
  return ports;
}

std::vector<uint64_t> packets_out(const nlohmann::json& s) {
  std::vector<uint64_t> out(4, 0);
  for (const auto& p : s["ports"]) out.at(p["port"].get<unsigned>()) = p["packets_out"].get<uint64_t>();
  return out;
}

TEST(E2EPlainTraffic, TheLearningBridgeForwardsFloodsAndFilters) {
  ScratchDir dir;
  std::string ignored;
  ASSERT_EQ(run_python_script("tb/e2e/plain_traffic.py", "bridge '" + dir / "t.txt" + "'", &ignored), "");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --egress e.pcapng" + kFourPorts, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Hosts A..D (MACs ..:0a .. ..:0d). Frame, ingress port, what the bridge does:
  //   0 p0 A->B             B unknown: flooded to 1, 2, 3          (A learned on 0)
  //   1 p1 B->A             A on 0: to 0                            (B learned on 1)
  //   2 p0 A->B             B on 1: to 1
  //   3 p2 C->broadcast     ARP: flooded to 0, 1, 3                 (C learned on 2)
  //   4 p3 D->A, VLAN 7     A unknown on VLAN 7: flooded to 0, 1, 2 ((7, D) learned on 3)
  //   5 p0 A->D, VLAN 7     D on 3 in VLAN 7: to 3                  ((7, A) learned on 0)
  //   6 p1 C->B             C moves to 1; B is on 1, C's own port: filtered
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(packets_out(s), (std::vector<uint64_t>{3, 4, 2, 3}));
  EXPECT_EQ(s["totals"]["packets_in"], 7);
  EXPECT_EQ(s["totals"]["routed"], 7);
  EXPECT_EQ(s["drops"]["total"], 1);
  EXPECT_EQ(s["drops"]["by_cause"]["filtered"], 1);
  EXPECT_EQ(s["drops"]["by_cause"]["no_route"], 0);
  const auto& routing = s["routing"];
  EXPECT_EQ(routing["flooded"], 3);
  EXPECT_EQ(routing["flood_copies"], 9);
  EXPECT_EQ(routing["bridged"], 3);
  EXPECT_EQ(routing["routed"], 0);
  EXPECT_EQ(routing["mac_table"]["learned"], 5);  // A, B, C; (7, D), (7, A)
  EXPECT_EQ(routing["mac_table"]["moved"], 1);
  EXPECT_EQ(s["config"]["routing"]["default_route"], "learn");
  // The egress capture as tshark reads it, port by port, in departure order.
  const auto ports = egress_by_port(dir, dir / "e.pcapng");
  EXPECT_EQ(ports.at(0), (std::vector<std::string>{"0b>0a", "0c>ff", "0d>0a@7"}));
  EXPECT_EQ(ports.at(1), (std::vector<std::string>{"0a>0b", "0a>0b", "0c>ff", "0d>0a@7"}));
  EXPECT_EQ(ports.at(2), (std::vector<std::string>{"0a>0b", "0d>0a@7"}));
  EXPECT_EQ(ports.at(3), (std::vector<std::string>{"0a>0b", "0c>ff", "0a>0d@7"}));
}

TEST(E2EPlainTraffic, DropAndRoutesGiveTheOldBehaviour) {
  ScratchDir dir;
  std::string ignored;
  ASSERT_EQ(run_python_script("tb/e2e/plain_traffic.py", "bridge '" + dir / "t.txt" + "'", &ignored), "");
  // Default route drop and no routes: every frame is dropped as no_route.
  CliResult r = flaresim("run --trace t.txt --stats s.json --routing.default_route drop" + kFourPorts, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["totals"]["packets_out"], 0);
  EXPECT_EQ(s["drops"]["by_cause"]["no_route"], 7);
  EXPECT_EQ(s["drops"]["total"], 7);
  // Routes: the IPv4 frames (0, 1, 2, 6: to 10.0.0.x) to port 2; frame 4 (IPv6 to 2001:db8:2::1,
  // inside VLAN 7) to 3; frame 5 (IPv6 to 2001:db8:1::4) and the ARP frame 3 have no route.
  r = flaresim("run --trace t.txt --stats s.json --routing.default_route drop "
               "--routing.routes '10.0.0.0/24 -> 2; 2001:db8:2::/48 -> 3; 2001:db8::/32 -> 1; 2001:db8:1::/48 -> 2; "
               "2001:db8:1::4/128 -> 0'" +
                   kFourPorts,
               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  s = nlohmann::json::parse(slurp(dir / "s.json"));
  // Frame 5 now has the /128 route (longest of /32, /48, /128): to 0.
  EXPECT_EQ(packets_out(s), (std::vector<uint64_t>{1, 0, 4, 1}));
  EXPECT_EQ(s["drops"]["by_cause"]["no_route"], 1);  // the ARP frame
  EXPECT_EQ(s["routing"]["routed"], 6);
  // The same routes under the default route learn: the ARP broadcast is flooded instead.
  r = flaresim("run --trace t.txt --stats s.json --routing.routes '10.0.0.0/24 -> 2; 2001:db8::/32 -> 3'" + kFourPorts,
               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(packets_out(s), (std::vector<uint64_t>{1, 1, 4, 3}));
  EXPECT_EQ(s["routing"]["routed"], 6);
  EXPECT_EQ(s["routing"]["flooded"], 1);
  EXPECT_EQ(s["drops"]["total"], 0);
}

// Packet id -> cluster, from a Chrome trace's handler runs.
std::map<uint64_t, unsigned> clusters_of_runs(const std::string& path) {
  std::map<uint64_t, unsigned> got;
  const auto c = nlohmann::json::parse(slurp(path));
  for (const auto& e : c["traceEvents"])
    if (e["ph"] == "X") got[e["args"]["packet"].get<uint64_t>()] = e["pid"].get<unsigned>();
  return got;
}

TEST(E2EPlainTraffic, TheFlowPolicyKeepsEveryFlowOnItsCluster) {
  ScratchDir dir;
  // 8 flows x 6 packets, all arriving at once (each port takes its frames one after the other),
  // so that clusters holding at most one task make packets wait.
  std::string text;
  ASSERT_EQ(run_python_script("tb/e2e/plain_traffic.py", "flows '" + dir / "t.txt" + "' 4 0", &text), "");
  std::map<uint64_t, unsigned> want;
  std::set<unsigned> used;
  for (const std::string& line : script_lines(text)) {
    std::istringstream in(line);
    uint64_t id;
    unsigned cluster;
    in >> id >> cluster;
    want[id] = cluster;
    used.insert(cluster);
  }
  ASSERT_EQ(want.size(), 48u);
  ASSERT_EQ(used.size(), 4u);  // the flows spread over every cluster
  const std::string run = "run --trace t.txt --stats s.json --pspin.clusters 4 "
                          "--parser.rules 'udp_dport=7000 -> pspin_empty; ip_proto=6 -> pspin_empty' "
                          "--scheduler.max_outstanding 1" +
                          kFourPorts;
  CliResult r = flaresim(run + " --scheduler.policy flow --chrome-trace c.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(clusters_of_runs(dir / "c.json"), want);
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["scheduler"]["policy"], "flow");
  EXPECT_EQ(s["scheduler"]["assigned_per_cluster"], nlohmann::json::array({12, 12, 12, 12}));
  EXPECT_GT(s["scheduler"]["held"].get<uint64_t>(), 0u);  // packets waited for their cluster
  EXPECT_EQ(s["drops"]["total"], 0);
  const nlohmann::json model_scheduler = s["scheduler"];
  // The Verilated scheduler makes the same decisions.
  r = flaresim(run + " --scheduler.policy flow --rtl pkt_sched --chrome-trace c_rtl.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(clusters_of_runs(dir / "c_rtl.json"), want);
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["scheduler"], model_scheduler);
  // fcfs on the same packets does not keep the flows together: the check above can fail.
  r = flaresim(run + " --scheduler.policy fcfs --chrome-trace c.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto fcfs = clusters_of_runs(dir / "c.json");
  ASSERT_EQ(fcfs.size(), 48u);
  EXPECT_NE(fcfs, want);
}

TEST(E2EPlainTraffic, FramesWithoutTheirFlowKeyAreMalformed) {
  ScratchDir dir;
  std::string text;
  ASSERT_EQ(run_python_script("tb/e2e/plain_traffic.py", "flows '" + dir / "t.txt" + "' 4 100", &text), "");
  // The flows' payloads are 32 bytes: bytes 30..33 are not all there, 28..31 are.
  const std::string run = "run --trace t.txt --stats s.json --pspin.clusters 4 --scheduler.policy flow "
                          "--parser.rules 'udp_dport=7000 -> pspin_empty; ip_proto=6 -> pspin_empty'" +
                          kFourPorts;
  CliResult r = flaresim(run + " --scheduler.flow_key 'payload[30:4]'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["by_cause"]["malformed"], 48);
  EXPECT_EQ(s["handlers"]["pspin_empty"]["runs"], 0);
  r = flaresim(run + " --scheduler.flow_key 'payload[28:4]'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["total"], 0);
  // Every packet of round k carries bytes k k k k there: the six rounds are six flows, each on
  // the cluster of zlib.crc32(bytes([k] * 4)) mod 4: rounds 0..5 -> clusters 0, 1, 3, 2, 2, 3
  // (python3 -c 'import zlib; print([zlib.crc32(bytes([k] * 4)) % 4 for k in range(6)])'), 8
  // packets each.
  EXPECT_EQ(s["scheduler"]["assigned_per_cluster"], nlohmann::json::array({8, 8, 16, 16}));
}

TEST(E2EPlainTraffic, BadRoutingAndFlowKeysAreRefused) {
  ScratchDir dir;
  write_file(dir / "t.txt", "0ns 0 hex ffffffffffff02000000000a08060001\n");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--scheduler.flow_key 'src_ip,port'",
       "flaresim: bad value 'src_ip,port' for 'scheduler.flow_key': unknown field 'port' (valid: 5tuple, src_ip, dst_ip, "
       "ip_proto, src_port, dst_port, vlan, src_mac, dst_mac, payload[OFFSET:LENGTH])\n"},
      {"--routing.routes '2001:db8::/129 -> 1'",
       "flaresim: bad value '2001:db8::/129 -> 1' for 'routing.routes': prefix length must be 0-128\n"},
      {"--routing.default_route flood",
       "flaresim: bad value 'flood' for 'routing.default_route': expected 'learn', 'drop' or a port from 0 to 63\n"},
      {"--routing.mac_table_entries 0",
       "flaresim: bad value '0' for 'routing.mac_table_entries': expected a whole number from 1 to 16777216\n"},
  };
  for (const Case& c : cases) {
    const CliResult r = flaresim("run --trace t.txt " + c.args, dir);
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_EQ(r.err, c.message) << c.args;
  }
}

}  // namespace
}  // namespace fs::test
