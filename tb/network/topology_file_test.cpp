// Tests of edge-list topology files (sc_model/network/topology_file.cpp): every declaration and
// option read back, the routes of two hand-drawn irregular networks (a ring and a diamond with
// a doubled link, both with equal-cost paths), every FILE:LINE error, and reading a real file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "common/errors.h"
#include "network/topology.h"

namespace fs {
namespace {

using Ports = std::vector<unsigned>;

// The message of the InputError parsing `text` as "t.topo" throws ("" if none).
std::string error_of(const std::string& text) {
  try {
    parse_topology_text(text, "t.topo");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TopologyFile, ReadsEveryDeclaration) {
  const Topology t = parse_topology_text(
      "# three switches in a triangle, three hosts\n"
      "switch s0 ports=4            # inc by default\n"
      "\n"
      "switch s1 ports=3 kind=plain\r\n"
      "  switch _s.2-b ports=2 kind=calibrated\n"
      "link s0:0 a                  # a host declared further down, its port left out\n"
      "link b:0 s0:1 gbps=25 latency_ns=150\n"
      "link s0:3 s1:0 queue_bytes=64KiB ecn_bytes=1MiB\n"
      "link s1:2 c.1-x_\n"
      "link _s.2-b:0 s0:2 gbps=0.5 queue_bytes=1500 ecn_bytes=0\n"
      "link _s.2-b:1 s1:1\n"
      "host a\n"
      "host b\n"
      "host c.1-x_\n",
      "t.topo");
  ASSERT_EQ(t.nodes.size(), 6u);
  ASSERT_EQ(t.switches(), std::vector<unsigned>({0, 1, 2}));
  EXPECT_EQ(t.nodes[0].name, "s0");
  EXPECT_EQ(t.nodes[0].ports, 4u);
  EXPECT_EQ(t.nodes[0].kind, SwitchKind::kInc);
  EXPECT_EQ(t.nodes[0].where, "t.topo:2");
  EXPECT_EQ(t.nodes[1].kind, SwitchKind::kPlain);
  EXPECT_EQ(t.nodes[1].where, "t.topo:4");
  EXPECT_EQ(t.nodes[2].name, "_s.2-b");
  EXPECT_EQ(t.nodes[2].kind, SwitchKind::kCalibrated);
  ASSERT_EQ(t.hosts(), std::vector<unsigned>({3, 4, 5}));
  EXPECT_EQ(t.nodes[5].name, "c.1-x_");
  EXPECT_EQ(t.nodes[5].host_index, 2u);
  EXPECT_EQ(t.nodes[5].where, "t.topo:14");

  ASSERT_EQ(t.links.size(), 6u);
  const TopoLink& to_a = t.links[0];
  EXPECT_EQ(to_a.a, 0u);
  EXPECT_EQ(to_a.a_port, 0u);
  EXPECT_EQ(to_a.b, 3u);
  EXPECT_EQ(to_a.b_port, 0u);
  EXPECT_EQ(to_a.where, "t.topo:6");
  EXPECT_FALSE(to_a.params.gbps || to_a.params.latency_ns || to_a.params.queue_bytes || to_a.params.ecn_bytes);
  const TopoLink& to_b = t.links[1];
  EXPECT_EQ(to_b.a, 4u);
  EXPECT_EQ(to_b.b, 0u);
  EXPECT_EQ(to_b.b_port, 1u);
  EXPECT_EQ(to_b.params.gbps, 25.0);
  EXPECT_EQ(to_b.params.latency_ns, 150u);
  EXPECT_FALSE(to_b.params.queue_bytes || to_b.params.ecn_bytes);
  EXPECT_EQ(t.links[2].params.queue_bytes, 65536u);
  EXPECT_EQ(t.links[2].params.ecn_bytes, 1048576u);
  EXPECT_EQ(t.links[4].params.gbps, 0.5);
  EXPECT_EQ(t.links[4].params.queue_bytes, 1500u);
  EXPECT_EQ(t.links[4].params.ecn_bytes, 0u);
  EXPECT_EQ(to_b.params.applied_to(LinkParams()).latency, 150000u);

  // s0 (a on 0, b on 1, s2 on 2, s1 on 3), s1 (s0 on 0, s2 on 1, c on 2), s2 (s0 on 0, s1 on 1).
  EXPECT_EQ(next_hops(t), std::vector<std::vector<Ports>>({
                              {{0}, {1}, {3}},
                              {{0}, {0}, {2}},
                              {{0}, {0}, {1}},
                          }));
}

// Four switches in a ring, a host on port 0 of each; port 1 leads clockwise (r0 -> r1 -> r2 ->
// r3 -> r0), port 2 back. The host opposite is two hops away both ways.
TEST(TopologyFile, RingRoutes) {
  const Topology t = parse_topology_text(
      "switch r0 ports=3\nswitch r1 ports=3\nswitch r2 ports=3\nswitch r3 ports=3\n"
      "host h0\nhost h1\nhost h2\nhost h3\n"
      "link r0:0 h0\nlink r1:0 h1\nlink r2:0 h2\nlink r3:0 h3\n"
      "link r0:1 r1:2\nlink r1:1 r2:2\nlink r2:1 r3:2\nlink r3:1 r0:2\n",
      "ring.topo");
  const auto hops = next_hops(t);
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(hops[0], std::vector<Ports>({{0}, {1}, {1, 2}, {2}}));
  EXPECT_EQ(hops[2], std::vector<Ports>({{1, 2}, {2}, {0}, {1}}));
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned h = 0; h < 4; ++h) {
      static const std::vector<Ports> by_distance = {{0}, {1}, {1, 2}, {2}};  // clockwise hops to h's switch
      EXPECT_EQ(hops[r][h], by_distance[(h + 4 - r) % 4]) << "r" << r << " to h" << h;
    }
}

// A diamond: top over left and right over bottom, left and bottom joined twice; host t on top,
// host b on bottom; right's port 2 unlinked.
TEST(TopologyFile, DiamondRoutes) {
  const Topology t = parse_topology_text(
      "switch top ports=3\nswitch left ports=3\nswitch right ports=3\nswitch bottom ports=4\n"
      "host t\nhost b\n"
      "link top:0 t\n"
      "link top:1 left:0\nlink top:2 right:0\n"
      "link left:1 bottom:0\nlink right:1 bottom:1\n"
      "link left:2 bottom:2   # doubled\n"
      "link bottom:3 b\n",
      "diamond.topo");
  EXPECT_EQ(next_hops(t), std::vector<std::vector<Ports>>({
                              {{0}, {1, 2}},     // top: down either side
                              {{0}, {1, 2}},     // left: both links to bottom
                              {{0}, {1}},        // right
                              {{0, 1, 2}, {3}},  // bottom: up through left (twice) or right, 2 hops each
                          }));
  EXPECT_EQ(t.peers()[2][2].node, -1);
}

TEST(TopologyFile, LineErrors) {
  EXPECT_EQ(error_of("# comment\n\nswitch s0 ports=2 # x\n  bogus s0\n"),
            "t.topo:4: unknown declaration 'bogus' (expected switch, host or link)");
  EXPECT_EQ(error_of("switch\n"), "t.topo:1: expected 'switch NAME ports=N [kind=inc|plain|calibrated]'");
  EXPECT_EQ(error_of("switch s0 kind=plain\n"), "t.topo:1: switch s0 needs ports=N");
  EXPECT_EQ(error_of("switch s0 ports=four\n"),
            "t.topo:1: bad value 'four' for 'ports': expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("switch s0 ports=0\n"),
            "t.topo:1: bad value '0' for 'ports': expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("switch s0 ports=4097\n"),
            "t.topo:1: bad value '4097' for 'ports': expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("switch s0 ports=0x10\n"),
            "t.topo:1: bad value '0x10' for 'ports': expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("switch s0 ports=\n"),
            "t.topo:1: bad value '' for 'ports': expected a whole number from 1 to 4096");
  EXPECT_EQ(error_of("switch s0 ports=4 kind=fancy\n"),
            "t.topo:1: bad value 'fancy' for 'kind': expected inc, plain or calibrated");
  EXPECT_EQ(error_of("switch s0 ports=4 speed=9\n"),
            "t.topo:1: unknown switch option 'speed=9' (expected ports= or kind=)");
  EXPECT_EQ(error_of("switch s0 ports=4 plain\n"),
            "t.topo:1: unknown switch option 'plain' (expected ports= or kind=)");
  EXPECT_EQ(error_of("switch s0 ports=4 ports=5\n"), "t.topo:1: ports= given twice");
  const std::string name_rule =
      " (a name starts with a letter or '_' and goes on with letters, digits, '_', '-' or '.')";
  EXPECT_EQ(error_of("switch 0s ports=4\n"), "t.topo:1: bad name '0s'" + name_rule);
  EXPECT_EQ(error_of("switch ports=4\n"), "t.topo:1: bad name 'ports=4'" + name_rule);
  EXPECT_EQ(error_of("host a:b\n"), "t.topo:1: bad name 'a:b'" + name_rule);
  EXPECT_EQ(error_of("host h\xc3\xa9\n"), "t.topo:1: bad name 'h\xc3\xa9'" + name_rule);
  EXPECT_EQ(error_of("host\n"), "t.topo:1: expected 'host NAME'");
  EXPECT_EQ(error_of("host a b\n"), "t.topo:1: expected 'host NAME'");
}

TEST(TopologyFile, LinkErrors) {
  const std::string nodes = "switch s0 ports=2\nhost h0\nhost h1\n";  // lines 1-3
  EXPECT_EQ(error_of(nodes + "link s0:0\n"),
            "t.topo:4: expected 'link A:P B:P [gbps=X] [latency_ns=N] [queue_bytes=N] [ecn_bytes=N] [loss=P]'");
  EXPECT_EQ(error_of(nodes + "link s0:0 h9\n"), "t.topo:4: unknown node 'h9' (no switch or host of that name)");
  EXPECT_EQ(error_of(nodes + "link :0 h0\n"), "t.topo:4: unknown node '' (no switch or host of that name)");
  EXPECT_EQ(error_of(nodes + "link s0 h0\n"), "t.topo:4: switch s0 needs a port: s0:P");
  EXPECT_EQ(error_of(nodes + "link s0:x h0\n"),
            "t.topo:4: bad port in 's0:x' (expected NAME:PORT, PORT a whole number)");
  EXPECT_EQ(error_of(nodes + "link s0: h0\n"), "t.topo:4: bad port in 's0:' (expected NAME:PORT, PORT a whole number)");
  EXPECT_EQ(error_of(nodes + "link s0:-1 h0\n"),
            "t.topo:4: bad port in 's0:-1' (expected NAME:PORT, PORT a whole number)");
  EXPECT_EQ(error_of(nodes + "link s0:0 h0 speed=5\n"),
            "t.topo:4: unknown link option 'speed=5' (expected gbps=, latency_ns=, queue_bytes=, ecn_bytes= "
            "or loss=)");
  EXPECT_EQ(error_of(nodes + "link s0:0 h0 s0:1\n"),
            "t.topo:4: unknown link option 's0:1' (expected gbps=, latency_ns=, queue_bytes=, ecn_bytes= "
            "or loss=)");
  EXPECT_EQ(error_of(nodes + "link s0:0 h0 gbps=1 gbps=2\n"), "t.topo:4: gbps= given twice");
}

TEST(TopologyFile, LinkNumberErrors) {
  const std::string link = "switch s0 ports=2\nhost h0\nlink s0:0 h0 ";  // the link on line 3
  EXPECT_EQ(error_of(link + "loss=1.5\n"), "t.topo:3: bad value '1.5' for 'loss': expected a number from 0 to 1");
  EXPECT_EQ(error_of(link + "loss=some\n"), "t.topo:3: bad value 'some' for 'loss': expected a number from 0 to 1");
  EXPECT_EQ(error_of(link + "gbps=fast\n"),
            "t.topo:3: bad value 'fast' for 'gbps': expected a number from 0.001 to 1e+06");
  EXPECT_EQ(error_of(link + "gbps=0\n"), "t.topo:3: bad value '0' for 'gbps': expected a number from 0.001 to 1e+06");
  EXPECT_EQ(error_of(link + "gbps=nan\n"),
            "t.topo:3: bad value 'nan' for 'gbps': expected a number from 0.001 to 1e+06");
  EXPECT_EQ(error_of(link + "latency_ns=1.5\n"),
            "t.topo:3: bad value '1.5' for 'latency_ns': expected a whole number from 0 to 1099511627776");
  EXPECT_EQ(error_of(link + "latency_ns=+5\n"),
            "t.topo:3: bad value '+5' for 'latency_ns': expected a whole number from 0 to 1099511627776");
  EXPECT_EQ(error_of(link + "queue_bytes=64KB\n"),
            "t.topo:3: bad value '64KB' for 'queue_bytes': expected a size in bytes, optionally with a KiB, MiB or GiB "
            "suffix");
  EXPECT_EQ(error_of(link + "queue_bytes=0\n"),
            "t.topo:3: bad value '0' for 'queue_bytes': expected a size from 1 to 1099511627776 bytes");
  EXPECT_EQ(error_of(link + "ecn_bytes=2048GiB\n"),
            "t.topo:3: bad value '2048GiB' for 'ecn_bytes': expected a size from 0 to 1099511627776 bytes");
  EXPECT_EQ(error_of(link + "ecn_bytes=-1\n"),
            "t.topo:3: bad value '-1' for 'ecn_bytes': expected a size in bytes, optionally with a KiB, MiB or GiB "
            "suffix");
  EXPECT_EQ(error_of(link + "latency_ns=1099511627776 queue_bytes=1024GiB ecn_bytes=1024GiB gbps=1e6\n"), "");
}

TEST(TopologyFile, TopologyErrors) {
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nhost s0\nlink s0:0 h0\n"),
            "t.topo:3: duplicate name 's0' (first declared at t.topo:1)");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nlink s0:2 h0\n"), "t.topo:3: switch s0 has 2 ports (0-1), not 2");
  EXPECT_EQ(error_of("switch s0 ports=1\nhost h0\nlink s0:1 h0\n"), "t.topo:3: switch s0 has 1 port (0), not 1");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nlink s0:0 h0:1\n"), "t.topo:3: host h0 has 1 port (0), not 1");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nhost h1\nlink s0:0 h0\nlink s0:0 h1\n"),
            "t.topo:5: s0:0 is already linked at t.topo:4");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nlink s0:0 h0\nlink s0:1 h0:0\n"),
            "t.topo:4: h0:0 is already linked at t.topo:3");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nlink s0:0 s0:1\nlink s0:0 h0\n"),
            "t.topo:3: a link from s0 to itself");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nhost h1\nlink h0 h1\n"),
            "t.topo:4: a link between hosts h0 and h1 (a host links only to a switch)");
  EXPECT_EQ(error_of("switch s0 ports=2\nhost h0\nhost h1\nlink s0:0 h0\n"),
            "t.topo:3: host h1 is not linked to any switch");
  EXPECT_EQ(error_of("switch s0 ports=1\nswitch s1 ports=1\nhost h0\nhost h1\nlink s0:0 h0\nlink s1:0 h1\n"),
            "t.topo:4: host h1 cannot reach host h0: no path through switches");
  EXPECT_EQ(error_of("switch s0 ports=1\nswitch lonely ports=2\nhost h0\nlink s0:0 h0\n"),
            "t.topo:2: switch lonely is not connected to the rest of the network (no path to host h0)");
  EXPECT_EQ(error_of(""), "t.topo: no switch declared");
  EXPECT_EQ(error_of("# nothing\n\n"), "t.topo: no switch declared");
  EXPECT_EQ(error_of("host h0\n"), "t.topo: no switch declared");
  EXPECT_EQ(error_of("switch s0 ports=2\n"), "t.topo: no host declared");
}

TEST(TopologyFile, ReadsAFile) {
  const std::string path = ::testing::TempDir() + "fs_TopologyFile_ReadsAFile.topo";
  std::ofstream(path)
      << "switch sw ports=2 kind=plain\nhost left\nhost right\nlink sw:0 left\nlink right sw:1 gbps=40\n";
  const Topology t = parse_topology_file(path);
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].kind, SwitchKind::kPlain);
  EXPECT_EQ(t.nodes[2].where, path + ":3");
  ASSERT_EQ(t.links.size(), 2u);
  EXPECT_EQ(t.links[1].params.gbps, 40.0);
  EXPECT_EQ(next_hops(t), std::vector<std::vector<Ports>>({{{0}, {1}}}));

  std::ofstream(path) << "switch sw ports=2\nhost left\nlink sw:0 left\nlink sw:1 left\n";
  try {
    parse_topology_file(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":4: left:0 is already linked at " + path + ":3");
  }
  std::remove(path.c_str());
}

TEST(TopologyFile, MissingFileOrDirectory) {
  const std::string missing = ::testing::TempDir() + "fs_TopologyFile_no_such.topo";
  try {
    parse_topology_file(missing);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open topology file");
  }
  const std::string dir = ::testing::TempDir();
  try {
    parse_topology_file(dir);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": a directory, not a topology file");
  }
}

}  // namespace
}  // namespace fs
