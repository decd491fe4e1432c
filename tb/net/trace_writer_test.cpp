// Tests of sc_model/net/trace_writer: exact text and pcapng bytes, round trips through the
// reader, and tshark reading a written pcapng with the right frames and times.
#include "net/trace_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "common/output_files.h"
#include "support/cli_runner.h"
#include "common/errors.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

std::string temp_path(const std::string& leaf) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "fs_" + info->test_suite_name() + "_" + info->name() + "_" + leaf;
}

TraceRecord rec(Picos t, uint16_t port, Bytes d) {
  TraceRecord r;
  r.time = t;
  r.port = port;
  r.data = std::move(d);
  return r;
}

Bytes sample_frame(uint16_t port, uint8_t fill) {
  flare_header_t h{};
  h.version = 1;
  h.block_id = fill;
  h.sender_rank = port;
  h.elem_count = 1;
  const uint8_t e[4] = {fill, 0, 0, 0};
  return build_flare_packet(h, port, e, 4);
}

TEST(TraceWriter, FormatPicosNs) {
  EXPECT_EQ(format_picos_ns(0), "0ns");
  EXPECT_EQ(format_picos_ns(1), "0.001ns");
  EXPECT_EQ(format_picos_ns(1250), "1.25ns");
  EXPECT_EQ(format_picos_ns(3000), "3ns");
  EXPECT_EQ(format_picos_ns(1234567), "1234.567ns");
  EXPECT_EQ(format_picos_ns(18446744073709551615ull), "18446744073709551.615ns");
  EXPECT_EQ(to_hex(Bytes({0x00, 0xab, 0x7f}).data(), 3), "00ab7f");
}

TEST(TraceWriter, TextExactAndRoundTrip) {
  const std::vector<TraceRecord> recs = {rec(0, 0, {0x01, 0x02}), rec(1250, 5, {0xff}),
                                         rec(1250, 1, {0xab, 0xcd, 0xef})};
  std::ostringstream out;
  write_text_trace(out, recs);
  EXPECT_EQ(out.str(),
            "# flaresim text trace: <time> <port> hex <frame bytes> (see traces/FORMAT.md)\n"
            "0ns 0 hex 0102\n"
            "1.25ns 5 hex ff\n"
            "1.25ns 1 hex abcdef\n");
  const std::string s = out.str();
  const auto back = parse_trace("w.txt", reinterpret_cast<const uint8_t*>(s.data()), s.size(),
                                TraceOptions());
  ASSERT_EQ(back.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(back[i].time, recs[i].time);
    EXPECT_EQ(back[i].port, recs[i].port);
    EXPECT_EQ(back[i].data, recs[i].data);
  }
  EXPECT_EQ(back[2].where, "w.txt:4");
}

TEST(TraceWriter, TextRejectsUnsortedRecords) {
  std::ostringstream out;
  try {
    write_text_trace(out, {rec(5, 0, {1}), rec(4, 0, {1})});
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_STREQ(e.what(), "write_text_trace: record 2 at 0.004ns is before record 1 at 0.005ns");
  }
}

TEST(TraceWriter, PcapngExactBytes) {
  std::ostringstream out;
  PcapngWriter w(out, 1);
  const uint8_t d[3] = {0xaa, 0xbb, 0xcc};
  w.write(0, 0x100000002ull, d, 3);
  const std::string s = out.str();
  const Bytes got(s.begin(), s.end());
  const Bytes want = {
      // SHB: type, length 44, byte-order magic, version 1.0, section length -1
      0x0a, 0x0d, 0x0d, 0x0a, 44, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      4, 0, 8, 0, 'f', 'l', 'a', 'r', 'e', 's', 'i', 'm',  // shb_userappl
      0, 0, 0, 0, 44, 0, 0, 0,
      // IDB: type 1, length 44, linktype 1, snaplen 0, if_name "port0", if_tsresol 12
      1, 0, 0, 0, 44, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
      2, 0, 5, 0, 'p', 'o', 'r', 't', '0', 0, 0, 0,
      9, 0, 1, 0, 12, 0, 0, 0,
      0, 0, 0, 0, 44, 0, 0, 0,
      // EPB: type 6, length 36, interface 0, timestamp 0x1:0x2, captured 3, original 3
      6, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0,
      0xaa, 0xbb, 0xcc, 0, 36, 0, 0, 0};
  EXPECT_EQ(got, want);
  EXPECT_THROW(w.write(1, 0, d, 3), SimError);
  EXPECT_THROW(PcapngWriter(out, 0), SimError);
}

std::vector<TraceRecord> sample_records() {
  return {rec(0, 0, sample_frame(0, 1)), rec(1500000, 3, sample_frame(3, 2)),
          rec(1500000, 2, sample_frame(2, 3)), rec(2000000007000ull, 1, sample_frame(1, 4)),
          rec(2000000007001ull, 1, Bytes({1, 2, 3, 4, 5}))};
}

TEST(TraceWriter, PcapngRoundTripThroughReader) {
  const std::string path = temp_path("rt.pcapng");
  const auto recs = sample_records();
  {
    OutputFiles f;
    write_pcapng(f.add("--egress", path), 4, recs);
    f.commit();
  }
  TraceOptions o;
  o.num_ports = 4;
  const auto back = read_trace(path, o);
  ASSERT_EQ(back.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(back[i].time, recs[i].time) << i;
    EXPECT_EQ(back[i].port, recs[i].port) << i;
    EXPECT_EQ(back[i].data, recs[i].data) << i;
    EXPECT_EQ(back[i].where, path + ": packet " + std::to_string(i + 1));
  }
  std::remove(path.c_str());
}

TEST(TraceWriter, TsharkReadsPicosecondPcapng) {
  const std::string path = temp_path("ts.pcapng");
  auto recs = sample_records();
  recs.pop_back();  // keep whole nanoseconds: Wireshark keeps times in nanoseconds
  {
    OutputFiles f;
    write_pcapng(f.add("--egress", path), 4, recs);
    f.commit();
  }
  const std::string out =
      test::command_output("tshark -r '" + path + "' -T fields -e frame.number -e frame.interface_name "
          "-e frame.time_epoch -e frame.len -e ip.src -e ip.checksum.status "
          "-o ip.check_checksum:TRUE 2>/dev/null");
  EXPECT_EQ(out,
            "1\tport0\t0.000000000\t62\t10.1.0.0\t1\n"
            "2\tport3\t0.000001500\t62\t10.1.0.3\t1\n"
            "3\tport2\t0.000001500\t62\t10.1.0.2\t1\n"
            "4\tport1\t2.000000007\t62\t10.1.0.1\t1\n");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fs
