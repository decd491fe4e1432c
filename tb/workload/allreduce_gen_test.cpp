// Tests of sc_model/workload/allreduce_gen: option checks, packet layout and timing, results
// recomputed independently from the generated packets, determinism, expected-file round trip.
#include "protocols/flare_dense/allreduce_gen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "flare/flare_proto.h"
#include "net/frame.h"

namespace fs {
namespace {

std::string gen_error(const AllreduceGenOptions& o) {
  try {
    generate_allreduce(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

AllreduceGenOptions small(unsigned hosts, uint64_t bytes, uint32_t elem_bytes) {
  AllreduceGenOptions o;
  o.hosts = hosts;
  o.bytes = bytes;
  o.elem_bytes = elem_bytes;
  return o;
}

TEST(AllreduceGen, OptionErrors) {
  AllreduceGenOptions o = small(2, 16, 16);
  EXPECT_EQ(gen_error(o), "");
  auto with = [&](auto edit) {
    AllreduceGenOptions c = o;
    edit(c);
    return gen_error(c);
  };
  const std::string p = "allreduce generator: ";
  EXPECT_EQ(with([](auto& c) { c.hosts = 0; }), p + "hosts: 0 not in 1..64");
  EXPECT_EQ(with([](auto& c) { c.hosts = 65; }), p + "hosts: 65 not in 1..64");
  EXPECT_EQ(with([](auto& c) { c.hosts = 9; c.num_ports = 8; }), p + "hosts: 9 not in 1..8");
  EXPECT_EQ(with([](auto& c) { c.num_ports = 0; }), p + "num_ports: 0 not in 1..65536");
  EXPECT_EQ(with([](auto& c) { c.bytes = 0; }), p + "bytes: must be positive");
  EXPECT_EQ(with([](auto& c) { c.bytes = 6; }),
            p + "bytes: 6 is not a multiple of the int32 size 4");
  EXPECT_EQ(with([](auto& c) { c.dtype = "int64"; }),
            p + "dtype: unknown 'int64' (valid: int32, int16, int8 or float32)");
  EXPECT_EQ(with([](auto& c) { c.op = "prod"; }),
            p + "op: unknown 'prod' (valid: sum, min or max)");
  EXPECT_EQ(with([](auto& c) { c.elem_bytes = 0; }),
            p + "elem_bytes: 0 is not a positive multiple of the int32 size 4");
  EXPECT_EQ(with([](auto& c) { c.elem_bytes = 6; }),
            p + "elem_bytes: 6 is not a positive multiple of the int32 size 4");
  EXPECT_EQ(with([](auto& c) { c.dtype = "int8"; c.elem_bytes = 65536; }),
            p + "elem_bytes: 65536 gives 65536 elements per packet, over 65535");
  EXPECT_EQ(with([](auto& c) { c.elem_bytes = 65480; }),
            p + "elem_bytes: 65480 is over the 65477 that fit in a 65535-byte frame");
  EXPECT_EQ(with([](auto& c) { c.elem_bytes = 65476; }), "");
  EXPECT_EQ(with([](auto& c) { c.gbps = 0; }), p + "gbps: must be a positive finite rate");
  EXPECT_EQ(with([](auto& c) { c.gbps = std::nan(""); }),
            p + "gbps: must be a positive finite rate");
  EXPECT_EQ(with([](auto& c) { c.gbps = 1e-15; }),
            p + "gbps: send times overflow 64-bit picoseconds at this rate and size");
  EXPECT_EQ(with([](auto& c) { c.udp_port = 0; }), p + "udp_port: must be 1..65535");
}

// The elements of a generated contribution frame, as signed int32.
std::vector<int32_t> int32_elems(const Bytes& f) {
  std::vector<int32_t> v;
  for (size_t i = FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES; i + 4 <= f.size(); i += 4)
    v.push_back(int32_t(uint32_t(f[i]) | (uint32_t(f[i + 1]) << 8) | (uint32_t(f[i + 2]) << 16) |
                        (uint32_t(f[i + 3]) << 24)));
  return v;
}

TEST(AllreduceGen, TwoHostsTwoBlocksLayoutTimesAndSums) {
  AllreduceGenOptions o = small(2, 24, 16);  // 6 int32 per host: blocks of 4 and 2
  o.allreduce_id = 77;
  const AllreduceWorkload w = generate_allreduce(o);
  EXPECT_EQ(w.ports, std::vector<uint16_t>({0, 1}));
  ASSERT_EQ(w.records.size(), 4u);
  // A full frame is 42 + 16 + 16 = 74 bytes, 98 with overhead: 784 bits at 100 Gbit/s = 7840 ps.
  const Picos times[4] = {0, 0, 7840, 7840};
  const uint16_t counts[4] = {4, 4, 2, 2};
  for (size_t i = 0; i < 4; ++i) {
    const TraceRecord& r = w.records[i];
    EXPECT_EQ(r.time, times[i]) << i;
    EXPECT_EQ(r.port, i % 2) << i;
    EXPECT_EQ(r.data.size(), 58u + 4u * counts[i]);
    const FrameInfo f = parse_frame(r.data.data(), r.data.size());
    ASSERT_TRUE(f.ok) << f.error;
    EXPECT_EQ(f.src_ip, fs_host_ipv4(r.port));
    EXPECT_EQ(f.dst_ip, FS_SWITCH_IPV4);
    EXPECT_EQ(f.udp_dport, 4950);
    flare_header_t h;
    flare_decode(r.data.data() + f.l4_offset, &h);
    EXPECT_EQ(h.version, 1);
    EXPECT_EQ(h.kind, FLARE_KIND_CONTRIB);
    EXPECT_EQ(h.dtype, FLARE_INT32);
    EXPECT_EQ(h.op, FLARE_OP_SUM);
    EXPECT_EQ(h.allreduce_id, 77u);
    EXPECT_EQ(h.block_id, i / 2);
    EXPECT_EQ(h.sender_rank, r.port);
    EXPECT_EQ(h.elem_count, counts[i]);
  }
  // Recompute each block's sum from the packets with wrapping 32-bit arithmetic.
  ASSERT_EQ(w.expected.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    const auto a = int32_elems(w.records[2 * b].data), c = int32_elems(w.records[2 * b + 1].data);
    Bytes want;
    for (size_t i = 0; i < a.size(); ++i) {
      const uint32_t s = uint32_t(a[i]) + uint32_t(c[i]);
      for (int k = 0; k < 4; ++k) want.push_back(uint8_t(s >> (8 * k)));
    }
    const ExpectedBlock& e = w.expected[b];
    EXPECT_EQ(e.allreduce_id, 77u);
    EXPECT_EQ(e.block_id, b);
    EXPECT_EQ(e.dtype, FLARE_INT32);
    EXPECT_EQ(e.op, FLARE_OP_SUM);
    EXPECT_EQ(e.count, counts[2 * b]);
    EXPECT_EQ(e.payload, want);
  }
}

// The documented value sequence, written out again from traces/FORMAT.md.
uint64_t doc_mix(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}

TEST(AllreduceGen, ValuesFollowTheDocumentedSequence) {
  AllreduceGenOptions o = small(3, 8, 8);
  o.seed = 12345;
  const AllreduceWorkload w = generate_allreduce(o);
  for (unsigned h = 0; h < 3; ++h) {
    uint64_t state = doc_mix(doc_mix(12345) + h);
    const auto v = int32_elems(w.records[h].data);
    ASSERT_EQ(v.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      state += 0x9E3779B97F4A7C15ull;
      EXPECT_EQ(v[i], int32_t(uint32_t(doc_mix(state)))) << h << " " << i;
    }
  }
}

TEST(AllreduceGen, DeterministicGivenTheSeed) {
  AllreduceGenOptions o = small(4, 4096, 1024);
  o.dtype = "float32";
  const AllreduceWorkload a = generate_allreduce(o), b = generate_allreduce(o);
  ASSERT_EQ(a.records.size(), 16u);
  for (size_t i = 0; i < a.records.size(); ++i) {
    EXPECT_EQ(a.records[i].data, b.records[i].data);
    EXPECT_EQ(a.records[i].time, b.records[i].time);
  }
  for (size_t i = 0; i < a.expected.size(); ++i)
    EXPECT_EQ(a.expected[i].payload, b.expected[i].payload);
  o.seed = 2;
  const AllreduceWorkload c = generate_allreduce(o);
  size_t same = 0;
  for (size_t i = 0; i < a.records.size(); ++i) same += a.records[i].data == c.records[i].data;
  EXPECT_EQ(same, 0u);
  // Hosts get different data, and a host's data does not depend on the number of hosts.
  EXPECT_NE(int32_elems(a.records[0].data), int32_elems(a.records[1].data));
  o.seed = 1;
  o.hosts = 2;
  EXPECT_EQ(generate_allreduce(o).records[1].data, a.records[1].data);
  EXPECT_EQ(host_elements(1, 1, FLARE_FLOAT32, 256),
            Bytes(a.records[1].data.begin() + 58, a.records[1].data.end()));
}

float f32(const Bytes& b, size_t i) {
  float f;
  std::memcpy(&f, b.data() + 4 * i, 4);
  return f;
}

TEST(AllreduceGen, Float32RangeAndRankOrderSum) {
  AllreduceGenOptions o = small(5, 400, 400);
  o.dtype = "float32";
  const AllreduceWorkload w = generate_allreduce(o);
  std::vector<Bytes> host(5);
  for (unsigned h = 0; h < 5; ++h) host[h] = host_elements(1, h, FLARE_FLOAT32, 100);
  bool negative = false, positive = false;
  for (size_t i = 0; i < 100; ++i) {
    float s = f32(host[0], i);
    for (unsigned h = 1; h < 5; ++h) s += f32(host[h], i);
    EXPECT_EQ(f32(w.expected[0].payload, i), s) << i;
    for (unsigned h = 0; h < 5; ++h) {
      const float v = f32(host[h], i);
      EXPECT_GE(v, -1.0f);
      EXPECT_LT(v, 1.0f);
      negative |= v < 0;
      positive |= v > 0;
    }
  }
  EXPECT_TRUE(negative && positive);
}

TEST(AllreduceGen, MinMaxAndInt8Wrapping) {
  for (const char* op : {"min", "max", "sum"}) {
    AllreduceGenOptions o = small(3, 64, 64);
    o.dtype = "int8";
    o.op = op;
    const AllreduceWorkload w = generate_allreduce(o);
    ASSERT_EQ(w.expected.size(), 1u);
    EXPECT_EQ(w.expected[0].count, 64);
    for (size_t i = 0; i < 64; ++i) {
      int8_t v[3];
      for (unsigned h = 0; h < 3; ++h) v[h] = int8_t(w.records[h].data[58 + i]);
      int8_t want;
      if (std::string(op) == "min") want = std::min({v[0], v[1], v[2]});
      else if (std::string(op) == "max") want = std::max({v[0], v[1], v[2]});
      else want = int8_t(uint8_t(uint8_t(v[0]) + uint8_t(v[1]) + uint8_t(v[2])));
      EXPECT_EQ(int8_t(w.expected[0].payload[i]), want) << op << " " << i;
    }
  }
  AllreduceGenOptions o = small(2, 8, 4);
  o.dtype = "int16";
  o.op = "max";
  const AllreduceWorkload w = generate_allreduce(o);
  flare_header_t h;
  flare_decode(w.records[0].data.data() + 42, &h);
  EXPECT_EQ(h.dtype, FLARE_INT16);
  EXPECT_EQ(h.op, FLARE_OP_MAX);
  EXPECT_EQ(h.elem_count, 2);
}

TEST(AllreduceGen, SlowerLinkAndOverheadSpaceBlocks) {
  AllreduceGenOptions o = small(1, 3 * 1024, 1024);
  o.gbps = 10;
  o.wire_overhead = 0;
  const AllreduceWorkload w = generate_allreduce(o);
  ASSERT_EQ(w.records.size(), 3u);
  // 1082-byte frames: 8656 bits at 10 Gbit/s = 865.6 ns.
  EXPECT_EQ(w.records[1].time, 865600u);
  EXPECT_EQ(w.records[2].time, 2 * 865600u);
}

TEST(AllreduceGen, OneBlockAtATimeIsWhatTheWholeVectorsGive) {
  // A host that builds its packets as it sends them (contribution_frame, expected_block) must
  // send what the whole vectors of host_elements give, sliced by hand here, for every dtype, a
  // short last block, and a port other than the rank.
  for (const char* dtype : {"int32", "int16", "int8", "float32"}) {
    AllreduceGenOptions o = small(3, 5 * 1024 + 64, 1024);
    o.dtype = dtype;
    o.op = std::string(dtype) == "int8" ? "max" : "sum";
    o.seed = 7;
    o.allreduce_id = 3;
    const AllreduceShape shape = check_allreduce(o);
    const uint32_t size = flare_dtype_bytes(shape.dtype);
    const uint64_t total = o.bytes / size, per_block = 1024 / size;
    ASSERT_EQ(shape.blocks, 6u) << dtype;
    std::vector<Bytes> whole;
    for (unsigned h = 0; h < o.hosts; ++h) whole.push_back(host_elements(o.seed, h, shape.dtype, total));
    for (uint64_t b = 0; b < shape.blocks; ++b) {
      const uint64_t count = std::min<uint64_t>(per_block, total - b * per_block);
      const size_t off = size_t(b * per_block) * size, len = size_t(count) * size;
      Bytes want = Bytes(whole[0].begin() + long(off), whole[0].begin() + long(off + len));
      for (unsigned h = 0; h < o.hosts; ++h) {
        const Bytes frame = contribution_frame(o, shape, h, uint16_t(10 + h), b);
        const FrameInfo f = parse_frame(frame.data(), frame.size());
        ASSERT_TRUE(f.ok && f.udp) << dtype;
        EXPECT_EQ(f.udp_dport, o.udp_port);
        flare_header_t hd;
        flare_decode(frame.data() + f.l4_offset, &hd);
        EXPECT_EQ(hd.block_id, b);
        EXPECT_EQ(hd.sender_rank, h);
        EXPECT_EQ(hd.elem_count, count);
        EXPECT_EQ(hd.allreduce_id, 3u);
        EXPECT_EQ(Bytes(frame.begin() + long(f.l4_offset + FLARE_HEADER_BYTES), frame.end()),
                  Bytes(whole[h].begin() + long(off), whole[h].begin() + long(off + len)))
            << dtype << " host " << h << " block " << b;
        if (h) fold_elements(want, Bytes(whole[h].begin() + long(off), whole[h].begin() + long(off + len)), shape.dtype,
                             shape.op);
      }
      const ExpectedBlock e = expected_block(o, shape, b);
      EXPECT_EQ(e.block_id, b);
      EXPECT_EQ(e.count, count);
      EXPECT_EQ(e.payload, want) << dtype << " block " << b;
    }
  }
}

TEST(AllreduceGen, ExpectedWriteExactAndReadBack) {
  AllreduceGenOptions o = small(2, 12, 8);
  o.allreduce_id = 3;
  const AllreduceWorkload w = generate_allreduce(o);
  std::ostringstream s;
  write_expected(s, w);
  std::string want =
      "# flaresim expected allreduce results (see traces/FORMAT.md): every result block must\n"
      "# reach every port on the ports line exactly once; hex= is the element payload.\n"
      "flaresim-expected 1\nports 0 1\nudp_port 4950\n";
  for (const ExpectedBlock& b : w.expected) {
    std::string hex;
    char buf[3];
    for (uint8_t x : b.payload) {
      std::snprintf(buf, sizeof buf, "%02x", x);
      hex += buf;
    }
    want += "result ar=3 block=" + std::to_string(b.block_id) + " dtype=int32 op=sum count=" +
            std::to_string(b.count) + " hex=" + hex + "\n";
  }
  EXPECT_EQ(s.str(), want);
  const std::string path = ::testing::TempDir() + "fs_AllreduceGen_expected.txt";
  {
    std::ofstream f(path);
    f << s.str();
  }
  const Expected e = read_expected(path);
  std::remove(path.c_str());
  EXPECT_EQ(e.ports, w.ports);
  EXPECT_EQ(e.udp_port, 4950);
  ASSERT_EQ(e.blocks.size(), w.expected.size());
  for (size_t i = 0; i < e.blocks.size(); ++i) {
    EXPECT_EQ(e.blocks[i].allreduce_id, w.expected[i].allreduce_id);
    EXPECT_EQ(e.blocks[i].block_id, w.expected[i].block_id);
    EXPECT_EQ(e.blocks[i].dtype, w.expected[i].dtype);
    EXPECT_EQ(e.blocks[i].op, w.expected[i].op);
    EXPECT_EQ(e.blocks[i].count, w.expected[i].count);
    EXPECT_EQ(e.blocks[i].payload, w.expected[i].payload);
  }
}

std::string expected_error(const std::string& text) {
  try {
    parse_expected("e.txt", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AllreduceGen, ExpectedFileErrors) {
  const std::string h = "flaresim-expected 1\n";
  const std::string r = "result ar=0 block=0 dtype=int16 op=min count=1 hex=0100\n";
  auto res = [&](const std::string& items) {  // a result line after a valid head
    return expected_error(h + "ports 0\nresult " + items + "\n");
  };
  EXPECT_EQ(expected_error(h + "ports 1 2\n" + r), "");
  EXPECT_EQ(expected_error("ports 1\n"), "e.txt:1: expected the header line 'flaresim-expected 1'");
  EXPECT_EQ(expected_error("# only comments\n\n"),
            "e.txt: empty file (no 'flaresim-expected 1' header)");
  EXPECT_EQ(expected_error(h + r), "e.txt: missing ports line");
  EXPECT_EQ(expected_error(h + "ports 0\nudp_port 0\n" + r), "e.txt:3: udp_port: expected one port from 1 to 65535");
  EXPECT_EQ(expected_error(h + "ports 0\nudp_port 5000 1\n" + r),
            "e.txt:3: udp_port: expected one port from 1 to 65535");
  EXPECT_EQ(expected_error(h + "ports 0\nudp_port 5000\nudp_port 5001\n" + r), "e.txt:4: second udp_port line");
  EXPECT_EQ(expected_error(h + "ports 0\n"), "e.txt: no result lines");
  EXPECT_EQ(expected_error(h + "ports 0\nports 1\n"),
            "e.txt:3: second ports line (first on line 2)");
  EXPECT_EQ(expected_error(h + "ports\n"), "e.txt:2: ports: at least one port needed");
  EXPECT_EQ(expected_error(h + "ports 1 65536\n"), "e.txt:2: ports: bad port '65536'");
  EXPECT_EQ(expected_error(h + "ports 1 1\n"), "e.txt:2: ports: port 1 listed twice");
  EXPECT_EQ(expected_error(h + "ports 0\nblock 1\n"),
            "e.txt:3: unknown line type 'block' (expected ports, udp_port or result)");
  EXPECT_EQ(res("ar=0 block=0 dtype=int16 op=min count=1"),
            "e.txt:3: result: missing key hex");
  EXPECT_EQ(expected_error(h + "ports 0\nresult id=0\n"),
            "e.txt:3: result: unknown item 'id=0' (keys: ar block dtype op count hex)");
  EXPECT_EQ(res("ar=0 ar=1"), "e.txt:3: result: duplicate key ar");
  EXPECT_EQ(res("ar=x block=0 dtype=int16 op=min count=1 hex=0100"),
            "e.txt:3: result: bad value 'x' for key ar");
  EXPECT_EQ(res("ar=0 block=0 dtype=i16 op=min count=1 hex=0100"),
            "e.txt:3: result: bad value 'i16' for key dtype (expected int32, int16, int8 or "
            "float32)");
  EXPECT_EQ(res("ar=0 block=0 dtype=int16 op=avg count=1 hex=0100"),
            "e.txt:3: result: bad value 'avg' for key op (expected sum, min or max)");
  EXPECT_EQ(res("ar=0 block=0 dtype=int16 op=min count=0 hex="),
            "e.txt:3: result: bad value '0' for key count (expected 1..65535)");
  EXPECT_EQ(res("ar=0 block=0 dtype=int16 op=min count=1 hex=01x0"),
            "e.txt:3: result: hex: bad hex digit 'x' at character 3");
  EXPECT_EQ(res("ar=0 block=0 dtype=int16 op=min count=2 hex=0100"),
            "e.txt:3: result: hex has 2 bytes, count=2 int16 needs 4");
  EXPECT_EQ(expected_error(h + "ports 0\n" + r + "# again\n" + r),
            "e.txt:5: result: ar=0 block=0 already given on line 3");
  try {
    read_expected("/nonexistent-dir/x.expected");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent-dir/x.expected: cannot open expected-results file");
  }
}

}  // namespace
}  // namespace fs
