// Ethernet/802.1Q/IPv4/IPv6/UDP/TCP frame builder (see frame_build.h).
#include "net/frame_build.h"

#include "common/errors.h"
#include "fs_packet.h"

namespace fs {

namespace {

constexpr size_t kMaxFrame = 65535;
constexpr uint8_t kProtoTcp = 6, kProtoUdp = 17;
constexpr size_t kTcpBytes = 20, kIpv6Bytes = 40;

void put16(Bytes& f, uint32_t v) {
  f.push_back(uint8_t(v >> 8));
  f.push_back(uint8_t(v));
}
void put32(Bytes& f, uint32_t v) {
  put16(f, v >> 16);
  put16(f, v & 0xFFFF);
}

// The one's-complement sum (RFC 1071) of the pseudo-header and the segment at f[l4..], folded
// and complemented: the UDP or TCP checksum.
uint16_t l4_checksum(const FrameSpec& s, const Bytes& f, size_t l4, uint8_t proto) {
  const size_t seg = f.size() - l4;
  uint64_t sum = 0;
  const size_t n = s.src_ip.bytes();
  for (size_t i = 0; i < n; i += 2)
    sum += (uint32_t(s.src_ip.b[i]) << 8 | s.src_ip.b[i + 1]) + (uint32_t(s.dst_ip.b[i]) << 8 | s.dst_ip.b[i + 1]);
  sum += proto;
  sum += seg >> 16;  // IPv6's 32-bit upper-layer length; IPv4's 16-bit length (seg < 2^16)
  sum += seg & 0xFFFF;
  for (size_t i = 0; i + 1 < seg; i += 2) sum += uint32_t(f[l4 + i]) << 8 | f[l4 + i + 1];
  if (seg & 1) sum += uint32_t(f[l4 + seg - 1]) << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return uint16_t(~sum);
}

}  // namespace

Bytes build_frame(const FrameSpec& s) {
  const bool ip = s.src_ip.version != 0;
  const size_t l3 = !ip ? 0 : s.src_ip.version == 6 ? kIpv6Bytes : FS_IPV4_BYTES;
  const size_t l4 = s.l4 == L4::kUdp ? FS_UDP_BYTES : s.l4 == L4::kTcp ? kTcpBytes : 0;
  const size_t total = FS_ETH_BYTES + (s.vlan >= 0 ? 4 : 0) + l3 + l4 + s.payload.size();
  if (total > kMaxFrame)
    throw InputError("frame of " + std::to_string(total) + " bytes exceeds " + std::to_string(kMaxFrame));
  const uint8_t proto = s.l4 == L4::kUdp ? kProtoUdp : s.l4 == L4::kTcp ? kProtoTcp : s.ip_proto;
  Bytes f(s.dst_mac.begin(), s.dst_mac.end());
  f.insert(f.end(), s.src_mac.begin(), s.src_mac.end());
  if (s.vlan >= 0) {
    put16(f, 0x8100);
    put16(f, uint32_t(s.vlan) & 0x0FFF);
  }
  put16(f, !ip ? s.ethertype : s.src_ip.version == 6 ? 0x86dd : FS_ETHERTYPE_IPV4);
  const size_t ip_at = f.size();
  const size_t ip_payload = l4 + s.payload.size();
  if (ip && s.src_ip.version == 4) {
    f.push_back(0x45);
    f.push_back(s.tos);
    put16(f, uint32_t(FS_IPV4_BYTES + ip_payload));
    put16(f, s.ip_id);
    put16(f, 0);  // flags, fragment offset
    f.push_back(s.ttl);
    f.push_back(proto);
    put16(f, 0);  // header checksum, below
    f.insert(f.end(), s.src_ip.b.begin(), s.src_ip.b.begin() + 4);
    f.insert(f.end(), s.dst_ip.b.begin(), s.dst_ip.b.begin() + 4);
    fs_put_be16(&f[ip_at + 10], fs_ipv4_checksum(&f[ip_at], FS_IPV4_BYTES));
  } else if (ip) {
    put32(f, 0x60000000u | uint32_t(s.tos) << 20);  // version 6, traffic class, flow label 0
    put16(f, uint32_t(ip_payload));
    f.push_back(proto);
    f.push_back(s.ttl);
    f.insert(f.end(), s.src_ip.b.begin(), s.src_ip.b.end());
    f.insert(f.end(), s.dst_ip.b.begin(), s.dst_ip.b.end());
  }
  const size_t l4_at = f.size();
  if (s.l4 == L4::kUdp) {
    put16(f, s.sport);
    put16(f, s.dport);
    put16(f, uint32_t(ip_payload));
    put16(f, 0);  // checksum, below
  } else if (s.l4 == L4::kTcp) {
    put16(f, s.sport);
    put16(f, s.dport);
    put32(f, s.seq);
    put32(f, s.ack);
    f.push_back(uint8_t((kTcpBytes / 4) << 4));  // data offset 5, no options
    f.push_back(s.tcp_flags);
    put16(f, s.window);
    put16(f, 0);  // checksum, below
    put16(f, 0);  // urgent pointer
  }
  f.insert(f.end(), s.payload.begin(), s.payload.end());
  if (s.l4 != L4::kNone) {
    uint16_t sum = l4_checksum(s, f, l4_at, proto);
    if (s.l4 == L4::kUdp && sum == 0) sum = 0xFFFF;  // 0 means "no checksum" in UDP
    fs_put_be16(&f[l4_at + (s.l4 == L4::kUdp ? 6 : 16)], sum);
  }
  return f;
}

}  // namespace fs
