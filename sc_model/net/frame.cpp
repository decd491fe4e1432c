// Ethernet/IPv4/UDP frame parser and builders (see frame.h).
#include "net/frame.h"

#include "common/errors.h"

namespace fs {

namespace {

FrameInfo fail(FrameInfo info, std::string why) {
  info.ok = false;
  info.error = std::move(why);
  return info;
}

}  // namespace

FrameInfo parse_frame(const uint8_t* data, size_t len) {
  FrameInfo info;
  if (data == nullptr || len < FS_ETH_BYTES)
    return fail(info, "frame of " + std::to_string(len) + " bytes is shorter than the 14-byte "
                      "Ethernet header");
  info.ethertype = uint16_t(fs_be16(data + 12));
  if (info.ethertype != FS_ETHERTYPE_IPV4) {
    info.ok = true;
    return info;
  }
  info.ipv4 = true;
  const uint8_t* ip = data + FS_ETH_BYTES;
  const size_t avail = len - FS_ETH_BYTES;
  if (avail < FS_IPV4_BYTES)
    return fail(info, "truncated IPv4 header: " + std::to_string(avail) + " bytes");
  const unsigned version = ip[0] >> 4, ihl = ip[0] & 0x0F;
  if (version != 4) return fail(info, "IPv4 version " + std::to_string(version) + " != 4");
  if (ihl < 5) return fail(info, "IPv4 IHL " + std::to_string(ihl) + " < 5");
  const size_t hdr = size_t(ihl) * 4;
  if (hdr > avail)
    return fail(info, "truncated IPv4 header: IHL needs " + std::to_string(hdr) + " bytes, " +
                          std::to_string(avail) + " present");
  const size_t total = fs_be16(ip + 2);
  if (total < hdr)
    return fail(info, "IPv4 total length " + std::to_string(total) + " < header length " +
                          std::to_string(hdr));
  if (total > avail)
    return fail(info, "IPv4 total length " + std::to_string(total) + " > " +
                          std::to_string(avail) + " bytes present");
  if (fs_ipv4_checksum(ip, hdr) != 0) return fail(info, "bad IPv4 header checksum");
  info.ip_proto = ip[9];
  info.src_ip = fs_be32(ip + 12);
  info.dst_ip = fs_be32(ip + 16);
  const uint32_t frag = fs_be16(ip + 6);
  const bool fragment = (frag & 0x2000u) != 0 || (frag & 0x1FFFu) != 0;
  if (info.ip_proto != FS_IPPROTO_UDP || fragment) {
    info.ok = true;
    return info;
  }
  const uint8_t* udp = ip + hdr;
  const size_t ip_payload = total - hdr;
  if (ip_payload < FS_UDP_BYTES)
    return fail(info, "truncated UDP header: " + std::to_string(ip_payload) + " bytes");
  const size_t udp_len = fs_be16(udp + 4);
  if (udp_len < FS_UDP_BYTES) return fail(info, "UDP length " + std::to_string(udp_len) + " < 8");
  if (udp_len > ip_payload)
    return fail(info, "UDP length " + std::to_string(udp_len) + " > IP payload " +
                          std::to_string(ip_payload));
  info.udp = true;
  info.udp_sport = uint16_t(fs_be16(udp));
  info.udp_dport = uint16_t(fs_be16(udp + 2));
  info.l4_offset = uint32_t(FS_ETH_BYTES + hdr + FS_UDP_BYTES);
  info.l4_len = uint32_t(udp_len - FS_UDP_BYTES);
  info.ok = true;
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
