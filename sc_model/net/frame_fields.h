// What the headers of any Ethernet frame say, for the rules that give captured packets their
// ingress ports and for trace filters: MAC addresses, the outer 802.1Q/802.1ad VLAN tag, the
// ethertype after the tags, IPv4/IPv6 addresses and protocol, UDP/TCP ports. Also the text forms
// of MAC and IP addresses and IP prefixes that trace lines, port tables and filters use. The walk
// never throws and takes what is there: a frame cut short just has fewer fields. It is lenient
// on purpose, unlike the switch's walk_headers (net/headers.h), which refuses what the parser
// must drop: frames captured on a host with checksum offload carry wrong IPv4 checksums and
// still need their ports and addresses read.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fs {

using Mac = std::array<uint8_t, 6>;

// An IPv4 (bytes 0..3) or IPv6 (bytes 0..15) address; version 0 = none.
struct IpAddr {
  int version = 0;
  std::array<uint8_t, 16> b{};
  size_t bytes() const { return version == 6 ? 16 : 4; }
  bool operator==(const IpAddr& o) const { return version == o.version && b == o.b; }
};

// An address and a prefix length (0..32 for IPv4, 0..128 for IPv6).
struct IpPrefix {
  IpAddr addr;
  unsigned len = 0;
  bool contains(const IpAddr& a) const;
};

struct FrameFields {
  bool eth = false;      // the frame holds a 14-byte Ethernet header; nothing below is set otherwise
  Mac dst_mac{}, src_mac{};
  int vlan = -1;         // the outer tag's VLAN id (0x8100 or 0x88a8), -1 if untagged
  uint16_t ethertype = 0;  // after the VLAN tags
  IpAddr src_ip, dst_ip;   // version 0 without a whole IPv4/IPv6 header
  int ip_proto = -1;       // IPv4 protocol / IPv6 next header after extension headers, -1 without IP
  bool l4_ports = false;   // a UDP or TCP header's ports are present (not in later IP fragments)
  uint16_t sport = 0, dport = 0;
};

FrameFields frame_fields(const uint8_t* data, size_t len);

// "02:00:00:00:00:07" (or '-' between the bytes), either case.
bool parse_mac(const std::string& s, Mac* out);
std::string format_mac(const Mac& m);
// Dotted IPv4 ("10.0.0.1") or IPv6 in RFC 4291 text ("fd00::1").
bool parse_ip(const std::string& s, IpAddr* out);
std::string format_ip(const IpAddr& a);
// "ADDR" (the whole address) or "ADDR/LEN". Sets *err to a short reason when false; an address
// with bits set beyond its prefix ("10.0.0.1/24") is refused.
bool parse_ip_prefix(const std::string& s, IpPrefix* out, std::string* err);

}  // namespace fs
