// Tests of the ingress port rules for captures (sc_model/net/port_rule): every rule on hand-built
// frames, the MAC and IP tables (longest prefix, defaults, every file:line error), what `auto`
// picks for each kind of file, and the messages of frames a rule cannot map.
#include "net/port_rule.h"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "common/errors.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "support/cli_runner.h"

namespace fs {
namespace {

using test::ScratchDir;
using test::write_file;

Bytes hex(const std::string& s) {
  Bytes b;
  for (size_t i = 0; i + 1 < s.size(); i += 2) b.push_back(uint8_t(std::stoul(s.substr(i, 2), nullptr, 16)));
  return b;
}

// Ethernet frames: from a source MAC, optionally 802.1Q tagged, carrying IPv4 or IPv6 (only the
// addresses matter here; the rest of the header is zeros) or ARP.
const std::string kDst = "ffffffffffff";
Bytes ipv4_frame(const std::string& src_mac, const std::string& src_ip_hex, const std::string& tag = "") {
  return hex(kDst + src_mac + tag + "0800" + "45000014000000004011" + "0000" + src_ip_hex + "0a000001");
}
Bytes ipv6_frame(const std::string& src_mac, const std::string& src_ip_hex) {
  return hex(kDst + src_mac + "86dd" + "6000000000003b40" + src_ip_hex + std::string(32, '0'));
}
Bytes arp_frame(const std::string& src_mac) { return hex(kDst + src_mac + "0806" + std::string(56, '0')); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

uint16_t port_of(const PortRule& r, const Bytes& f, long iface = -1) { return r.port_of(f.data(), f.size(), iface, "c: packet 1"); }
std::string unmapped(const PortRule& r, const Bytes& f, long iface = -1) {
  return error_of([&] { port_of(r, f, iface); });
}

TEST(PortRule, SpecErrors) {
  EXPECT_EQ(error_of([] { PortRule("eth0", 64); }),
            "pcap_port 'eth0': expected auto, interface, src-mac, a port number, mac-table:FILE, ip-table:FILE, vlan or "
            "vlan:untagged=PORT");
  EXPECT_EQ(error_of([] { PortRule("mac-table:", 64); }),
            "pcap_port 'mac-table:': expected auto, interface, src-mac, a port number, mac-table:FILE, ip-table:FILE, "
            "vlan or vlan:untagged=PORT");
  EXPECT_EQ(error_of([] { PortRule("64", 64); }), "pcap_port 64 >= num_ports 64");
  EXPECT_EQ(error_of([] { PortRule("vlan:untagged=x", 64); }),
            "pcap_port 'vlan:untagged=x': expected vlan:untagged=PORT with a decimal port number");
  EXPECT_EQ(error_of([] { PortRule("vlan:untagged=8", 8); }), "pcap_port vlan:untagged=8 >= num_ports 8");
  EXPECT_EQ(error_of([] { PortRule("mac-table:/nonexistent/t", 64); }),
            "/nonexistent/t: cannot open port table (No such file or directory)");
  ScratchDir dir;
  EXPECT_EQ(error_of([&] { PortRule("ip-table:" + dir.path(), 64); }), dir.path() + ": is a directory, not a port table");
  EXPECT_EQ(port_rule_file("ip-table:a:b.txt"), "a:b.txt");
  EXPECT_EQ(port_rule_file("mac-table:m"), "m");
  EXPECT_EQ(port_rule_file("src-mac"), "");
}

TEST(PortRule, FixedSrcMacInterfaceAndVlan) {
  const Bytes a = ipv4_frame("020000000105", "0a000001"), tagged = ipv4_frame("020000000005", "0a000001", "8100e00c");
  EXPECT_EQ(port_of(PortRule("7", 64), a), 7);
  EXPECT_EQ(port_of(PortRule("src-mac", 512), a), 261);  // 0x0105
  EXPECT_EQ(unmapped(PortRule("src-mac", 64), a),
            "c: packet 1: port 261 from the source MAC 02:00:00:00:01:05 >= num_ports 64 (pcap_port src-mac)");
  EXPECT_EQ(unmapped(PortRule("src-mac", 64), hex("0102")),
            "c: packet 1: packet of 2 bytes has no source MAC to take the port from (pcap_port src-mac)");
  EXPECT_EQ(port_of(PortRule("interface", 64), a, 3), 3);
  EXPECT_EQ(unmapped(PortRule("interface", 4), a, 4), "c: packet 1: interface 4 >= num_ports 4 (pcap_port interface)");
  // VLAN: the tag's 12 low bits (priority 7 above them), the outer tag of two.
  EXPECT_EQ(port_of(PortRule("vlan", 64), tagged), 12);
  EXPECT_EQ(port_of(PortRule("vlan", 64), ipv4_frame("020000000005", "0a000001", "88a8002a8100000c")), 42);
  EXPECT_EQ(unmapped(PortRule("vlan", 8), tagged), "c: packet 1: VLAN 12 >= num_ports 8 (pcap_port vlan)");
  EXPECT_EQ(unmapped(PortRule("vlan", 64), a),
            "c: packet 1: untagged frame and no port for untagged frames (vlan:untagged=PORT gives one) (pcap_port vlan)");
  EXPECT_EQ(unmapped(PortRule("vlan", 64), ipv4_frame("020000000005", "0a000001", "8100e000")),
            "c: packet 1: priority-tagged frame (VLAN 0) and no port for untagged frames (vlan:untagged=PORT gives one) "
            "(pcap_port vlan)");
  EXPECT_EQ(port_of(PortRule("vlan:untagged=9", 64), a), 9);
  EXPECT_EQ(port_of(PortRule("vlan:untagged=9", 64), tagged), 12);
}

TEST(PortRule, MacTable) {
  ScratchDir dir;
  write_file(dir / "m.txt", "# host -> port\n00:1b:21:3a:4f:5e 3\n\n00-1B-21-3A-4F-5F   4   # dashes, either case\n");
  const PortRule r("mac-table:" + dir / "m.txt", 64);
  EXPECT_EQ(r.file(), dir / "m.txt");
  EXPECT_EQ(port_of(r, arp_frame("001b213a4f5e")), 3);
  EXPECT_EQ(port_of(r, ipv4_frame("001b213a4f5f", "0a000001")), 4);
  EXPECT_EQ(unmapped(r, arp_frame("001b213a4f60")),
            "c: packet 1: source MAC 00:1b:21:3a:4f:60 is not in " + dir / "m.txt" +
                ", which has no default line (pcap_port mac-table:" + dir / "m.txt" + ")");
  write_file(dir / "d.txt", "00:1b:21:3a:4f:5e 3\ndefault 0\n");
  const PortRule d("mac-table:" + dir / "d.txt", 64);
  EXPECT_EQ(port_of(d, arp_frame("001b213a4f60")), 0);
  EXPECT_EQ(port_of(d, hex("01")), 0);  // no source MAC at all: the default too

  auto table_error = [&](const std::string& text, unsigned ports = 64) {
    write_file(dir / "e.txt", text);
    return error_of([&] { PortRule("mac-table:" + dir / "e.txt", ports); });
  };
  const std::string e = dir / "e.txt";
  EXPECT_EQ(table_error("00:1b:21:3a:4f:5e\n"), e + ":1: expected 'MAC PORT' or 'default PORT'");
  EXPECT_EQ(table_error("\n00:1b:21:3a:4f 1\n"),
            e + ":2: bad MAC address '00:1b:21:3a:4f' (expected six hex bytes like 02:00:00:00:00:07)");
  EXPECT_EQ(table_error("00:1b:21:3a:4f:5e x\n"), e + ":1: bad port 'x' (expected a decimal number)");
  EXPECT_EQ(table_error("00:1b:21:3a:4f:5e 8\n", 8), e + ":1: port 8 >= num_ports 8");
  EXPECT_EQ(table_error("00:1b:21:3a:4f:5e 1\n# again\n00:1B:21:3A:4F:5E 2\n"),
            e + ":3: 00:1b:21:3a:4f:5e is already on line 1");
  EXPECT_EQ(table_error("default 1\ndefault 1\n"), e + ":2: a second default line (the first is line 1)");
  EXPECT_EQ(table_error("# nothing\n"), e + ": no entries (lines 'MAC PORT' or 'default PORT')");
}

TEST(PortRule, IpTableLongestPrefixBothVersions) {
  ScratchDir dir;
  write_file(dir / "ip.txt",
             "10.0.0.0/8 1\n10.1.0.0/16 2\n10.1.2.3 3\n0.0.0.0/0 4\nfd00::/16 5\nfd00:1::/32 6\nfd00:1::9 7\n");
  const PortRule r("ip-table:" + dir / "ip.txt", 64);
  EXPECT_EQ(port_of(r, ipv4_frame("020000000000", "0a020304")), 1);
  EXPECT_EQ(port_of(r, ipv4_frame("020000000000", "0a010404")), 2);
  EXPECT_EQ(port_of(r, ipv4_frame("020000000000", "0a010203")), 3);
  EXPECT_EQ(port_of(r, ipv4_frame("020000000000", "c0a80001")), 4);
  EXPECT_EQ(port_of(r, ipv4_frame("020000000000", "0a010203", "81000005")), 3);  // through a VLAN tag
  EXPECT_EQ(port_of(r, ipv6_frame("020000000000", "fd00" + std::string(28, '0'))), 5);
  EXPECT_EQ(port_of(r, ipv6_frame("020000000000", "fd000001" + std::string(24, '0'))), 6);
  EXPECT_EQ(port_of(r, ipv6_frame("020000000000", "fd000001" + std::string(20, '0') + "0009")), 7);
  // IPv4's 0.0.0.0/0 holds no IPv6 address.
  const std::string ip = dir / "ip.txt";
  EXPECT_EQ(unmapped(r, ipv6_frame("020000000000", "20010db8" + std::string(24, '0'))),
            "c: packet 1: source IP 2001:db8:: matches no prefix in " + ip + ", which has no default line (pcap_port ip-table:" +
                ip + ")");
  EXPECT_EQ(unmapped(r, arp_frame("020000000000")),
            "c: packet 1: no IPv4 or IPv6 header (ethertype 0x0806) to take the source IP from, and " + ip +
                " has no default line (pcap_port ip-table:" + ip + ")");
  write_file(dir / "d.txt", "fd00::/8 1\ndefault 2\n");
  EXPECT_EQ(port_of(PortRule("ip-table:" + dir / "d.txt", 64), arp_frame("020000000000")), 2);

  auto table_error = [&](const std::string& text) {
    write_file(dir / "e.txt", text);
    return error_of([&] { PortRule("ip-table:" + dir / "e.txt", 64); });
  };
  const std::string e = dir / "e.txt";
  EXPECT_EQ(table_error("10.0.0.0/33 1\n"), e + ":1: bad prefix length '33' (expected 0..32)");
  EXPECT_EQ(table_error("fd00::/129 1\n"), e + ":1: bad prefix length '129' (expected 0..128)");
  EXPECT_EQ(table_error("10.0.0.1/24 1\n"),
            e + ":1: '10.0.0.1/24' has address bits set beyond the /24 prefix (did you mean 10.0.0.0/24?)");
  EXPECT_EQ(table_error("10.0.0.300 1\n"),
            e + ":1: bad IP address '10.0.0.300' (expected IPv4 like 10.0.0.1 or IPv6 like fd00::1)");
  EXPECT_EQ(table_error("10.0.0.0/24 1\n10.0.0.0/24 2\n"), e + ":2: 10.0.0.0/24 is already on line 1");
  EXPECT_EQ(table_error("10.0.0.0/24 1 extra\n"), e + ":1: expected 'PREFIX PORT' or 'default PORT'");
}

// pcapng files with `n` interfaces, one packet from host 5's MAC on the last one; shb_userappl
// as given ("" = none).
Bytes pcapng(unsigned n, const std::string& app = "") {
  std::ostringstream out;
  if (app == "flaresim") {
    PcapngWriter w(out, n);
    const Bytes f = ipv4_frame("020000000005", "0a000001");
    w.write(uint16_t(n - 1), 0, f.data(), f.size());
    const std::string s = out.str();
    return Bytes(s.begin(), s.end());
  }
  auto u32 = [](Bytes& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
  };
  Bytes b;
  u32(b, 0x0A0D0D0A), u32(b, 28), u32(b, 0x1A2B3C4D), u32(b, 1), u32(b, 0xFFFFFFFF), u32(b, 0xFFFFFFFF), u32(b, 28);
  for (unsigned i = 0; i < n; ++i) u32(b, 1), u32(b, 20), u32(b, 1), u32(b, 0), u32(b, 20);
  const Bytes f = ipv4_frame("020000000005", "0a000001");  // 34 bytes: 2 of padding
  u32(b, 6), u32(b, 68), u32(b, n - 1), u32(b, 0), u32(b, 0), u32(b, uint32_t(f.size())), u32(b, uint32_t(f.size()));
  b.insert(b.end(), f.begin(), f.end());
  b.push_back(0), b.push_back(0);
  u32(b, 68);
  return b;
}

TEST(PortRule, AutoPicksByTheKindOfFile) {
  auto read = [](const Bytes& b, TraceInfo* info, const std::string& rule = "auto") {
    TraceOptions o;
    o.pcap_port = rule;
    return parse_trace("c", b.data(), b.size(), o, info);
  };
  TraceInfo info;
  EXPECT_EQ(read(pcapng(1), &info)[0].port, 5);  // a capture from elsewhere: the source MAC
  EXPECT_EQ(info.port_rule, "src-mac");
  EXPECT_EQ(info.port_rule_why, "the default for a one-interface pcapng");
  EXPECT_EQ(read(pcapng(3), &info)[0].port, 2);  // several interfaces: the interface id
  EXPECT_EQ(info.port_rule, "interface");
  EXPECT_EQ(info.port_rule_why, "the default for a pcapng with several interfaces");
  EXPECT_EQ(read(pcapng(1, "flaresim"), &info)[0].port, 0);  // flaresim's own one-port file: its interface
  EXPECT_EQ(info.port_rule, "interface");
  EXPECT_EQ(info.port_rule_why, "the default for a pcapng written by flaresim");
  EXPECT_EQ(read(pcapng(3), &info, "9")[0].port, 9);  // a fixed port holds for pcapng too
  EXPECT_EQ(info.port_rule, "9");
  EXPECT_EQ(info.port_rule_why, "");
  EXPECT_EQ(read(pcapng(1), &info, "interface")[0].port, 0);
  const std::string text = "0ns 1 udp\n";
  EXPECT_EQ(read(Bytes(text.begin(), text.end()), &info, "src-mac")[0].port, 1);  // text names its ports
  EXPECT_EQ(info.format, TraceFormat::kText);
  EXPECT_EQ(info.port_rule, "");
  // One interface, MACs that are no port: the error names the packet and the rule chosen.
  Bytes foreign = pcapng(1);
  foreign[foreign.size() - 4 - 2 - 34 + 10] = 0x4f;  // source MAC 02:00:00:00:4f:05
  TraceOptions o;
  EXPECT_EQ(error_of([&] { parse_trace("c", foreign.data(), foreign.size(), o); }),
            "c: packet 1: port 20229 from the source MAC 02:00:00:00:4f:05 >= num_ports 64 (pcap_port src-mac, the "
            "default for a one-interface pcapng; other rules: traces/FORMAT.md)");
}

}  // namespace
}  // namespace fs
