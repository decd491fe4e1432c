// End to end: traces made elsewhere. scapy (Debian's, /usr/bin/python3) writes captures the way
// other tools do: a one-interface pcapng, several interfaces (joined by Wireshark's mergecap),
// 802.1Q tags, IPv6 and TCP, Linux cooked captures. `flaresim run` replays them with each
// --pcap-port rule, checked through the ingress counts of the stats' ports[] (docs/STATS.md), not
// through forwarding; every refusal is checked by its exact message. Field lines of text traces
// are compared byte for byte with scapy's frames, and `flaresim trace` merges, shifts and filters
// small traces whose results are written out here.
#include <map>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Runs a scapy script in `dir` (its prologue imports what the scripts use and defines
// pcapng(name, packets, linktype=1): one interface, a packet every microsecond).
void python(const ScratchDir& dir, const std::string& script) {
  write_file(dir / "make.py",
             "from scapy.all import Ether, Dot1Q, Dot1AD, IP, IPv6, UDP, TCP, ARP, Raw, CookedLinux, CookedLinuxV2, wrpcap\n"
             "from scapy.utils import PcapNgWriter\n"
             "def pcapng(name, pkts, linktype=1):\n"
             "    w = PcapNgWriter(name)\n"
             "    w.linktype = linktype\n"
             "    for i, p in enumerate(pkts):\n"
             "        p.time = 1700000000 + i * 0.000001\n"
             "        w.write(p)\n"
             "    w.close()\n" +
                 script);
  const std::string cmd = "cd '" + dir.path() + "' && /usr/bin/python3 make.py > py.out 2> py.err";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "py.err");
}

// port -> packets_in of the ports that received anything, from the stats of the last run.
std::map<unsigned, uint64_t> ingress(const ScratchDir& dir) {
  std::map<unsigned, uint64_t> in;
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "s.json"));
  for (const auto& p : stats["ports"])
    if (p["packets_in"].get<uint64_t>()) in[p["port"].get<unsigned>()] = p["packets_in"].get<uint64_t>();
  return in;
}

CliResult replay(const ScratchDir& dir, const std::string& trace, const std::string& rule = "") {
  return flaresim("run -q --stats s.json --trace " + trace + (rule.empty() ? "" : " --pcap-port " + rule), dir);
}

using Ports = std::map<unsigned, uint64_t>;

TEST(E2EForeignTrace, OneInterfacePcapngTakesItsPortsFromTheSourceMacsAndSaysSo) {
  ScratchDir dir;
  python(dir,
         "host = lambda n: Ether(src='02:00:00:00:00:%02x' % n, dst='02:00:00:ff:ff:ff') / IP(src='10.1.0.%d' % n, "
         "dst='10.0.0.1') / UDP(sport=7, dport=9)\n"
         "pcapng('one.pcapng', [host(1), host(1), host(2), host(5)])\n"
         "pcapng('foreign.pcapng', [Ether(src='00:1b:21:3a:4f:5e') / IP() / UDP()])\n");
  CliResult r = replay(dir, "one.pcapng");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ingress(dir), (Ports{{1, 2}, {2, 1}, {5, 1}}));
  EXPECT_EQ(r.err,
            "flaresim: note: one.pcapng has one interface: each packet's ingress port is the last two bytes of its "
            "source MAC (--pcap-port src-mac, the default for a one-interface pcapng; traces/FORMAT.md lists the "
            "other rules)\n");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["inputs"]["port_rule"], "src-mac");
  // The capture's interface, or one port for everything, when asked for: no note.
  r = replay(dir, "one.pcapng", "interface");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ingress(dir), (Ports{{0, 4}}));
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["inputs"]["port_rule"], "interface");
  ASSERT_EQ(replay(dir, "one.pcapng", "7").code, 0);
  EXPECT_EQ(ingress(dir), (Ports{{7, 4}}));
  // A MAC that is no port: an error naming the packet and the rule, not port 0.
  r = replay(dir, "foreign.pcapng");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: foreign.pcapng: packet 1: port 20318 from the source MAC 00:1b:21:3a:4f:5e >= num_ports 64 "
            "(pcap_port src-mac, the default for a one-interface pcapng; other rules: traces/FORMAT.md)\n");
}

// A capture from elsewhere is forwarded as a switch would (the learning bridge, routing.default_route
// = learn; docs/ARCHITECTURE.md), with its ports from the default rule. Worked by hand on 64 ports:
// packet 1 (host 1 to host 2, UDP) floods to the 63 other ports; packet 2 (host 2 to host 1, TCP)
// goes to port 1, learned from packet 1; packet 3 (host 1 to host 2, IPv6) to port 2, learned
// from packet 2; packet 4 (host 5 to host 1 in VLAN 10, where nobody was learned) floods again.
TEST(E2EForeignTrace, PlainTrafficFromAOneInterfaceCaptureIsForwarded) {
  ScratchDir dir;
  python(dir,
         "mac = lambda n: '02:00:00:00:00:%02x' % n\n"
         "pcapng('lan.pcapng', [\n"
         "  Ether(src=mac(1), dst=mac(2)) / IP(src='10.1.0.1', dst='10.1.0.2') / UDP(sport=1000, dport=2000),\n"
         "  Ether(src=mac(2), dst=mac(1)) / IP(src='10.1.0.2', dst='10.1.0.1') / TCP(sport=2000, dport=1000),\n"
         "  Ether(src=mac(1), dst=mac(2)) / IPv6(src='fd00::1', dst='fd00::2') / UDP(sport=1000, dport=2000),\n"
         "  Ether(src=mac(5), dst=mac(1)) / Dot1Q(vlan=10) / IP(src='10.1.0.5', dst='10.1.0.1') / TCP()])\n");
  const CliResult r = replay(dir, "lan.pcapng");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "s.json"));
  std::map<unsigned, uint64_t> out;
  for (const auto& p : stats["ports"])
    if (p["packets_out"].get<uint64_t>()) out[p["port"].get<unsigned>()] = p["packets_out"].get<uint64_t>();
  Ports expected;
  for (unsigned port = 0; port < 64; ++port) {
    const uint64_t n = (port != 1) + (port == 1) + (port == 2) + (port != 5);  // packets 1, 2, 3, 4
    if (n) expected[port] = n;
  }
  EXPECT_EQ(out, expected);
  EXPECT_EQ(stats["totals"]["packets_out"], 63 + 1 + 1 + 63);
  EXPECT_EQ(stats["drops"]["total"], 0);
}

TEST(E2EForeignTrace, SeveralInterfacesAreSeveralPorts) {
  ScratchDir dir;
  // Interface i sends i + 1 packets from host 10 + i; mergecap keeps the three interfaces apart.
  python(dir,
         "for i in range(3):\n"
         "    w = PcapNgWriter('i%d.pcapng' % i)\n"
         "    for k in range(i + 1):\n"
         "        p = Ether(src='02:00:00:00:00:%02x' % (10 + i)) / IP() / UDP()\n"
         "        p.time = 1700000000 + k * 0.001 + i * 0.0001\n"
         "        w.write(p)\n"
         "    w.close()\n");
  const std::string merge = "cd '" + dir.path() + "' && mergecap -I none -w m.pcapng i0.pcapng i1.pcapng i2.pcapng";
  ASSERT_EQ(std::system(merge.c_str()), 0);
  CliResult r = replay(dir, "m.pcapng");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(ingress(dir), (Ports{{0, 1}, {1, 2}, {2, 3}}));
  ASSERT_EQ(replay(dir, "m.pcapng", "src-mac").code, 0);
  EXPECT_EQ(ingress(dir), (Ports{{10, 1}, {11, 2}, {12, 3}}));
  // In time order the file's third packet is the first on interface 2.
  r = flaresim("run -q --trace m.pcapng --ports.count 2", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: m.pcapng: packet 3: interface 2 >= num_ports 2 (pcap_port interface, the default for a pcapng "
            "with several interfaces; other rules: traces/FORMAT.md)\n");
}

TEST(E2EForeignTrace, TablesOfSourceMacsAndSourceIps) {
  ScratchDir dir;
  python(dir,
         "pcapng('c.pcapng', [\n"
         "    Ether(src='aa:00:00:00:00:01') / IP(src='192.168.1.10') / UDP(),\n"
         "    Ether(src='aa:00:00:00:00:02') / IPv6(src='fd00:1::5', dst='fd00::1') / TCP(flags='S'),\n"
         "    Ether(src='aa:00:00:00:00:02') / IPv6(src='fd00:2::5', dst='fd00::1') / UDP(),\n"
         "    Ether(src='aa:00:00:00:00:03') / ARP()])\n");
  write_file(dir / "macs.txt", "# the capture's hosts\naa:00:00:00:00:01 3\nAA-00-00-00-00-02 4\n");
  CliResult r = replay(dir, "c.pcapng", "mac-table:macs.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: c.pcapng: packet 4: source MAC aa:00:00:00:00:03 is not in macs.txt, which has no default "
            "line (pcap_port mac-table:macs.txt)\n");
  write_file(dir / "macs.txt", slurp(dir / "macs.txt") + "default 9\n");
  r = replay(dir, "c.pcapng", "mac-table:macs.txt");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ingress(dir), (Ports{{3, 1}, {4, 2}, {9, 1}}));

  write_file(dir / "ips.txt", "192.168.1.0/24 1\nfd00::/16 2\nfd00:2::/32 6   # the longest prefix wins\n");
  r = replay(dir, "c.pcapng", "ip-table:ips.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: c.pcapng: packet 4: no IPv4 or IPv6 header (ethertype 0x0806) to take the source IP from, and "
            "ips.txt has no default line (pcap_port ip-table:ips.txt)\n");
  write_file(dir / "ips.txt", slurp(dir / "ips.txt") + "default 0\n");
  ASSERT_EQ(replay(dir, "c.pcapng", "ip-table:ips.txt").code, 0);
  EXPECT_EQ(ingress(dir), (Ports{{0, 1}, {1, 1}, {2, 1}, {6, 1}}));

  // Table errors name file:line; a table is an input no output may overwrite.
  write_file(dir / "bad.txt", "aa:00:00:00:00:01 3\nzz 4\n");
  r = replay(dir, "c.pcapng", "mac-table:bad.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: bad.txt:2: bad MAC address 'zz' (expected six hex bytes like 02:00:00:00:00:07)\n");
  write_file(dir / "ips.txt", "10.0.0.0/8 70\n");
  EXPECT_EQ(replay(dir, "c.pcapng", "ip-table:ips.txt").err, "flaresim: ips.txt:1: port 70 >= num_ports 64\n");
  r = flaresim("run -q --trace c.pcapng --pcap-port mac-table:macs.txt --stats macs.txt", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --stats macs.txt: is the input --pcap-port; name another file\n");
}

TEST(E2EForeignTrace, VlanIdsArePorts) {
  ScratchDir dir;
  python(dir,
         "f = lambda vlan: Ether(src='aa:00:00:00:00:01') / Dot1Q(vlan=vlan, prio=5) / IP() / UDP()\n"
         "wrpcap('v.pcap', [f(3), f(3), Ether(src='aa:00:00:00:00:01') / Dot1AD(vlan=5) / Dot1Q(vlan=7) / IP(), "
         "Ether(src='aa:00:00:00:00:01') / IP()])\n");
  CliResult r = replay(dir, "v.pcap", "vlan");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: v.pcap: packet 4: untagged frame and no port for untagged frames (vlan:untagged=PORT gives "
            "one) (pcap_port vlan)\n");
  r = replay(dir, "v.pcap", "vlan:untagged=9");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ingress(dir), (Ports{{3, 2}, {5, 1}, {9, 1}}));  // the outer (802.1ad) tag of the third
}

TEST(E2EForeignTrace, LinuxCookedCapturesAreRefusedWithWhatToDo) {
  ScratchDir dir;
  python(dir,
         "wrpcap('sll.pcap', [CookedLinux(pkttype=0, lladdrtype=1, lladdrlen=6, proto=0x0800) / IP() / UDP()])\n"
         "pcapng('sll2.pcapng', [CookedLinuxV2(proto=0x0800) / IP() / UDP()], linktype=276)\n");
  CliResult r = replay(dir, "sll.pcap");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: sll.pcap: block at offset 0: linktype 113 (LINUX_SLL, a Linux cooked capture such as tcpdump "
            "-i any writes) has no Ethernet header; only Ethernet (linktype 1) is read: capture on one Ethernet "
            "interface (tcpdump -i eth0)\n");
  r = replay(dir, "sll2.pcapng");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: sll2.pcapng: block at offset 28: interface 0: linktype 276 (LINUX_SLL2, a Linux cooked "
            "capture such as tcpdump -i any writes) has no Ethernet header; only Ethernet (linktype 1) is read: "
            "capture on one Ethernet interface (tcpdump -i eth0)\n");
  // The trace tools read as run does.
  r = flaresim("trace filter -o out.txt sll.pcap", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "flaresim: sll.pcap: block at offset 0: linktype 113 (LINUX_SLL, a Linux cooked capture such as tcpdump "
            "-i any writes) has no Ethernet header; only Ethernet (linktype 1) is read: capture on one Ethernet "
            "interface (tcpdump -i eth0)\n");
  EXPECT_FALSE(exists(dir / "out.txt"));
}

// Field lines and the same packets in scapy, one per line.
const std::vector<std::pair<std::string, std::string>> kFieldLines = {
    {"0ns 3 udp src_mac=00:11:22:33:44:55 dst_mac=66:77:88:99:aa:bb vlan=5 src_ip=10.0.0.1 dst_ip=10.0.0.2 sport=1 "
     "dport=2 len=64",
     "Ether(src='00:11:22:33:44:55', dst='66:77:88:99:aa:bb') / Dot1Q(vlan=5) / IP(src='10.0.0.1', dst='10.0.0.2', "
     "id=0) / UDP(sport=1, dport=2) / Raw(bytes(64))"},
    {"0ns 4 udp",
     "Ether(src='02:00:00:00:00:04', dst='02:00:00:ff:ff:ff') / IP(src='10.1.0.4', dst='10.0.0.1', id=0) / "
     "UDP(sport=49152, dport=9)"},
    {"0ns 1 udp src_ip=fd00::1 dst_ip=2001:db8::2 sport=5000 dport=4791 payload=0102030405 ttl=7 tos=0x20",
     "Ether(src='02:00:00:00:00:01', dst='02:00:00:ff:ff:ff') / IPv6(src='fd00::1', dst='2001:db8::2', hlim=7, "
     "tc=0x20) / UDP(sport=5000, dport=4791) / Raw(bytes.fromhex('0102030405'))"},
    {"1ns 2 tcp src_ip=192.168.0.1 dst_ip=192.168.0.2 sport=40000 dport=443 seq=1000 ack=2000 flags=PA window=1024 "
     "len=10 id=77 ttl=128 tos=4",
     "Ether(src='02:00:00:00:00:02', dst='02:00:00:ff:ff:ff') / IP(src='192.168.0.1', dst='192.168.0.2', id=77, "
     "ttl=128, tos=4) / TCP(sport=40000, dport=443, seq=1000, ack=2000, flags='PA', window=1024) / Raw(bytes(10))"},
    {"1ns 2 tcp src_ip=fe80::1 dst_ip=fe80::2 flags=S seq=4294967295 payload=ff vlan=100",
     "Ether(src='02:00:00:00:00:02', dst='02:00:00:ff:ff:ff') / Dot1Q(vlan=100) / IPv6(src='fe80::1', "
     "dst='fe80::2') / TCP(sport=49152, dport=9, flags='S', seq=4294967295, window=65535) / Raw(b'\\xff')"},
    {"1ns 2 tcp",
     "Ether(src='02:00:00:00:00:02', dst='02:00:00:ff:ff:ff') / IP(src='10.1.0.2', dst='10.0.0.1', id=0) / "
     "TCP(sport=49152, dport=9, flags='A', window=65535)"},
    {"2ns 0 ip proto=47 len=4",
     "Ether(src='02:00:00:00:00:00', dst='02:00:00:ff:ff:ff') / IP(src='10.1.0.0', dst='10.0.0.1', id=0, proto=47) "
     "/ Raw(bytes(4))"},
    {"2ns 0 ip src_ip=::1 dst_ip=::2 proto=59",
     "Ether(src='02:00:00:00:00:00', dst='02:00:00:ff:ff:ff') / IPv6(src='::1', dst='::2', nh=59)"},
    {"2ns 0 eth ethertype=0x88cc payload=0a0b0c",
     "Ether(src='02:00:00:00:00:00', dst='02:00:00:ff:ff:ff', type=0x88cc) / Raw(b'\\x0a\\x0b\\x0c')"},
};

TEST(E2EForeignTrace, FieldLinesAreScapysFrames) {
  ScratchDir dir;
  std::string lines, script = "for p in [\n";
  for (const auto& [line, scapy] : kFieldLines) lines += line + "\n", script += "        " + scapy + ",\n";
  python(dir, script + "]:\n    print(bytes(p).hex())\n");
  write_file(dir / "fields.txt", lines);
  const CliResult r = flaresim("trace filter -o out.txt fields.txt", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream ours(slurp(dir / "out.txt")), theirs(slurp(dir / "py.out"));
  std::string line, want;
  std::getline(ours, line);  // the header comment
  for (const auto& [field_line, scapy] : kFieldLines) {
    ASSERT_TRUE(std::getline(ours, line) && std::getline(theirs, want)) << field_line;
    EXPECT_EQ(line.substr(line.rfind(' ') + 1), want) << field_line;
  }
  EXPECT_FALSE(std::getline(theirs, want));
}

const std::string kHeader = "# flaresim text trace: <time> <port> hex <frame bytes> (see traces/FORMAT.md)\n";

TEST(E2ETraceTools, MergeShiftFilterOnKnownTraces) {
  ScratchDir dir;
  write_file(dir / "a.txt", "0ns 0 hex 0a\n2ns 1 hex 0b\n2ns 0 hex 0c\n");
  write_file(dir / "b.txt", "1ns 0 hex 1a\n2ns 2 hex 1b\n");
  CliResult r = flaresim("trace merge -o m.txt a.txt b.txt --port-offset 0,8", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "flaresim trace merge: 2 inputs, 5 packets written to m.txt\n");
  EXPECT_EQ(slurp(dir / "m.txt"), kHeader + "0ns 0 hex 0a\n1ns 8 hex 1a\n2ns 1 hex 0b\n2ns 0 hex 0c\n2ns 10 hex 1b\n");
  ASSERT_EQ(flaresim("trace merge -o m2.txt b.txt a.txt --port-map 1:2=5,0=3", dir).code, 0);
  EXPECT_EQ(slurp(dir / "m2.txt"), kHeader + "0ns 0 hex 0a\n1ns 3 hex 1a\n2ns 5 hex 1b\n2ns 1 hex 0b\n2ns 0 hex 0c\n");

  r = flaresim("trace shift -o s.txt m.txt --by -1ns", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: m.txt:2: time 0ns shifted by -1ns would be negative\n");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"a.txt", "b.txt", "m.txt", "m2.txt"}));  // nothing half-written
  ASSERT_EQ(flaresim("trace shift -o s.txt m.txt --by 1.5us", dir).code, 0);
  EXPECT_EQ(slurp(dir / "s.txt"),
            kHeader + "1500ns 0 hex 0a\n1501ns 8 hex 1a\n1502ns 1 hex 0b\n1502ns 0 hex 0c\n1502ns 10 hex 1b\n");
  ASSERT_EQ(flaresim("trace shift -o s2.txt s.txt --by=-1499.5ns", dir).code, 0);
  EXPECT_EQ(slurp(dir / "s2.txt"),
            kHeader + "0.5ns 0 hex 0a\n1.5ns 8 hex 1a\n2.5ns 1 hex 0b\n2.5ns 0 hex 0c\n2.5ns 10 hex 1b\n");

  ASSERT_EQ(flaresim("trace filter -o f.txt m.txt --port 0-1,10 --from 1ns --to 3ns", dir).code, 0);
  EXPECT_EQ(slurp(dir / "f.txt"), kHeader + "2ns 1 hex 0b\n2ns 0 hex 0c\n2ns 10 hex 1b\n");
  ASSERT_EQ(flaresim("trace filter -o f.txt m.txt --index 2-3", dir).code, 0);
  EXPECT_EQ(slurp(dir / "f.txt"), kHeader + "1ns 8 hex 1a\n2ns 1 hex 0b\n");
  ASSERT_EQ(flaresim("trace filter -o f.txt m.txt --index 5-", dir).code, 0);
  EXPECT_EQ(slurp(dir / "f.txt"), kHeader + "2ns 10 hex 1b\n");
  write_file(dir / "u.txt", "0ns 0 udp dport=53\n1ns 1 tcp dport=53\n2ns 2 udp dport=54 src_ip=fd00::1 dst_ip=fd00::2\n");
  ASSERT_EQ(flaresim("trace filter -o f.txt u.txt --match ip_proto=udp --match dport=53", dir).code, 0);
  EXPECT_EQ(slurp(dir / "f.txt"),
            kHeader + "0ns 0 hex 020000ffffff020000000000" "0800" "4500001c000000004011" "66d0" "0a0100000a000001"
                      "c00000350008" "2ba7" "\n");
}

TEST(E2ETraceTools, PcapngOutputReadsBackAndTsharkAgrees) {
  ScratchDir dir;
  write_file(dir / "a.txt", "0ns 0 udp\n2.5ns 1 udp\n");
  write_file(dir / "b.txt", "1ns 0 tcp\n");
  ASSERT_EQ(flaresim("trace merge -o m.pcapng --ports 16 a.txt b.txt --port-offset 0,15", dir).code, 0);
  const std::string cmd = "cd '" + dir.path() +
                          "' && tshark -r m.pcapng -T fields -e frame.interface_id -e frame.time_epoch -e ip.proto "
                          "> tshark.out 2> /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(slurp(dir / "tshark.out"), "0\t0.000000000\t17\n15\t0.000000001\t6\n1\t0.000000002\t17\n");
  // Read back: flaresim's own pcapng keeps its interfaces as ports; the text form says the same.
  ASSERT_EQ(flaresim("trace filter -o back.txt m.pcapng --ports 16", dir).code, 0);
  ASSERT_EQ(flaresim("trace merge -o m.txt --format text a.txt b.txt --port-offset 0,15 --ports 16", dir).code, 0);
  EXPECT_EQ(slurp(dir / "back.txt"), slurp(dir / "m.txt"));
  EXPECT_NE(slurp(dir / "m.txt").find("\n2.5ns 1 hex "), std::string::npos);
}

TEST(E2ETraceTools, BadUsageIsRefusedByName) {
  ScratchDir dir;
  write_file(dir / "a.txt", "0ns 0 hex 0a\n");
  auto err = [&](const std::string& args) {
    const CliResult r = flaresim("trace " + args, dir);
    EXPECT_EQ(r.code, 2) << args;
    return r.err;
  };
  EXPECT_EQ(err(""), "flaresim: trace: missing subcommand (valid: merge, shift, filter; see 'flaresim trace --help')\n");
  EXPECT_EQ(err("split a.txt"),
            "flaresim: trace: unknown subcommand 'split' (valid: merge, shift, filter; see 'flaresim trace --help')\n");
  EXPECT_EQ(err("filter a.txt"), "flaresim: trace filter: missing -o OUT (see 'flaresim trace filter --help')\n");
  EXPECT_EQ(err("filter -o a.txt a.txt"), "flaresim: -o a.txt: is the input trace a.txt; name another file\n");
  EXPECT_EQ(err("merge -o m.txt"), "flaresim: trace merge: no input traces (usage: flaresim trace merge -o OUT IN IN...)\n");
  EXPECT_EQ(err("merge -o m.txt a.txt a.txt --port-offset 1"),
            "flaresim: --port-offset 1: 1 offsets for 2 inputs (give one per input)\n");
  EXPECT_EQ(err("merge -o m.txt a.txt --port-offset 64"),
            "flaresim: bad value '64' for '--port-offset': expected one number below --ports per input\n");
  EXPECT_EQ(err("merge -o m.txt a.txt --port-map 2:0=1"), "flaresim: --port-map 2:0=1: no input 2 (1 given)\n");
  EXPECT_EQ(err("merge -o m.txt a.txt --port-map 1:0=64"),
            "flaresim: bad value '1:0=64' for '--port-map': expected N:FROM=TO[,FROM=TO...] (input N, counted from 1; "
            "ports below --ports)\n");
  EXPECT_EQ(err("shift -o s.txt a.txt"), "flaresim: trace shift: missing --by TIME\n");
  EXPECT_EQ(err("shift -o s.txt a.txt --by 5"), "flaresim: --by: time '5' has no unit (use ps, ns, us, ms or s)\n");
  EXPECT_EQ(err("shift -o s.txt a.txt a.txt --by 5ns"), "flaresim: trace shift: give exactly one input trace (2 given)\n");
  EXPECT_EQ(err("filter -o f.txt a.txt --index 0-2"),
            "flaresim: bad value '0-2' for '--index': expected A-B, A- or A with 1 <= A <= B\n");
  EXPECT_EQ(err("filter -o f.txt a.txt --port 64"), "flaresim: --port 64: port 64 >= --ports 64\n");
  EXPECT_EQ(err("filter -o f.txt a.txt --match port=1"),
            "flaresim: --match port=1: unknown field 'port' (fields: ethertype vlan ip_proto src_ip dst_ip sport dport "
            "src_mac dst_mac)\n");
  EXPECT_EQ(err("filter -o f.txt a.txt --format pcap"), "flaresim: bad value 'pcap' for '--format': expected one of text, pcapng\n");
  EXPECT_EQ(err("filter -o f.txt a.txt --pcap-port vlan:untagged=64"), "flaresim: pcap_port vlan:untagged=64 >= num_ports 64\n");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"a.txt"}));
  for (const char* sub : {"merge", "shift", "filter"}) {
    const CliResult r = flaresim(std::string("trace ") + sub + " --help", dir);
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind(std::string("usage: flaresim trace ") + sub + " -o OUT", 0), 0u) << r.out;
  }
}

}  // namespace
}  // namespace fs::test
