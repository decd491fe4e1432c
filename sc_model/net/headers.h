// Header walking: the one piece of code that finds the layers of an Ethernet frame (802.1Q and
// 802.1ad VLAN tags, IPv4 or IPv6 with its extension headers, UDP or TCP) for every block that
// looks inside a frame: the parser's rules and block ids, the router's MAC learning and prefix
// routes, the flow policy's flow key, and parse_frame (net/frame.h) for everything outside the
// switch pipeline. It never throws and never reads past the frame; a malformed frame gives
// ok = false and the first problem found.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace fs {

constexpr uint16_t kEthertypeIpv4 = 0x0800, kEthertypeIpv6 = 0x86DD;
constexpr uint16_t kTpid8021Q = 0x8100, kTpid8021ad = 0x88A8, kTpidQinQ = 0x9100;
constexpr uint8_t kIpProtoTcp = 6, kIpProtoUdp = 17;

enum class IpVersion : uint8_t { kNone, kIpv4, kIpv6 };

// What walk_headers found. Only the fields of the layers found are set; the others stay zero.
// Offsets count from the frame's first byte.
struct Headers {
  bool ok = false;
  std::string error;  // short reason when ok = false, empty otherwise

  // Ethernet: addresses as 48-bit numbers (first byte most significant), the VLAN tags (TPID
  // 0x8100, 0x88a8 or 0x9100, any number of them stacked: QinQ is two), and the EtherType
  // after the tags.
  uint64_t dst_mac = 0, src_mac = 0;
  unsigned vlan_tags = 0;
  uint16_t outer_vid = 0, inner_vid = 0;  // 12-bit VLAN ids of the first and last tag (0: untagged)
  uint16_t ethertype = 0;
  uint32_t l3_offset = 0;

  // IP: the addresses as the header carries them (IPv4: 4 bytes, IPv6: 16), the upper-layer
  // protocol (IPv4's protocol field; IPv6's last Next Header, after the extension headers
  // Hop-by-Hop, Routing, Fragment, Destination Options, Authentication, Mobility, HIP and Shim6,
  // which are skipped), and whether the packet is a fragment (IPv4: MF set or offset != 0; IPv6:
  // a Fragment header with M set or offset != 0). A fragment's L4 header is not looked at.
  IpVersion ip = IpVersion::kNone;
  uint8_t src_ip[16] = {}, dst_ip[16] = {};
  uint8_t ip_proto = 0;
  bool fragment = false;
  uint32_t src_ipv4 = 0, dst_ipv4 = 0;  // IPv4's addresses as numbers

  // L4 (UDP or TCP, not a fragment): the ports, where the L4 header starts, and the payload
  // after it (UDP: bounded by the UDP length, so Ethernet padding is excluded; TCP: after its
  // options, up to the end of the IP packet).
  bool udp = false, tcp = false;
  uint16_t src_port = 0, dst_port = 0;
  uint32_t l4_offset = 0, payload_offset = 0, payload_len = 0;

  bool ports() const { return udp || tcp; }
  unsigned ip_bytes() const { return ip == IpVersion::kIpv6 ? 16 : ip == IpVersion::kIpv4 ? 4 : 0; }
  bool multicast_dst() const { return (dst_mac >> 40) & 1; }  // the I/G bit: multicast or broadcast
};

// Walks an Ethernet II frame (no FCS). Malformed (ok = false, with the reason):
//   shorter than the 14-byte Ethernet header; a VLAN tag cut short;
//   IPv4: header truncated, version != 4, IHL < 5, total length smaller than the header or
//     larger than the bytes present, bad header checksum;
//   IPv6: header truncated, version != 6, payload length larger than the bytes present, an
//     extension header cut short by the payload length;
//   UDP: header truncated, UDP length < 8 or larger than the IP payload;
//   TCP: header truncated, data offset < 5 or beyond the IP payload.
// Other EtherTypes are ok with ip = kNone; other upper-layer protocols are ok without L4.
// Checksums other than IPv4's header checksum are not checked.
Headers walk_headers(const uint8_t* data, size_t len);

}  // namespace fs
