// Ethernet/IPv4/UDP frame view and builder (see frame.h).
#include "net/frame.h"

#include "common/errors.h"
#include "net/headers.h"

namespace fs {

FrameInfo parse_frame(const uint8_t* data, size_t len) {
  const Headers h = walk_headers(data, len);
  FrameInfo info;
  info.ok = h.ok;
  info.error = h.error;
  info.ethertype = h.ethertype;
  info.ipv4 = h.ip == IpVersion::kIpv4;
  info.ip_proto = h.ip_proto;
  info.src_ip = h.src_ipv4;
  info.dst_ip = h.dst_ipv4;
  if (h.ok && h.udp) {
    info.udp = true;
    info.udp_sport = h.src_port;
    info.udp_dport = h.dst_port;
    info.l4_offset = h.payload_offset;
    info.l4_len = h.payload_len;
  }
  return info;
}

Bytes build_udp_frame(const uint8_t src_mac[6], const uint8_t dst_mac[6], uint32_t src_ip,
                      uint32_t dst_ip, uint16_t sport, uint16_t dport, const uint8_t* payload,
                      size_t len) {
  if (len > kMaxUdpPayload)
    throw InputError("UDP payload of " + std::to_string(len) + " bytes exceeds the IPv4 limit of " +
                     std::to_string(kMaxUdpPayload));
  Bytes f(FS_UDP_PAYLOAD_OFFSET + len, 0);
  for (int i = 0; i < 6; ++i) {
    f[i] = dst_mac[i];
    f[6 + i] = src_mac[i];
  }
  fs_put_be16(&f[12], FS_ETHERTYPE_IPV4);
  uint8_t* ip = &f[FS_ETH_BYTES];
  ip[0] = 0x45;  // version 4, IHL 5
  ip[1] = 0;     // DSCP/ECN
  fs_put_be16(ip + 2, uint32_t(FS_IPV4_BYTES + FS_UDP_BYTES + len));
  // identification 0, flags 0, fragment offset 0 (bytes 4..7 stay zero)
  ip[8] = 64;  // TTL
  ip[9] = FS_IPPROTO_UDP;
  fs_put_be32(ip + 12, src_ip);
  fs_put_be32(ip + 16, dst_ip);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  uint8_t* udp = ip + FS_IPV4_BYTES;
  fs_put_be16(udp, sport);
  fs_put_be16(udp + 2, dport);
  fs_put_be16(udp + 4, uint32_t(FS_UDP_BYTES + len));
  // UDP checksum 0: not computed
  for (size_t i = 0; i < len; ++i) f[FS_UDP_PAYLOAD_OFFSET + i] = payload[i];
  return f;
}

}  // namespace fs
