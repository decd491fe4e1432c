// The rina switch handler (handlers/rina/rina.c) run natively, packet by packet, on a switch of 2
// clusters with 8 slots (slot i in cluster i mod 2) whose address is 1 (10.2.0.1), hosts on the
// ports of their number: a rack of hosts 0-2 (agent host 0) behind it, the next group's entry host
// 4 in a ring of 3 groups. The agent's TASK sets the group up and goes to the rack as a PULL; the
// rack's GRADs are summed (sums worked out here, wrapping) and sent on to the next group as
// DATA from the switch, at step G complete (FULL) and first multicast to the rack; duplicates and
// a slot holding another packet dropped; ACKs of the switch's sums multicast to the rack, ACKs of
// relays consumed; FULL DATA for the agent multicast to the rack and relayed to the next group
// (but at the chunk's last step only delivered); other rina packets forwarded; malformed packets
// and GRADs before a TASK dropped.
#include <gtest/gtest.h>

#include "blocks/handler_harness.h"
#include "config/config.h"
#include "fs_packet.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_frame.h"
#include "rina/rina_switch.h"

namespace fs_tb {
namespace {

constexpr unsigned kNext = 4;  // the next group's entry
const uint32_t kSelf = fs_fabric_switch_ipv4(1);

fs::Config switch_cfg() {
  fs::Config c;
  c.pspin.clusters = 2;
  c.ports.count = 8;
  fs::RinaConfig& r = fs::rina_config(c);
  r.aggregators = 8, r.switch_address = 1;
  return c;
}

rina_header_t header(uint8_t kind, uint16_t chunk, uint16_t step, uint16_t groups = 3) {
  rina_header_t h{};
  h.kind = kind, h.chunk = chunk, h.step = step, h.groups = groups, h.iteration = 7;
  return h;
}

fs::RinaPacket read(const fs::Bytes& f) {
  fs::RinaPacket p;
  std::string why;
  EXPECT_TRUE(fs::parse_rina_packet(f.data(), f.size(), &p, &why)) << why;
  return p;
}

class RinaHandler : public ::testing::Test {
 protected:
  RinaHandler() : h_(switch_cfg(), "rina") { h_.set_routes(&routes_); }
  std::string run(const fs::Bytes& f, uint32_t port = 0) {
    last_ = h_.run(f, port);
    return h_.outcome_name(last_.outcome);
  }
  // The agent's task for chunk `chunk` at `step`: the rack is hosts 0-2, the next group host 4.
  std::string task(uint16_t chunk, uint16_t step, uint16_t groups = 3) {
    rina_header_t t = header(RINA_TASK, chunk, step, groups);
    t.next = fs_host_ipv4(kNext), t.packet = 2;
    return run(fs::build_rina_packet(t, 0, kSelf, {}, {fs_host_ipv4(0), fs_host_ipv4(1), fs_host_ipv4(2)}));
  }
  std::string grad(uint8_t member, uint16_t chunk, uint16_t step, uint16_t packet, uint16_t slot,
                   std::vector<int32_t> values, uint16_t groups = 3) {
    rina_header_t g = header(RINA_GRAD, chunk, step, groups);
    g.member = member, g.members = 3, g.packet = packet, g.slot = slot;
    return run(fs::build_rina_packet(g, member, kSelf, values), member);
  }
  const rina_slot_t& slot(uint32_t index) {
    const auto* c = reinterpret_cast<const rina_switch_config_t*>(h_.l1(0));
    return *reinterpret_cast<const rina_slot_t*>(h_.l1(index % 2) + c->slots_offset + (index / 2) * RINA_SLOT_BYTES);
  }
  HandlerHarness h_;
  HostsOnTheirPorts routes_{8};
  HandlerCall last_;
};

TEST_F(RinaHandler, ATaskSetsUpTheGroupAndPullsTheRack) {
  EXPECT_EQ(task(1, 2), "tasked");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].kind, SentFrame::kMulticast);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  const fs::RinaPacket p = read(last_.sent[0].data);
  EXPECT_EQ(p.h.kind, RINA_PULL);
  EXPECT_EQ(p.h.chunk, 1);
  EXPECT_EQ(p.h.step, 2);
  EXPECT_EQ(p.h.iteration, 7);
  EXPECT_EQ(p.h.packet, 2);  // the chunk's packets
  EXPECT_EQ(p.h.members, 3);
  EXPECT_EQ(p.h.next, 0u);
  EXPECT_EQ(last_.sent[0].data.size(), size_t(RINA_PAYLOAD_OFFSET + RINA_HEADER_BYTES));  // the header alone
  EXPECT_EQ(p.src_ipv4, kSelf);
  EXPECT_EQ(p.dst_ipv4, rina_group_ipv4(fs_host_ipv4(0)));  // the group's address: 239.1.0.0
  EXPECT_EQ(p.dst_ipv4, 0xEF010000u);
  const auto* c = reinterpret_cast<const rina_switch_config_t*>(h_.l1(0));
  const auto* g = reinterpret_cast<const rina_group_t*>(h_.handler_memory().data() + c->group_offset);
  EXPECT_EQ(g->valid, 1u);
  EXPECT_EQ(g->members, 3u);
  EXPECT_EQ(g->next, fs_host_ipv4(kNext));
  EXPECT_EQ(g->member[2], fs_host_ipv4(2));
  EXPECT_EQ(c->self, kSelf);
}

TEST_F(RinaHandler, TheRacksGradientsAreSummedAndSentOnToTheNextGroup) {
  ASSERT_EQ(task(1, 2), "tasked");
  EXPECT_EQ(grad(1, 1, 2, 0, 5, {1, 2, 0x7FFFFFFF}), "taken");
  EXPECT_TRUE(last_.sent.empty());
  EXPECT_EQ(slot(5).busy, 1u);
  EXPECT_EQ(slot(5).bitmap, 2u);
  EXPECT_EQ(grad(1, 1, 2, 0, 5, {9, 9, 9}), "duplicate");
  EXPECT_EQ(grad(2, 1, 2, 1, 5, {9, 9, 9}), "slot_busy");  // packet 1 naming packet 0's slot
  EXPECT_EQ(grad(2, 1, 2, 0, 5, {10, -20, 1}), "aggregated");
  EXPECT_EQ(grad(0, 1, 2, 0, 5, {100, 200, 300}), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].kind, SentFrame::kSend);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{kNext}));
  const fs::RinaPacket d = read(last_.sent[0].data);
  EXPECT_EQ(d.h.kind, RINA_DATA);
  EXPECT_EQ(d.h.flags, 0);  // step 2 of 3: a partial sum
  EXPECT_EQ(d.h.chunk, 1);
  EXPECT_EQ(d.h.step, 2);
  EXPECT_EQ(d.h.packet, 0);
  EXPECT_EQ(d.h.slot, 0);
  EXPECT_EQ(d.h.members, 0);
  // 1 + 10 + 100, 2 - 20 + 200, and 0x7fffffff + 1 + 300, which wraps to 0x8000012c.
  EXPECT_EQ(d.values, (std::vector<int32_t>{111, 182, int32_t(0x8000012Cu)}));
  EXPECT_EQ(d.src_ipv4, kSelf);
  EXPECT_EQ(d.dst_ipv4, fs_host_ipv4(kNext));
  EXPECT_EQ(slot(5).busy, 0u);
}

TEST_F(RinaHandler, TheLastSummingStepSendsTheCompleteSumToTheRackFirst) {
  ASSERT_EQ(task(2, 3), "tasked");  // step G = 3
  EXPECT_EQ(grad(0, 2, 3, 1, 2, {1}), "taken");
  EXPECT_EQ(grad(1, 2, 3, 1, 2, {2}), "aggregated");
  EXPECT_EQ(grad(2, 2, 3, 1, 2, {3}), "completed");
  ASSERT_EQ(last_.sent.size(), 2u);
  EXPECT_EQ(last_.sent[0].kind, SentFrame::kMulticast);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(last_.sent[1].ports, (std::vector<uint32_t>{kNext}));
  const fs::RinaPacket rack = read(last_.sent[0].data), next = read(last_.sent[1].data);
  for (const fs::RinaPacket* p : {&rack, &next}) {
    EXPECT_EQ(p->h.kind, RINA_DATA);
    EXPECT_EQ(p->h.flags, RINA_FLAG_FULL);
    EXPECT_EQ(p->h.step, 3);
    EXPECT_EQ(p->values, std::vector<int32_t>{6});
    EXPECT_EQ(p->src_ipv4, kSelf);
  }
  EXPECT_EQ(rack.dst_ipv4, rina_group_ipv4(fs_host_ipv4(0)));  // to the rack, addressed to its group
  EXPECT_EQ(next.dst_ipv4, fs_host_ipv4(kNext));
}

TEST_F(RinaHandler, AOneGroupRingsCompleteSumOnlyGoesToItsRack) {
  ASSERT_EQ(task(0, 1, 1), "tasked");
  EXPECT_EQ(grad(0, 0, 1, 0, 0, {4}, 1), "taken");
  EXPECT_EQ(grad(1, 0, 1, 0, 0, {5}, 1), "aggregated");
  EXPECT_EQ(grad(2, 0, 1, 0, 0, {6}, 1), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(read(last_.sent[0].data).values, std::vector<int32_t>{15});
}

TEST_F(RinaHandler, AcksOfTheSwitchsSumsGoToTheRackAndAcksOfRelaysStopHere) {
  ASSERT_EQ(task(1, 2), "tasked");
  rina_header_t a = header(RINA_ACK, 1, 2);
  a.packet = 4, a.members = 3;  // packets 4 to 6
  EXPECT_EQ(run(fs::build_rina_packet(a, kNext, kSelf, {}), kNext), "acked");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(read(last_.sent[0].data).h.packet, 4);
  EXPECT_EQ(read(last_.sent[0].data).h.members, 3);
  EXPECT_EQ(read(last_.sent[0].data).src_ipv4, fs_host_ipv4(kNext));  // the workers see who ACKed
  a.step = 4;  // of a FULL DATA this switch relayed at step 4
  EXPECT_EQ(run(fs::build_rina_packet(a, kNext, kSelf, {}), kNext), "relay_acked");
  EXPECT_TRUE(last_.sent.empty());
}

TEST_F(RinaHandler, AFullSumForTheAgentGoesToTheRackAndOnUnlessItIsTheLastStep) {
  ASSERT_EQ(task(0, 1), "tasked");
  rina_header_t d = header(RINA_DATA, 2, 3);  // group 2 completed chunk 2 at step 3: this group does step 4
  d.flags = RINA_FLAG_FULL, d.packet = 1;
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, fs_host_ipv4(0), {42, -1}), 6), "relayed");
  ASSERT_EQ(last_.sent.size(), 2u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(last_.sent[1].ports, (std::vector<uint32_t>{kNext}));
  const fs::RinaPacket rack = read(last_.sent[0].data), next = read(last_.sent[1].data);
  EXPECT_EQ(rack.h.step, 4);
  EXPECT_EQ(rack.src_ipv4, fs_host_ipv4(6));  // the agent ACKs the group before
  EXPECT_EQ(next.h.step, 4);
  EXPECT_EQ(next.src_ipv4, kSelf);
  EXPECT_EQ(next.dst_ipv4, fs_host_ipv4(kNext));
  EXPECT_EQ(next.values, (std::vector<int32_t>{42, -1}));
  d.step = 4;  // this group's step is 5 = 2G - 1, the chunk's last
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, fs_host_ipv4(0), {42, -1}), 6), "delivered");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(read(last_.sent[0].data).h.step, 5);
}

TEST_F(RinaHandler, OtherRinaPacketsAreForwarded) {
  ASSERT_EQ(task(0, 1), "tasked");
  rina_header_t d = header(RINA_DATA, 2, 1);  // a partial sum for the agent: it adds its own
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, fs_host_ipv4(0), {1}), 6), "forwarded");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0}));
  d.flags = RINA_FLAG_FULL, d.step = 3;  // complete, but for another host than the agent
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, fs_host_ipv4(5), {1}), 6), "forwarded");
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{5}));
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, fs_host_ipv4(9), {1}), 6), "no_route");
}

TEST_F(RinaHandler, AsItsGroupsEntryTheSwitchHandsAPartialSumToTheAgentAndRelaysAFullOne) {
  // A group above racks has its switch as entry: DATA comes addressed to it.
  ASSERT_EQ(task(0, 1), "tasked");
  rina_header_t d = header(RINA_DATA, 2, 1);  // a partial sum: the agent adds its own
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, kSelf, {1, 2}), 6), "to_agent");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0}));
  const fs::RinaPacket p = read(last_.sent[0].data);
  EXPECT_EQ(p.dst_ipv4, fs_host_ipv4(0));
  EXPECT_EQ(p.src_ipv4, fs_host_ipv4(6));  // the agent ACKs its sender
  EXPECT_EQ(p.values, (std::vector<int32_t>{1, 2}));
  d.flags = RINA_FLAG_FULL, d.step = 3;  // complete: to the rack, and on as step 4
  EXPECT_EQ(run(fs::build_rina_packet(d, 6, kSelf, {5}), 6), "relayed");
  ASSERT_EQ(last_.sent.size(), 2u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(read(last_.sent[0].data).dst_ipv4, rina_group_ipv4(fs_host_ipv4(0)));
  EXPECT_EQ(last_.sent[1].ports, (std::vector<uint32_t>{kNext}));
  EXPECT_EQ(read(last_.sent[1].data).h.step, 4);
}

// Hosts on their ports, and the switch above (address 9) on port 7.
struct HostsAndASwitchAbove : fs::NextHopIf {
  int next_hop_ipv4(uint32_t dst) const override {
    if (dst == fs_fabric_switch_ipv4(9)) return 7;
    for (unsigned h = 0; h < 7; ++h)
      if (dst == fs_host_ipv4(h)) return int(h);
    return -1;
  }
};

TEST(RinaHandlerPart, BelowAGroupAboveItSumsItsMembersGradsAsOneAndCopiesThePacketsDown) {
  // This switch's part of the group of switch 9 (members 0-3, agent host 0): members 1 and 2,
  // on ports 1 and 2.
  fs::Config c = switch_cfg();
  fs::RinaSumPart part;
  part.group_switch = fs_fabric_switch_ipv4(9), part.group_address = rina_group_ipv4(fs_host_ipv4(0));
  part.mask = 0x6, part.down = {1, 2};
  fs::rina_config(c).sum_parts = {part};
  HandlerHarness h(c, "rina");
  HostsAndASwitchAbove routes;
  h.set_routes(&routes);
  const auto grad = [&](uint8_t member, std::vector<int32_t> v) {
    rina_header_t g = header(RINA_GRAD, 1, 2);
    g.member = member, g.members = 4, g.packet = 3, g.slot = 5;
    return h.run(fs::build_rina_packet(g, member, fs_fabric_switch_ipv4(9), v), member);
  };
  HandlerCall r = grad(2, {10, 20});
  EXPECT_EQ(h.outcome_name(r.outcome), "taken");
  EXPECT_TRUE(r.sent.empty());
  r = grad(1, {1, 2});
  EXPECT_EQ(h.outcome_name(r.outcome), "summed_on");
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0].ports, std::vector<uint32_t>{7});
  const fs::RinaPacket up = read(r.sent[0].data);
  EXPECT_EQ(up.h.kind, RINA_GRAD);
  EXPECT_EQ(up.h.flags, RINA_FLAG_SUM);
  EXPECT_EQ(up.h.next, 0x6u);  // members 1 and 2
  EXPECT_EQ(up.h.member, 1);   // the lowest
  EXPECT_EQ(up.h.members, 4);
  EXPECT_EQ(up.h.packet, 3);
  EXPECT_EQ(up.h.slot, 5);
  EXPECT_EQ(up.values, (std::vector<int32_t>{11, 22}));
  EXPECT_EQ(up.src_ipv4, kSelf);
  EXPECT_EQ(up.dst_ipv4, fs_fabric_switch_ipv4(9));
  // A GRAD of a member not below this switch is not its part's.
  EXPECT_EQ(h.outcome_name(grad(3, {1, 2}).outcome), "malformed");
  // What switch 9 multicasts to the group comes down: a copy to each of its members here.
  rina_header_t d = header(RINA_DATA, 1, 4);
  d.flags = RINA_FLAG_FULL;
  r = h.run(fs::build_rina_packet(d, 7, part.group_address, {5}), 7);
  EXPECT_EQ(h.outcome_name(r.outcome), "copied");
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0].kind, SentFrame::kMulticast);
  EXPECT_EQ(r.sent[0].ports, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(read(r.sent[0].data).dst_ipv4, part.group_address);
}

TEST(RinaHandlerFresh, GradientsAndAcksBeforeAnyTaskAreDropped) {
  HandlerHarness h(switch_cfg(), "rina");
  rina_header_t g = header(RINA_GRAD, 0, 1);
  g.members = 3;
  EXPECT_EQ(h.outcome_name(h.run(fs::build_rina_packet(g, 0, kSelf, {1})).outcome), "no_group");
  rina_header_t a = header(RINA_ACK, 0, 1);
  a.members = 1;
  EXPECT_EQ(h.outcome_name(h.run(fs::build_rina_packet(a, 0, kSelf, {})).outcome), "no_group");
}

TEST_F(RinaHandler, MalformedPacketsAreDropped) {
  ASSERT_EQ(task(0, 1), "tasked");
  rina_header_t g = header(RINA_GRAD, 0, 1);
  g.members = 3, g.slot = 1;
  const fs::Bytes good = fs::build_rina_packet(g, 0, kSelf, {1, 2});
  EXPECT_EQ(run(fs::Bytes(good.begin(), good.begin() + 40)), "malformed");  // cut short
  fs::Bytes bad = good;
  bad[RINA_PAYLOAD_OFFSET + RINA_OFF_KIND] = 9;
  EXPECT_EQ(run(bad), "malformed");
  bad = good;
  bad[RINA_PAYLOAD_OFFSET + RINA_OFF_RESERVED] = 1;
  EXPECT_EQ(run(bad), "malformed");
  bad = good;
  bad[RINA_PAYLOAD_OFFSET + RINA_OFF_ELEMENTS + 1] = 3;  // 3 values said, 2 carried
  EXPECT_EQ(run(bad), "malformed");
  bad = good;
  bad[RINA_PAYLOAD_OFFSET + RINA_OFF_SLOT + 1] = 8;  // slot 8 of 8
  EXPECT_EQ(run(bad), "malformed");
  EXPECT_EQ(run(good), "taken");
  g.members = 2;  // another fan-in for the same packet's sum
  EXPECT_EQ(run(fs::build_rina_packet(g, 1, kSelf, {1, 2})), "slot_busy");
  g.members = 3, g.slot = 1;
  rina_header_t p = header(RINA_PULL, 0, 1);  // pulls come from switches, not to them
  p.members = 3;
  EXPECT_EQ(run(fs::build_rina_packet(p, 0, kSelf, {})), "malformed");
  EXPECT_EQ(slot(1).busy, 1u);  // only the good GRAD took it
}

}  // namespace
}  // namespace fs_tb
