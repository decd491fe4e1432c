// Tests of routes with several ports (sc_model/switch/router): parsing port lists and the way to
// choose; dst (one port per destination, spread over destinations), ECMP on the 5-tuple (flows
// spread evenly by a chi-square test, the same for the same seed, independent for another), and
// Canary's adaptive rule with the default port's queue forced to and above half its capacity.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "switch/egress_port.h"
#include "switch/router.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::PathChoice;

std::string route_error(const std::string& text, unsigned ports = 8) {
  try {
    fs::parse_routes(text, ports);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

Bytes udp(uint32_t dst_ip, uint16_t sport, uint32_t src_ip = 0x0A010001, uint16_t dport = 4791) {
  uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
  const uint8_t payload[8] = {};
  return fs::build_udp_frame(src, dst, src_ip, dst_ip, sport, dport, payload, sizeof payload);
}

fs::RoutingConfig routing(const std::string& routes) {
  fs::RoutingConfig c;
  c.routes = routes;
  c.default_route = "drop";
  c.latency_cycles = 0;
  return c;
}
const fs::Clock kClock = fs::Clock::from_ghz(1.0);

// Pearson's chi-square statistic of `counts` against equal expectations.
double chi_square(const std::vector<unsigned>& counts) {
  double total = 0, chi = 0;
  for (unsigned c : counts) total += c;
  const double expected = total / double(counts.size());
  for (unsigned c : counts) chi += (c - expected) * (c - expected) / expected;
  return chi;
}
// The chi-square distribution's 0.999 quantile with 3 and 7 degrees of freedom.
constexpr double kChi3 = 16.266, kChi7 = 24.322;

TEST(BlocksMultipath, ParsesPortListsAndChoices) {
  const auto r = fs::parse_routes("10.1.0.0/16 -> 4-7; 10.2.0.0/16 -> 3,1 ecmp; 10.3.0.0/16 -> 0-1,5 adaptive; "
                                  "10.4.0.0/16 -> 2 dst",
                                  8, PathChoice::kEcmp);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].ports, (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_EQ(r[0].choice, PathChoice::kEcmp);  // the default given
  EXPECT_EQ(r[1].ports, (std::vector<unsigned>{3, 1}));
  EXPECT_EQ(r[1].choice, PathChoice::kEcmp);
  EXPECT_EQ(r[2].ports, (std::vector<unsigned>{0, 1, 5}));
  EXPECT_EQ(r[2].choice, PathChoice::kAdaptive);
  EXPECT_EQ(r[3].ports, std::vector<unsigned>{2});
  EXPECT_EQ(r[3].choice, PathChoice::kDst);
  const std::string p = "bad value '10.1.0.0/16 -> ";
  EXPECT_EQ(route_error("10.1.0.0/16 -> 6-8"), p + "6-8' for 'routing.routes': port 8 does not exist");
  EXPECT_EQ(route_error("10.1.0.0/16 -> 1,2,1"), p + "1,2,1' for 'routing.routes': port 1 is listed twice");
  EXPECT_EQ(route_error("10.1.0.0/16 -> 1-3,2"), p + "1-3,2' for 'routing.routes': port 2 is listed twice");
  const std::string shape = "expected 'a.b.c.d/len -> ports [dst|ecmp|adaptive]'";
  EXPECT_EQ(route_error("10.1.0.0/16 -> 3-1"), p + "3-1' for 'routing.routes': " + shape);
  EXPECT_EQ(route_error("10.1.0.0/16 -> 1,,2"), p + "1,,2' for 'routing.routes': " + shape);
  EXPECT_EQ(route_error("10.1.0.0/16 -> 1 ECMP"),
            p + "1 ECMP' for 'routing.routes': 'ECMP' is not a way to choose among ports (dst, ecmp or adaptive) nor multicast");
}

TEST(BlocksMultipath, DstKeepsADestinationOnOnePortAndSpreadsDestinations) {
  fs::DropLedger drops;
  fs::Router r("r", routing("10.1.0.0/16 -> 0-3"), 4, kClock, drops);
  std::vector<unsigned> per_port(4);
  for (uint32_t host = 0; host < 1024; ++host) {
    const uint32_t dst = 0x0A010000 | host;
    const int port = r.lookup(*make_packet(udp(dst, 1000)));
    ASSERT_GE(port, 0);
    // Every flow to this destination takes the same port.
    for (uint16_t sport : {1001, 2002, 40000}) ASSERT_EQ(r.lookup(*make_packet(udp(dst, sport, 0x0A010099))), port);
    ++per_port[port];
  }
  EXPECT_LT(chi_square(per_port), kChi3) << per_port[0] << " " << per_port[1] << " " << per_port[2] << " " << per_port[3];
}

// The ports 4000 flows (one destination, source ports 10000.., sources 10.1.0.1..10) take
// through an ECMP route over ports 0-7 of a switch whose ECMP seed is `seed`.
std::vector<int> ecmp_ports(uint64_t seed, const char* name) {
  fs::DropLedger drops;
  fs::Router r(name, routing("10.2.0.0/16 -> 0-7 ecmp"), 8, kClock, drops);
  r.set_ecmp_seed(seed);
  std::vector<int> ports;
  for (unsigned f = 0; f < 4000; ++f)
    ports.push_back(r.lookup(*make_packet(udp(0x0A020005, uint16_t(10000 + f / 10), 0x0A010001 + f % 10))));
  return ports;
}

TEST(BlocksMultipath, EcmpSpreadsFlowsEvenlyAndDeterministically) {
  const std::vector<int> a = ecmp_ports(1, "a"), again = ecmp_ports(1, "again"), b = ecmp_ports(2, "b");
  EXPECT_EQ(a, again);  // the same seed: the same choices
  for (const auto* run : {&a, &b}) {
    std::vector<unsigned> per_port(8);
    for (int p : *run) {
      ASSERT_GE(p, 0);
      ASSERT_LT(p, 8);
      ++per_port[p];
    }
    EXPECT_LT(chi_square(per_port), kChi7);
  }
  // Another seed places flows independently: about 1/8 of them land on the same port.
  unsigned same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_GT(same, 350u);
  EXPECT_LT(same, 650u);
  // The same flow's packets (the same 5-tuple) always take one port, whatever else differs.
  fs::DropLedger drops;
  fs::Router r("r", routing("10.2.0.0/16 -> 0-7 ecmp"), 8, kClock, drops);
  Bytes big = udp(0x0A020005, 777);
  const int port = r.lookup(*make_packet(big));
  big.back() = 0x12;  // other payload
  EXPECT_EQ(r.lookup(*make_packet(big)), port);
}

// A router over four real egress ports (queues of 10000 bytes at 100 Gbit/s) with one adaptive
// route 10.3.0.0/16 -> 0-3.
struct AdaptiveBench {
  fs::DropLedger drops;
  Script script{"script"};
  std::vector<std::unique_ptr<fs::EgressPort>> ports;
  fs::Router router{"router", routing("10.3.0.0/16 -> 0-3 adaptive"), 4, kClock, drops};
  AdaptiveBench() {
    fs::LinkParams link;
    link.queue_bytes = 10000;
    for (unsigned p = 0; p < 4; ++p) {
      ports.push_back(std::make_unique<fs::EgressPort>(("egress" + std::to_string(p)).c_str(), p, link, drops));
      router.egress.bind(*ports.back());
    }
    router.watch_queues(&ports);
  }
  void fill(unsigned port, unsigned kilobytes) {
    for (unsigned i = 0; i < kilobytes; ++i) ports[port]->accept(make_packet(Bytes(1000, 0)));
  }
};

// dst's choice for a destination: the port an adaptive route uses while queues are short.
int default_port(uint32_t dst) {
  fs::DropLedger drops;
  fs::Router r("dst_only", routing("10.3.0.0/16 -> 0-3 dst"), 4, kClock, drops);
  return r.lookup(*make_packet(udp(dst, 1)));
}

TEST(BlocksMultipath, AdaptiveLeavesADefaultPortQueuedAboveHalfForTheLeastQueued) {
  quiet_systemc();
  // Two destinations whose default ports differ.
  const uint32_t d1 = 0x0A030001;
  uint32_t d2 = d1 + 1;
  while (default_port(d2) == default_port(d1)) ++d2;
  const unsigned p1 = unsigned(default_port(d1)), p2 = unsigned(default_port(d2));
  // The two ports that are neither, lowest first.
  std::vector<unsigned> others;
  for (unsigned p = 0; p < 4; ++p)
    if (p != p1 && p != p2) others.push_back(p);

  AdaptiveBench b;
  std::vector<int> seen;
  auto look = [&](uint32_t dst) { seen.push_back(b.router.lookup(*make_packet(udp(dst, 1)))); };
  b.script.at(0, [&]() {
    look(d1);       // empty queues: the default port
    b.fill(p1, 5);  // exactly half (5000 of 10000 bytes): not above, stays
    look(d1);
    b.fill(p1, 1);  // 6000: above half; every other port is empty: the first of them in the list
    look(d1);
    look(d2);       // d2's default port is short: it stays
    b.fill(p2, 7);  // p2 at 7000, others[0] at 2000, others[1] at 1000: others[1] is least
    b.fill(others[0], 2);
    b.fill(others[1], 1);
    look(d1);
    look(d2);
  });
  // Frames through the router itself are counted: one to d1 now goes off its default port.
  b.script.at(1, [&]() { b.router.accept(make_packet(udp(d1, 1))); });
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_NS));
  const std::vector<int> expected = {int(p1), int(p1), int(std::min(p2, others[0])), int(p2),
                                     int(others[1]), int(others[1])};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(b.router.routed, 1u);
  EXPECT_EQ(b.router.diverted, 1u);
}

TEST(BlocksMultipath, AdaptiveWithoutQueuesChoosesAsDst) {
  fs::DropLedger drops;
  fs::Router r("r", routing("10.3.0.0/16 -> 0-3 adaptive"), 4, kClock, drops);
  for (uint32_t h = 0; h < 64; ++h)
    EXPECT_EQ(r.lookup(*make_packet(udp(0x0A030000 | h, 1))), default_port(0x0A030000 | h));
}

}  // namespace
}  // namespace fs_tb
