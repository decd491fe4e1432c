// Tests of pcap and pcapng reading (sc_model/net/trace_reader): files built byte by byte in the
// test, every error with its place, and truncated/garbage files that must never crash; each file
// is read both from memory (parse_trace) and for replay from a file (open_trace), which must
// agree record for record and error for error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "common/errors.h"
#include "net/trace_reader.h"
#include "support/cli_runner.h"

namespace fs {
namespace {

// Byte buffer with explicit byte order, for hand-built files.
struct Buf {
  bool be = false;
  Bytes b;
  Buf& u8(uint8_t v) { b.push_back(v); return *this; }
  Buf& u16(uint32_t v) {
    if (be) { u8(uint8_t(v >> 8)); u8(uint8_t(v)); } else { u8(uint8_t(v)); u8(uint8_t(v >> 8)); }
    return *this;
  }
  Buf& u32(uint32_t v) {
    if (be) { u16(v >> 16); u16(v & 0xFFFF); } else { u16(v & 0xFFFF); u16(v >> 16); }
    return *this;
  }
  Buf& raw(const Bytes& d) { b.insert(b.end(), d.begin(), d.end()); return *this; }
};

// A 14-byte Ethernet header whose source MAC ends in port (big-endian), then `extra` bytes.
Bytes eth(uint16_t port, size_t extra = 0) {
  Bytes f = {0x02, 0, 0, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, uint8_t(port >> 8), uint8_t(port), 0x88,
             0xb5};
  for (size_t i = 0; i < extra; ++i) f.push_back(uint8_t(i));
  return f;
}

// pcapng blocks. Options are given as already encoded bytes.
void shb(Buf& f) {
  f.u32(0x0A0D0D0A).u32(28).u32(0x1A2B3C4D).u16(1).u16(0).u32(0xFFFFFFFF).u32(0xFFFFFFFF).u32(28);
}
void idb(Buf& f, uint16_t linktype, int tsresol = -1, bool with_offset = false,
         int64_t offset = 0) {
  Buf opts;
  opts.be = f.be;
  if (tsresol >= 0) opts.u16(9).u16(1).u8(uint8_t(tsresol)).u8(0).u8(0).u8(0);
  if (with_offset) opts.u16(14).u16(8).u32(uint32_t(uint64_t(offset) >> (f.be ? 32 : 0)))
                       .u32(uint32_t(uint64_t(offset) >> (f.be ? 0 : 32)));
  if (!opts.b.empty()) opts.u32(0);
  const uint32_t len = uint32_t(20 + opts.b.size());
  f.u32(1).u32(len).u16(linktype).u16(0).u32(0).raw(opts.b).u32(len);
}
void epb(Buf& f, uint32_t iface, uint64_t ts, const Bytes& data, uint32_t orig = 0xFFFFFFFF) {
  Bytes padded = data;
  while (padded.size() % 4) padded.push_back(0);
  const uint32_t len = uint32_t(32 + padded.size());
  f.u32(6).u32(len).u32(iface).u32(uint32_t(ts >> 32)).u32(uint32_t(ts)).u32(uint32_t(data.size()))
      .u32(orig == 0xFFFFFFFF ? uint32_t(data.size()) : orig).raw(padded).u32(len);
}

// Most tests check timestamp conversion, so they read capture times as they are.
TraceOptions absolute_times() {
  TraceOptions o;
  o.relative_capture_times = false;
  return o;
}

// The same bytes written to a file and read back two ways: read_trace (all in memory, what runs
// did before) and open_trace (indexed through a mapping, each frame read back when asked for),
// which must agree record for record (time, port, bytes) and error for error.
void file_reads_agree(const Bytes& b, const TraceOptions& o) {
  static const test::ScratchDir dir;  // one for the test's process; each call writes the file anew
  const std::string path = dir / "trace";
  test::write_file(path, std::string(b.begin(), b.end()));
  std::string whole_error, index_error;
  std::vector<TraceRecord> whole;
  try {
    whole = read_trace(path, o);
  } catch (const InputError& e) {
    whole_error = e.what();
  }
  std::vector<TraceRecord> indexed;
  try {
    TraceFrames t = open_trace(path, o, nullptr, ~Picos(0));
    for (size_t i = 0; i < t.entries.size(); ++i)
      indexed.push_back(TraceRecord{t.entries[i].time, t.entries[i].port, t.frame(i), "", t.entries[i].size, 0, 0});
  } catch (const InputError& e) {
    index_error = e.what();
  }
  EXPECT_EQ(index_error, whole_error);
  ASSERT_EQ(indexed.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(indexed[i].time, whole[i].time) << "record " << i;
    EXPECT_EQ(indexed[i].port, whole[i].port) << "record " << i;
    EXPECT_EQ(indexed[i].data, whole[i].data) << "record " << i;
    EXPECT_EQ(indexed[i].size, whole[i].data.size()) << "record " << i;
  }
}

std::vector<TraceRecord> parse(const Bytes& b, const TraceOptions& o = absolute_times(),
                               const std::string& name = "f") {
  file_reads_agree(b, o);
  return parse_trace(name, b.data(), b.size(), o);
}

std::string error_of(const Bytes& b, const TraceOptions& o = absolute_times()) {
  try {
    parse(b, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TracePcapng, HandBuiltLittleEndian) {
  Buf f;
  shb(f);
  idb(f, 1, 9);            // interface 0: nanoseconds
  idb(f, 1, 0x80 | 10);    // interface 1: 2^-10 s
  f.u32(0x0BAD).u32(16).u32(0xdeadbeef).u32(16);  // unknown block: skipped
  epb(f, 1, 1024, eth(7, 3));  // 1 s
  epb(f, 0, 1500, eth(9));     // 1.5 us
  epb(f, 1, 1, eth(5, 1));     // 2^-10 s = 10^12 / 1024 ps = 976562500 ps exactly
  const auto r = parse(f.b);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time, 1500000u);
  EXPECT_EQ(r[0].port, 0);  // interface id, not the MAC
  EXPECT_EQ(r[0].data, eth(9));
  EXPECT_EQ(r[0].where, "f: packet 2");
  EXPECT_EQ(r[1].time, 976562500u);
  EXPECT_EQ(r[1].where, "f: packet 3");
  EXPECT_EQ(r[2].time, 1000000000000u);
  EXPECT_EQ(r[2].port, 1);
  EXPECT_EQ(r[2].data, eth(7, 3));
}

TEST(TracePcapng, BigEndianSectionDefaultResolutionAndOffset) {
  Buf f;
  f.be = true;
  shb(f);
  idb(f, 1);                   // default resolution: microseconds
  idb(f, 1, 12, true, 2);      // picoseconds, 2 s offset
  idb(f, 1, 15);               // femtoseconds: rounded down to picoseconds
  idb(f, 1, 0x80 | 40);        // 2^-40 s
  epb(f, 0, 3, eth(1));
  epb(f, 1, 5, eth(1));
  epb(f, 2, 7999, eth(1));
  epb(f, 3, 3, eth(1));
  const auto r = parse(f.b);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].time, 2u);         // 3 * 10^12 / 2^40 = 2.73 -> 2
  EXPECT_EQ(r[0].port, 3);
  EXPECT_EQ(r[1].time, 7u);         // 7999 fs -> 7 ps
  EXPECT_EQ(r[2].time, 3000000u);   // 3 us
  EXPECT_EQ(r[3].time, 2000000000005u);
}

TEST(TracePcapng, StableSortKeepsFileOrderForEqualTimes) {
  Buf f;
  shb(f);
  idb(f, 1, 9);
  idb(f, 1, 12);
  epb(f, 0, 2, eth(0, 1));
  epb(f, 1, 1000, eth(0, 2));  // also 1 ns
  epb(f, 0, 1, eth(0, 3));
  epb(f, 0, 1, eth(0, 4));
  const auto r = parse(f.b);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].data, eth(0, 2));
  EXPECT_EQ(r[1].data, eth(0, 3));
  EXPECT_EQ(r[2].data, eth(0, 4));
  EXPECT_EQ(r[3].data, eth(0, 1));
}

TEST(TracePcapng, NewSectionResetsInterfaces) {
  Buf f;
  shb(f);
  idb(f, 1);
  idb(f, 1);
  shb(f);
  idb(f, 1);
  epb(f, 1, 0, eth(0));
  EXPECT_EQ(error_of(f.b),
            "f: packet 1: enhanced packet block on undeclared interface 1 (1 declared in this "
            "section)");
}

TEST(TracePcapng, Errors) {
  Buf base;
  shb(base);
  const size_t after_shb = base.b.size();  // 28
  {
    Buf f = base;
    f.u32(3).u32(20).u32(14).u32(0).u32(20);
    EXPECT_EQ(error_of(f.b),
              "f: block at offset 28: Simple Packet Block not supported (it has no interface or "
              "timestamp)");
  }
  {
    Buf f = base;
    f.u32(2).u32(12).u32(12);
    EXPECT_EQ(error_of(f.b),
              "f: block at offset 28: obsolete Packet Block not supported (use Enhanced Packet "
              "Blocks)");
  }
  {
    Buf f = base;
    idb(f, 1);
    epb(f, 2, 0, eth(0));
    EXPECT_EQ(error_of(f.b),
              "f: packet 1: enhanced packet block on undeclared interface 2 (1 declared in this "
              "section)");
  }
  {
    Buf f = base;
    idb(f, 113);
    EXPECT_EQ(error_of(f.b),
              "f: block at offset 28: interface 0: linktype 113 (LINUX_SLL, a Linux cooked capture such as tcpdump -i "
              "any writes) has no Ethernet header; only Ethernet (linktype 1) is read: capture on one Ethernet "
              "interface (tcpdump -i eth0)");
  }
  {
    Buf f = base;
    idb(f, 1);
    epb(f, 0, 0, eth(0, 10));
    f.b.resize(f.b.size() - 5);
    EXPECT_EQ(error_of(f.b), "f: block at offset 48: truncated block: length 56, 51 bytes left");
  }
  {
    Buf f = base;
    f.b.resize(f.b.size() + 5, 0);
    EXPECT_EQ(error_of(f.b), "f: block at offset 28: truncated block header (5 bytes left)");
  }
  {
    Buf f = base;
    f.u32(1).u32(20).u16(1).u16(0).u32(0).u32(24);
    EXPECT_EQ(error_of(f.b),
              "f: block at offset 28: trailing block length 24 != leading length 20");
  }
  {
    Buf f = base;
    f.u32(1).u32(18).u32(0).u32(0).u16(0);
    EXPECT_EQ(error_of(f.b), "f: block at offset 28: bad block length 18");
  }
  {
    Buf f = base;
    f.b[8] = 0x11;
    EXPECT_EQ(error_of(f.b), "f: block at offset 0: bad byte-order magic in section header");
  }
  {
    Buf f = base;
    f.b[12] = 2;
    EXPECT_EQ(error_of(f.b), "f: block at offset 0: unsupported pcapng version 2.0");
  }
  {
    Buf f = base;
    idb(f, 1);
    epb(f, 0, 0, Bytes());
    EXPECT_EQ(error_of(f.b), "f: packet 1: empty packet");
  }
  {
    Buf f = base;
    idb(f, 1);
    epb(f, 0, 0, eth(0), 100);
    EXPECT_EQ(error_of(f.b),
              "f: packet 1: captured length 14 < original length 100 (packet was cut by the "
              "snapshot length)");
  }
  {
    Buf f = base;
    idb(f, 1);
    epb(f, 0, 0, Bytes(65536, 1));
    EXPECT_EQ(error_of(f.b), "f: packet 1: packet of 65536 bytes exceeds 65535");
  }
  {
    Buf f = base;
    for (int i = 0; i < 5; ++i) idb(f, 1);
    epb(f, 4, 0, eth(0));
    TraceOptions o;
    o.num_ports = 4;
    EXPECT_EQ(error_of(f.b, o),
              "f: packet 1: interface 4 >= num_ports 4 (pcap_port interface, the default for a pcapng with several "
              "interfaces; other rules: traces/FORMAT.md)");
  }
  {
    Buf f = base;
    idb(f, 1, 0);  // seconds
    epb(f, 0, 18446745, eth(0));
    EXPECT_EQ(error_of(f.b),
              "f: packet 1: timestamp does not fit in 64-bit picoseconds (about 213 days)");
  }
  {
    Buf f = base;
    f.u32(1).u32(24).u16(1).u16(0).u32(0).u16(9).u16(8).u32(24);  // option runs past the end
    EXPECT_EQ(error_of(f.b), "f: block at offset 28: option 9 runs past the end of the block");
  }
  {
    Buf f = base;
    f.u32(6).u32(32).u32(0).u32(0).u32(0).u32(0).u32(0).u32(32);
    EXPECT_EQ(error_of(f.b),
              "f: packet 1: enhanced packet block on undeclared interface 0 (0 declared in this "
              "section)");
  }
  EXPECT_EQ(after_shb, 28u);
}

// Classic pcap.
Buf pcap_header(bool be, bool nano, uint32_t linktype = 1) {
  Buf f;
  f.be = be;
  f.u32(nano ? 0xa1b23c4d : 0xa1b2c3d4).u16(2).u16(4).u32(0).u32(0).u32(65535).u32(linktype);
  return f;
}
void pcap_rec(Buf& f, uint32_t sec, uint32_t frac, const Bytes& d, uint32_t orig = 0xFFFFFFFF) {
  f.u32(sec).u32(frac).u32(uint32_t(d.size())).u32(orig == 0xFFFFFFFF ? uint32_t(d.size()) : orig)
      .raw(d);
}

TEST(TracePcap, MicrosecondsLittleEndianPortFromSourceMac) {
  Buf f = pcap_header(false, false);
  pcap_rec(f, 1, 500000, eth(2, 5));
  pcap_rec(f, 0, 1, eth(63));
  const auto r = parse(f.b);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].time, 1000000u);
  EXPECT_EQ(r[0].port, 63);
  EXPECT_EQ(r[0].where, "f: packet 2");
  EXPECT_EQ(r[1].time, 1500000000000u);
  EXPECT_EQ(r[1].port, 2);
  EXPECT_EQ(r[1].data, eth(2, 5));
}

TEST(TracePcap, WallClockCaptureStartsAtItsFirstPacketByDefault) {
  // A capture taken on 2026-11-22 (1795305600 s since 1970): far beyond 2^64 ps as it is.
  Buf f = pcap_header(false, true);
  pcap_rec(f, 1795305600u, 500, eth(1));
  pcap_rec(f, 1795305600u, 250, eth(2));  // earlier: the capture's first packet
  pcap_rec(f, 1795305601u, 0, eth(1));
  const auto r = parse(f.b, TraceOptions());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time, 0u);
  EXPECT_EQ(r[0].port, 2);
  EXPECT_EQ(r[1].time, 250000u);                  // 250 ns later
  EXPECT_EQ(r[2].time, 1000000000000u - 250000u);  // 1 s - 250 ns later
  EXPECT_EQ(error_of(f.b), "f: packet 1: timestamp does not fit in 64-bit picoseconds (about 213 days)");

  // Relative times must still fit: 2^64 ps is about 213.5 days.
  Buf g = pcap_header(false, false);
  pcap_rec(g, 1000, 0, eth(1));
  pcap_rec(g, 1000 + 214 * 86400, 0, eth(1));
  EXPECT_EQ(error_of(g.b, TraceOptions()),
            "f: packet 2: packet comes more than 2^64 ps (about 213 days) after the capture's first packet");
}

TEST(TracePcapng, WallClockCaptureStartsAtItsFirstPacketByDefault) {
  Buf f;
  shb(f);
  idb(f, 1, 9);  // nanoseconds
  epb(f, 0, 1795305600000000000ull + 40, eth(0));
  epb(f, 0, 1795305600000000000ull + 1040, eth(0));
  const auto r = parse(f.b, TraceOptions());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].time, 0u);
  EXPECT_EQ(r[1].time, 1000000u);  // 1000 ns
}

TEST(TracePcap, NanosecondsBigEndianFixedPort) {
  Buf f = pcap_header(true, true);
  pcap_rec(f, 2, 7, eth(200));
  TraceOptions o = absolute_times();
  o.pcap_port = "3";
  const auto r = parse(f.b, o);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].time, 2000000007000u);
  EXPECT_EQ(r[0].port, 3);
  Buf g = pcap_header(false, true);  // little-endian nanoseconds
  pcap_rec(g, 0, 7, eth(1));
  EXPECT_EQ(parse(g.b)[0].time, 7000u);
  Buf h = pcap_header(true, false);  // big-endian microseconds
  pcap_rec(h, 0, 7, eth(1));
  EXPECT_EQ(parse(h.b)[0].time, 7000000u);
  EXPECT_TRUE(parse(pcap_header(false, false).b).empty());
}

TEST(TracePcap, Errors) {
  EXPECT_EQ(error_of(pcap_header(false, false, 101).b),
            "f: block at offset 0: unsupported linktype 101 (RAW, IP without a link layer); only Ethernet (linktype 1) "
            "is read: capture on an Ethernet interface");
  Buf v = pcap_header(false, false);
  v.b[4] = 3;
  EXPECT_EQ(error_of(v.b), "f: block at offset 0: unsupported pcap version 3.4");
  Bytes hdr_only = pcap_header(false, false).b;
  hdr_only.resize(20);
  EXPECT_EQ(error_of(hdr_only), "f: block at offset 0: truncated pcap file header");
  Buf f = pcap_header(false, false);
  pcap_rec(f, 0, 0, eth(1));
  Buf t1 = f;
  t1.u32(0).u32(0);
  EXPECT_EQ(error_of(t1.b), "f: packet 2: truncated record header at offset 54");
  Buf t2 = f;
  t2.u32(0).u32(0).u32(20).u32(20).raw(eth(1));
  EXPECT_EQ(error_of(t2.b), "f: packet 2: truncated packet data: 20 bytes announced, 14 present");
  Buf p = pcap_header(false, false);
  pcap_rec(p, 0, 0, eth(256));
  EXPECT_EQ(error_of(p.b),
            "f: packet 1: port 256 from the source MAC 02:00:00:00:01:00 >= num_ports 64 (pcap_port src-mac, the "
            "default for classic pcap; other rules: traces/FORMAT.md)");
  Buf s = pcap_header(false, false);
  pcap_rec(s, 0, 0, Bytes(10, 0));
  EXPECT_EQ(error_of(s.b),
            "f: packet 1: packet of 10 bytes has no source MAC to take the port from (pcap_port src-mac, the default "
            "for classic pcap; other rules: traces/FORMAT.md)");
  Buf e = pcap_header(false, false);
  pcap_rec(e, 0, 0, Bytes());
  EXPECT_EQ(error_of(e.b), "f: packet 1: empty packet");
  Buf c = pcap_header(false, false);
  pcap_rec(c, 0, 0, eth(1), 60);
  EXPECT_EQ(error_of(c.b),
            "f: packet 1: captured length 14 < original length 60 (packet was cut by the snapshot "
            "length)");
  Buf us = pcap_header(false, false);
  pcap_rec(us, 1, 1000000, eth(1));  // a microsecond field of a whole second
  EXPECT_EQ(error_of(us.b), "f: packet 1: timestamp fraction 1000000 is not below one second (microseconds)");
  Buf ns = pcap_header(true, true);
  pcap_rec(ns, 1, 999999999, eth(1));
  EXPECT_EQ(error_of(ns.b), "");
  pcap_rec(ns, 1, 1000000000, eth(1));
  EXPECT_EQ(error_of(ns.b), "f: packet 2: timestamp fraction 1000000000 is not below one second (nanoseconds)");
  Buf o = pcap_header(false, false);
  pcap_rec(o, 0xFFFFFFFF, 0, eth(1));
  EXPECT_EQ(error_of(o.b),
            "f: packet 1: timestamp does not fit in 64-bit picoseconds (about 213 days)");
}

TEST(TracePcap, OtherLinkTypesAreRefusedWithWhatToDo) {
  EXPECT_EQ(error_of(pcap_header(false, false, 276).b),
            "f: block at offset 0: linktype 276 (LINUX_SLL2, a Linux cooked capture such as tcpdump -i any writes) has "
            "no Ethernet header; only Ethernet (linktype 1) is read: capture on one Ethernet interface (tcpdump -i "
            "eth0)");
  EXPECT_EQ(error_of(pcap_header(false, false, 147).b),
            "f: block at offset 0: unsupported linktype 147; only Ethernet (linktype 1) is read: capture on an Ethernet "
            "interface");
  Buf f;
  shb(f);
  idb(f, 1);
  idb(f, 0);
  EXPECT_EQ(error_of(f.b),
            "f: block at offset 48: interface 1: unsupported linktype 0 (NULL, BSD loopback); only Ethernet (linktype "
            "1) is read: capture on an Ethernet interface");
}

TEST(TracePcap, InterfaceRuleNeedsInterfaces) {
  Buf f = pcap_header(false, false);
  pcap_rec(f, 0, 0, eth(1));
  TraceOptions o = absolute_times();
  o.pcap_port = "interface";
  EXPECT_EQ(error_of(f.b, o),
            "f: block at offset 0: pcap_port interface: a classic pcap has no interfaces (traces/FORMAT.md lists the "
            "other rules)");
}

// Deterministic garbage: every truncation and many byte mutations of valid files either parse or
// throw InputError; nothing else (ASan/UBSan builds catch memory errors).
void expect_no_crash(const Bytes& good, uint64_t seed) {
  auto check = [](const Bytes& b) {
    try {
      parse(b);
    } catch (const InputError&) {
    }
  };
  for (size_t n = 0; n <= good.size(); ++n) check(Bytes(good.begin(), good.begin() + long(n)));
  uint64_t s = seed;
  auto next = [&s]() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 33;
  };
  for (int round = 0; round < 3000; ++round) {
    Bytes b = good;
    const int edits = 1 + int(next() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = size_t(next() % b.size());
      b[at] = (next() % 3 == 0) ? uint8_t(0xFF) : uint8_t(next());
    }
    check(b);
  }
}

TEST(TraceFrames, AFileCutWhileTheRunReadsItIsReportedNotReplayed) {
  // Two packets of 17 and 44 bytes; after indexing, the file loses its last 10 bytes: the first
  // frame still reads, the second comes back empty and the error names the file and offset.
  Buf f = pcap_header(false, true);
  pcap_rec(f, 1, 2, eth(3, 3));
  pcap_rec(f, 1, 3, eth(4, 30));
  const test::ScratchDir dir;
  const std::string path = dir / "cut.pcap";
  test::write_file(path, std::string(f.b.begin(), f.b.end()));
  TraceFrames t = open_trace(path, TraceOptions(), nullptr, ~Picos(0));
  ASSERT_EQ(t.entries.size(), 2u);
  ASSERT_EQ(truncate(path.c_str(), off_t(f.b.size() - 10)), 0);
  EXPECT_EQ(t.frame(0), eth(3, 3));
  EXPECT_TRUE(t.frame(1).empty());
  // The second record's frame starts after the 24-byte file header, the first record (16 + 17
  // bytes) and its own 16-byte header: offset 73; 34 of its 44 bytes are left.
  EXPECT_EQ(t.error(), path + ": cannot read the packet bytes at offset 107 (the file got shorter while the run read it)");
}

TEST(TraceGarbage, TruncatedAndMutatedFilesNeverCrash) {
  Buf ng;
  shb(ng);
  idb(ng, 1, 9, true, 1);
  idb(ng, 1, 0x80 | 20);
  epb(ng, 0, 5, eth(1, 3));
  epb(ng, 1, 6, eth(1, 30));
  expect_no_crash(ng.b, 1);
  Buf pc = pcap_header(false, true);
  pcap_rec(pc, 1, 2, eth(3, 1));
  pcap_rec(pc, 1, 3, eth(4, 20));
  expect_no_crash(pc.b, 2);
  const std::string text =
      "# c\n0ns 1 hex 0102:0304\n1.5us 2 flare block=1 dtype=float32 values=1.5,-2e3\n"
      "2us 3 flare kind=result ar=1 block=2 rank=9 dtype=int8 op=max udp=7 values=-1,2,3\n";
  expect_no_crash(Bytes(text.begin(), text.end()), 3);
  // Pure noise with each magic in front.
  uint64_t s = 99;
  for (const uint32_t magic : {0x0A0D0D0Au, 0xa1b2c3d4u, 0xd4c3b2a1u, 0x34333231u}) {
    for (int round = 0; round < 300; ++round) {
      Buf b;
      b.be = true;
      b.u32(magic);
      const size_t n = size_t(round % 97);
      for (size_t i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b.u8(uint8_t(s >> 56));
      }
      try {
        parse(b.b);
      } catch (const InputError&) {
      }
    }
  }
}

}  // namespace
}  // namespace fs
