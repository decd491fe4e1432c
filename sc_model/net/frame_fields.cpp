// Header walk of any Ethernet frame and the text forms of addresses (see frame_fields.h).
#include "net/frame_fields.h"

#include <arpa/inet.h>

#include "fs_packet.h"
#include "net/headers.h"

namespace fs {

namespace {


// UDP/TCP ports at `l4` if the header's first four bytes are there.
void take_ports(FrameFields& f, const uint8_t* l4, size_t avail) {
  if ((f.ip_proto != kIpProtoUdp && f.ip_proto != kIpProtoTcp) || avail < 4) return;
  f.l4_ports = true;
  f.sport = uint16_t(fs_be16(l4));
  f.dport = uint16_t(fs_be16(l4 + 2));
}

void walk_ipv4(FrameFields& f, const uint8_t* ip, size_t avail) {
  if (avail < FS_IPV4_BYTES || (ip[0] >> 4) != 4 || (ip[0] & 0x0F) < 5) return;
  const size_t hdr = size_t(ip[0] & 0x0F) * 4;
  f.src_ip.version = f.dst_ip.version = 4;
  for (int i = 0; i < 4; ++i) f.src_ip.b[i] = ip[12 + i], f.dst_ip.b[i] = ip[16 + i];
  f.ip_proto = ip[9];
  const bool later_fragment = (fs_be16(ip + 6) & 0x1FFFu) != 0;
  if (!later_fragment && hdr <= avail) take_ports(f, ip + hdr, avail - hdr);
}

void walk_ipv6(FrameFields& f, const uint8_t* ip, size_t avail) {
  if (avail < 40 || (ip[0] >> 4) != 6) return;
  f.src_ip.version = f.dst_ip.version = 6;
  for (int i = 0; i < 16; ++i) f.src_ip.b[i] = ip[8 + i], f.dst_ip.b[i] = ip[24 + i];
  int next = ip[6];
  size_t off = 40;
  // Hop-by-hop, routing and destination options, and the fragment header, to the upper layer.
  while (next == 0 || next == 43 || next == 60 || next == 44) {
    if (avail - off < 8) {
      f.ip_proto = next;
      return;
    }
    const uint8_t* h = ip + off;
    if (next == 44 && (fs_be16(h + 2) >> 3) != 0) {  // a later fragment: no upper-layer header
      f.ip_proto = h[0];
      return;
    }
    const size_t hlen = next == 44 ? 8 : (size_t(h[1]) + 1) * 8;
    next = h[0];
    if (hlen > avail - off) {
      f.ip_proto = next;
      return;
    }
    off += hlen;
  }
  f.ip_proto = next;
  take_ports(f, ip + off, avail - off);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

FrameFields frame_fields(const uint8_t* data, size_t len) {
  FrameFields f;
  if (data == nullptr || len < FS_ETH_BYTES) return f;
  f.eth = true;
  for (int i = 0; i < 6; ++i) f.dst_mac[i] = data[i], f.src_mac[i] = data[6 + i];
  size_t off = 12;
  uint16_t type = uint16_t(fs_be16(data + off));
  while ((type == kTpid8021Q || type == kTpid8021ad) && len - off >= 6) {
    if (f.vlan < 0) f.vlan = int(fs_be16(data + off + 2) & 0x0FFFu);
    off += 4;
    type = uint16_t(fs_be16(data + off));
  }
  f.ethertype = type;
  off += 2;
  if (type == FS_ETHERTYPE_IPV4) walk_ipv4(f, data + off, len - off);
  if (type == kEthertypeIpv6) walk_ipv6(f, data + off, len - off);
  return f;
}

bool IpPrefix::contains(const IpAddr& a) const {
  if (a.version != addr.version) return false;
  for (unsigned bit = 0; bit < len; bit += 8) {
    const unsigned n = len - bit < 8 ? len - bit : 8;
    const uint8_t mask = uint8_t(0xFF00u >> n);
    if ((a.b[bit / 8] & mask) != (addr.b[bit / 8] & mask)) return false;
  }
  return true;
}

bool parse_mac(const std::string& s, Mac* out) {
  if (s.size() != 17) return false;
  const char sep = s[2];
  if (sep != ':' && sep != '-') return false;
  for (int i = 0; i < 6; ++i) {
    const int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);
    if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != sep)) return false;
    (*out)[i] = uint8_t(hi * 16 + lo);
  }
  return true;
}

std::string format_mac(const Mac& m) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 6; ++i) {
    if (i) s += ':';
    s += hex[m[i] >> 4];
    s += hex[m[i] & 15];
  }
  return s;
}

bool parse_ip(const std::string& s, IpAddr* out) {
  IpAddr a;
  if (s.find(':') != std::string::npos) {
    if (inet_pton(AF_INET6, s.c_str(), a.b.data()) != 1) return false;
    a.version = 6;
  } else {
    if (inet_pton(AF_INET, s.c_str(), a.b.data()) != 1) return false;
    a.version = 4;
  }
  *out = a;
  return true;
}

std::string format_ip(const IpAddr& a) {
  if (a.version == 0) return "none";
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.version == 6 ? AF_INET6 : AF_INET, a.b.data(), buf, sizeof buf);
  return buf;
}

bool parse_ip_prefix(const std::string& s, IpPrefix* out, std::string* err) {
  const size_t slash = s.find('/');
  IpPrefix p;
  if (!parse_ip(s.substr(0, slash), &p.addr)) {
    *err = "bad IP address '" + s.substr(0, slash) + "' (expected IPv4 like 10.0.0.1 or IPv6 like fd00::1)";
    return false;
  }
  const unsigned max = unsigned(p.addr.bytes() * 8);
  p.len = max;
  if (slash != std::string::npos) {
    const std::string len = s.substr(slash + 1);
    unsigned v = 0;
    bool ok = !len.empty() && len.size() <= 3;
    for (char c : len) {
      ok = ok && c >= '0' && c <= '9';
      v = v * 10 + unsigned(c - '0');
    }
    if (!ok || v > max) {
      *err = "bad prefix length '" + len + "' (expected 0.." + std::to_string(max) + ")";
      return false;
    }
    p.len = v;
  }
  IpAddr masked = p.addr;
  for (unsigned bit = 0; bit < max; ++bit)
    if (bit >= p.len) masked.b[bit / 8] &= uint8_t(~(0x80u >> (bit % 8)));
  if (!(masked == p.addr)) {
    *err = "'" + s + "' has address bits set beyond the /" + std::to_string(p.len) + " prefix (did you mean " +
           format_ip(masked) + "/" + std::to_string(p.len) + "?)";
    return false;
  }
  *out = p;
  return true;
}

}  // namespace fs
