// Tests of the header walker (sc_model/net/headers): hand-built QinQ and IPv6 frames with every
// offset worked out, every new malformed case with its reason, no read past the end, and
// scapy's dissection of 240 varied frames (tb/net/header_vectors.py) against the walker's.
#include "net/headers.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "net/packet.h"
#include "support/python_script.h"

namespace fs {
namespace {

Bytes from_hex(const std::string& hex) {
  Bytes b;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) b.push_back(uint8_t(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  return b;
}

std::string to_hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += d[p[i] >> 4], s += d[p[i] & 15];
  return s;
}

// dst 02:00:00:00:00:02, src 02:00:00:00:00:01, then the rest.
Bytes ethernet(std::initializer_list<uint8_t> rest) {
  Bytes f = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
  f.insert(f.end(), rest);
  return f;
}

// QinQ: 802.1ad tag (TPID 88a8, PCP 5, VID 0x123) then 802.1Q (TPID 8100, VID 0x045), IPv4
// 10.0.0.1 -> 10.0.0.2 UDP 1000 -> 2000 with two payload bytes. IPv4 header words 4500 001e 0000
// 0000 4011 0000 0a00 0001 0a00 0002 sum to 0x9932, so the checksum is ~0x9932 = 0x66cd.
const Bytes kQinQ = ethernet({0x88, 0xa8, 0xa1, 0x23, 0x81, 0x00, 0x00, 0x45, 0x08, 0x00,  // tags, IPv4
                              0x45, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x66, 0xcd,
                              0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,  // addresses
                              0x03, 0xe8, 0x07, 0xd0, 0x00, 0x0a, 0x00, 0x00,  // UDP, length 10
                              0xaa, 0xbb});

TEST(Headers, QinQIpv4UdpOffsetsByHand) {
  const Headers h = walk_headers(kQinQ.data(), kQinQ.size());
  ASSERT_TRUE(h.ok) << h.error;
  EXPECT_EQ(h.dst_mac, 0x020000000002ull);
  EXPECT_EQ(h.src_mac, 0x020000000001ull);
  EXPECT_EQ(h.vlan_tags, 2u);
  EXPECT_EQ(h.outer_vid, 0x123);
  EXPECT_EQ(h.inner_vid, 0x045);
  EXPECT_EQ(h.ethertype, 0x0800);
  EXPECT_EQ(h.l3_offset, 22u);  // 12 addresses + 2 tags of 4 + EtherType
  EXPECT_EQ(h.ip, IpVersion::kIpv4);
  EXPECT_EQ(h.src_ipv4, 0x0a000001u);
  EXPECT_EQ(h.dst_ipv4, 0x0a000002u);
  EXPECT_EQ(to_hex(h.dst_ip, h.ip_bytes()), "0a000002");
  EXPECT_EQ(h.ip_proto, 17);
  EXPECT_TRUE(h.udp);
  EXPECT_EQ(h.src_port, 1000);
  EXPECT_EQ(h.dst_port, 2000);
  EXPECT_EQ(h.l4_offset, 42u);
  EXPECT_EQ(h.payload_offset, 50u);
  EXPECT_EQ(h.payload_len, 2u);
}

// IPv6 2001:db8::1 -> 2001:db8::2, payload length 18: a Hop-by-Hop header of 8 bytes (next
// header UDP, length 0, one PadN option filling its six bytes of options: 01 04 00 00 00 00),
// then UDP 5000 -> 6000, length 10, with two payload bytes.
Bytes ipv6_hbh_udp() {
  Bytes f = ethernet({0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x12, 0x00, 0x40});
  const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  f.insert(f.end(), src, src + 16);
  f.insert(f.end(), src, src + 15);
  f.push_back(2);
  f.insert(f.end(), {17, 0, 0x01, 0x04, 0, 0, 0, 0});                      // Hop-by-Hop
  f.insert(f.end(), {0x13, 0x88, 0x17, 0x70, 0x00, 0x0a, 0x00, 0x00, 0x11, 0x22});  // UDP
  return f;
}

TEST(Headers, Ipv6SkipsExtensionHeadersByHand) {
  const Bytes f = ipv6_hbh_udp();
  const Headers h = walk_headers(f.data(), f.size());
  ASSERT_TRUE(h.ok) << h.error;
  EXPECT_EQ(h.vlan_tags, 0u);
  EXPECT_EQ(h.ip, IpVersion::kIpv6);
  EXPECT_EQ(to_hex(h.src_ip, 16), "20010db8000000000000000000000001");
  EXPECT_EQ(to_hex(h.dst_ip, 16), "20010db8000000000000000000000002");
  EXPECT_EQ(h.ip_proto, 17);
  EXPECT_FALSE(h.fragment);
  EXPECT_EQ(h.l4_offset, 62u);  // 14 + 40 + 8
  EXPECT_EQ(h.src_port, 5000);
  EXPECT_EQ(h.dst_port, 6000);
  EXPECT_EQ(h.payload_offset, 70u);
  EXPECT_EQ(h.payload_len, 2u);
  // As a non-first fragment (a Fragment header in place of Hop-by-Hop, offset 1): the walk stops
  // there, with the fragment's next header and no ports.
  Bytes frag = f;
  frag[54] = 17, frag[55] = 0, frag[56] = 0x00, frag[57] = 0x08;  // offset 1 (8 bytes), M clear
  frag[20] = 44;                                                  // IPv6 next header: Fragment
  const Headers g = walk_headers(frag.data(), frag.size());
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_TRUE(g.fragment);
  EXPECT_EQ(g.ip_proto, 17);
  EXPECT_FALSE(g.ports());
  // Offset 0 and M clear: an atomic fragment, a whole packet: walked to UDP.
  frag[57] = 0x00;
  const Headers a = walk_headers(frag.data(), frag.size());
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_FALSE(a.fragment);
  EXPECT_TRUE(a.udp);
  EXPECT_EQ(a.dst_port, 6000);
}

struct Malformed {
  const char* name;
  Bytes frame;
  const char* reason;
};

TEST(Headers, EveryMalformedCaseHasItsReason) {
  std::vector<Malformed> cases;
  cases.push_back({"tag cut", Bytes(kQinQ.begin(), kQinQ.begin() + 17),
                   "truncated VLAN tag at byte 12: 5 of 6 bytes (TPID, TCI, EtherType)"});
  cases.push_back({"inner tag cut", Bytes(kQinQ.begin(), kQinQ.begin() + 20),
                   "truncated VLAN tag at byte 16: 4 of 6 bytes (TPID, TCI, EtherType)"});
  cases.push_back({"ipv4 behind tags cut", Bytes(kQinQ.begin(), kQinQ.begin() + 30), "truncated IPv4 header: 8 bytes"});
  const Bytes v6 = ipv6_hbh_udp();
  cases.push_back({"ipv6 cut", Bytes(v6.begin(), v6.begin() + 50), "truncated IPv6 header: 36 bytes"});
  Bytes version = v6;
  version[14] = 0x40;
  cases.push_back({"ipv6 version", version, "IPv6 version 4 != 6"});
  Bytes plen = v6;
  plen[19] = 0x13;  // 19 > the 18 bytes present
  cases.push_back({"ipv6 payload length", plen, "IPv6 payload length 19 > 18 bytes present"});
  Bytes ext = v6;
  ext[19] = 0x01;  // payload of 1 byte: the Hop-by-Hop header's two first bytes are not in it
  cases.push_back({"extension cut", ext, "truncated IPv6 extension header 0: 1 bytes"});
  Bytes ext_len = v6;
  ext_len[55] = 2;  // Hop-by-Hop of 24 bytes, 18 left
  cases.push_back({"extension long", ext_len, "IPv6 extension header 0 of 24 bytes > 18 bytes left"});
  Bytes udp6 = v6;
  udp6[67] = 11;  // UDP length 11 > the 10 bytes after the extension header
  cases.push_back({"udp over ipv6 long", udp6, "UDP length 11 > IP payload 10"});
  // TCP over IPv6: the same frame relabelled (Hop-by-Hop next header 6); 10 bytes are too few for
  // a TCP header. Then a payload long enough for 20 bytes, with data offsets 4 and 6.
  Bytes tcp = v6;
  tcp[54] = 6;
  cases.push_back({"tcp cut", tcp, "truncated TCP header: 10 bytes"});
  Bytes tcp20 = tcp;
  tcp20.resize(tcp20.size() + 10, 0);
  tcp20[19] = 0x1c;  // payload length 28: 8 Hop-by-Hop + 20 TCP
  tcp20[62 + 12] = 0x40;
  cases.push_back({"tcp offset", tcp20, "TCP data offset 4 < 5"});
  tcp20[62 + 12] = 0x60;
  cases.push_back({"tcp long", tcp20, "TCP header of 24 bytes > IP payload 20"});
  for (const Malformed& c : cases) {
    const Headers h = walk_headers(c.frame.data(), c.frame.size());
    EXPECT_FALSE(h.ok) << c.name;
    EXPECT_EQ(h.error, c.reason) << c.name;
  }
  tcp20[62 + 12] = 0x50;  // data offset 5: a TCP header without options, no payload
  const Headers h = walk_headers(tcp20.data(), tcp20.size());
  ASSERT_TRUE(h.ok) << h.error;
  EXPECT_TRUE(h.tcp);
  EXPECT_EQ(h.payload_offset, 82u);
  EXPECT_EQ(h.payload_len, 0u);
}

TEST(Headers, WalkingNeverReadsPastTheEnd) {
  // Every prefix of the frames walks without touching bytes beyond it (ASan would catch it); only
  // the whole frame is well formed.
  for (const Bytes& f : {kQinQ, ipv6_hbh_udp()}) {
    for (size_t n = 0; n <= f.size(); ++n) {
      const Bytes prefix(f.begin(), f.begin() + n);
      EXPECT_EQ(walk_headers(prefix.data(), prefix.size()).ok, n == f.size()) << n;
    }
  }
  EXPECT_FALSE(walk_headers(nullptr, 0).ok);
}

// "key=value" fields of a vector line after the frame.
std::map<std::string, std::string> fields_of(const std::string& line, Bytes* frame) {
  std::istringstream in(line);
  std::string hex, item;
  in >> hex;
  *frame = from_hex(hex);
  std::map<std::string, std::string> m;
  while (in >> item) {
    const size_t eq = item.find('=');
    m[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return m;
}

TEST(Headers, AgreesWithScapyOnVariedFrames) {
  std::string text;
  ASSERT_EQ(test::run_python_script("tb/net/header_vectors.py", "240", &text), "");
  const std::vector<std::string> lines = test::script_lines(text);
  ASSERT_EQ(lines.size(), 240u);
  std::map<std::string, unsigned> seen;  // what the vectors covered
  for (size_t n = 0; n < lines.size(); ++n) {
    Bytes f;
    const auto want = fields_of(lines[n], &f);
    const Headers h = walk_headers(f.data(), f.size());
    ASSERT_TRUE(h.ok) << "frame " << n << ": " << h.error;
    const std::string at = "frame " + std::to_string(n) + ": " + lines[n].substr(lines[n].find(' '));
    char type[8];
    std::snprintf(type, sizeof type, "0x%04x", h.ethertype);
    EXPECT_EQ(std::to_string(h.vlan_tags), want.at("tags")) << at;
    EXPECT_EQ(std::to_string(h.outer_vid), want.at("outer")) << at;
    EXPECT_EQ(std::to_string(h.inner_vid), want.at("inner")) << at;
    EXPECT_EQ(type, want.at("type")) << at;
    const int ip = h.ip == IpVersion::kIpv4 ? 4 : h.ip == IpVersion::kIpv6 ? 6 : 0;
    EXPECT_EQ(std::to_string(ip), want.at("ip")) << at;
    EXPECT_EQ(h.ip_bytes() ? to_hex(h.src_ip, h.ip_bytes()) : "-", want.at("src")) << at;
    EXPECT_EQ(h.ip_bytes() ? to_hex(h.dst_ip, h.ip_bytes()) : "-", want.at("dst")) << at;
    EXPECT_EQ(std::to_string(h.ip_proto), want.at("proto")) << at;
    EXPECT_EQ(std::to_string(int(h.fragment)), want.at("frag")) << at;
    EXPECT_EQ(h.udp ? "udp" : h.tcp ? "tcp" : "none", want.at("l4")) << at;
    EXPECT_EQ(std::to_string(h.src_port), want.at("sport")) << at;
    EXPECT_EQ(std::to_string(h.dst_port), want.at("dport")) << at;
    EXPECT_EQ(std::to_string(h.payload_offset), want.at("payload")) << at;
    EXPECT_EQ(std::to_string(h.payload_len), want.at("len")) << at;
    ++seen["tags" + want.at("tags")];
    ++seen["ip" + want.at("ip") + "-" + want.at("l4")];
    seen["fragments"] += h.fragment;
  }
  // header_vectors.py: tags cycle 0, 1, 2; kinds cycle over 8 (IPv4 x 4, IPv6 x 3, ARP).
  EXPECT_EQ(seen["tags0"], 80u);
  EXPECT_EQ(seen["tags2"], 80u);
  EXPECT_EQ(seen["ip0-none"], 30u);
  EXPECT_GE(seen["ip4-udp"], 20u);
  EXPECT_GE(seen["ip4-tcp"], 10u);
  EXPECT_GE(seen["ip6-udp"], 10u);
  EXPECT_GE(seen["ip6-tcp"], 10u);
  EXPECT_GE(seen["fragments"], 20u);
}

}  // namespace
}  // namespace fs
