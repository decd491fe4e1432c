// Tests of the text trace's field lines (sc_model/net/field_syntax, frame_build): a frame worked
// out by hand, every checksum verified by a one's-complement sum written here, the defaults of
// traces/FORMAT.md, and every error message with its place. (tb/e2e/foreign_trace_e2e_test.cpp
// compares field lines with scapy's bytes.)
#include <gtest/gtest.h>

#include "common/errors.h"
#include "fs_packet.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

std::vector<TraceRecord> parse_text(const std::string& text) {
  return parse_trace("t.txt", reinterpret_cast<const uint8_t*>(text.data()), text.size(), TraceOptions());
}

Bytes frame_of(const std::string& line) {
  const auto recs = parse_text(line + "\n");
  EXPECT_EQ(recs.size(), 1u);
  return recs.empty() ? Bytes() : recs[0].data;
}

std::string error_of(const std::string& line) {
  try {
    parse_text(line + "\n");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Bytes hex(const std::string& s) {
  Bytes b;
  for (size_t i = 0; i + 1 < s.size(); i += 2) b.push_back(uint8_t(std::stoul(s.substr(i, 2), nullptr, 16)));
  return b;
}

// The one's-complement sum (RFC 1071) of 16-bit words, folded: 0xffff over a segment and its
// pseudo-header when the checksum inside is right.
uint32_t ones_sum(const Bytes& b, uint32_t sum = 0) {
  for (size_t i = 0; i < b.size(); i += 2) sum += uint32_t(b[i]) << 8 | (i + 1 < b.size() ? b[i + 1] : 0);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

// The pseudo-header (RFC 768 / RFC 8200) of the IP packet at f[ip..] and its upper-layer bytes.
uint32_t l4_sum(const Bytes& f, size_t ip) {
  const bool v6 = (f[ip] >> 4) == 6;
  const size_t hdr = v6 ? 40 : size_t(f[ip] & 15) * 4;
  const Bytes addrs(f.begin() + long(ip) + (v6 ? 8 : 12), f.begin() + long(ip) + (v6 ? 40 : 20));
  const uint32_t proto = v6 ? f[ip + 6] : f[ip + 9];
  const size_t seg = f.size() - ip - hdr;
  return ones_sum(Bytes(f.begin() + long(ip + hdr), f.end()), ones_sum(addrs) + proto + uint32_t(seg));
}

// The first field line's frame, worked out by hand (the defaults on port 3): IPv4 header words
// 4500 001c 0000 0000 4011 0000 0a01 0003 0a00 0001 sum to 0x9932, checksum 0x66cd; UDP
// pseudo-header 0a01 0003 0a00 0001 0011 0008 and header c000 0009 0008 0000 sum to 0xd42f,
// checksum 0x2bd0.
TEST(FieldLines, UdpDefaultsWorkedOutByHand) {
  EXPECT_EQ(frame_of("0ns 3 udp"), hex("020000ffffff020000000003" "0800"
                                       "4500001c000000004011" "66cd" "0a0100030a000001"
                                       "c00000090008" "2bd0"));
}

TEST(FieldLines, EveryChecksumIsRight) {
  for (const std::string line :
       {"0ns 1 udp src_ip=192.168.0.1 dst_ip=192.168.0.199 sport=53 dport=5353 len=71 ttl=3 tos=0xb8 id=0x1234",
        "0ns 1 udp vlan=100 payload=0102030405",
        "0ns 1 udp src_ip=fd00::1 dst_ip=2001:db8::7 sport=1 dport=2 payload=ff",
        "0ns 1 tcp src_ip=10.0.0.9 dst_ip=10.0.0.10 seq=4294967295 ack=1 flags=FSRPAUEC window=0 len=33",
        "0ns 1 tcp src_ip=fe80::1 dst_ip=fe80::2 flags=none payload=00",
        "0ns 1 ip proto=253 len=7"}) {
    const Bytes f = frame_of(line);
    const size_t ip = f[12] == 0x81 ? 18 : 14;
    if ((f[ip] >> 4) == 4) {
      EXPECT_EQ(ones_sum(Bytes(f.begin() + long(ip), f.begin() + long(ip) + 20)), 0xFFFFu) << line;
    }
    if (line.find(" ip ") == std::string::npos) {
      EXPECT_EQ(l4_sum(f, ip), 0xFFFFu) << line;
    }
  }
}

TEST(FieldLines, FieldsLandWhereTheFormatSays) {
  const Bytes t = frame_of("0ns 7 tcp src_mac=00:1b:21:3a:4f:5e dst_mac=AA-BB-CC-DD-EE-FF vlan=4094 sport=443 dport=0x1f90 "
                           "seq=0x01020304 ack=5 flags=SA window=512 ttl=1");
  EXPECT_EQ(Bytes(t.begin(), t.begin() + 18), hex("aabbccddeeff001b213a4f5e81000ffe0800"));
  EXPECT_EQ(t.size(), 18u + 20u + 20u);
  EXPECT_EQ(t[18 + 8], 1);  // TTL
  EXPECT_EQ(t[18 + 9], 6);  // TCP
  const size_t tcp = 38;
  EXPECT_EQ(Bytes(t.begin() + tcp, t.begin() + tcp + 16), hex("01bb1f900102030400000005" "5012" "0200"));
  EXPECT_EQ(Bytes(t.end() - 2, t.end()), hex("0000"));  // urgent pointer

  const Bytes e = frame_of("5ns 2 eth ethertype=0x88cc payload=0a0b");
  EXPECT_EQ(e, hex("020000ffffff020000000002" "88cc" "0a0b"));
  EXPECT_EQ(frame_of("5ns 2 eth"), hex("020000ffffff020000000002" "88b5"));
  const Bytes v6 = frame_of("0ns 0 ip src_ip=::1 dst_ip=ff02::1 proto=59 tos=0xff ttl=255");
  EXPECT_EQ(v6, hex("020000ffffff020000000000" "86dd" "6ff00000" "0000" "3b" "ff"
                    "00000000000000000000000000000001" "ff020000000000000000000000000001"));
  // The UDP default ports, and a payload of zeros.
  const Bytes u = frame_of("0ns 0 udp len=3");
  EXPECT_EQ(Bytes(u.end() - 11, u.end() - 7), hex("c0000009"));
  EXPECT_EQ(Bytes(u.end() - 3, u.end()), hex("000000"));
}

TEST(FieldLines, Errors) {
  EXPECT_EQ(error_of("0ns 0 udp sport"), "t.txt:1: udp: expected key=value, got 'sport'");
  EXPECT_EQ(error_of("0ns 0 udp ethertype=1"),
            "t.txt:1: udp: unknown key 'ethertype' (keys: src_mac dst_mac vlan src_ip dst_ip ttl tos id sport dport "
            "len payload)");
  EXPECT_EQ(error_of("0ns 0 eth proto=1"),
            "t.txt:1: eth: unknown key 'proto' (keys: src_mac dst_mac vlan ethertype len payload)");
  EXPECT_EQ(error_of("0ns 0 tcp seq=1 seq=2"), "t.txt:1: tcp: duplicate key seq");
  EXPECT_EQ(error_of("0ns 0 tcp seq="), "t.txt:1: tcp: empty value for key seq");
  EXPECT_EQ(error_of("0ns 0 udp sport=65536"),
            "t.txt:1: udp: bad value '65536' for key sport (expected 0..65535, decimal or 0x hex)");
  EXPECT_EQ(error_of("0ns 0 udp vlan=4095"), "t.txt:1: udp: bad value '4095' for key vlan (expected 0..4094, decimal or 0x hex)");
  EXPECT_EQ(error_of("0ns 0 udp src_mac=02:00:00:00:00"),
            "t.txt:1: udp: bad value '02:00:00:00:00' for key src_mac (expected a MAC address like 02:00:00:00:00:07)");
  EXPECT_EQ(error_of("0ns 0 udp dst_ip=10.0.0.256"),
            "t.txt:1: udp: bad value '10.0.0.256' for key dst_ip (expected an IPv4 address like 10.0.0.1 or an IPv6 "
            "address like fd00::1)");
  EXPECT_EQ(error_of("0ns 0 udp src_ip=fd00::1"),
            "t.txt:1: udp: an IPv6 packet needs both src_ip and dst_ip (the defaults are IPv4)");
  EXPECT_EQ(error_of("0ns 0 udp src_ip=fd00::1 dst_ip=10.0.0.1"),
            "t.txt:1: udp: src_ip fd00::1 and dst_ip 10.0.0.1 are of different IP versions");
  EXPECT_EQ(error_of("0ns 0 udp src_ip=fd00::1 dst_ip=fd00::2 id=1"),
            "t.txt:1: udp: key id is IPv4's identification field; an IPv6 packet has none");
  EXPECT_EQ(error_of("0ns 0 ip"), "t.txt:1: ip: missing required key proto (the IP protocol number, e.g. 17 for UDP)");
  EXPECT_EQ(error_of("0ns 0 tcp flags=SS"),
            "t.txt:1: tcp: bad value 'SS' for key flags (expected letters of FSRPAUEC, each once, or none)");
  EXPECT_EQ(error_of("0ns 0 tcp flags=s"),
            "t.txt:1: tcp: bad value 's' for key flags (expected letters of FSRPAUEC, each once, or none)");
  EXPECT_EQ(error_of("0ns 0 udp len=1 payload=00"), "t.txt:1: udp: keys len and payload exclude each other");
  EXPECT_EQ(error_of("0ns 0 udp payload=0g"), "t.txt:1: udp: payload: bad hex digit 'g' at character 2");
  EXPECT_EQ(error_of("0ns 0 eth ethertype=0x05ff"),
            "t.txt:1: eth: bad value '0x05ff' for key ethertype (expected 0x0600..0xffff: smaller values are 802.3 "
            "lengths)");
  EXPECT_EQ(error_of("0ns 0 eth ethertype=0x8100"),
            "t.txt:1: eth: bad value '0x8100' for key ethertype (expected no VLAN ethertype: use the key vlan)");
  // The largest frames: 65535 bytes in all.
  EXPECT_EQ(frame_of("0ns 0 udp len=65493").size(), 65535u);
  EXPECT_EQ(error_of("0ns 0 udp len=65494"), "t.txt:1: udp: frame of 65536 bytes exceeds 65535");
  EXPECT_EQ(frame_of("0ns 0 eth vlan=1 len=65517").size(), 65535u);
  EXPECT_EQ(error_of("0ns 0 tcp src_ip=::1 dst_ip=::2 len=65535"), "t.txt:1: tcp: frame of 65609 bytes exceeds 65535");
  EXPECT_EQ(error_of("0ns 0 udp len=65536"),
            "t.txt:1: udp: bad value '65536' for key len (expected 0..65535, decimal or 0x hex)");
}

}  // namespace
}  // namespace fs
