// Tests of the routing table (sc_model/switch/router): parse_routes accepts and rejects IPv4 and
// IPv6 routes (exact messages), longest-prefix match for both, VLAN-tagged frames routed on their
// inner header, the default route (a port, or drop counted as "no_route"), non-IP frames going to
// the default, and a Router module forwarding after its latency. The learning bridge (the default
// route learn) is tested in bridge_test.cpp.
#include "switch/router.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <array>
#include <memory>

#include "blocks/sc_testbench.h"
#include "common/errors.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::parse_routes;
using fs::Route;

std::string route_error(const std::string& text, unsigned ports = 4) {
  try {
    parse_routes(text, ports);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string prefix(const std::string& entry) { return "bad value '" + entry + "' for 'routing.routes': "; }

void expect_route(const Route& r, uint32_t prefix, unsigned len, unsigned port) {
  EXPECT_EQ(r.prefix, prefix);
  EXPECT_EQ(r.length, len);
  EXPECT_EQ(r.ports, std::vector<unsigned>{port});
}

uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d) { return (a << 24) | (b << 16) | (c << 8) | d; }

Bytes frame_to(uint32_t dst_ip) {
  uint8_t src[6], dst[6];
  fs_host_mac(1, src);
  fs_switch_mac(dst);
  const uint8_t payload[8] = {};
  return fs::build_udp_frame(src, dst, fs_host_ipv4(1), dst_ip, 1000, 2000, payload, sizeof payload);
}

Bytes non_ipv4_frame() {
  Bytes f(60, 0);
  f[12] = 0x08;  // EtherType 0x0806 (ARP): not IP (IPv6 is routed: see the IPv6 tests)
  f[13] = 0x06;
  return f;
}

TEST(BlocksRouter, ParseRoutesAccepts) {
  const std::vector<Route> r = parse_routes("10.0.0.0/8 -> 1; 10.1.0.0/16->2 ;10.1.2.0/24 -> 3;", 4);
  ASSERT_EQ(r.size(), 3u);
  expect_route(r[0], 0x0A000000u, 8, 1);
  expect_route(r[1], 0x0A010000u, 16, 2);
  expect_route(r[2], 0x0A010200u, 24, 3);
  // Host bits beyond the prefix length are cleared; /0 and /32 are valid.
  const std::vector<Route> m = parse_routes("10.1.2.3/8 -> 0; 1.2.3.4/0 -> 0; 1.2.3.4/32 -> 3", 4);
  ASSERT_EQ(m.size(), 3u);
  expect_route(m[0], 0x0A000000u, 8, 0);
  expect_route(m[1], 0u, 0, 0);
  expect_route(m[2], 0x01020304u, 32, 3);
  EXPECT_TRUE(parse_routes("", 4).empty());
  EXPECT_TRUE(parse_routes(" ; ", 4).empty());
}

TEST(BlocksRouter, ParseRoutesRejectsWithExactMessages) {
  const std::string shape = "expected 'a.b.c.d/len -> ports [dst|ecmp|adaptive]'";
  EXPECT_EQ(route_error("10.0.0/8 -> 1"), prefix("10.0.0/8 -> 1") + shape);
  EXPECT_EQ(route_error("10.0.0.0/8"), prefix("10.0.0.0/8") + shape);
  EXPECT_EQ(route_error("10.0.0.0/8 -> 1 x"),
            prefix("10.0.0.0/8 -> 1 x") + "'x' is not a way to choose among ports (dst, ecmp or adaptive) nor multicast");
  EXPECT_EQ(route_error("10.0.0.0/8 -> 1 ecmp x"), prefix("10.0.0.0/8 -> 1 ecmp x") + shape);
  EXPECT_EQ(route_error("10.0.0.0/8 => 1"), prefix("10.0.0.0/8 => 1") + shape);
  EXPECT_EQ(route_error("256.0.0.0/8 -> 1"), prefix("256.0.0.0/8 -> 1") + "address octets must be 0-255");
  EXPECT_EQ(route_error("10.0.0.300/8 -> 1"), prefix("10.0.0.300/8 -> 1") + "address octets must be 0-255");
  EXPECT_EQ(route_error("10.0.0.0/33 -> 1"), prefix("10.0.0.0/33 -> 1") + "prefix length must be 0-32");
  EXPECT_EQ(route_error("10.0.0.0/8 -> 4"), prefix("10.0.0.0/8 -> 4") + "port 4 does not exist");
  EXPECT_EQ(route_error("10.0.0.0/8 -> 4", 5), "(no error)");
  // Numbers are strictly decimal: no wrap-around, no signs.
  EXPECT_EQ(route_error("4294967306.0.0.0/8 -> 1"), prefix("4294967306.0.0.0/8 -> 1") + "address octets must be 0-255");
  EXPECT_EQ(route_error("10.0.0.0/4294967304 -> 1"), prefix("10.0.0.0/4294967304 -> 1") + "prefix length must be 0-32");
  EXPECT_EQ(route_error("10.0.0.0/8 -> 4294967297"), prefix("10.0.0.0/8 -> 4294967297") + shape);
  EXPECT_EQ(route_error("10.0.0.0/8 -> -1"), prefix("10.0.0.0/8 -> -1") + shape);
  EXPECT_EQ(route_error("10.0.0.+1/8 -> 1"), prefix("10.0.0.+1/8 -> 1") + "address octets must be 0-255");
  // A bad second entry is named, not the first.
  EXPECT_EQ(route_error("10.0.0.0/8 -> 1; 1.2.3.4/40 -> 0"), prefix("1.2.3.4/40 -> 0") + "prefix length must be 0-32");
}

// Routes for a 4-port switch; default_port -1: drop; latency in cycles of the 1 GHz clock.
fs::RoutingConfig routing(const std::string& routes, int default_port, unsigned latency) {
  fs::RoutingConfig c;
  c.routes = routes;
  c.default_route = default_port < 0 ? "drop" : std::to_string(default_port);
  c.latency_cycles = latency;
  return c;
}
const fs::Clock kClock = fs::Clock::from_ghz(1.0);

struct RouterBench {
  fs::DropLedger drops;
  Script script{"script"};
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  fs::Router router;
  RouterBench(const std::string& routes, int default_port, unsigned latency)
      : router("router", routing(routes, default_port, latency), 4, kClock, drops) {
    for (int p = 0; p < 4; ++p) {
      sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
      router.egress.bind(*sinks.back());
    }
  }
  void send(Picos t, Bytes data) {
    script.at(t, [this, d = std::move(data)]() { router.accept(make_packet(d)); });
  }
};

TEST(BlocksRouter, LongestPrefixMatchAndDefault) {
  quiet_systemc();
  // Routes given shortest-first; the longest matching prefix must win whatever the order.
  const char* orders[] = {"10.0.0.0/8 -> 1; 10.1.0.0/16 -> 2; 10.1.2.0/24 -> 3",
                          "10.1.2.0/24 -> 3; 10.1.0.0/16 -> 2; 10.0.0.0/8 -> 1"};
  for (int i = 0; i < 2; ++i) {
    const char* routes = orders[i];
    fs::DropLedger drops;
    fs::Router r(("r" + std::to_string(i)).c_str(), routing(routes, 0, 0), 4, kClock, drops);
    EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(10, 1, 2, 5)))), 3) << routes;    // /24
    EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(10, 1, 2, 255)))), 3) << routes;  // /24
    EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(10, 1, 3, 0)))), 2) << routes;    // /16 only
    EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(10, 200, 0, 1)))), 1) << routes;  // /8 only
    EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(11, 0, 0, 1)))), 0) << routes;    // default port 0
    EXPECT_EQ(r.lookup(*make_packet(non_ipv4_frame())), 0) << routes;             // default
  }
  // With default drop, an unmatched frame gets -1; a /0 route catches every IPv4 frame but not
  // a non-IPv4 one, which still takes the default.
  fs::DropLedger drops;
  fs::Router d("d", routing("10.1.0.0/16 -> 2", -1, 0), 4, kClock, drops);
  EXPECT_EQ(d.lookup(*make_packet(frame_to(ip(10, 2, 0, 1)))), -1);
  fs::Router z("z", routing("0.0.0.0/0 -> 1; 10.1.0.0/16 -> 2", 3, 0), 4, kClock, drops);
  EXPECT_EQ(z.lookup(*make_packet(frame_to(ip(192, 168, 1, 1)))), 1);
  EXPECT_EQ(z.lookup(*make_packet(frame_to(ip(10, 1, 0, 1)))), 2);
  EXPECT_EQ(z.lookup(*make_packet(non_ipv4_frame())), 3);
}

TEST(BlocksRouter, ForwardsAfterLatencyAndDropsWithoutRoute) {
  quiet_systemc();
  // Latency 2 cycles (2000 ps), default drop. 10.1.2.5 -> port 3 (/24), 10.9.9.9 -> port 1 (/8);
  // 11.0.0.1 and the non-IPv4 frame have no route: 2 x no_route.
  RouterBench b("10.0.0.0/8 -> 1; 10.1.2.0/24 -> 3", -1, 2);
  b.send(1000, frame_to(ip(10, 1, 2, 5)));
  b.send(1500, frame_to(ip(11, 0, 0, 1)));
  b.send(2000, non_ipv4_frame());
  b.send(2500, frame_to(ip(10, 9, 9, 9)));
  sc_core::sc_start();
  EXPECT_TRUE(b.sinks[0]->got.empty());
  EXPECT_TRUE(b.sinks[2]->got.empty());
  ASSERT_EQ(b.sinks[3]->got.size(), 1u);
  EXPECT_EQ(b.sinks[3]->got[0].time, 3000u);
  EXPECT_EQ(b.sinks[3]->got[0].pkt->data, frame_to(ip(10, 1, 2, 5)));
  ASSERT_EQ(b.sinks[1]->got.size(), 1u);
  EXPECT_EQ(b.sinks[1]->got[0].time, 4500u);
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["no_route"], 2u);
}

TEST(BlocksRouter, AMulticastRouteIsWrittenAsParseRoutesReadsIt) {
  EXPECT_EQ(fs::multicast_route(0xEF010203u, {3, 0, 7}), "239.1.2.3/32 -> 3,0,7 multicast");
  const std::vector<fs::Route> r = fs::parse_routes(fs::multicast_route(0xEF010203u, {3, 0, 7}), 8);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].multicast);
  EXPECT_EQ(r[0].prefix, 0xEF010203u);
  EXPECT_EQ(r[0].length, 32u);
  EXPECT_EQ(r[0].ports, (std::vector<unsigned>{3, 0, 7}));
}

TEST(BlocksRouter, AMulticastRouteSendsACopyOutOfEachListedPortButTheIngress) {
  quiet_systemc();
  RouterBench b("239.0.0.1/32 -> 0,1,3 multicast; 239.0.0.2/32 -> 2 multicast", -1, 0);
  b.script.at(1000, [&b]() {
    fs::PacketPtr p = make_packet(frame_to(ip(239, 0, 0, 1)));
    p->ingress_port = 1;
    b.router.accept(std::move(p));
  });
  b.script.at(2000, [&b]() {
    fs::PacketPtr p = make_packet(frame_to(ip(239, 0, 0, 2)));
    p->ingress_port = 2;  // its only port is the one it came in on
    b.router.accept(std::move(p));
  });
  sc_core::sc_start();
  ASSERT_EQ(b.sinks[0]->got.size(), 1u);
  ASSERT_EQ(b.sinks[3]->got.size(), 1u);
  EXPECT_TRUE(b.sinks[1]->got.empty());
  EXPECT_TRUE(b.sinks[2]->got.empty());
  EXPECT_EQ(b.sinks[0]->got[0].pkt->data, frame_to(ip(239, 0, 0, 1)));
  EXPECT_EQ(b.sinks[3]->got[0].pkt->data, frame_to(ip(239, 0, 0, 1)));
  EXPECT_NE(b.sinks[0]->got[0].pkt.get(), b.sinks[3]->got[0].pkt.get());  // copies, not one packet twice
  EXPECT_EQ(b.router.multicast, 1u);
  EXPECT_EQ(b.router.multicast_copies, 2u);
  EXPECT_EQ(b.drops.by_cause["filtered"], 1u);
}

TEST(BlocksRouter, DefaultPortTakesUnroutedAndNonIpv4) {
  quiet_systemc();
  // Default port 2, latency 0: the unrouted IPv4 frame and the non-IPv4 frame both go to 2.
  RouterBench b("10.0.0.0/8 -> 1", 2, 0);
  b.send(100, frame_to(ip(11, 0, 0, 1)));
  b.send(200, non_ipv4_frame());
  b.send(300, frame_to(ip(10, 0, 0, 7)));
  sc_core::sc_start();
  ASSERT_EQ(b.sinks[2]->got.size(), 2u);
  EXPECT_EQ(b.sinks[2]->got[0].time, 100u);
  EXPECT_EQ(b.sinks[2]->got[1].pkt->data, non_ipv4_frame());
  ASSERT_EQ(b.sinks[1]->got.size(), 1u);
  EXPECT_EQ(b.sinks[1]->got[0].time, 300u);
  EXPECT_EQ(b.drops.total(), 0u);
}

// An Ethernet + IPv6 (no extension header) + UDP frame to `dst`, with `tags` 802.1Q tags.
Bytes frame6_to(const char* dst, int tags = 0) {
  Bytes f = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
  for (int t = 0; t < tags; ++t) f.insert(f.end(), {0x81, 0x00, 0x00, uint8_t(10 + t)});
  f.insert(f.end(), {0x86, 0xdd, 0x60, 0, 0, 0, 0x00, 0x08, 17, 64});
  uint8_t a[16];
  EXPECT_EQ(inet_pton(AF_INET6, "2001:db8::99", a), 1);
  f.insert(f.end(), a, a + 16);
  EXPECT_EQ(inet_pton(AF_INET6, dst, a), 1) << dst;
  f.insert(f.end(), a, a + 16);
  f.insert(f.end(), {0x03, 0xe8, 0x07, 0xd0, 0x00, 0x08, 0x00, 0x00});  // UDP 1000 -> 2000, no payload
  return f;
}

// frame_to() with 802.1Q tags (VLAN 10, 11, ...) between the MAC addresses and the EtherType.
Bytes tagged(Bytes f, int tags) {
  for (int t = tags - 1; t >= 0; --t) f.insert(f.begin() + 12, {0x81, 0x00, 0x00, uint8_t(10 + t)});
  return f;
}

TEST(BlocksRouter, ParseRoutesAcceptsIpv6) {
  const std::vector<Route> r = parse_routes("2001:db8::/32 -> 1; 2001:db8:1:7::1/62 -> 2; ::/0 -> 3; 10.0.0.0/8 -> 0", 4);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].family, fs::IpVersion::kIpv6);
  EXPECT_EQ(r[0].length, 32u);
  EXPECT_EQ(r[0].ports, std::vector<unsigned>{1});
  const std::array<uint8_t, 16> db8 = {0x20, 0x01, 0x0d, 0xb8};
  EXPECT_EQ(r[0].prefix6, db8);
  // Host bits beyond /62 are cleared: the fourth group 0x0007 keeps its bits above bit 62 (0x0004).
  const std::array<uint8_t, 16> net62 = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x04};
  EXPECT_EQ(r[1].prefix6, net62);
  EXPECT_EQ(r[1].length, 62u);
  EXPECT_EQ(r[2].length, 0u);
  EXPECT_EQ(r[2].prefix6, (std::array<uint8_t, 16>{}));
  EXPECT_EQ(r[3].family, fs::IpVersion::kIpv4);
}

TEST(BlocksRouter, ParseRoutesRejectsIpv6WithExactMessages) {
  const std::string shape = "expected 'x:x::x/len -> ports [dst|ecmp|adaptive]'";
  EXPECT_EQ(route_error("2001:db8::/32"), prefix("2001:db8::/32") + shape);
  EXPECT_EQ(route_error("2001:db8:: -> 1"), prefix("2001:db8:: -> 1") + shape);
  EXPECT_EQ(route_error("2001:db8::/32 -> x"), prefix("2001:db8::/32 -> x") + shape);
  EXPECT_EQ(route_error("2001:db8::g/32 -> 1"), prefix("2001:db8::g/32 -> 1") + "not an IPv6 address");
  EXPECT_EQ(route_error("2001:db8:::1/32 -> 1"), prefix("2001:db8:::1/32 -> 1") + "not an IPv6 address");
  EXPECT_EQ(route_error("2001:db8::/129 -> 1"), prefix("2001:db8::/129 -> 1") + "prefix length must be 0-128");
  EXPECT_EQ(route_error("2001:db8::/32 -> 4"), prefix("2001:db8::/32 -> 4") + "port 4 does not exist");
}

TEST(BlocksRouter, Ipv6LongestPrefixMatchAndFamiliesApart) {
  quiet_systemc();
  fs::DropLedger drops;
  // /62 covers the fourth group 4..7; the IPv4 /0 route catches no IPv6 packet and the IPv6 /0
  // route no IPv4 one.
  fs::Router r("r", routing("2001:db8::/32 -> 1; 2001:db8:1::/48 -> 2; 2001:db8:1:4::/62 -> 3; 0.0.0.0/0 -> 0", -1, 0),
               4, kClock, drops);
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8:1:7::5"))), 3);   // /62
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8:1:4::"))), 3);    // /62
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8:1:8::"))), 2);    // /48 only
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8:1:3::"))), 2);    // /48 only
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8:ffff::1"))), 1);  // /32 only
  EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db9::1"))), -1);      // no IPv6 route
  EXPECT_EQ(r.lookup(*make_packet(frame_to(ip(192, 168, 0, 1)))), 0);   // IPv4 /0
  fs::Router six("six", routing("::/0 -> 2", 3, 0), 4, kClock, drops);
  EXPECT_EQ(six.lookup(*make_packet(frame6_to("fe80::1"))), 2);
  EXPECT_EQ(six.lookup(*make_packet(frame_to(ip(10, 0, 0, 1)))), 3);  // the default port
}

TEST(BlocksRouter, VlanTaggedFramesAreRoutedOnTheirInnerHeader) {
  quiet_systemc();
  fs::DropLedger drops;
  fs::Router r("r", routing("10.1.0.0/16 -> 2; 2001:db8::/32 -> 3", -1, 0), 4, kClock, drops);
  for (int tags : {1, 2}) {
    EXPECT_EQ(r.lookup(*make_packet(tagged(frame_to(ip(10, 1, 2, 3)), tags))), 2) << tags;
    EXPECT_EQ(r.lookup(*make_packet(frame6_to("2001:db8::7", tags))), 3) << tags;
    EXPECT_EQ(r.lookup(*make_packet(tagged(frame_to(ip(10, 2, 0, 1)), tags))), -1) << tags;
  }
}

TEST(BlocksRouter, Ipv6MissesAreDroppedAsNoRoute) {
  quiet_systemc();
  // Default drop: the routed IPv6 frame leaves on port 1 after 2 cycles, the unrouted one (and an
  // IPv4 frame, with no IPv4 route) are counted as no_route.
  RouterBench b("2001:db8::/32 -> 1", -1, 2);
  b.send(1000, frame6_to("2001:db8::1"));
  b.send(1100, frame6_to("2001:db9::1"));
  b.send(1200, frame_to(ip(10, 0, 0, 1)));
  sc_core::sc_start();
  ASSERT_EQ(b.sinks[1]->got.size(), 1u);
  EXPECT_EQ(b.sinks[1]->got[0].time, 3000u);
  EXPECT_EQ(b.sinks[1]->got[0].pkt->data, frame6_to("2001:db8::1"));
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["no_route"], 2u);
  EXPECT_EQ(b.router.routed, 1u);
}

}  // namespace
}  // namespace fs_tb
