// End to end: the Wireshark dissectors of scripts/wireshark/ (flare.lua, pspin_examples.lua,
// canary.lua, a2tp.lua) in the real tshark, on captures `flaresim run --egress` writes. Traces are written here with known
// blocks, ranks and elements; what tshark shows is compared with results worked out by hand from
// them (sums, minima and maxima, wrapping int8 and 32-bit sums, float32), and frames the handlers
// would drop as malformed, routed through the switch instead, must show the expert info naming
// what is wrong. Sparse Flare frames, built by the simulator's own frame code
// (build_sparse_packet) and written straight to a pcapng, must show the pairs and header fields
// they were built with, and malformed ones their expert info. Also: the scripts load from the
// personal plugins folder, and tshark runs them as root (this sandbox and CI run tests as root).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <fstream>

#include "net/frame.h"
#include "net/trace_writer.h"
#include "protocols/a2tp/a2tp_frame.h"
#include "protocols/canary/canary_frame.h"
#include "protocols/flare_sparse/sparse_frame.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kScripts = FLARESIM_SOURCE_DIR "/scripts/wireshark/";

// Runs tshark with both dissectors (unless `load` says otherwise) in `dir`. A script that fails
// to load is only a line on stderr (tshark still exits 0), and one that fails on a packet only
// a "Lua Error" item in it, so every run's stderr and output are checked for both.
CliResult tshark(const ScratchDir& dir, const std::string& args, const std::string& env = "",
                 const std::string& load = "-X lua_script:" + kScripts + "flare.lua -X lua_script:" + kScripts +
                                           "pspin_examples.lua") {
  const std::string out = dir / ".tshark.out", err = dir / ".tshark.err";
  const std::string cmd =
      "cd '" + dir.path() + "' && " + env + " tshark " + load + " " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  EXPECT_EQ(r.code, 0) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.find("Lua"), std::string::npos) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.find("aren't valid"), std::string::npos) << cmd << "\n" << r.err;
  EXPECT_EQ(r.out.find("Lua Error"), std::string::npos) << cmd << "\n" << r.out;
  return r;
}

// tshark -T fields: a row of tab-separated values per frame; several values of a field are
// joined with '|'.
std::vector<std::string> fields(const ScratchDir& dir, const std::string& capture,
                                const std::vector<std::string>& names, const std::string& options = "") {
  std::string args = "-r '" + capture + "' " + options + " -T fields -E aggregator='|'";
  for (const std::string& n : names) args += " -e " + n;
  std::vector<std::string> rows;
  std::istringstream in(tshark(dir, args).out);
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  return rows;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The lines of `text` from the first that starts with `from` to the end of its block (the next
// line that is not indented, or the end).
std::string section(const std::string& text, const std::string& from) {
  const size_t b = text.find("\n" + from);
  if (b == std::string::npos) return "(no line starting with '" + from + "')";
  size_t e = b + 1;
  while ((e = text.find('\n', e)) != std::string::npos && e + 1 < text.size() && text[e + 1] == ' ') ++e;
  return text.substr(b + 1, e == std::string::npos ? std::string::npos : e - b);
}

// Frame building for hand-made packets, by the host addressing convention of fs_packet.h.
void put_be(Bytes& b, uint32_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_le32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
// From the host on `port` to the switch, or (from_switch) from the switch to the host on `port`;
// UDP source and destination port `udp`.
Bytes udp_frame(uint16_t port, uint16_t udp, const Bytes& payload, bool from_switch = false) {
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  if (from_switch)
    return build_udp_frame(sw, host, FS_SWITCH_IPV4, fs_host_ipv4(port), udp, udp, payload.data(), payload.size());
  return build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, udp, udp, payload.data(), payload.size());
}
// A text trace line "<ns>ns <port> hex <bytes>".
std::string hex_line(unsigned ns, uint16_t port, const Bytes& frame) {
  static const char digits[] = "0123456789abcdef";
  std::string line = std::to_string(ns) + "ns " + std::to_string(port) + " hex ";
  for (uint8_t b : frame) line += {digits[b >> 4], digits[b & 15]};
  return line + "\n";
}

// The 16-byte Flare header (flare_proto.h: big-endian fields).
Bytes flare_header(uint8_t version, uint8_t kind, uint8_t dtype, uint8_t op, uint32_t ar, uint32_t block, uint16_t rank,
                   uint16_t count) {
  Bytes h{version, kind, dtype, op};
  put_be(h, ar, 4), put_be(h, block, 4), put_be(h, rank, 2), put_be(h, count, 2);
  return h;
}
// The PsPIN examples' 12-byte message header (pspin_examples.h) and little-endian words.
Bytes message(uint32_t msg, uint16_t index, uint16_t packets, uint16_t result_port, const std::vector<uint32_t>& words,
              uint16_t reserved = 0) {
  Bytes p;
  put_be(p, msg, 4), put_be(p, index, 2), put_be(p, packets, 2), put_be(p, result_port, 2), put_be(p, reserved, 2);
  for (uint32_t w : words) put_le32(p, w);
  return p;
}

// Two hosts (ports 0 and 1) reduce four blocks of allreduce 7, one per dtype; the switch sends
// each result to both.
const char* const kFlareTrace = R"(# two hosts, four blocks of allreduce 7
0ns 0 flare ar=7 block=0 values=1,2,3,4
0ns 1 flare ar=7 block=0 values=10,20,30,-40
1us 0 flare ar=7 block=1 dtype=int8 values=100,-128,5
1us 1 flare ar=7 block=1 dtype=int8 values=100,-1,-7
2us 0 flare ar=7 block=2 dtype=float32 op=max values=0.5,1.5,-3
2us 1 flare ar=7 block=2 dtype=float32 op=max values=0.25,-3.25,-2.5
3us 0 flare ar=7 block=3 dtype=int16 op=min values=300,-2
3us 1 flare ar=7 block=3 dtype=int16 op=min values=-300,7
)";

void run_flare_allreduce(const ScratchDir& dir) {
  write_file(dir / "t.txt", kFlareTrace);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-1 --flare.allreduce_id 7 --egress e.pcapng", dir);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
}

TEST(WiresharkDissector, FlareResultsShowTheSumsWorkedOutByHand) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(run_flare_allreduce(dir));
  const std::vector<std::string> rows =
      fields(dir, "e.pcapng",
             {"frame.interface_id", "flare.version", "flare.kind", "flare.allreduce", "flare.block", "flare.rank",
              "flare.dtype", "flare.op", "flare.count", "flare.elem.int32", "flare.elem.int16", "flare.elem.int8",
              "flare.elem.float32"});
  // Per block, to each host port: kind 1 (result), rank 65535 (the switch), the contributions'
  // dtype and op; int32 1+10, 2+20, 3+30, 4-40; int8 100+100 = 200 wraps to -56, -128-1 = -129
  // wraps to 127, 5-7; float32 max(0.5, 0.25), max(1.5, -3.25), max(-3, -2.5); int16 min(300,
  // -300), min(-2, 7).
  std::vector<std::string> want;
  for (const char* port : {"0", "1"}) {
    const std::string p = port;
    want.push_back(p + "\t1\t1\t7\t0\t65535\t0\t0\t4\t11|22|33|-36\t\t\t");
    want.push_back(p + "\t1\t1\t7\t1\t65535\t2\t0\t3\t\t\t-56|127|-2\t");
    want.push_back(p + "\t1\t1\t7\t2\t65535\t3\t2\t3\t\t\t\t0.5|1.5|-2.5");
    want.push_back(p + "\t1\t1\t7\t3\t65535\t1\t1\t2\t\t-300|-2\t\t");
  }
  EXPECT_EQ(sorted(rows), sorted(want));
}

TEST(WiresharkDissector, FlareVerboseOutputNamesEveryField) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(run_flare_allreduce(dir));
  const CliResult v = tshark(dir, "-r e.pcapng -V -Y 'flare.block == 2 && frame.interface_id == 0'");
  EXPECT_EQ(section(v.out, "Flare in-network aggregation"),
            "Flare in-network aggregation, result, block 2\n"
            "    Version: 1\n"
            "    Kind: result (1)\n"
            "    Element type: float32 (3)\n"
            "    Operator: max (2)\n"
            "    Allreduce id: 7\n"
            "    Block id: 2\n"
            "    Sender rank: 65535 (the switch)\n"
            "    Element count: 3\n"
            "    Elements: 3 x float32\n"
            "        [0] Element: 0.5\n"
            "        [1] Element: 1.5\n"
            "        [2] Element: -2.5\n")
      << v.out;
  // The summary line: protocol column and info.
  const CliResult s = tshark(
      dir,
      "-r e.pcapng -Y 'flare.block == 1 && frame.interface_id == 1' -T fields -e _ws.col.Protocol -e _ws.col.Info");
  EXPECT_EQ(s.out, "Flare\tFlare result ar=7 block=1 rank=switch int8 sum count=3\n");
}

// Frames the flare_dense handler would drop as malformed, and two good contributions, all routed
// through the switch (no parser rule) to port 7, so that they are in its egress capture.
TEST(WiresharkDissector, FlareMalformedFramesGetExpertInfo) {
  ScratchDir dir;
  const Bytes ok_header = flare_header(1, 0, 0, 0, 7, 1, 2, 4);
  Bytes three_of_four = ok_header;
  for (uint32_t v : {1u, 2u, 3u}) put_le32(three_of_four, v);
  Bytes version2 = flare_header(2, 0, 0, 0, 7, 1, 2, 1);
  put_le32(version2, 1);
  std::string trace = hex_line(0, 2, udp_frame(2, 4950, Bytes(ok_header.begin(), ok_header.begin() + 10))) +
                      hex_line(100, 2, udp_frame(2, 4950, three_of_four)) +
                      hex_line(200, 2, udp_frame(2, 4950, version2)) +
                      hex_line(300, 2, udp_frame(2, 4950, flare_header(1, 5, 9, 3, 7, 1, 2, 0))) +
                      "500ns 3 flare ar=9 block=5 rank=3 dtype=float32 values=0.75,-2\n"
                      "600ns 3 flare ar=9 block=6 udp=5000 values=5\n";
  write_file(dir / "t.txt", trace);
  const CliResult r = flaresim("run --trace t.txt --parser.rules '' --routing.default_route 7 --egress e.pcapng", dir);
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  const std::vector<std::string> rows = fields(
      dir, "e.pcapng",
      {"frame.interface_id", "flare.kind", "flare.block", "flare.rank", "flare.elem.float32", "_ws.expert.message"});
  ASSERT_EQ(rows.size(), 6u);
  // 10 bytes: the fields that fit (to the op) and no block.
  EXPECT_EQ(rows[0], "7\t0\t\t\t\tFlare header truncated: 10 of 16 bytes");
  EXPECT_EQ(
      rows[1],
      "7\t0\t1\t2\t\tElement count 4 x 4 bytes (int32) = 16 bytes, but the packet carries 12 bytes after the header");
  EXPECT_EQ(rows[2], "7\t0\t1\t2\t\tUnknown Flare version 2 (this dissector reads version 1)");
  EXPECT_EQ(
      rows[3],
      "7\t5\t1\t2\t\tUnknown kind 5 (0 contrib, 1 result)|Unknown element type 9 (0 int32, 1 int16, 2 int8, 3 "
      "float32)|Unknown operator 3 (0 sum, 1 min, 2 max)|Element count 0 (a Flare packet carries 1 to 65535 elements)");
  EXPECT_EQ(rows[4], "7\t0\t5\t3\t0.75|-2\t");
  // UDP port 5000 is not Flare's unless Decode As says so.
  EXPECT_EQ(rows[5].substr(0, 6), "7\t\t\t\t\t");
  EXPECT_EQ(fields(dir, "e.pcapng", {"flare.block", "flare.elem.int32"}, "-d udp.port==5000,flare -Y udp.port==5000"),
            std::vector<std::string>{"6\t5"});

  // As -V shows it: the expert info under the elements.
  const CliResult v = tshark(dir, "-r e.pcapng -V -Y frame.number==2");
  EXPECT_EQ(
      section(v.out, "    Elements:"),
      "    Elements: 4 x int32\n"
      "        [0] Element: 1\n"
      "        [1] Element: 2\n"
      "        [2] Element: 3\n"
      "        [Expert Info (Error/Malformed): Element count 4 x 4 bytes (int32) = 16 bytes, but the packet "
      "carries 12 bytes after the header]\n"
      "            [Element count 4 x 4 bytes (int32) = 16 bytes, but the packet carries 12 bytes after the header]\n"
      "            [Severity level: Error]\n"
      "            [Group: Malformed]\n")
      << v.out;
}

// A sparse Flare header (allreduce 7): the sparse flag is set by build_sparse_packet, pair_count
// from the pairs.
flare_sparse_header_t sparse_header(uint8_t kind, uint8_t flags, uint8_t dtype, uint8_t op, uint32_t block, uint16_t rank,
                                    uint16_t shard, uint16_t shards) {
  flare_sparse_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = kind, h.flags = flags, h.dtype = dtype, h.op = op;
  h.allreduce_id = 7, h.block_id = block, h.sender_rank = rank;
  h.shard = shard, h.shards = shards;
  return h;
}

// `frames` into a pcapng of 4 interfaces, frame i on interface i % 4, 1 us apart.
void write_capture(const std::string& path, const std::vector<Bytes>& frames) {
  std::vector<TraceRecord> records;
  for (size_t i = 0; i < frames.size(); ++i) records.push_back({Picos(i) * 1000000, uint16_t(i % 4), frames[i], ""});
  std::ofstream out(path, std::ios::binary);
  write_pcapng(out, 4, records);
  ASSERT_TRUE(out.good()) << path;
}

// Sparse packets of every dtype, a last one with its shards, a header-only one (an all-zero
// block) and one whose pair count says more than it carries. The values' bits are written here
// as two's complement and IEEE 754 by hand: 0xFFFFFFFF is int32 -1, 0x80000000 is -2^31,
// 0xFED4 is int16 -300, 0x80 is int8 -128, 0x3FC00000 is 1.5 and 0xBE800000 is -0.25.
TEST(WiresharkDissector, FlareSparseFramesShowTheirPairs) {
  ScratchDir dir;
  Bytes mismatch = build_sparse_packet(sparse_header(0, 0, FLARE_INT32, FLARE_OP_SUM, 10, 2, 0, 0), 2, {{1, 1}, {2, 2}});
  mismatch[FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT + 1] = 3;  // 3 pairs claimed, 2 carried
  const std::vector<Bytes> frames = {
      build_sparse_packet(sparse_header(0, 0, FLARE_INT32, FLARE_OP_SUM, 5, 0, 0, 0), 0,
                          {{3, 7}, {9, 0xFFFFFFFF}, {100000, 0x80000000}}),
      build_sparse_packet(sparse_header(0, FLARE_FLAG_LAST, FLARE_INT16, FLARE_OP_MIN, 6, 1, 1, 2), 1,
                          {{0, 0xFED4}, {65535, 0x7FFF}}),
      build_sparse_packet(sparse_header(1, FLARE_FLAG_LAST, FLARE_INT8, FLARE_OP_SUM, 7, FLARE_RANK_SWITCH, 0, 1), 2,
                          {{2, 0x80}, {5, 0x05}}),
      build_sparse_packet(sparse_header(0, 0, FLARE_FLOAT32, FLARE_OP_MAX, 8, 3, 4, 0), 3,
                          {{1, 0x3FC00000}, {4, 0xBE800000}}),
      build_sparse_packet(sparse_header(0, FLARE_FLAG_LAST, FLARE_INT32, FLARE_OP_SUM, 9, 0, 0, 1), 0, {}),
      mismatch,
  };
  ASSERT_NO_FATAL_FAILURE(write_capture(dir / "s.pcapng", frames));
  const std::vector<std::string> rows = fields(
      dir, "s.pcapng",
      {"flare.kind", "flare.flags", "flare.flags.sparse", "flare.flags.last", "flare.dtype", "flare.op", "flare.allreduce",
       "flare.block", "flare.rank", "flare.count", "flare.shard", "flare.shards", "flare.pair.index", "flare.elem.int32",
       "flare.elem.int16", "flare.elem.int8", "flare.elem.float32", "_ws.expert.message"});
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "0\t0x80\t1\t0\t0\t0\t7\t5\t0\t3\t0\t0\t3|9|100000\t7|-1|-2147483648\t\t\t\t",
                      "0\t0xc0\t1\t1\t1\t1\t7\t6\t1\t2\t1\t2\t0|65535\t\t-300|32767\t\t\t",
                      "1\t0xc0\t1\t1\t2\t0\t7\t7\t65535\t2\t0\t1\t2|5\t\t\t-128|5\t\t",
                      "0\t0x80\t1\t0\t3\t2\t7\t8\t3\t2\t4\t0\t1|4\t\t\t\t1.5|-0.25\t",
                      "0\t0xc0\t1\t1\t0\t0\t7\t9\t0\t0\t0\t1\t\t\t\t\t\t",
                      "0\t0x80\t1\t0\t0\t0\t7\t10\t2\t3\t0\t0\t1|2\t1|2\t\t\t\tPair count 3 x 8 bytes (index and "
                      "int32) = 24 bytes, but the packet carries 16 bytes after the header",
                  }));

  // As -V shows it: the kind byte as kind and flags, the shard fields, a subtree per pair.
  const CliResult v = tshark(dir, "-r s.pcapng -V -Y frame.number==2");
  EXPECT_EQ(section(v.out, "Flare in-network aggregation"),
            "Flare in-network aggregation, sparse contrib, block 6\n"
            "    Version: 1\n"
            "    Kind: contrib (0)\n"
            "    Flags: 0xc0 (sparse, last)\n"
            "        1... .... = Sparse: True\n"
            "        .1.. .... = Last: True\n"
            "    Element type: int16 (1)\n"
            "    Operator: min (1)\n"
            "    Allreduce id: 7\n"
            "    Block id: 6\n"
            "    Sender rank: 1\n"
            "    Pair count: 2\n"
            "    Shard: 1\n"
            "    Shards: 2\n"
            "    Pairs: 2 x (index, int16)\n"
            "        [0] Index 0: -300\n"
            "            Index: 0\n"
            "            Element: -300\n"
            "        [1] Index 65535: 32767\n"
            "            Index: 65535\n"
            "            Element: 32767\n")
      << v.out;
  const CliResult s = tshark(dir, "-r s.pcapng -T fields -e _ws.col.Protocol -e _ws.col.Info");
  EXPECT_EQ(lines_of(s.out),
            (std::vector<std::string>{"Flare\tFlare sparse contrib ar=7 block=5 rank=0 int32 sum pairs=3 shard=0",
                                      "Flare\tFlare sparse contrib ar=7 block=6 rank=1 int16 min pairs=2 shard=1 last of 2",
                                      "Flare\tFlare sparse result ar=7 block=7 rank=switch int8 sum pairs=2 shard=0 last of 1",
                                      "Flare\tFlare sparse contrib ar=7 block=8 rank=3 float32 max pairs=2 shard=4",
                                      "Flare\tFlare sparse contrib ar=7 block=9 rank=0 int32 sum pairs=0 shard=0 last of 1",
                                      "Flare\tFlare sparse contrib ar=7 block=10 rank=2 int32 sum pairs=3 shard=0"}));
}

// Sparse headers the flare_sparse handler would drop as malformed, as tshark reports them.
TEST(WiresharkDissector, FlareSparseMalformedFramesGetExpertInfo) {
  ScratchDir dir;
  auto patched = [](Bytes f, size_t offset, uint8_t value) {
    f[FLARE_PAYLOAD_OFFSET + offset] = value;
    return f;
  };
  const Bytes good = build_sparse_packet(sparse_header(0, 0, FLARE_INT32, FLARE_OP_SUM, 5, 0, 0, 0), 0, {{3, 7}});
  const Bytes truncated = udp_frame(0, 4950, Bytes(good.begin() + FLARE_PAYLOAD_OFFSET, good.begin() + FLARE_PAYLOAD_OFFSET + 12));
  // Flags 0xb0 (sparse and the two bits nobody defines), shard 70, shards 3 without last. A
  // header the handler would drop: its pairs are not decoded, as for the dense header checks.
  const Bytes flags_and_shards = patched(patched(patched(good, FLARE_OFF_KIND, 0xB0), FLARE_OFF_SHARD + 1, 70),
                                         FLARE_OFF_SHARDS + 1, 3);
  // The last packet numbered 2 of 2 (the last is shards - 1); kind 3, dtype 7 and op 4 (the
  // pairs are then not decoded); version 2 (nothing else is checked).
  const Bytes last_mismatch =
      build_sparse_packet(sparse_header(0, FLARE_FLAG_LAST, FLARE_INT8, FLARE_OP_SUM, 5, 0, 2, 2), 0, {{1, 1}});
  const Bytes bad_codes = patched(patched(patched(good, FLARE_OFF_KIND, 0x83), FLARE_OFF_DTYPE, 7), FLARE_OFF_OP, 4);
  const Bytes version2 = patched(good, FLARE_OFF_VERSION, 2);
  ASSERT_NO_FATAL_FAILURE(
      write_capture(dir / "m.pcapng", {truncated, flags_and_shards, last_mismatch, bad_codes, version2}));
  const std::vector<std::string> rows =
      fields(dir, "m.pcapng", {"flare.kind", "flare.flags", "flare.block", "flare.shard", "flare.shards", "flare.pair.index",
                               "_ws.expert.message"});
  EXPECT_EQ(rows,
            (std::vector<std::string>{
                "0\t0x80\t5\t\t\t\tFlare sparse header truncated: 12 of 20 bytes",
                "0\t0xb0\t5\t70\t3\t\tUnknown flags 0x30 in the kind byte (0x80 sparse, 0x40 last)|Shard 70 (a sender "
                "numbers its packets for a block 0 to 63)|Shards 3 in a packet not flagged last (only the last one "
                "carries it, the others 0)",
                "0\t0xc0\t5\t2\t2\t\tLast packet with shard 2 and shards 2 (the last packet's shard is shards - 1)",
                "3\t0x80\t5\t0\t0\t\tUnknown kind 3 (0 contrib, 1 result)|Unknown element type 7 (0 int32, 1 int16, 2 "
                "int8, 3 float32)|Unknown operator 4 (0 sum, 1 min, 2 max)",
                "0\t0x80\t5\t0\t0\t\tUnknown Flare version 2 (this dissector reads version 1)",
            }));
}

// aggregate_global, reduce_l1 and pingpong side by side, on packets written here.
TEST(WiresharkDissector, PspinExamplesResultsShowTheSumsWorkedOutByHand) {
  ScratchDir dir;
  std::string trace;
  // aggregate_global, message 0 of 2 packets to result port 3.
  trace += hex_line(0, 3, udp_frame(3, 9102, message(0, 0, 2, 3, {1, 2, 3})));
  trace += hex_line(100, 4, udp_frame(4, 9102, message(0, 1, 2, 3, {4, 5, 0xFFFFFFFF})));
  // reduce_l1, message 0 of 2 packets to result port 2.
  trace += hex_line(200, 1, udp_frame(1, 9103, message(0, 0, 2, 2, {5, 6, 7})));
  trace += hex_line(300, 1, udp_frame(1, 9103, message(0, 1, 2, 2, {10, 20, 0xFFFFFFFE})));
  // pingpong: packet 1 of message 4's 3.
  trace += hex_line(400, 5, udp_frame(5, 9101, message(4, 1, 3, 5, {8, 9})));
  write_file(dir / "t.txt", trace);
  const CliResult r = flaresim(
      "run --trace t.txt --egress e.pcapng --parser.rules 'udp_dport=9101 -> pspin_pingpong; udp_dport=9102 -> "
      "pspin_aggregate_global; udp_dport=9103 -> pspin_reduce_l1'",
      dir);
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  const std::vector<std::string> rows =
      fields(dir, "e.pcapng",
             {"frame.interface_id", "pspin_ex.example", "pspin_ex.type", "pspin_ex.msg", "pspin_ex.index",
              "pspin_ex.packets", "pspin_ex.result_port", "pspin_ex.cluster", "pspin_ex.clusters", "pspin_ex.word"});
  // aggregate_global: one frame (cluster 0 of 1) to port 3, 1+2+3+4+5+(2^32-1) = 14 (mod 2^32).
  // pingpong: the packet back to port 5, a reply with its message header.
  // reduce_l1: a frame per cluster (0 .. 3 of 4) to port 2, whose words add up to 5+10, 6+20 and
  // 7+(2^32-2) = 5 (mod 2^32).
  std::vector<std::string> others, reduce;
  for (const std::string& row : rows) (row.rfind("2\t3\t2\t0\t", 0) == 0 ? reduce : others).push_back(row);
  EXPECT_EQ(sorted(others), sorted({"3\t2\t2\t0\t\t\t\t0\t1\t14", "5\t1\t1\t4\t1\t3\t5\t\t\t8|9"}));
  ASSERT_EQ(reduce.size(), 4u) << ::testing::PrintToString(rows);
  std::vector<uint32_t> sums(3, 0);
  std::vector<std::string> clusters;
  for (const std::string& row : reduce) {
    std::istringstream cells(row);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, '\t');) c.push_back(cell);
    ASSERT_EQ(c.size(), 10u) << row;
    clusters.push_back(c[7] + " of " + c[8]);
    std::istringstream words(c[9]);
    size_t i = 0;
    for (std::string w; std::getline(words, w, '|'); ++i) {
      ASSERT_LT(i, 3u) << row;
      sums[i] += uint32_t(std::stoul(w));
    }
    EXPECT_EQ(i, 3u) << row;
  }
  EXPECT_EQ(sorted(clusters), sorted({"0 of 4", "1 of 4", "2 of 4", "3 of 4"}));
  EXPECT_EQ(sums, (std::vector<uint32_t>{15, 26, 5}));

  const CliResult v = tshark(dir, "-r e.pcapng -V -Y 'pspin_ex.example == 1'");
  EXPECT_EQ(section(v.out, "PsPIN example"),
            "PsPIN example, pspin_pingpong, message 4\n"
            "    [Example: pspin_pingpong (1)]\n"
            "    [Frame: reply (1)]\n"
            "    Message id: 4\n"
            "    Packet index: 1\n"
            "    Packets in the message: 3\n"
            "    Result port: 5\n"
            "    Reserved: 0x0000\n"
            "    Data: 2 words\n"
            "        [0] Word: 8\n"
            "        [1] Word: 9\n")
      << v.out;
  const CliResult s =
      tshark(dir, "-r e.pcapng -Y 'pspin_ex.example == 2' -T fields -e _ws.col.Protocol -e _ws.col.Info");
  EXPECT_EQ(s.out, "PsPIN example\tpspin_aggregate_global result msg=0 cluster 0 of 1, 1 word\n");
}

// The packets `flaresim gen` writes: message and index as its options say.
TEST(WiresharkDissector, PspinExamplesGeneratedPacketsShowTheirMessages) {
  ScratchDir dir;
  const CliResult g = flaresim("gen pspin_histogram_l1 --messages 2 --packets 2 --size 64 -o t.pcapng", dir);
  ASSERT_EQ(g.code, 0) << g.err;
  // 64-byte IPv4 packets: 20 + 8 header bytes, 12 of message header, 24 of data: 6 words each.
  const std::vector<std::string> rows = fields(
      dir, "t.pcapng",
      {"pspin_ex.example", "pspin_ex.type", "pspin_ex.msg", "pspin_ex.index", "pspin_ex.packets", "_ws.col.Info"});
  EXPECT_EQ(rows, (std::vector<std::string>{"4\t0\t0\t0\t2\tpspin_histogram_l1 msg=0 packet 0 of 2, 6 words",
                                            "4\t0\t0\t1\t2\tpspin_histogram_l1 msg=0 packet 1 of 2, 6 words",
                                            "4\t0\t1\t0\t2\tpspin_histogram_l1 msg=1 packet 0 of 2, 6 words",
                                            "4\t0\t1\t1\t2\tpspin_histogram_l1 msg=1 packet 1 of 2, 6 words"}));
}

// Frames the example handlers would drop, routed to port 7 as above.
TEST(WiresharkDissector, PspinExamplesMalformedFramesGetExpertInfo) {
  ScratchDir dir;
  const Bytes full = message(0, 0, 1, 0, {});
  Bytes part_word = message(2, 0, 1, 0, {7}, 0x00ab);
  part_word.push_back(1), part_word.push_back(2);
  Bytes result;  // cluster 4 of 4, from the switch
  put_be(result, 3, 4), put_be(result, 4, 4), put_be(result, 4, 4), put_le32(result, 1);
  std::string trace = hex_line(0, 2, udp_frame(2, 9103, Bytes(full.begin(), full.begin() + 7))) +
                      hex_line(100, 2, udp_frame(2, 9102, message(1, 0, 0, 0, {5}))) +
                      hex_line(200, 2, udp_frame(2, 9104, message(1, 0, 1, 0, {}))) +
                      hex_line(300, 2, udp_frame(2, 9103, part_word)) +
                      hex_line(400, 2, udp_frame(2, 9103, result, true)) +
                      hex_line(500, 2, udp_frame(2, 9103, message(5, 0, 1, 0, std::vector<uint32_t>(2033, 1))));
  write_file(dir / "t.txt", trace);
  const CliResult r = flaresim("run --trace t.txt --parser.rules '' --routing.default_route 7 --egress e.pcapng", dir);
  ASSERT_EQ(r.code, 0) << r.err << r.out;

  const std::vector<std::string> rows = fields(
      dir, "e.pcapng", {"pspin_ex.example", "pspin_ex.type", "pspin_ex.msg", "pspin_ex.word", "_ws.expert.message"},
      "-Y 'frame.len < 1000'");
  EXPECT_EQ(
      rows,
      (std::vector<std::string>{
          "3\t0\t0\t\tMessage header truncated: 7 of 12 bytes",
          "2\t0\t1\t5\tPacket count 0 (a message has 1 to 65535 packets)",
          "4\t0\t1\t\tNo data word (0 data bytes): pspin_histogram_l1 drops the packet as malformed",
          "3\t0\t2\t7\tReserved field is 0x00ab, not zero|2 bytes after the last whole word (the handlers ignore them)",
          "3\t2\t3\t1\tCluster 4 is not below the result's 4 clusters"}));
  // 2033 words: 8132 data bytes.
  EXPECT_EQ(fields(dir, "e.pcapng", {"pspin_ex.msg", "_ws.expert.message"}, "-Y 'frame.len > 1000'"),
            std::vector<std::string>{
                "5\t8132 data bytes, more than the 8128 a packet may carry: pspin_reduce_l1 drops it (too_long)"});
}

// Copied into the personal Lua plugins folder ($HOME/.local/lib/wireshark/plugins), the scripts
// load with no -X option, for root too (Debian's init.lua lets root run user scripts).
TEST(WiresharkDissector, ScriptsLoadFromThePersonalPluginsFolder) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(run_flare_allreduce(dir));
  const std::string plugins = dir / "home/.local/lib/wireshark/plugins";
  ASSERT_EQ(std::system(("mkdir -p '" + plugins + "' && cp '" + kScripts + "flare.lua' '" + kScripts +
                         "pspin_examples.lua' '" + plugins + "/'")
                            .c_str()),
            0);
  const CliResult r = tshark(dir, "-r e.pcapng -Y frame.number==1 -T fields -e flare.block -e flare.elem.int32",
                             "HOME='" + dir.path() + "/home'", "");
  EXPECT_EQ(r.out, "0\t11,22,33,-36\n");
  const CliResult f = tshark(dir, "-G folders", "HOME='" + dir.path() + "/home'", "");
  EXPECT_NE(f.out.find("Personal Lua Plugins:\t" + plugins + "\n"), std::string::npos) << f.out;
}

// Canary frames built by the simulator's frame code (build_canary_packet) and by hand: every
// header field as canary_proto.h lays it out (10.1.0.5 is fs_host_ipv4(5); id 0x030a0b0c is
// application 3, sequence 0x0a0b0c = 658188; children 0x00010203 = 66051; switch 0x0405 = 1029),
// the elements, and the expert info of a frame with padding bits and half an element, and of a
// truncated header.
TEST(WiresharkDissector, CanaryFramesShowTheirFieldsAndElements) {
  ScratchDir dir;
  canary_header_t full{};
  full.destination = fs_host_ipv4(5);
  full.id = canary_id(3, 0x0A0B0C);
  full.counter = 7;
  full.hosts = 64;
  full.children = 0x00010203;
  full.switch_address = 0x0405;
  full.flags = CANARY_FLAG_BYPASS | CANARY_FLAG_MULTICAST;
  canary_header_t plain{};
  plain.destination = fs_host_ipv4(1);
  plain.id = canary_id(0, 1);
  plain.hosts = 2;
  Bytes bad(19, 0);
  bad[18] = 0x41;  // multicast and a padding bit
  bad.insert(bad.end(), {1, 0, 0, 0, 2, 0});
  ASSERT_NO_FATAL_FAILURE(write_capture(dir / "c.pcapng", {build_canary_packet(full, 2, {1, -2}),
                                                           build_canary_packet(plain, 0, {}),
                                                           udp_frame(3, CANARY_UDP_PORT_DEFAULT, bad),
                                                           udp_frame(3, CANARY_UDP_PORT_DEFAULT, Bytes(10, 0))}));
  const std::string load = "-X lua_script:" + kScripts + "canary.lua";
  auto rows = [&](const std::string& args) { return lines_of(tshark(dir, "-r c.pcapng " + args, "", load).out); };
  EXPECT_EQ(rows("-T fields -E aggregator='|' -e canary.destination -e canary.id.app -e canary.id.sequence "
                 "-e canary.counter -e canary.hosts -e canary.children -e canary.switch -e canary.flags.bypass "
                 "-e canary.flags.multicast -e canary.element -e _ws.expert.message"),
            (std::vector<std::string>{
                "10.1.0.5\t3\t658188\t7\t64\t66051\t1029\t1\t1\t1|-2\t",
                "10.1.0.1\t0\t1\t0\t2\t0\t0\t0\t0\t\t",
                "0.0.0.0\t0\t0\t0\t0\t0\t0\t0\t1\t1\tPadding bits 0x01 set (they are 0)|6 data bytes after the "
                "header: not whole 4-byte int32 elements",
                "\t\t\t\t\t\t\t\t\t\tCanary header truncated: 10 of 19 bytes"}));
  EXPECT_EQ(rows("-T fields -e _ws.col.Protocol -e _ws.col.Info"),
            (std::vector<std::string>{"Canary\tCanary app=3 seq=658188 counter=7/64 elements=2 bypass multicast",
                                      "Canary\tCanary app=0 seq=1 counter=0/2 elements=0",
                                      "Canary\tCanary app=0 seq=0 counter=0/0 elements=1 multicast",
                                      "Canary\tCanary, header truncated"}));
}

// a2tp frames built by the simulator's frame code (build_a2tp_packet) and by hand: every header
// field as a2tp_proto.h lays it out (job 0x0102 = 258, sequence 0x0a0b0c0d = 168496141, 10.1.0.9
// is fs_host_ipv4(9)), the values, and the expert info of a frame with each fault a reader
// refuses (in the order of the fields they hang under), and of a truncated header.
TEST(WiresharkDissector, A2tpFramesShowTheirFieldsValuesAndFaults) {
  ScratchDir dir;
  a2tp_header_t grad{};
  grad.job = 0x0102, grad.worker = 3, grad.workers = 4, grad.sequence = 0x0A0B0C0D, grad.aggregator = 449;
  grad.bitmap[0] = 1u << 3;
  a2tp_header_t result{};
  result.job = 7, result.workers = 32, result.sequence = 99, result.aggregator = 12;
  result.flags = A2TP_FLAG_RESULT | A2TP_FLAG_COL | A2TP_FLAG_ECE | A2TP_FLAG_MOVE, result.bitmap[0] = 0xFFFFFFFF;
  result.next = 300;
  // Job 1, sequence 2, aggregator 3, flags COL and a padding bit, worker 5, bitmap 0x20, a count
  // of 2 values, a fan-in of 4, the reserved byte 1, next aggregator 7 (without MOVE), and one
  // value behind the header.
  Bytes bad;
  put_be(bad, 1, 4), put_be(bad, 2, 4), put_be(bad, 3, 2), bad.push_back(0x21), bad.push_back(5);
  put_be(bad, 0x20, 4), put_be(bad, 2, 2), bad.push_back(4), bad.push_back(1), put_be(bad, 7, 2);
  put_le32(bad, 9);
  ASSERT_NO_FATAL_FAILURE(write_capture(dir / "a.pcapng", {build_a2tp_packet(grad, 5, fs_host_ipv4(9), {1, -2}),
                                                           build_a2tp_packet(result, 1, fs_host_ipv4(2), {5}),
                                                           udp_frame(3, A2TP_UDP_PORT_DEFAULT, bad),
                                                           udp_frame(3, A2TP_UDP_PORT_DEFAULT, Bytes(10, 0))}));
  const std::string load = "-X lua_script:" + kScripts + "a2tp.lua";
  auto rows = [&](const std::string& args) { return lines_of(tshark(dir, "-r a.pcapng " + args, "", load).out); };
  EXPECT_EQ(rows("-T fields -E aggregator='|' -e ip.dst -e a2tp.job -e a2tp.worker -e a2tp.workers -e a2tp.sequence "
                 "-e a2tp.aggregator -e a2tp.flags.result -e a2tp.flags.col -e a2tp.flags.ece -e a2tp.flags.move "
                 "-e a2tp.bitmap -e a2tp.elements -e a2tp.next -e a2tp.value -e _ws.expert.message"),
            (std::vector<std::string>{
                "10.1.0.9\t258\t3\t4\t168496141\t449\t0\t0\t0\t0\t0x00000008\t2\t0\t1|-2\t",
                "10.1.0.2\t7\t0\t32\t99\t12\t1\t1\t1\t1\t0xffffffff\t1\t300\t5\t",
                "10.0.0.1\t1\t5\t4\t2\t3\t0\t1\t0\t0\t0x00000020\t2\t7\t9\tPadding bits 0x01 set (they are 0)|"
                "A gradient flagged MOVE, or COL or ECE without SUM (results' flags)|Worker 5 of a job of 4 workers|"
                "Reserved byte 19 is not 0|Next aggregator 7 in a packet not flagged MOVE|"
                "4 bytes of values where the header says 2 int32 values",
                "10.0.0.1\t\t\t\t\t\t\t\t\t\t\t\t\t\ta2tp header truncated: 10 of 22 bytes"}));
  EXPECT_EQ(rows("-T fields -e _ws.col.Protocol -e _ws.col.Info"),
            (std::vector<std::string>{
                "a2tp\ta2tp gradient job=258 seq=168496141 agg=449 worker=3/4 bitmap=0x8 values=2",
                "a2tp\ta2tp result job=7 seq=99 agg=12 worker=0/32 bitmap=0xffffffff values=1 col ece move",
                "a2tp\ta2tp gradient job=1 seq=2 agg=3 worker=5/4 bitmap=0x20 values=2 col",
                "a2tp\ta2tp, header truncated"}));
  // The other refusals, one frame each: a result flagged RESEND with an empty bitmap, a fan-in of
  // 200, a gradient of worker 1 with bitmap 0x3, a result naming worker 4 of a job of 4, and the
  // 22 bytes of a job of 72 workers, whose header has two more bitmap words (30 bytes).
  auto header = [](uint8_t worker, uint8_t workers, uint8_t flags, uint32_t bitmap) {
    Bytes h;
    put_be(h, 2, 4), put_be(h, 1, 4), put_be(h, 0, 2), h.push_back(flags), h.push_back(worker);
    put_be(h, bitmap, 4), put_be(h, 0, 2), h.push_back(workers), h.push_back(0), put_be(h, 0, 2);
    return h;
  };
  ASSERT_NO_FATAL_FAILURE(write_capture(
      dir / "b.pcapng", {udp_frame(3, A2TP_UDP_PORT_DEFAULT, header(0, 2, A2TP_FLAG_RESULT | A2TP_FLAG_RESEND, 0)),
                         udp_frame(3, A2TP_UDP_PORT_DEFAULT, header(1, 200, 0, 2)),
                         udp_frame(3, A2TP_UDP_PORT_DEFAULT, header(1, 4, 0, 3)),
                         udp_frame(3, A2TP_UDP_PORT_DEFAULT, header(0, 4, A2TP_FLAG_RESULT, 0x10)),
                         udp_frame(3, A2TP_UDP_PORT_DEFAULT, header(0, 72, A2TP_FLAG_RESULT, 1))}));
  EXPECT_EQ(lines_of(tshark(dir, "-r b.pcapng -T fields -E aggregator='|' -e _ws.expert.message", "", load).out),
            (std::vector<std::string>{
                "A result flagged COLLISION, RESEND or SUM (gradients' flags)|A result with an empty bitmap",
                "A fan-in of 200 workers (1 to 128)", "A gradient of worker 1 with bitmap 0x00000003",
                "Bitmap 0x00000010 names workers beyond the job's 4",
                "a2tp header truncated: 22 of 30 bytes (a fan-in of 72)"}));
}

// A job of 72 workers: the bitmap's two further words follow the 22 bytes (a2tp_proto.h), each an
// a2tp.bitmap field; worker 70 is bit 6 of the third word. A sum of workers 0, 33 and 71 whose
// third word also names worker 72 is refused, the bitmap written out whole.
TEST(WiresharkDissector, A2tpBitmapsOfMoreThan32Workers) {
  ScratchDir dir;
  a2tp_header_t grad{};
  grad.job = 4, grad.worker = 70, grad.workers = 72, grad.sequence = 5, grad.aggregator = 6;
  grad.bitmap[2] = 1u << 6;
  a2tp_header_t sum = grad;
  sum.worker = 0, sum.flags = A2TP_FLAG_SUM, sum.elements = 1;
  sum.bitmap[0] = 1, sum.bitmap[1] = 2, sum.bitmap[2] = 0x180;
  Bytes sum_frame = build_a2tp_packet(grad, 5, fs_host_ipv4(9), {8});
  a2tp_encode(&sum, sum_frame.data() + A2TP_PAYLOAD_OFFSET);  // a header the builder would refuse
  ASSERT_NO_FATAL_FAILURE(write_capture(dir / "a.pcapng", {build_a2tp_packet(grad, 5, fs_host_ipv4(9), {3, 4}),
                                                           sum_frame}));
  const std::string load = "-X lua_script:" + kScripts + "a2tp.lua";
  EXPECT_EQ(lines_of(tshark(dir, "-r a.pcapng -T fields -E aggregator='|' -e udp.length -e a2tp.worker -e a2tp.bitmap "
                                 "-e a2tp.value -e _ws.expert.message -e _ws.col.Info",
                            "", load)
                         .out),
            (std::vector<std::string>{
                "46	70	0x00000000|0x00000000|0x00000040	3|4		"
                "a2tp gradient job=4 seq=5 agg=6 worker=70/72 bitmap=0x400000000000000000 values=2",
                "42	0	0x00000001|0x00000002|0x00000180	8	"
                "Bitmap 0x000001800000000200000001 names workers beyond the job's 72	"
                "a2tp gradient job=4 seq=5 agg=6 worker=0/72 bitmap=0x1800000000200000001 values=1 sum"}));
}

}  // namespace
}  // namespace fs::test
