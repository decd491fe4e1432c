// Header walking (see headers.h): one small function per layer, each given the bytes from its
// header to the end of what encloses it.
#include "net/headers.h"

#include "fs_packet.h"

namespace fs {
namespace {

using std::to_string;

bool fail(Headers& h, std::string why) {
  h.ok = false;
  h.error = std::move(why);
  return false;
}

uint64_t be48(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i) v = (v << 8) | p[i];
  return v;
}

bool is_vlan_tpid(uint16_t t) { return t == kTpid8021Q || t == kTpid8021ad || t == kTpidQinQ; }

// UDP or TCP at `at`, `avail` bytes of IP payload from there.
bool walk_l4(Headers& h, const uint8_t* data, size_t at, size_t avail) {
  const uint8_t* l4 = data + at;
  if (h.ip_proto == kIpProtoUdp) {
    if (avail < FS_UDP_BYTES) return fail(h, "truncated UDP header: " + to_string(avail) + " bytes");
    const size_t udp_len = fs_be16(l4 + 4);
    if (udp_len < FS_UDP_BYTES) return fail(h, "UDP length " + to_string(udp_len) + " < 8");
    if (udp_len > avail)
      return fail(h, "UDP length " + to_string(udp_len) + " > IP payload " + to_string(avail));
    h.udp = true;
    h.payload_offset = uint32_t(at + FS_UDP_BYTES);
    h.payload_len = uint32_t(udp_len - FS_UDP_BYTES);
  } else if (h.ip_proto == kIpProtoTcp) {
    if (avail < 20) return fail(h, "truncated TCP header: " + to_string(avail) + " bytes");
    const size_t hdr = size_t(l4[12] >> 4) * 4;
    if (hdr < 20) return fail(h, "TCP data offset " + to_string(hdr / 4) + " < 5");
    if (hdr > avail)
      return fail(h, "TCP header of " + to_string(hdr) + " bytes > IP payload " + to_string(avail));
    h.tcp = true;
    h.payload_offset = uint32_t(at + hdr);
    h.payload_len = uint32_t(avail - hdr);
  } else {
    return true;
  }
  h.src_port = uint16_t(fs_be16(l4));
  h.dst_port = uint16_t(fs_be16(l4 + 2));
  h.l4_offset = uint32_t(at);
  return true;
}

bool walk_ipv4(Headers& h, const uint8_t* data, size_t avail) {
  const uint8_t* ip = data + h.l3_offset;
  h.ip = IpVersion::kIpv4;
  if (avail < FS_IPV4_BYTES) return fail(h, "truncated IPv4 header: " + to_string(avail) + " bytes");
  const unsigned version = ip[0] >> 4, ihl = ip[0] & 0x0F;
  if (version != 4) return fail(h, "IPv4 version " + to_string(version) + " != 4");
  if (ihl < 5) return fail(h, "IPv4 IHL " + to_string(ihl) + " < 5");
  const size_t hdr = size_t(ihl) * 4;
  if (hdr > avail)
    return fail(h, "truncated IPv4 header: IHL needs " + to_string(hdr) + " bytes, " + to_string(avail) + " present");
  const size_t total = fs_be16(ip + 2);
  if (total < hdr)
    return fail(h, "IPv4 total length " + to_string(total) + " < header length " + to_string(hdr));
  if (total > avail) return fail(h, "IPv4 total length " + to_string(total) + " > " + to_string(avail) + " bytes present");
  if (fs_ipv4_checksum(ip, hdr) != 0) return fail(h, "bad IPv4 header checksum");
  h.ip_proto = ip[9];
  for (int i = 0; i < 4; ++i) h.src_ip[i] = ip[12 + i], h.dst_ip[i] = ip[16 + i];
  h.src_ipv4 = fs_be32(ip + 12);
  h.dst_ipv4 = fs_be32(ip + 16);
  const uint32_t frag = fs_be16(ip + 6);
  h.fragment = (frag & 0x2000u) != 0 || (frag & 0x1FFFu) != 0;
  if (h.fragment) return true;
  return walk_l4(h, data, h.l3_offset + hdr, total - hdr);
}

// The length of IPv6 extension header `next` starting at `p` (its first two bytes present), or
// 0 if `next` is not an extension header that is skipped.
size_t ipv6_extension_bytes(uint8_t next, const uint8_t* p) {
  switch (next) {
    case 0:    // Hop-by-Hop Options
    case 43:   // Routing
    case 60:   // Destination Options
    case 135:  // Mobility
    case 139:  // HIP
    case 140:  // Shim6
      return (size_t(p[1]) + 1) * 8;
    case 44: return 8;                        // Fragment
    case 51: return (size_t(p[1]) + 2) * 4;  // Authentication Header
    default: return 0;
  }
}

bool is_ipv6_extension(uint8_t next) {
  const uint8_t two[2] = {0, 0};
  return ipv6_extension_bytes(next, two) != 0;
}

bool walk_ipv6(Headers& h, const uint8_t* data, size_t avail) {
  constexpr size_t kFixed = 40;
  const uint8_t* ip = data + h.l3_offset;
  h.ip = IpVersion::kIpv6;
  if (avail < kFixed) return fail(h, "truncated IPv6 header: " + to_string(avail) + " bytes");
  const unsigned version = ip[0] >> 4;
  if (version != 6) return fail(h, "IPv6 version " + to_string(version) + " != 6");
  const size_t payload = fs_be16(ip + 4);
  if (payload > avail - kFixed)
    return fail(h, "IPv6 payload length " + to_string(payload) + " > " + to_string(avail - kFixed) + " bytes present");
  for (int i = 0; i < 16; ++i) h.src_ip[i] = ip[8 + i], h.dst_ip[i] = ip[24 + i];
  uint8_t next = ip[6];
  size_t at = h.l3_offset + kFixed;           // the next header
  const size_t end = at + payload;            // the IPv6 packet's end
  while (is_ipv6_extension(next)) {
    if (end - at < 2) return fail(h, "truncated IPv6 extension header " + to_string(next) + ": " + to_string(end - at) + " bytes");
    const size_t bytes = ipv6_extension_bytes(next, data + at);
    if (bytes > end - at)
      return fail(h, "IPv6 extension header " + to_string(next) + " of " + to_string(bytes) + " bytes > " +
                         to_string(end - at) + " bytes left");
    if (next == 44 && (fs_be16(data + at + 2) & 0xFFF9u) != 0) {  // offset (13 bits) or M set
      h.fragment = true;  // what follows may be the middle of the packet: stop here
      h.ip_proto = data[at];
      return true;
    }
    next = data[at];
    at += bytes;
  }
  h.ip_proto = next;
  return walk_l4(h, data, at, end - at);
}

}  // namespace

Headers walk_headers(const uint8_t* data, size_t len) {
  Headers h;
  if (data == nullptr || len < FS_ETH_BYTES) {
    fail(h, "frame of " + to_string(len) + " bytes is shorter than the 14-byte Ethernet header");
    return h;
  }
  h.dst_mac = be48(data);
  h.src_mac = be48(data + 6);
  size_t at = 12;  // the EtherType or a tag's TPID
  while (is_vlan_tpid(uint16_t(fs_be16(data + at)))) {
    if (len - at < 6) {  // TPID, TCI, the EtherType (or TPID) after the tag
      fail(h, "truncated VLAN tag at byte " + to_string(at) + ": " + to_string(len - at) +
                  " of 6 bytes (TPID, TCI, EtherType)");
      return h;
    }
    const uint16_t vid = uint16_t(fs_be16(data + at + 2) & 0x0FFF);
    if (h.vlan_tags == 0) h.outer_vid = vid;
    h.inner_vid = vid;
    ++h.vlan_tags;
    at += 4;
  }
  h.ethertype = uint16_t(fs_be16(data + at));
  h.l3_offset = uint32_t(at + 2);
  const size_t avail = len - h.l3_offset;
  h.ok = true;
  if (h.ethertype == kEthertypeIpv4) walk_ipv4(h, data, avail);
  else if (h.ethertype == kEthertypeIpv6) walk_ipv6(h, data, avail);
  return h;
}

}  // namespace fs
