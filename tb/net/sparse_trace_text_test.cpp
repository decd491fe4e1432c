// Tests of the text traces' `flare_sparse key=value ...` lines (the flare_sparse protocol's trace
// syntax): the header fields and pairs they put in the frame, read back byte by byte, their
// defaults, and every error with its file:line.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "flare/flare_proto.h"
#include "net/frame.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

std::vector<TraceRecord> parse_text(const std::string& text) {
  TraceOptions o;
  o.num_ports = 64;
  return parse_trace("t.txt", reinterpret_cast<const uint8_t*>(text.data()), text.size(), o);
}

std::string error_of(const std::string& text) {
  try {
    parse_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SparseTraceText, FieldsAndPairsGoWhereTheWireFormatSays) {
  const auto recs = parse_text(
      "5ns 2 flare_sparse block=3 ar=7 shard=1 last=0 pairs=9:-2,4:2147483647\n"
      "6ns 3 flare_sparse kind=result block=0 rank=65535 dtype=int8 op=max shard=2 pairs=-\n"
      "7ns 1 flare_sparse block=1 dtype=float32 shards=5 udp=5000 pairs=0:0.5\n");
  ASSERT_EQ(recs.size(), 3u);
  // A contribution from port 2: 42 header bytes, the 20-byte sparse header, 2 pairs of 8 bytes.
  const Bytes& a = recs[0].data;
  ASSERT_EQ(a.size(), 42u + 20 + 16);
  const uint8_t* u = a.data() + 42;
  EXPECT_EQ(u[0], 1);     // version
  EXPECT_EQ(u[1], 0x80);  // sparse contribution, not last
  EXPECT_EQ(u[2], FLARE_INT32);
  EXPECT_EQ(u[3], FLARE_OP_SUM);
  EXPECT_EQ(fs_be32(u + 4), 7u);
  EXPECT_EQ(fs_be32(u + 8), 3u);
  EXPECT_EQ(fs_be16(u + 12), 2u);  // rank = the port
  EXPECT_EQ(fs_be16(u + 14), 2u);  // pairs
  EXPECT_EQ(fs_be16(u + 16), 1u);  // shard
  EXPECT_EQ(fs_be16(u + 18), 0u);  // shards: not the last packet
  const Bytes pairs = {9, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 4, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f};
  EXPECT_EQ(Bytes(a.begin() + 62, a.end()), pairs);  // as given, not sorted
  EXPECT_EQ(fs_be16(a.data() + 36), 4950u);
  // A header-only result: last by default, shards = shard + 1.
  const uint8_t* r = recs[1].data.data() + 42;
  ASSERT_EQ(recs[1].data.size(), 62u);
  EXPECT_EQ(r[1], 0xC1);
  EXPECT_EQ(r[2], FLARE_INT8);
  EXPECT_EQ(r[3], FLARE_OP_MAX);
  EXPECT_EQ(fs_be16(r + 12), 65535u);
  EXPECT_EQ(fs_be16(r + 16), 2u);
  EXPECT_EQ(fs_be16(r + 18), 3u);
  // float32 on UDP port 5000 with shards given.
  const Bytes& f = recs[2].data;
  ASSERT_EQ(f.size(), 42u + 20 + 8);
  EXPECT_EQ(fs_be16(f.data() + 36), 5000u);
  EXPECT_EQ(fs_be16(f.data() + 42 + 18), 5u);
  EXPECT_EQ(Bytes(f.begin() + 62, f.end()), (Bytes{0, 0, 0, 0, 0, 0, 0, 0x3f}));
}

TEST(SparseTraceText, ErrorsNameTheLine) {
  const std::string k = "0ns 0 flare_sparse ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pairs=-", "t.txt:1: flare_sparse: missing required key block"},
      {"block=0", "t.txt:1: flare_sparse: missing required key pairs (index:value,... or - for none)"},
      {"block=0 pairs=- color=red",
       "t.txt:1: flare_sparse: unknown key 'color' (keys: kind ar block rank dtype op shard shards last pairs udp)"},
      {"block=0 block=1 pairs=-", "t.txt:1: flare_sparse: duplicate key block"},
      {"block=0 pairs", "t.txt:1: flare_sparse: expected key=value, got 'pairs'"},
      {"block=0 last=2 pairs=-", "t.txt:1: flare_sparse: bad value '2' for key last (expected 0 or 1)"},
      {"block=0 kind=sum pairs=-", "t.txt:1: flare_sparse: bad value 'sum' for key kind (expected contrib or result)"},
      {"block=0 pairs=1", "t.txt:1: flare_sparse: pairs: item 1 '1' is not index:value"},
      {"block=0 pairs=x:1", "t.txt:1: flare_sparse: pairs: item 1 'x:1': bad index (expected 0..4294967295)"},
      {"block=0 dtype=int16 pairs=1:40000", "t.txt:1: flare_sparse: pairs: item 1 '1:40000': bad int16 value '40000'"},
      {"block=0 pairs=1:1,", "t.txt:1: flare_sparse: pairs: item 2 '' is not index:value"},
      {"block=0 udp=0 pairs=-", "t.txt:1: flare_sparse: bad value '0' for key udp (expected a port 1..65535)"},
  };
  for (const auto& [args, message] : cases) EXPECT_EQ(error_of(k + args + "\n"), message) << args;
}

}  // namespace
}  // namespace fs
