// Two switches in one simulation: an egress port of the first linked to an ingress port of the
// second. A routed frame crosses both; its timing is computed by hand from the block latencies.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "protocols/flare_dense/flare_setup.h"
#include "net/frame.h"
#include "switch/switch.h"

namespace fs {
namespace {

TEST(TopologyTwoSwitches, RoutedFrameCrossesALink) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  Config cfg;
  cfg.ports.count = 4;
  flare_config(cfg).ports = "0-1";
  cfg.parser.latency_cycles = 3;
  cfg.routing.latency_cycles = 5;
  Config a_cfg = cfg;
  a_cfg.routing.routes = "10.9.0.0/16 -> 1";
  Config b_cfg = cfg;
  b_cfg.routing.default_route = "2";
  Switch a("a", a_cfg), b("b", b_cfg);
  a.link(1, b, 0);

  const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
  const uint8_t payload[100] = {};
  auto p = std::make_shared<Packet>();
  p->data = build_udp_frame(mac, mac, 0x0A010000u, 0x0A090001u, 1000, 2000, payload, sizeof payload);
  ASSERT_EQ(p->data.size(), 142u);  // 14 + 20 + 8 + 100
  p->ingress_port = 3;
  a.load({p});

  std::vector<std::pair<unsigned, Picos>> a_out, b_out;
  a.on_departure([&](unsigned port, Picos t, const Packet&) { a_out.emplace_back(port, t); });
  b.on_departure([&](unsigned port, Picos t, const Packet&) { b_out.emplace_back(port, t); });
  sc_core::sc_start();

  // (142 + 24) bytes at 100 Gbit/s = 1328 bits / 100 = 13.28 ns per wire crossing;
  // each switch adds parser 3 + routing 5 cycles = 8 ns at 1 GHz.
  const Picos wire = 13280, hop = 8000;
  ASSERT_EQ(a_out.size(), 1u);
  EXPECT_EQ(a_out[0].first, 1u);
  EXPECT_EQ(a_out[0].second, wire + hop);
  ASSERT_EQ(b_out.size(), 1u);
  EXPECT_EQ(b_out[0].first, 2u);
  EXPECT_EQ(b_out[0].second, (wire + hop) + wire + hop);
  EXPECT_EQ(b.ingress()[0]->packets_in, 1u);
  EXPECT_EQ(b.drops.total(), 0u);
}

}  // namespace
}  // namespace fs
