// Tests of the flow key and flow hash (sc_model/net/flow_key, crc32): parse_flow_key accepts and
// rejects (exact messages); the key bytes of hand-built frames laid out as docs/HANDLERS.md
// defines them; the hash against CRC-32's check value, a bit-at-a-time CRC written here from
// its definition, and zlib's crc32 of two 5-tuples; and 240 scapy frames whose 5-tuple hash
// tb/net/header_vectors.py computed with zlib.
#include "net/flow_key.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "common/errors.h"
#include "net/crc32.h"
#include "net/frame.h"
#include "support/python_script.h"

namespace fs {
namespace {

std::string key_error(const std::string& text) {
  try {
    parse_flow_key(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string hex(const Bytes& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t v : b) s += d[v >> 4], s += d[v & 15];
  return s;
}

Bytes from_hex(const std::string& h) {
  Bytes b;
  for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return b;
}

// CRC-32 from its definition: reflected polynomial 0xEDB88320, register preset to all ones, a
// bit at a time, result inverted.
uint32_t crc32_by_bits(const Bytes& b) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t v : b) {
    c ^= v;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0u);
  }
  return ~c;
}

Bytes key_of(const std::string& spec, const Bytes& frame) {
  const Headers h = walk_headers(frame.data(), frame.size());
  EXPECT_TRUE(h.ok) << h.error;
  Bytes out;
  std::string why;
  EXPECT_TRUE(flow_key_bytes(parse_flow_key(spec), h, frame.data(), &out, &why)) << why;
  return out;
}

// 10.0.0.1:1000 -> 10.0.0.2:2000 UDP with an 8-byte payload 00 01 .. 07, from MAC
// 02:00:00:00:00:01 to 02:00:00:00:00:02.
Bytes udp4() {
  const uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
  const uint8_t payload[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  return build_udp_frame(src, dst, 0x0a000001, 0x0a000002, 1000, 2000, payload, sizeof payload);
}

TEST(FlowKey, ParseAcceptsFieldsAndExpands5tuple) {
  EXPECT_EQ(parse_flow_key("5tuple").fields.size(), 5u);
  const FlowKey k = parse_flow_key(" vlan , 5tuple,payload[8:4], dst_mac");
  ASSERT_EQ(k.fields.size(), 8u);
  EXPECT_EQ(k.fields[0].kind, FlowField::Kind::kVlan);
  EXPECT_EQ(k.fields[1].kind, FlowField::Kind::kSrcIp);
  EXPECT_EQ(k.fields[5].kind, FlowField::Kind::kDstPort);
  EXPECT_EQ(k.fields[6].kind, FlowField::Kind::kPayload);
  EXPECT_EQ(k.fields[6].offset, 8u);
  EXPECT_EQ(k.fields[6].length, 4u);
  EXPECT_EQ(k.fields[7].kind, FlowField::Kind::kDstMac);
  EXPECT_EQ(parse_flow_key("payload[65535:64]").fields[0].offset, 65535u);
}

TEST(FlowKey, ParseRejectsWithExactMessages) {
  const std::string valid =
      " (valid: 5tuple, src_ip, dst_ip, ip_proto, src_port, dst_port, vlan, src_mac, dst_mac, payload[OFFSET:LENGTH])";
  auto prefix = [](const std::string& v) { return "bad value '" + v + "' for 'scheduler.flow_key': "; };
  EXPECT_EQ(key_error("src_ip,port"), prefix("src_ip,port") + "unknown field 'port'" + valid);
  EXPECT_EQ(key_error(""), prefix("") + "no field" + valid);
  EXPECT_EQ(key_error("src_ip,,dst_ip"), prefix("src_ip,,dst_ip") + "an empty field" + valid);
  for (const char* bad : {"payload[8]", "payload[8:0]", "payload[8:65]", "payload[65536:4]", "payload[-1:4]",
                          "payload[8:4", "payload[]"})
    EXPECT_EQ(key_error(bad), prefix(bad) + "'" + bad + "' needs payload[OFFSET:LENGTH], OFFSET 0-65535 and LENGTH 1-64");
}

TEST(FlowKey, KeyBytesAreTheFieldsAsTheFrameCarriesThem) {
  const Bytes f = udp4();
  EXPECT_EQ(hex(key_of("5tuple", f)), "0a000001" "0a000002" "11" "03e8" "07d0");
  EXPECT_EQ(hex(key_of("dst_port,src_ip", f)), "07d0" "0a000001");
  EXPECT_EQ(hex(key_of("src_mac,dst_mac,vlan", f)), "020000000001" "020000000002" "0000");
  EXPECT_EQ(hex(key_of("payload[2:3]", f)), "020304");
  EXPECT_EQ(hex(key_of("payload[0:8]", f)), "0001020304050607");
  // Behind a QinQ tag pair (outer VLAN 0x123): the same 5-tuple, the outer VLAN id.
  Bytes tagged = f;
  tagged.insert(tagged.begin() + 12, {0x88, 0xa8, 0x01, 0x23, 0x81, 0x00, 0x00, 0x07});
  EXPECT_EQ(key_of("5tuple", tagged), key_of("5tuple", f));
  EXPECT_EQ(hex(key_of("vlan", tagged)), "0123");
  // Not IP: no address, protocol or port; the MAC addresses are still there.
  Bytes arp = f;
  arp[12] = 0x08, arp[13] = 0x06;
  EXPECT_EQ(hex(key_of("5tuple", arp)), "");
  EXPECT_EQ(hex(key_of("5tuple,src_mac", arp)), "020000000001");
  // A payload field beyond the payload: no key, and why.
  const Headers h = walk_headers(f.data(), f.size());
  Bytes out;
  std::string why;
  EXPECT_FALSE(flow_key_bytes(parse_flow_key("payload[5:4]"), h, f.data(), &out, &why));
  EXPECT_EQ(why, "payload[5:4] is not in the frame");
  EXPECT_FALSE(flow_key_bytes(parse_flow_key("payload[0:1]"), walk_headers(arp.data(), arp.size()), arp.data(), &out,
                              &why));
  EXPECT_EQ(why, "payload[0:1] is not in the frame");
}

TEST(FlowKey, HashIsCrc32OfTheKey) {
  // CRC-32's check value: the CRC of the nine ASCII digits "123456789" is 0xCBF43926.
  const Bytes digits = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(flow_hash(digits), 0xCBF43926u);
  EXPECT_EQ(crc32_by_bits(digits), 0xCBF43926u);
  EXPECT_EQ(flow_hash(Bytes{}), 0u);  // the empty key
  // Two 5-tuples, their hashes from python3 -c 'import zlib; print(hex(zlib.crc32(bytes.fromhex(KEY))))':
  //   10.0.0.1:1000 -> 10.0.0.2:2000 UDP                    0x2359b4d8 (cluster 0 of 4, 24 of 64)
  //   [2001:db8::1]:443 -> [2001:db8::2]:51000 TCP          0x98150445 (cluster 1 of 4)
  const Bytes v4 = key_of("5tuple", udp4());
  EXPECT_EQ(flow_hash(v4), 0x2359b4d8u);
  EXPECT_EQ(crc32_by_bits(v4), 0x2359b4d8u);
  EXPECT_EQ(flow_hash(v4) % 4, 0u);
  EXPECT_EQ(flow_hash(v4) % 64, 24u);
  const Bytes v6 = from_hex("20010db8000000000000000000000001" "20010db8000000000000000000000002" "06" "01bb" "c738");
  EXPECT_EQ(flow_hash(v6), 0x98150445u);
  EXPECT_EQ(crc32_by_bits(v6), 0x98150445u);
}

TEST(FlowKey, FiveTupleHashesAgreeWithZlibOnScapyFrames) {
  std::string text;
  ASSERT_EQ(test::run_python_script("tb/net/header_vectors.py", "240", &text), "");
  const std::vector<std::string> lines = test::script_lines(text);
  ASSERT_EQ(lines.size(), 240u);
  const FlowKey key = parse_flow_key("5tuple");
  std::map<uint32_t, unsigned> per_cluster;  // of 4
  for (size_t n = 0; n < lines.size(); ++n) {
    std::istringstream in(lines[n]);
    std::string frame_hex, item, want;
    in >> frame_hex;
    while (in >> item)
      if (item.compare(0, 5, "flow=") == 0) want = item.substr(5);
    const Bytes f = from_hex(frame_hex);
    const Headers h = walk_headers(f.data(), f.size());
    ASSERT_TRUE(h.ok) << n;
    Bytes k;
    std::string why;
    ASSERT_TRUE(flow_key_bytes(key, h, f.data(), &k, &why)) << n;
    char got[9];
    std::snprintf(got, sizeof got, "%08x", flow_hash(k));
    EXPECT_EQ(got, want) << "frame " << n << ": " << lines[n].substr(lines[n].find(' '));
    ++per_cluster[flow_hash(k) % 4];
  }
  // The IP frames (210: all but the 30 ARP ones, whose key is empty: hash 0, cluster 0) spread
  // over the 4 clusters.
  for (uint32_t c = 0; c < 4; ++c) EXPECT_GE(per_cluster[c], 35u) << c;
}

}  // namespace
}  // namespace fs
