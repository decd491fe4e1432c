// Tests of the text trace format (sc_model/net/trace_reader): times, hex, flare descriptors and
// every error message with its exact file:line.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <fstream>

#include "common/errors.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

std::vector<TraceRecord> parse_text(const std::string& text, unsigned num_ports = 64) {
  TraceOptions o;
  o.num_ports = num_ports;
  return parse_trace("t.txt", reinterpret_cast<const uint8_t*>(text.data()), text.size(), o);
}

// The InputError message parsing `text` gives ("" if none).
std::string error_of(const std::string& text, unsigned num_ports = 64) {
  try {
    parse_text(text, num_ports);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Picos time_of(const std::string& tok) {
  Picos t = 0;
  std::string err;
  EXPECT_TRUE(parse_time_token(tok, &t, &err)) << tok << ": " << err;
  return t;
}

std::string time_error(const std::string& tok) {
  Picos t = 0;
  std::string err;
  EXPECT_FALSE(parse_time_token(tok, &t, &err)) << tok;
  return err;
}

TEST(TraceText, TimesAreExactPicoseconds) {
  EXPECT_EQ(time_of("0ns"), 0u);
  EXPECT_EQ(time_of("7ps"), 7u);
  EXPECT_EQ(time_of("1ns"), 1000u);
  EXPECT_EQ(time_of("1.25us"), 1250000u);
  EXPECT_EQ(time_of("0.001ns"), 1u);
  EXPECT_EQ(time_of("1.000ps"), 1u);
  EXPECT_EQ(time_of("3ms"), 3000000000u);
  EXPECT_EQ(time_of("4s"), 4000000000000u);
  EXPECT_EQ(time_of("0.000000000001s"), 1u);
  EXPECT_EQ(time_of("18446744073709551615ps"), 18446744073709551615ull);
  EXPECT_EQ(time_of("18446744.073709551615s"), 18446744073709551615ull);
}

TEST(TraceText, BadTimes) {
  EXPECT_EQ(time_error("1.0005ns"), "time '1.0005ns' is finer than a picosecond");
  EXPECT_EQ(time_error("0.0000000000001s"), "time '0.0000000000001s' is finer than a picosecond");
  EXPECT_EQ(time_error("18446744073709551616ps"),
            "time '18446744073709551616ps' overflows 64-bit picoseconds");
  EXPECT_EQ(time_error("18446745s"), "time '18446745s' overflows 64-bit picoseconds");
  EXPECT_EQ(time_error("100"), "time '100' has no unit (use ps, ns, us, ms or s)");
  EXPECT_EQ(time_error("5xs"), "time '5xs' has unknown unit 'xs' (use ps, ns, us, ms or s)");
  EXPECT_EQ(time_error("-1ns"), "negative time '-1ns'");
  EXPECT_EQ(time_error("ns"), "bad time 'ns': expected a decimal number with a unit, e.g. 1.25us");
  EXPECT_EQ(time_error(".5ns"),
            "bad time '.5ns': expected a decimal number with a unit, e.g. 1.25us");
  EXPECT_EQ(time_error("1.ns"), "bad time '1.ns': no digits after '.'");
}

TEST(TraceText, HexLinesCommentsAndPlaces) {
  const auto recs = parse_text(
      "# a comment line\n"
      "\n"
      "0ns 0 hex 00112233445566778899aabbccdd   # trailing comment\n"
      "  \t \r\n"
      "1.25us 3 hex 00:11:2233:44\r\n"
      "1.25us 63 hex FFee\n");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].time, 0u);
  EXPECT_EQ(recs[0].port, 0);
  EXPECT_EQ(recs[0].data, Bytes({0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
                                 0xbb, 0xcc, 0xdd}));
  EXPECT_EQ(recs[0].where, "t.txt:3");
  EXPECT_EQ(recs[1].time, 1250000u);
  EXPECT_EQ(recs[1].port, 3);
  EXPECT_EQ(recs[1].data, Bytes({0x00, 0x11, 0x22, 0x33, 0x44}));
  EXPECT_EQ(recs[1].where, "t.txt:5");
  EXPECT_EQ(recs[2].data, Bytes({0xff, 0xee}));
  EXPECT_TRUE(parse_text("").empty());
  EXPECT_TRUE(parse_text("# nothing\n\n").empty());
}

TEST(TraceText, LineErrors) {
  EXPECT_EQ(error_of("0ns 0 hex 00\n0ns 0 bytes 00\n"),
            "t.txt:2: unknown token 'bytes' (expected hex or eth or flare or flare_sparse or ip or tcp or udp)");
  EXPECT_EQ(error_of("0ns 0\n"),
            "t.txt:1: expected '<time> <port> hex <bytes>' or '<time> <port> eth|flare|flare_sparse|ip|tcp|udp key=value...'");
  EXPECT_EQ(error_of("0ns 0 hex 0g\n"), "t.txt:1: hex: bad hex digit 'g' at character 2");
  EXPECT_EQ(error_of("0ns 0 hex 012\n"), "t.txt:1: hex: odd number of hex digits (3)");
  EXPECT_EQ(error_of("0ns 0 hex 0:12\n"),
            "t.txt:1: hex: misplaced ':' at character 2 (only between byte pairs)");
  EXPECT_EQ(error_of("0ns 0 hex :01\n"),
            "t.txt:1: hex: misplaced ':' at character 1 (only between byte pairs)");
  EXPECT_EQ(error_of("0ns 0 hex 01::02\n"),
            "t.txt:1: hex: misplaced ':' at character 4 (only between byte pairs)");
  EXPECT_EQ(error_of("0ns 0 hex 01:\n"),
            "t.txt:1: hex: misplaced ':' at character 3 (only between byte pairs)");
  EXPECT_EQ(error_of("0ns 0 hex\n"), "t.txt:1: hex: missing packet bytes");
  EXPECT_EQ(error_of("0ns 0 hex 00 11\n"), "t.txt:1: unexpected token '11' after hex bytes");
  EXPECT_EQ(error_of("100 0 hex 00\n"),
            "t.txt:1: time '100' has no unit (use ps, ns, us, ms or s)");
  EXPECT_EQ(error_of("2ns 0 hex 00\n# comment\n2ns 0 hex 00\n1999ps 1 hex 00\n"),
            "t.txt:4: time 1999ps goes backwards (previous packet at 2ns, line 3)");
  EXPECT_EQ(error_of("0ns 64 hex 00\n"), "t.txt:1: port 64 >= num_ports 64");
  EXPECT_EQ(error_of("0ns 4 hex 00\n", 4), "t.txt:1: port 4 >= num_ports 4");
  EXPECT_EQ(error_of("0ns 99999999999999999999 hex 00\n"),
            "t.txt:1: port 99999999999999999999 >= num_ports 64");
  EXPECT_EQ(error_of("0ns x hex 00\n"), "t.txt:1: bad port 'x' (expected a decimal number)");
  EXPECT_EQ(error_of("0ns -1 hex 00\n"), "t.txt:1: bad port '-1' (expected a decimal number)");
  EXPECT_EQ(error_of("0ns 0 hex " + std::string(2 * 65536, 'a') + "\n"),
            "t.txt:1: packet of 65536 bytes exceeds 65535");
  EXPECT_EQ(error_of("0ns 0 hex " + std::string(2 * 65535, 'a')), "");
  EXPECT_EQ(error_of(std::string("\x01\x02 0 hex 00\n", 12)),
            "t.txt:1: bad time '\\x01\\x02': expected a decimal number with a unit, e.g. 1.25us");
  EXPECT_EQ(error_of("0ns 0 hex 00 # fine\n1ns 0 hex 00#fine\nzz\n"),
            "t.txt:3: expected '<time> <port> hex <bytes>' or '<time> <port> eth|flare|flare_sparse|ip|tcp|udp key=value...'");
}

TEST(TraceText, OptionErrors) {
  EXPECT_EQ(error_of("", 0), "num_ports 0 not in 1..65536");
  TraceOptions o;
  o.pcap_port = "eth0";
  try {
    parse_trace("x", nullptr, 0, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "pcap_port 'eth0': expected auto, interface, src-mac, a port number, mac-table:FILE, ip-table:FILE, "
                 "vlan or vlan:untagged=PORT");
  }
  o.pcap_port = "64";
  try {
    parse_trace("x", nullptr, 0, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "pcap_port 64 >= num_ports 64");
  }
}

TEST(TraceText, FileErrors) {
  try {
    read_trace("/nonexistent-dir/trace.txt", TraceOptions());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent-dir/trace.txt: cannot open trace file (No such file or directory)");
  }
  const std::string dir = ::testing::TempDir();
  try {
    read_trace(dir, TraceOptions());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory");
  }
  const std::string path = dir + "fs_TraceText_FileErrors.txt";
  {
    std::ofstream f(path);
    f << "0ns 1 hex 0011\n5ns 1 hex zz\n";
  }
  try {
    read_trace(path, TraceOptions());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: hex: bad hex digit 'z' at character 1");
  }
  std::remove(path.c_str());
}

Bytes le_elems(const std::vector<int64_t>& v, unsigned size) {
  Bytes b;
  for (int64_t x : v)
    for (unsigned k = 0; k < size; ++k) b.push_back(uint8_t(uint64_t(x) >> (8 * k)));
  return b;
}

TEST(TraceText, FlareDescriptorMatchesBuildFlarePacket) {
  const auto recs = parse_text("5ns 2 flare block=3 ar=7 values=1,-2,2147483647,-2147483648\n");
  ASSERT_EQ(recs.size(), 1u);
  flare_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  h.dtype = FLARE_INT32;
  h.op = FLARE_OP_SUM;
  h.allreduce_id = 7;
  h.block_id = 3;
  h.sender_rank = 2;  // defaults to the port
  h.elem_count = 4;
  const Bytes e = le_elems({1, -2, 2147483647, -2147483648LL}, 4);
  EXPECT_EQ(recs[0].data, build_flare_packet(h, 2, e.data(), e.size(), 4950));
  EXPECT_EQ(recs[0].time, 5000u);
  EXPECT_EQ(recs[0].port, 2);
  // Spot-check the bytes themselves: Flare header right after the 42 header bytes.
  const Bytes hdr(recs[0].data.begin() + 42, recs[0].data.begin() + 58);
  EXPECT_EQ(hdr, Bytes({1, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 3, 0, 2, 0, 4}));
  EXPECT_EQ(Bytes(recs[0].data.begin() + 58, recs[0].data.end()),
            Bytes({1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0x80}));
}

TEST(TraceText, FlareDescriptorAllKeys) {
  const auto recs = parse_text(
      "0ns 1 flare kind=result ar=4294967295 block=9 rank=65535 dtype=int16 op=min udp=5000 "
      "values=-32768,32767\n"
      "0ns 1 flare block=0 dtype=int8 op=max values=-128,127,0\n"
      "0ns 0 flare block=1 dtype=float32 values=0.5,-1.25,1e-3,inf\n");
  ASSERT_EQ(recs.size(), 3u);
  flare_header_t h{};
  h.version = 1;
  h.kind = FLARE_KIND_RESULT;
  h.dtype = FLARE_INT16;
  h.op = FLARE_OP_MIN;
  h.allreduce_id = 4294967295u;
  h.block_id = 9;
  h.sender_rank = 65535;
  h.elem_count = 2;
  Bytes e = le_elems({-32768, 32767}, 2);
  EXPECT_EQ(recs[0].data, build_flare_packet(h, 1, e.data(), e.size(), 5000));
  h = flare_header_t{};
  h.version = 1;
  h.dtype = FLARE_INT8;
  h.op = FLARE_OP_MAX;
  h.sender_rank = 1;
  h.elem_count = 3;
  e = le_elems({-128, 127, 0}, 1);
  EXPECT_EQ(recs[1].data, build_flare_packet(h, 1, e.data(), e.size()));
  h = flare_header_t{};
  h.version = 1;
  h.dtype = FLARE_FLOAT32;
  h.block_id = 1;
  h.elem_count = 4;
  const float f[4] = {0.5f, -1.25f, 1e-3f, std::numeric_limits<float>::infinity()};
  uint8_t fb[16];
  std::memcpy(fb, f, 16);  // little-endian host
  EXPECT_EQ(recs[2].data, build_flare_packet(h, 0, fb, 16));
}

TEST(TraceText, FlareDescriptorErrors) {
  auto err = [](const std::string& desc) { return error_of("0ns 1 flare " + desc + "\n"); };
  EXPECT_EQ(err("block=0 foo=1 values=1"),
            "t.txt:1: flare: unknown key 'foo' (keys: kind ar block rank dtype op values udp)");
  EXPECT_EQ(err("block values=1"), "t.txt:1: flare: expected key=value, got 'block'");
  EXPECT_EQ(err("=3 values=1"), "t.txt:1: flare: expected key=value, got '=3'");
  EXPECT_EQ(err("block=0 block=1 values=1"), "t.txt:1: flare: duplicate key block");
  EXPECT_EQ(err("values=1"), "t.txt:1: flare: missing required key block");
  EXPECT_EQ(err("block=1"), "t.txt:1: flare: missing required key values");
  EXPECT_EQ(err(""), "t.txt:1: flare: missing required key block");
  EXPECT_EQ(err("kind=x block=0 values=1"),
            "t.txt:1: flare: bad value 'x' for key kind (expected contrib or result)");
  EXPECT_EQ(err("ar=4294967296 block=0 values=1"),
            "t.txt:1: flare: bad value '4294967296' for key ar (expected a 32-bit unsigned "
            "number)");
  EXPECT_EQ(err("block=-1 values=1"),
            "t.txt:1: flare: bad value '-1' for key block (expected a 32-bit unsigned number)");
  EXPECT_EQ(err("block=0 rank=65536 values=1"),
            "t.txt:1: flare: bad value '65536' for key rank (expected a number 0..65535)");
  EXPECT_EQ(err("block=0 dtype=int64 values=1"),
            "t.txt:1: flare: bad value 'int64' for key dtype (expected int32, int16, int8 or "
            "float32)");
  EXPECT_EQ(err("block=0 op=prod values=1"),
            "t.txt:1: flare: bad value 'prod' for key op (expected sum, min or max)");
  EXPECT_EQ(err("block=0 udp=0 values=1"),
            "t.txt:1: flare: bad value '0' for key udp (expected a port 1..65535)");
  EXPECT_EQ(err("block=0 udp=65536 values=1"),
            "t.txt:1: flare: bad value '65536' for key udp (expected a port 1..65535)");
  EXPECT_EQ(err("block=0 values=1,,2"), "t.txt:1: flare: values: item 2 '' is empty");
  EXPECT_EQ(err("block=0 values="), "t.txt:1: flare: values: item 1 '' is empty");
  EXPECT_EQ(err("block=0 values=1,x"), "t.txt:1: flare: values: item 2 'x' is not an integer");
  EXPECT_EQ(err("block=0 values=1.5"), "t.txt:1: flare: values: item 1 '1.5' is not an integer");
  EXPECT_EQ(err("block=0 dtype=int8 values=128"),
            "t.txt:1: flare: values: item 1 '128' is out of int8 range -128..127");
  EXPECT_EQ(err("block=0 dtype=int16 values=-32769"),
            "t.txt:1: flare: values: item 1 '-32769' is out of int16 range -32768..32767");
  EXPECT_EQ(err("block=0 values=2147483648"),
            "t.txt:1: flare: values: item 1 '2147483648' is out of int32 range "
            "-2147483648..2147483647");
  EXPECT_EQ(err("block=0 values=99999999999999999999"),
            "t.txt:1: flare: values: item 1 '99999999999999999999' is out of int32 range "
            "-2147483648..2147483647");
  EXPECT_EQ(err("block=0 dtype=float32 values=1e40"),
            "t.txt:1: flare: values: item 1 '1e40' is out of float32 range");
  EXPECT_EQ(err("block=0 dtype=float32 values=0.5,abc"),
            "t.txt:1: flare: values: item 2 'abc' is not a number");
  std::string many = "block=0 dtype=int8 values=0";
  for (int i = 1; i < 65536; ++i) many += ",0";
  EXPECT_EQ(err(many), "t.txt:1: flare: values: more than 65535 values");
  std::string big = "block=0 values=0";
  for (int i = 1; i < 16370; ++i) big += ",0";
  EXPECT_EQ(err(big),
            "t.txt:1: flare: values: 16370 int32 values need 65480 bytes, over the 65477 that "
            "fit in a 65535-byte frame");
  EXPECT_EQ(err(big.substr(0, big.size() - 2)), "");  // 16369 values fit
  std::string f32 = "block=0 dtype=float32 values=0";
  for (int i = 1; i < 16370; ++i) f32 += ",0";
  EXPECT_EQ(err(f32),
            "t.txt:1: flare: values: 16370 float32 values need 65480 bytes, over the 65477 that "
            "fit in a 65535-byte frame");
}

}  // namespace
}  // namespace fs
