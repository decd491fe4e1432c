// Canary frames (sc_model/protocols/canary/canary_frame, handlers/canary/canary_proto.h): the
// 19-byte header's bytes at the offsets of Canary 4.1, written out here by hand, with the data
// after it; ids as application and sequence; every reason a frame is not a Canary packet.
#include "protocols/canary/canary_frame.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "fs_packet.h"

namespace fs {
namespace {

canary_header_t header() {
  canary_header_t h{};
  h.destination = fs_host_ipv4(5);
  h.id = canary_id(3, 0x0A0B0C);
  h.counter = 7;
  h.hosts = 64;
  h.children = 0x00010203;
  h.switch_address = 0x0405;
  h.flags = CANARY_FLAG_BYPASS | CANARY_FLAG_MULTICAST;
  return h;
}

TEST(CanaryFrame, HeaderBytesFollowCanary41AndElementsAreLittleEndian) {
  const Bytes f = build_canary_packet(header(), 2, {1, -2});
  ASSERT_EQ(f.size(), 42u + 19u + 8u);
  const uint32_t leader = fs_host_ipv4(5);
  const std::vector<uint8_t> want = {
      uint8_t(leader >> 24), uint8_t(leader >> 16), uint8_t(leader >> 8), uint8_t(leader),  // destination
      0x03, 0x0A, 0x0B, 0x0C,                                                               // id: app 3, sequence
      0x00, 0x07,                                                                           // counter
      0x00, 0x40,                                                                           // hosts
      0x00, 0x01, 0x02, 0x03,                                                               // children
      0x04, 0x05,                                                                           // switch address
      0xC0,                                                                                 // bypass, multicast
      0x01, 0x00, 0x00, 0x00, 0xFE, 0xFF, 0xFF, 0xFF};                                      // 1, -2
  EXPECT_EQ(std::vector<uint8_t>(f.begin() + 42, f.end()), want);
  const FrameInfo info = parse_frame(f.data(), f.size());
  ASSERT_TRUE(info.udp);
  EXPECT_EQ(info.udp_dport, CANARY_UDP_PORT_DEFAULT);
  EXPECT_EQ(info.dst_ip, leader);  // routed towards the leader, as 4.1 says
  EXPECT_EQ(info.src_ip, fs_host_ipv4(2));
}

TEST(CanaryFrame, ReadsBackWhatItBuilt) {
  std::vector<int32_t> data(CANARY_ELEMENTS);
  for (size_t i = 0; i < data.size(); ++i) data[i] = int32_t(i * 1000003u);
  const Bytes f = build_canary_packet(header(), 9, data);
  CanaryPacket p;
  std::string why;
  ASSERT_TRUE(parse_canary_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.h.destination, fs_host_ipv4(5));
  EXPECT_EQ(canary_id_app(p.h.id), 3u);
  EXPECT_EQ(canary_id_sequence(p.h.id), 0x0A0B0Cu);
  EXPECT_EQ(p.h.counter, 7u);
  EXPECT_EQ(p.h.hosts, 64u);
  EXPECT_EQ(p.h.children, 0x00010203u);
  EXPECT_EQ(p.h.switch_address, 0x0405u);
  EXPECT_EQ(p.h.flags, CANARY_FLAG_BYPASS | CANARY_FLAG_MULTICAST);
  EXPECT_EQ(p.elements, data);
}

TEST(CanaryFrame, IdsKeepTheSequencesLowBitsOnly) {
  EXPECT_EQ(canary_id(0xFF, 0xFFFFFF), 0xFFFFFFFFu);
  EXPECT_EQ(canary_id(1, 0x1000000), 0x01000000u);  // sequence 2^24 wraps to 0
  EXPECT_EQ(canary_id_app(0x12345678), 0x12u);
  EXPECT_EQ(canary_id_sequence(0x12345678), 0x345678u);
}

// The reason parse_canary_packet gives for `f`, "" if it reads.
std::string why_not(const Bytes& f, uint16_t port = CANARY_UDP_PORT_DEFAULT) {
  CanaryPacket p;
  std::string why;
  return parse_canary_packet(f.data(), f.size(), &p, &why, port) ? "" : why;
}

// A UDP frame to Canary's port with `payload` bytes.
Bytes udp_with(const Bytes& payload, uint16_t port = CANARY_UDP_PORT_DEFAULT) {
  uint8_t a[6], b[6];
  fs_host_mac(0, a);
  fs_switch_mac(b);
  return build_udp_frame(a, b, fs_host_ipv4(0), fs_host_ipv4(1), port, port, payload.data(), payload.size());
}

TEST(CanaryFrame, WhatIsNotACanaryPacketAndWhy) {
  Bytes good = build_canary_packet(header(), 0, {5});
  EXPECT_EQ(why_not(good), "");
  EXPECT_EQ(why_not(good, 4953), "UDP port 4952, not Canary's 4953");
  EXPECT_EQ(why_not(Bytes(good.begin(), good.begin() + 20)), "not an IPv4/UDP frame");
  EXPECT_EQ(why_not(udp_with(Bytes(18, 0))), "UDP payload of 18 bytes, shorter than the 19-byte Canary header");
  EXPECT_EQ(why_not(udp_with(Bytes(19 + 6, 0))), "6 data bytes, not whole int32 elements");
  Bytes padded(19, 0);
  padded[18] = 0x41;  // multicast and one padding bit
  EXPECT_EQ(why_not(udp_with(padded)), "padding bits set in the flags byte (65)");
  EXPECT_EQ(why_not(udp_with(Bytes(19, 0))), "");  // a header alone is a packet without data
  EXPECT_THROW(build_canary_packet(header(), 0, std::vector<int32_t>(16384)), InputError);
}

}  // namespace
}  // namespace fs
