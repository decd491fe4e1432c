// rina frames: the header's bytes where rina_proto.h puts them (written out by hand below), a
// TASK's member list and a GRAD's values read back as built, and every malformed packet refused
// with its reason.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "net/ecn.h"
#include "protocols/rina/rina_frame.h"

namespace fs {
namespace {

TEST(RinaFrame, AGradsHeaderBytesAndValues) {
  rina_header_t h{};
  h.kind = RINA_GRAD, h.iteration = 0x0102, h.chunk = 3, h.step = 4, h.groups = 9, h.packet = 0x0A0B, h.slot = 300;
  h.member = 2, h.members = 5;
  const Bytes f = build_rina_packet(h, 6, fs_fabric_switch_ipv4(3), {1, -2});
  const uint8_t expected[] = {RINA_GRAD, 0x00,  // kind, flags
                              0x01, 0x02,       // iteration
                              0x00, 0x03,       // chunk
                              0x00, 0x04,       // step
                              0x00, 0x09,       // groups
                              0x0A, 0x0B,       // packet
                              0x01, 0x2C,       // slot 300
                              0x00, 0x02,       // 2 values
                              2,    5,          // member, members
                              0x00, 0x00,       // reserved
                              0x00, 0x00, 0x00, 0x00,  // next: none
                              1,    0,    0,    0,    0xFE, 0xFF, 0xFF, 0xFF};
  ASSERT_EQ(f.size(), RINA_PAYLOAD_OFFSET + sizeof expected);
  EXPECT_EQ(Bytes(f.begin() + RINA_PAYLOAD_OFFSET, f.end()), Bytes(expected, expected + sizeof expected));
  RinaPacket p;
  std::string why;
  ASSERT_TRUE(parse_rina_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.h.slot, 300);
  EXPECT_EQ(p.h.member, 2);
  EXPECT_EQ(p.values, (std::vector<int32_t>{1, -2}));
  EXPECT_EQ(p.src_ipv4, fs_host_ipv4(6));
  EXPECT_EQ(p.dst_ipv4, 0x0A020003u);  // 10.2.0.3
  EXPECT_EQ(ecn_of(f), Ecn::kEct0);
}

TEST(RinaFrame, ATaskCarriesTheGroupsWorkersAndTheNextGroup) {
  rina_header_t h{};
  h.kind = RINA_TASK, h.chunk = 1, h.step = 1, h.groups = 2, h.packet = 17, h.next = fs_host_ipv4(8);
  const Bytes f = build_rina_packet(h, 4, fs_fabric_switch_ipv4(1), {}, {fs_host_ipv4(4), fs_host_ipv4(5)});
  ASSERT_EQ(f.size(), RINA_PAYLOAD_OFFSET + RINA_HEADER_BYTES + 8);
  const uint8_t* u = f.data() + RINA_PAYLOAD_OFFSET;
  EXPECT_EQ(u[RINA_OFF_MEMBERS], 2);  // set from the list
  EXPECT_EQ(fs_be32(u + RINA_OFF_NEXT), 0x0A010008u);
  EXPECT_EQ(fs_be32(u + RINA_HEADER_BYTES), 0x0A010004u);
  EXPECT_EQ(fs_be32(u + RINA_HEADER_BYTES + 4), 0x0A010005u);
  RinaPacket p;
  std::string why;
  ASSERT_TRUE(parse_rina_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.members, (std::vector<uint32_t>{fs_host_ipv4(4), fs_host_ipv4(5)}));
  EXPECT_TRUE(p.values.empty());
  EXPECT_EQ(p.h.packet, 17);
}

TEST(RinaFrame, BadHeadersAreRefusedWithTheirReason) {
  const auto refused = [](rina_header_t h, std::vector<int32_t> values = {}) {
    try {
      build_rina_packet(h, 0, fs_fabric_switch_ipv4(1), values, h.kind == RINA_TASK ? std::vector<uint32_t>{1} : std::vector<uint32_t>{});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("built");
  };
  rina_header_t h{};
  h.kind = RINA_DATA, h.chunk = 0, h.step = 1, h.groups = 3;
  EXPECT_EQ(refused(h, {1}), "built");
  h.step = 5;
  EXPECT_EQ(refused(h, {1}), "built");  // 2G - 1
  h.step = 6;
  EXPECT_EQ(refused(h, {1}), "rina packet: step 6 of a ring of 3 groups (1 to 5; a TASK, PULL or GRAD at most 3)");
  h.step = 1, h.chunk = 3;
  EXPECT_EQ(refused(h, {1}), "rina packet: chunk 3 of 3");
  h.chunk = 0, h.groups = 0;
  EXPECT_EQ(refused(h, {1}), "rina packet: 0 groups (1 to 4096)");
  h.groups = 3, h.kind = 6;
  EXPECT_EQ(refused(h), "rina packet: kind 6 (1 TASK to 5 ACK)");
  h.kind = RINA_ACK, h.flags = 0;
  EXPECT_EQ(refused(h), "rina packet: an ACK of no packets (members 0)");
  h.members = 1, h.flags = RINA_FLAG_FULL;
  EXPECT_EQ(refused(h), "rina packet: flags 128 on a packet of kind 5 (only DATA is FULL, only an ACK ECE, only a GRAD SUM)");
  h.flags = RINA_FLAG_ECE;
  EXPECT_EQ(refused(h), "built");
  h.kind = RINA_DATA;
  EXPECT_EQ(refused(h, {1}), "rina packet: flags 64 on a packet of kind 4 (only DATA is FULL, only an ACK ECE, only a GRAD SUM)");
  h.kind = RINA_ACK;
  h.flags = 1;
  EXPECT_EQ(refused(h), "rina packet: padding bits set in the flags byte (1)");
  h.flags = 0;
  EXPECT_EQ(refused(h, {1}), "rina packet: 1 values on a packet of kind 5 (GRAD and DATA carry 1 to 256)");
  h.next = 5;
  EXPECT_EQ(refused(h), "rina packet: a next group on a packet of kind 5");
  h.kind = RINA_GRAD, h.next = 0, h.members = 2, h.member = 2;
  EXPECT_EQ(refused(h, {1}), "rina packet: member 2 of a group of 2 (1 to 32)");
  h.member = 1, h.step = 4;
  EXPECT_EQ(refused(h, {1}), "rina packet: step 4 of a ring of 3 groups (1 to 5; a TASK, PULL or GRAD at most 3)");
  // A switch's sum: its members' bitmap in next, holding its member, within the group.
  h.step = 1, h.members = 3, h.member = 1, h.flags = RINA_FLAG_SUM, h.next = 0x6;
  EXPECT_EQ(refused(h, {1}), "built");
  h.next = 0x5;
  EXPECT_EQ(refused(h, {1}), "rina packet: a sum of members 5 (a bitmap) from member 1 of a group of 3");
  h.next = 0xA;
  EXPECT_EQ(refused(h, {1}), "rina packet: a sum of members 10 (a bitmap) from member 1 of a group of 3");
  h.next = 0;
  EXPECT_EQ(refused(h, {1}), "rina packet: a SUM GRAD naming no members");
  h.kind = RINA_DATA, h.next = 0x6;
  EXPECT_EQ(refused(h, {1}),
            "rina packet: flags 32 on a packet of kind 4 (only DATA is FULL, only an ACK ECE, only a GRAD SUM)");
  h.flags = 0, h.next = 0;
  h.kind = RINA_TASK, h.step = 1;
  EXPECT_EQ(refused(h), "rina packet: a TASK naming no next group");
}

TEST(RinaFrame, MalformedPacketsAreNotRead) {
  rina_header_t h{};
  h.kind = RINA_DATA, h.chunk = 1, h.step = 2, h.groups = 2;
  const Bytes good = build_rina_packet(h, 3, fs_host_ipv4(4), {10, 20});
  const auto why_not = [](const Bytes& f) {
    RinaPacket p;
    std::string why;
    return parse_rina_packet(f.data(), f.size(), &p, &why) ? std::string("read") : why;
  };
  EXPECT_EQ(why_not(good), "read");
  auto with = [&good](size_t offset, uint8_t byte) {
    Bytes f = good;
    f[RINA_PAYLOAD_OFFSET + offset] = byte;
    return f;
  };
  EXPECT_EQ(why_not(with(RINA_OFF_RESERVED + 1, 1)), "reserved header bytes not 0");
  EXPECT_EQ(why_not(with(RINA_OFF_ELEMENTS + 1, 3)), "8 bytes after the header where it says 12");
  EXPECT_EQ(why_not(with(RINA_OFF_KIND, 0)), "kind 0 (1 TASK to 5 ACK)");
  EXPECT_EQ(why_not(Bytes(good.begin(), good.begin() + 20)), "not an IPv4/UDP frame");
}

}  // namespace
}  // namespace fs
