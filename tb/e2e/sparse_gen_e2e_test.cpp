// End to end: `flaresim gen flare-sparse`: the option checks and their messages (no file left
// behind), the line it prints, and the trace it writes read back packet by packet (back to back at
// line rate, blocks in order, shards numbered with the last one flagged, the block's pairs) with
// the expected file's results recomputed from the trace's own pairs; then losses, retransmitted
// blocks and staggering.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flare/flare_proto.h"
#include "protocols/flare_sparse/sparse_verify.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

struct TracePkt {
  Picos time = 0;
  unsigned port = 0;
  Bytes frame;
};

uint8_t hex_digit(char c) { return uint8_t(c <= '9' ? c - '0' : c - 'a' + 10); }

// "12ns", "88.48ns" in picoseconds.
Picos ns_time(const std::string& t) {
  EXPECT_EQ(t.substr(t.size() - 2), "ns") << t;
  const std::string n = t.substr(0, t.size() - 2);
  const size_t dot = n.find('.');
  Picos ps = std::stoull(n.substr(0, dot)) * 1000;
  if (dot != std::string::npos) {
    std::string frac = n.substr(dot + 1);
    frac.resize(3, '0');
    ps += std::stoull(frac);
  }
  return ps;
}

// The packets of a text trace written by flaresim ("<time> <port> hex <bytes>").
std::vector<TracePkt> read_text_trace(const std::string& path) {
  std::vector<TracePkt> out;
  for (const std::string& line : lines_of(slurp(path))) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string time, kind, hex;
    TracePkt p;
    ls >> time >> p.port >> kind >> hex;
    EXPECT_EQ(kind, "hex");
    p.time = ns_time(time);
    for (size_t i = 0; i + 1 < hex.size(); i += 2) p.frame.push_back(uint8_t(hex_digit(hex[i]) << 4 | hex_digit(hex[i + 1])));
    out.push_back(p);
  }
  return out;
}

// The Flare sparse fields of a trace packet, read straight from its bytes (flare_proto.h).
struct Fields {
  uint8_t kind_byte = 0;
  uint32_t block = 0;
  uint16_t rank = 0, count = 0, shard = 0, shards = 0;
  std::vector<std::pair<uint32_t, int32_t>> pairs;  // int32 pairs
};
Fields fields(const Bytes& f) {
  const uint8_t* u = f.data() + 42;
  Fields x;
  x.kind_byte = u[1];
  x.block = uint32_t(u[8]) << 24 | uint32_t(u[9]) << 16 | uint32_t(u[10]) << 8 | u[11];
  x.rank = uint16_t(u[12] << 8 | u[13]);
  x.count = uint16_t(u[14] << 8 | u[15]);
  x.shard = uint16_t(u[16] << 8 | u[17]);
  x.shards = uint16_t(u[18] << 8 | u[19]);
  EXPECT_EQ(f.size(), 42u + 20 + 8u * x.count);
  for (unsigned i = 0; i < x.count; ++i) {
    const uint8_t* p = u + 20 + 8 * i;
    x.pairs.push_back({uint32_t(p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24),
                       int32_t(uint32_t(p[4] | p[5] << 8 | p[6] << 16 | uint32_t(p[7]) << 24))});
  }
  return x;
}

TEST(E2ESparseGen, BadValuesExitTwoWithTheOptionNamedAndWriteNothing) {
  ScratchDir dir;
  const std::string gen = "gen flare-sparse --bytes 32KiB -o t.txt ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--hosts 3 --density 0",
       "flaresim: --density: bad value '0' for 'flare_sparse.density': expected a number from 1e-06 to 1\n"},
      {"--hosts 3 --density 0.5 --flare_sparse.density 0.5",
       "flaresim: --density and --flare_sparse.density both given: give one\n"},
      {"--hosts 3 --distribution zipf",
       "flaresim: --distribution: bad value 'zipf' for 'flare_sparse.distribution': expected one of uniform, clustered, "
       "topk\n"},
      {"--hosts 3 --overlap 2",
       "flaresim: --overlap: bad value '2' for 'flare_sparse.overlap': expected a number from 0 to 1\n"},
      {"--hosts 300 --ports 512",
       "flaresim: sparse generator: --hosts: 300 not in 1..256 (the switch's ports, at most 256 children of a sparse "
       "allreduce)\n"},
      {"--hosts 9 --ports 8", "flaresim: sparse generator: --hosts: 9 not in 1..8 (the switch's ports, at most 256 "
                              "children of a sparse allreduce)\n"},
      {"--hosts 3 --elem-bytes 4", "flaresim: sparse workload: --elem-bytes: 4 bytes hold no 8-byte int32 pair\n"},
      {"--hosts 3 --duplicate 2", "flaresim: sparse generator: --duplicate: 2 not in 0..1\n"},
      {"--hosts 3 --timeout=-1us", "flaresim: --timeout: negative time '-1us'\n"},
      {"--hosts 3 --distribution clustered --run-length 4096 --density 1 --span 4096 --elem-bytes 64",
       "flaresim: sparse workload: host 0 block 0 has 4096 non-zeros, 512 packets of at most 8 pairs; a block may "
       "have 64 packets at most: lower --span (4096 elements per block) or --run-length, or raise --elem-bytes\n"},
      {"--hosts 3 --flare_sparse.span 4096 --flare_sparse.density 1 --hosts.elem_bytes 64",
       "flaresim: sparse workload: host 0 block 0 has 4096 non-zeros, 512 packets of at most 8 pairs; a block may "
       "have 64 packets at most: lower flare_sparse.span (4096 elements per block) or flare_sparse.run_length, or "
       "raise hosts.elem_bytes\n"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = flaresim(gen + args, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, message) << args;
    EXPECT_FALSE(exists(dir / "t.txt")) << args;
    EXPECT_FALSE(exists(dir / "t.txt.expected")) << args;
  }
  const CliResult help = flaresim("gen flare_sparse --help", dir);
  EXPECT_EQ(help.code, 0);
  for (const char* opt : {"--density arg (=0.01)", "--distribution arg (=uniform)", "--run-length arg (=16)",
                          "--overlap arg (=0)", "--span arg (=0)", "(or flare_sparse.density)"})
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt << "\n" << help.out;
}

TEST(E2ESparseGen, TraceIsEachHostsBlocksBackToBackAndTheExpectedFileItsReduction) {
  ScratchDir dir;
  // 2048 int32 elements; 128 pair bytes hold 16 pairs; density 0.05: span 16 / 0.05 = 320, so 7
  // blocks (the last of 128 elements) and round(102.4) = 102 non-zeros per host.
  const CliResult r = flaresim("gen flare-sparse --hosts 3 --bytes 8KiB --elem-bytes 128 --density 0.05 --seed 5 -o t.txt", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<TracePkt> pkts = read_text_trace(dir / "t.txt");
  EXPECT_EQ(r.out, "wrote t.txt (" + std::to_string(pkts.size()) +
                       " packets from 3 hosts, 7 blocks of 320 elements, 102 non-zeros per host) and t.txt.expected\n"
                       "run it with: " FLARESIM_BIN " run --hosts.elem_bytes 128 --flare_sparse.density 0.05 "
                       "--flare_sparse.ports 0-2 --parser.rules 'udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse' --trace t.txt "
                       "--stats stats.json --verify t.txt.expected\n");
  std::map<unsigned, std::vector<TracePkt>> by_port;
  for (const TracePkt& p : pkts) by_port[p.port].push_back(p);
  ASSERT_EQ(by_port.size(), 3u);
  std::map<std::pair<uint32_t, uint32_t>, int64_t> sums;  // (block, index) -> sum over hosts
  for (const auto& [port, list] : by_port) {
    Picos at = 0;
    uint32_t block = 0, next_shard = 0, pairs = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      const Fields f = fields(list[k].frame);
      // Back to back at 100 Gbit/s: (frame + 24 bytes of wire overhead) x 80 ps per byte.
      EXPECT_EQ(list[k].time, at) << port << " " << k;
      at += (list[k].frame.size() + 24) * 80;
      EXPECT_EQ(f.rank, port);
      EXPECT_LE(f.count, 16u);
      // Blocks in order, each one's shards 0, 1, ..., the last flagged with the count.
      EXPECT_EQ(f.block, block) << port << " " << k;
      EXPECT_EQ(f.shard, next_shard) << port << " " << k;
      const bool last = f.kind_byte & FLARE_FLAG_LAST;
      EXPECT_EQ(f.kind_byte & ~FLARE_FLAG_LAST, FLARE_FLAG_SPARSE | FLARE_KIND_CONTRIB);
      EXPECT_EQ(f.shards, last ? next_shard + 1 : 0u);
      if (!last) {
        EXPECT_EQ(f.count, 16u) << "only a block's last packet may be short";
      }
      for (size_t i = 0; i < f.pairs.size(); ++i) {
        EXPECT_LT(f.pairs[i].first, f.block == 6 ? 128u : 320u);
        EXPECT_NE(f.pairs[i].second, 0);
        if (i) {
          EXPECT_LT(f.pairs[i - 1].first, f.pairs[i].first);
        }
        sums[{f.block, f.pairs[i].first}] += f.pairs[i].second;
      }
      pairs += f.count;
      if (last) ++block, next_shard = 0;
      else ++next_shard;
    }
    EXPECT_EQ(block, 7u) << port;
    EXPECT_EQ(pairs, 102u) << port;
  }
  // The expected file: every block, each one's int32 sums (wrapping) of the trace's pairs.
  const SparseExpected e = read_sparse_expected(dir / "t.txt.expected");
  EXPECT_EQ(e.ports, (std::vector<uint16_t>{0, 1, 2}));
  EXPECT_EQ(e.span, 320u);
  EXPECT_EQ(e.elements, 2048u);
  ASSERT_EQ(e.blocks.size(), 7u);
  std::map<std::pair<uint32_t, uint32_t>, int32_t> want, got;
  for (const auto& [key, sum] : sums)
    if (int32_t(uint32_t(sum)) != 0) want[key] = int32_t(uint32_t(sum));
  for (const SparseExpectedBlock& b : e.blocks)
    for (const SparsePair& p : b.pairs) got[{b.block_id, p.index}] = int32_t(p.bits);
  EXPECT_EQ(got, want);
}

TEST(E2ESparseGen, LostPacketsResendTheirWholeBlockAndStaggerStartsElsewhere) {
  ScratchDir dir;
  const std::string base = "gen flare-sparse --hosts 4 --bytes 16KiB --elem-bytes 64 --density 0.05 --seed 3 ";
  ASSERT_EQ(flaresim(base + "-o plain.txt", dir).code, 0);
  ASSERT_EQ(flaresim(base + "--stagger -o stagger.txt", dir).code, 0);
  const CliResult r = flaresim(base + "--loss 0.4 --timeout 1us --stagger -o lossy.txt", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Losses change when packets go, not what the hosts hold.
  EXPECT_EQ(slurp(dir / "plain.txt.expected"), slurp(dir / "lossy.txt.expected"));
  // 4096 elements, 8 pairs a packet, span 8 / 0.05 = 160: 26 blocks. Host h starts at block
  // h * 26 / 4.
  std::map<unsigned, std::vector<Fields>> plain, stagger, lossy;
  for (const TracePkt& p : read_text_trace(dir / "plain.txt")) plain[p.port].push_back(fields(p.frame));
  for (const TracePkt& p : read_text_trace(dir / "stagger.txt")) stagger[p.port].push_back(fields(p.frame));
  for (const TracePkt& p : read_text_trace(dir / "lossy.txt")) lossy[p.port].push_back(fields(p.frame));
  const unsigned first_block[4] = {0, 6, 13, 19};
  for (unsigned h = 0; h < 4; ++h) {
    EXPECT_EQ(stagger[h].front().block, first_block[h]) << h;
    EXPECT_EQ(stagger[h].size(), plain[h].size()) << h;
    // Per block: the packets each send of it had (a lost send one fewer), every shard there.
    std::map<uint32_t, std::multiset<uint16_t>> sent_plain, sent_lossy;
    for (const Fields& f : plain[h]) sent_plain[f.block].insert(f.shard);
    for (const Fields& f : lossy[h]) sent_lossy[f.block].insert(f.shard);
    ASSERT_EQ(sent_lossy.size(), 26u);
    for (const auto& [block, shards] : sent_plain) {
      const std::multiset<uint16_t>& again = sent_lossy[block];
      const size_t n = shards.size();  // packets of the block: sent once each without losses
      for (uint16_t s : shards) EXPECT_GE(again.count(s), 1u) << h << " " << block;
      // a sends, each but the last one packet short: a n - (a - 1) packets.
      if (n > 1) {
        EXPECT_EQ((again.size() - 1) % (n - 1), 0u) << h << " " << block;
      }
    }
  }
  EXPECT_NE(r.out.find(" block sends lost a packet)"), std::string::npos) << r.out;
  EXPECT_GT(read_text_trace(dir / "lossy.txt").size(), read_text_trace(dir / "plain.txt").size());
}

}  // namespace
}  // namespace fs::test
