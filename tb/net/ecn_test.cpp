// Tests of the ECN codepoints (sc_model/net/ecn): reading them from IPv4 and IPv6 headers (VLAN
// tags included), marking CE only on ECN-capable frames, and the IPv4 header checksum after a
// mark, checked by summing the header from scratch (RFC 791: the ones' complement sum of a
// correct header is 0xFFFF) and by the header walk, which rejects bad checksums.
#include "net/ecn.h"

#include <gtest/gtest.h>

#include "net/frame.h"
#include "net/headers.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::Ecn;

Bytes udp4(uint8_t tos) {
  uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
  const uint8_t payload[4] = {1, 2, 3, 4};
  Bytes f = fs::build_udp_frame(src, dst, 0x0A010001, 0x0A010002, 1000, 2000, payload, sizeof payload);
  // Set the TOS byte and recompute the checksum from scratch.
  f[15] = tos;
  f[24] = f[25] = 0;
  uint32_t sum = 0;
  for (int i = 14; i < 34; i += 2) sum += (f[i] << 8) | f[i + 1];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  f[24] = uint8_t(~sum >> 8), f[25] = uint8_t(~sum);
  return f;
}

uint16_t ipv4_header_sum(const Bytes& f, size_t l3 = 14) {
  uint32_t sum = 0;
  for (size_t i = l3; i < l3 + 20; i += 2) sum += (f[i] << 8) | f[i + 1];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return uint16_t(sum);
}

// Ethernet + IPv6 (traffic class `tc`) + UDP with no payload.
Bytes udp6(uint8_t tc) {
  Bytes f = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x86, 0xdd};
  f.insert(f.end(), {uint8_t(0x60 | (tc >> 4)), uint8_t(tc << 4), 0, 0, 0, 8, 17, 64});
  for (int i = 0; i < 32; ++i) f.push_back(uint8_t(i));
  f.insert(f.end(), {0x03, 0xe8, 0x07, 0xd0, 0x00, 0x08, 0x00, 0x00});
  return f;
}

TEST(NetEcn, ReadsTheCodepointOfIpv4AndIpv6) {
  EXPECT_EQ(fs::ecn_of(udp4(0x00)), Ecn::kNotEct);
  EXPECT_EQ(fs::ecn_of(udp4(0x01)), Ecn::kEct1);
  EXPECT_EQ(fs::ecn_of(udp4(0xB8 | 0x02)), Ecn::kEct0);  // DSCP EF, ECT(0)
  EXPECT_EQ(fs::ecn_of(udp4(0x03)), Ecn::kCe);
  // IPv6: the traffic class straddles the first two bytes; its low two bits are the ECN field.
  EXPECT_EQ(fs::ecn_of(udp6(0x00)), Ecn::kNotEct);
  EXPECT_EQ(fs::ecn_of(udp6(0xB9)), Ecn::kEct1);
  EXPECT_EQ(fs::ecn_of(udp6(0x02)), Ecn::kEct0);
  EXPECT_EQ(fs::ecn_of(udp6(0xFF)), Ecn::kCe);
  Bytes arp(60, 0);
  arp[12] = 0x08, arp[13] = 0x06;
  EXPECT_EQ(fs::ecn_of(arp), Ecn::kNotEct);
}

TEST(NetEcn, MarksOnlyEcnCapableFramesAndKeepsTheChecksumRight) {
  for (uint8_t tos : {uint8_t(0x01), uint8_t(0x02), uint8_t(0xBA), uint8_t(0xFE)}) {
    Bytes f = udp4(tos);
    ASSERT_EQ(ipv4_header_sum(f), 0xFFFF);
    ASSERT_TRUE(fs::mark_ce(f)) << int(tos);
    EXPECT_EQ(f[15], uint8_t(tos | 3)) << int(tos);  // DSCP kept
    EXPECT_EQ(ipv4_header_sum(f), 0xFFFF) << int(tos);
    EXPECT_TRUE(fs::walk_headers(f.data(), f.size()).ok) << int(tos);
    EXPECT_EQ(fs::ecn_of(f), Ecn::kCe);
    // Only the TOS byte and the checksum changed.
    Bytes before = udp4(tos);
    int differ = 0;
    for (size_t i = 0; i < f.size(); ++i) differ += f[i] != before[i];
    EXPECT_LE(differ, 3) << int(tos);
  }
  // Not ECN-capable, already CE, not IP: left as they are.
  for (uint8_t tos : {uint8_t(0x00), uint8_t(0xB8), uint8_t(0x03)}) {
    Bytes f = udp4(tos);
    EXPECT_FALSE(fs::mark_ce(f)) << int(tos);
    EXPECT_EQ(f, udp4(tos));
  }
  Bytes arp(60, 0);
  arp[12] = 0x08, arp[13] = 0x06;
  EXPECT_FALSE(fs::mark_ce(arp));
  // IPv6 has no header checksum: only the two bits change.
  Bytes f6 = udp6(0xB6);  // ECT(0) under DSCP 45
  ASSERT_TRUE(fs::mark_ce(f6));
  EXPECT_EQ(f6, udp6(0xB7));
}

TEST(NetEcn, SetEcnWritesAnyCodepointWithAValidChecksum) {
  Bytes f = udp4(0xB8);
  ASSERT_TRUE(fs::set_ecn(f, Ecn::kEct0));
  EXPECT_EQ(f, udp4(0xBA));
  ASSERT_TRUE(fs::set_ecn(f, Ecn::kNotEct));
  EXPECT_EQ(f, udp4(0xB8));
  Bytes f6 = udp6(0x20);
  ASSERT_TRUE(fs::set_ecn(f6, Ecn::kEct1));
  EXPECT_EQ(f6, udp6(0x21));
  Bytes arp(60, 0);
  arp[12] = 0x08, arp[13] = 0x06;
  EXPECT_FALSE(fs::set_ecn(arp, Ecn::kEct0));
}

}  // namespace
}  // namespace fs_tb
