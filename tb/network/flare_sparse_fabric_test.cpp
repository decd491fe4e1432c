// Tests of Flare sparse across a network and of the SparCML baseline
// (sc_model/protocols/flare_sparse/sparse_fabric, sparcml_allreduce): the flare_sparse.allreduces
// entry each switch gets, worked out from the builders' wiring; whole runs on two and three
// levels whose every host's result, merged from the frames that reached it, equals the int32 sum
// of all members' vectors computed here from the workload's inputs; the packets the members sent
// against counts worked out from those inputs; SparCML's partitions as every other host received
// them, its switch to dense values, and its retransmissions when a link drops; bad set-ups
// rejected.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "net/frame.h"
#include "network/fabric_fixtures.h"
#include "network/fabric_timing.h"
#include "network/network.h"
#include "protocols/flare_sparse/sparcml_allreduce.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_fabric.h"
#include "protocols/flare_sparse/sparse_frame.h"
#include "protocols/flare_sparse/sparse_workload.h"

namespace fs_tb {
namespace {

using Dense = std::map<uint64_t, uint32_t>;  // element index over the whole vector -> int32 sum, zeros left out

// Native HPUs, fabric_timing()'s links; each member's `bytes` of int32 with `density` non-zero,
// blocks of `span` elements; a timeout no message reaches.
fs::Config sparse_config(const std::string& model, uint64_t bytes, double density, uint32_t span, unsigned trees) {
  fs::Config c = fabric_timing();
  fs::find_config_key("hpu.model")->set(c, "native");
  fs::find_config_key("flare.allreduces")->set(c, "none");  // Flare dense's role, which the CLI runs too
  c.hosts.model = model;
  c.hosts.bytes = bytes;
  c.hosts.dtype = "int32";
  c.hosts.elem_bytes = 1024;
  c.hosts.timeout_ns = 1000000;
  c.hosts.window = 0;
  fs::sparse_config(c).density = density;
  fs::sparse_config(c).span = span;
  fs::sparse_config(c).trees = trees;
  return c;
}

std::string entries(const fs::FlareSparseFabricRole& role, unsigned index) {
  fs::Config c;
  role.configure_switch(index, c);
  return fs::sparse_config(c).allreduces;
}

std::string role_error(const fs::Config& cfg, const fs::Topology& t) {
  try {
    fs::FlareSparseFabricRole role(cfg, t);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "";
}

// The int32 sum of the members' vectors, added up here from the workload's inputs.
Dense int32_sum(const fs::SparseWorkload& w) {
  Dense sum;
  for (const auto& host : w.hosts)
    for (uint64_t b = 0; b < host.size(); ++b)
      for (const fs::SparsePair& p : host[b]) sum[b * w.span + p.index] += p.bits;
  for (auto it = sum.begin(); it != sum.end();) it = it->second ? std::next(it) : sum.erase(it);
  return sum;
}

// A network with the sparse role's switches and its allreduce, recording what reaches each host.
struct SparseFabric {
  SparseFabric(const fs::Config& cfg, const fs::Topology& t)
      : role(cfg, t),
        workload(fs::make_sparse_workload(fs::sparse_workload_options(cfg, unsigned(fs::member_hosts(cfg.hosts.members, unsigned(t.hosts().size())).size())))),
        net(std::make_unique<fs::Network>("net", cfg, t, [this](unsigned i, fs::Config& c) { role.configure_switch(i, c); })) {
    allreduce = role.attach(*net);
    record_frames_to_hosts(*net, t, &to_hosts);
  }
  fs::FlareSparseFabricRole role;
  fs::SparseWorkload workload;
  std::unique_ptr<fs::Network> net;
  std::unique_ptr<fs::NetworkAllreduce> allreduce;
  std::map<unsigned, std::vector<fs::Bytes>> to_hosts;
};

// Every member's Flare sparse result packets, merged per block (one packet per shard number,
// every announced shard there, block b from tree b mod N), equal the sum; the members sent each
// block's pairs in ceil(pairs / 128) packets (one when it has none).
void expect_flare_results(const SparseFabric& f, const std::vector<unsigned>& members, unsigned trees) {
  const fs::SparseWorkload& w = f.workload;
  const Dense want = int32_sum(w);
  for (unsigned h : members) {
    std::map<uint32_t, std::map<uint16_t, fs::SparsePairs>> shards;  // block -> shard -> pairs
    std::map<uint32_t, uint32_t> announced;
    for (const fs::Bytes& frame : f.to_hosts.at(h)) {
      fs::SparsePacket p;
      std::string why;
      ASSERT_TRUE(fs::parse_sparse_packet(frame.data(), frame.size(), &p, &why)) << why;
      ASSERT_EQ(p.h.kind, FLARE_KIND_RESULT);
      EXPECT_EQ(p.h.allreduce_id, p.h.block_id % trees) << "block " << p.h.block_id << " comes down tree b mod N";
      shards[p.h.block_id].emplace(p.h.shard, p.pairs);
      if (p.h.flags & FLARE_FLAG_LAST) announced[p.h.block_id] = p.h.shards;
    }
    Dense got;
    ASSERT_EQ(shards.size(), w.blocks()) << "host " << h;
    for (const auto& [b, by_shard] : shards) {
      EXPECT_EQ(by_shard.size(), announced[b]) << "host " << h << " block " << b;
      for (const auto& [shard, pairs] : by_shard)
        for (const fs::SparsePair& p : pairs) got[uint64_t(b) * w.span + p.index] += p.bits;
    }
    for (auto it = got.begin(); it != got.end();) it = it->second ? std::next(it) : got.erase(it);
    EXPECT_EQ(got, want) << "host " << h;
  }
  uint64_t packets = 0;
  for (const auto& host : w.hosts)
    for (const fs::SparsePairs& block : host) packets += std::max<uint64_t>(1, (block.size() + 127) / 128);
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_EQ(f.allreduce->failure(), "");
  EXPECT_TRUE(s.results_ok);
  EXPECT_EQ(s.model, "sparse_allreduce");
  EXPECT_EQ(s.trees, trees);
  EXPECT_EQ(s.packets_sent, packets);
  EXPECT_EQ(s.retransmissions, 0u);
  EXPECT_EQ(s.stray_packets, 0u);
  EXPECT_EQ(s.unfinished_ranks, 0u);
}

TEST(FlareSparseFabric, TwoTreesTablesFollowTheLeafSpineWiring) {
  // leaf_spine(2 leaves, 2 spines, 2 hosts): switches leaf0, leaf1, spine0, spine1 (indices
  // 0-3); leaf ports 0-1 hosts, 2-3 spines 0-1; spine port l to leaf l.
  const fs::Topology t = fs::leaf_spine(2, 2, 2, fs::SwitchKind::kInc);
  fs::Config cfg = sparse_config("sparse_allreduce", 4096, 0.05, 256, 2);
  fs::sparse_config(cfg).allreduce_id = 5;
  const fs::FlareSparseFabricRole role(cfg, t);
  ASSERT_EQ(role.trees().size(), 2u);
  const unsigned r0 = role.trees()[0].root, r1 = role.trees()[1].root;
  EXPECT_EQ(std::set<unsigned>({r0, r1}), std::set<unsigned>({2, 3}));
  EXPECT_EQ(entries(role, 0), "id=5 ports=0,1 parent=" + std::to_string(r0) + " rank=0; id=6 ports=0,1 parent=" +
                                  std::to_string(r1) + " rank=0");
  EXPECT_EQ(entries(role, r1), "id=6 ports=0,1 parent=none rank=0");
  // The other hosts models leave the section alone; SparCML lays no tree.
  for (const char* model : {"allreduce", "ring", "sparcml"}) {
    fs::Config other = cfg;
    other.hosts.model = model;
    const fs::FlareSparseFabricRole idle(other, t);
    EXPECT_TRUE(idle.trees().empty()) << model;
    fs::Config c;
    fs::sparse_config(c).allreduces = "untouched";
    idle.configure_switch(0, c);
    EXPECT_EQ(fs::sparse_config(c).allreduces, "untouched") << model;
  }
}

TEST(FlareSparseFabric, TwoLevelsTwoTreesExact) {
  quiet_systemc();
  // 2 leaves x 4 hosts, 2 spines; 16 KiB of int32 per host (4096 elements), 5% non-zero, blocks
  // of 512 elements: 8 blocks, about 26 pairs per host and block.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  SparseFabric f(sparse_config("sparse_allreduce", 16 << 10, 0.05, 512, 2), t);
  ASSERT_EQ(f.workload.blocks(), 8u);
  sc_core::sc_start();
  expect_flare_results(f, {0, 1, 2, 3, 4, 5, 6, 7}, 2);
  EXPECT_EQ(f.allreduce->stats().levels, 2u);
}

TEST(FlareSparseFabric, ThreeLevelsWithSpillingLeavesExact) {
  quiet_systemc();
  // 20% non-zero in blocks of 2048 elements: about 410 pairs per host and block, 4 packets each;
  // 8-slot hash tables below the root spill most of them up.
  fs::Config cfg = sparse_config("sparse_allreduce", 32 << 10, 0.2, 2048, 1);
  fs::sparse_config(cfg).hash_slots = 8;
  const fs::Topology t = three_levels();  // outlives the network, whose recorder reads it
  SparseFabric f(cfg, t);
  ASSERT_EQ(f.role.trees()[0].root, 0u);  // core
  EXPECT_EQ(entries(f.role, 0), "id=0 ports=0,1 parent=none rank=0");
  EXPECT_EQ(entries(f.role, 6), "id=0 ports=0,1 parent=2 rank=1");  // leaf3, agg1's port 1
  sc_core::sc_start();
  expect_flare_results(f, {0, 1, 2, 3, 4, 5, 6, 7}, 1);
  EXPECT_EQ(f.allreduce->stats().levels, 3u);
}

TEST(FlareSparseFabric, BadMembersAndPlainSwitchesOnATreeAreRejected) {
  const fs::Topology t = fs::leaf_spine(2, 2, 2, fs::SwitchKind::kInc);
  fs::Config cfg = sparse_config("sparse_allreduce", 4096, 0.05, 256, 1);
  cfg.hosts.members = "0,9";
  EXPECT_EQ(role_error(cfg, t), "bad value '0,9' for 'hosts.members': host 9 does not exist (the network has 4 hosts, 0-3)");
  cfg.hosts.members = "all";
  cfg.hosts.loss = 0.1;
  EXPECT_EQ(role_error(cfg, t), "hosts.loss: a network's sparse allreduce hosts lose nothing themselves; their losses "
                                "are the network's drops (a link's queue_bytes in a topology file)");
  cfg.hosts.loss = 0;
  fs::Topology plain = t;
  fs::apply_kinds(plain, "spine*=plain");
  const std::string what = role_error(cfg, plain);
  EXPECT_NE(what.find(" is plain (no packet-processing unit) but Flare sparse tree 0 (root spine"), std::string::npos)
      << what;
  cfg.hosts.model = "sparcml";  // hosts only: plain switches do
  EXPECT_EQ(role_error(cfg, plain), "");
  fs::sparse_config(cfg).allreduce_id = 0xFFFFFFFF;
  cfg.hosts.model = "sparse_allreduce";
  fs::sparse_config(cfg).trees = 2;
  EXPECT_EQ(role_error(cfg, t), "flare_sparse.allreduce_id + flare_sparse.trees - 1 exceeds the 32-bit allreduce id");
}

// What SparCML's allgather delivered to each host: the partitions of the others, as pairs.
struct Gathered {
  std::map<unsigned, std::map<unsigned, Dense>> by_host;  // host -> partition -> elements
  uint64_t data_frames = 0, data_bytes = 0, ack_frames = 0, dense_frames = 0;
};

// Reads SparCML's frames (its wire format, sparcml_allreduce.cpp) that reached each host: data
// frames of the allgather (phase 2) give their pairs or dense values (first copy of a packet).
Gathered read_sparcml(const SparseFabric& f, const std::vector<unsigned>& members) {
  Gathered g;
  std::set<std::tuple<unsigned, unsigned, uint32_t>> seen;  // host, sender, packet
  const uint64_t elements = f.workload.elements, part = (elements + members.size() - 1) / members.size();
  for (const auto& [host, frames] : f.to_hosts)
    for (const fs::Bytes& frame : frames) {
      const fs::FrameInfo info = fs::parse_frame(frame.data(), frame.size());
      if (!info.udp || info.udp_dport != fs::kSparcmlUdpPort) continue;
      const uint8_t* u = frame.data() + info.l4_offset;
      const uint8_t kind = u[2], phase = u[3];
      const unsigned sender = unsigned(u[4] | u[5] << 8), partition = unsigned(u[6] | u[7] << 8);
      const uint32_t packet = uint32_t(u[8] | u[9] << 8 | u[10] << 16 | uint32_t(u[11]) << 24);
      if (kind == 3) {
        ++g.ack_frames;
        continue;
      }
      ++g.data_frames;
      g.data_bytes += frame.size();
      g.dense_frames += kind == 2;
      if (phase != 2 || !seen.insert({host, sender, packet}).second) continue;
      EXPECT_EQ(partition, sender);
      Dense& d = g.by_host[host][partition];
      const uint8_t* data = u + 16;
      const size_t len = info.l4_len - 16;
      if (kind == 1) {
        for (size_t off = 0; off + 8 <= len; off += 8)
          d[uint32_t(data[off] | data[off + 1] << 8 | data[off + 2] << 16 | uint32_t(data[off + 3]) << 24)] =
              uint32_t(data[off + 4] | data[off + 5] << 8 | data[off + 6] << 16 | uint32_t(data[off + 7]) << 24);
      } else {
        const uint64_t first = partition * part + uint64_t(packet) * 256;
        for (size_t k = 0; 4 * k + 4 <= len; ++k)
          if (const uint32_t v = uint32_t(data[4 * k] | data[4 * k + 1] << 8 | data[4 * k + 2] << 16 |
                                          uint32_t(data[4 * k + 3]) << 24))
            d[first + k] = v;
      }
    }
  return g;
}

// Every host received every other member's partition equal to the sum there.
void expect_sparcml_partitions(const Gathered& g, const SparseFabric& f, const std::vector<unsigned>& members) {
  const Dense want = int32_sum(f.workload);
  const uint64_t part = (f.workload.elements + members.size() - 1) / members.size();
  for (unsigned r = 0; r < members.size(); ++r)
    for (unsigned q = 0; q < members.size(); ++q) {
      if (q == r) continue;
      Dense slice(want.lower_bound(q * part), want.lower_bound((q + 1) * part));
      const auto host = g.by_host.find(members[r]);
      ASSERT_NE(host, g.by_host.end()) << "host " << members[r];
      const auto got = host->second.find(q);
      EXPECT_EQ(got == host->second.end() ? Dense() : got->second, slice) << "rank " << r << " partition " << q;
    }
}

TEST(SparcmlFabric, SplitAllgatherExactWithThePacketsItsPartitionsNeed) {
  quiet_systemc();
  // 8 members on plain switches; 16 KiB of int32 (4096 elements, partitions of 512), 5% non-zero.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kPlain);
  SparseFabric f(sparse_config("sparcml", 16 << 10, 0.05, 512, 1), t);
  sc_core::sc_start();
  const std::vector<unsigned> members = {0, 1, 2, 3, 4, 5, 6, 7};
  const Gathered g = read_sparcml(f, members);
  expect_sparcml_partitions(g, f, members);
  // Reduce-scatter: rank r's pairs in partition q, to q; allgather: q's non-zero sums, to each
  // other rank; 128 pairs of 8 bytes per packet, one packet for an empty message.
  const Dense sum = int32_sum(f.workload);
  auto packets = [](uint64_t pairs) { return std::max<uint64_t>(1, (pairs + 127) / 128); };
  uint64_t want_packets = 0, want_bytes = 0;
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned q = 0; q < 8; ++q) {
      if (q == r) continue;
      uint64_t mine = 0;
      for (uint64_t b = 0; b < f.workload.blocks(); ++b)
        for (const fs::SparsePair& p : f.workload.hosts[r][b]) mine += (b * 512 + p.index) / 512 == q;
      const uint64_t reduced = uint64_t(std::distance(sum.lower_bound(q * 512), sum.lower_bound((q + 1) * 512)));
      want_packets += packets(mine) + packets(reduced);
      want_bytes += packets(mine) * 58 + mine * 8 + packets(reduced) * 58 + reduced * 8;  // 42 + 16 header bytes
    }
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_EQ(f.allreduce->failure(), "");
  EXPECT_TRUE(s.results_ok);
  EXPECT_EQ(s.model, "sparcml");
  EXPECT_EQ(s.trees, 0u);
  EXPECT_EQ(s.packets_sent, want_packets);
  EXPECT_EQ(g.data_frames, want_packets);  // none lost, none sent twice
  EXPECT_EQ(g.data_bytes, want_bytes);
  EXPECT_EQ(s.acks_sent, 2u * 8 * 7);
  EXPECT_EQ(g.ack_frames, 2u * 8 * 7);
  EXPECT_EQ(s.bytes_sent, want_bytes + 2u * 8 * 7 * 58);  // an ACK: the 58 bytes of headers
  EXPECT_EQ(s.retransmissions, 0u);
  EXPECT_EQ(g.dense_frames, 0u);
}

TEST(SparcmlFabric, DenseValuesWhenPairsWouldTakeMoreBytes) {
  quiet_systemc();
  // 70% non-zero: pairs (8 bytes) of a 512-element partition take more than its 2 KiB of values,
  // so every message goes dense, 2 packets of 256 values.
  const fs::Topology t = fs::leaf_spine(2, 1, 2, fs::SwitchKind::kPlain);
  SparseFabric f(sparse_config("sparcml", 8 << 10, 0.7, 512, 1), t);
  sc_core::sc_start();
  const std::vector<unsigned> members = {0, 1, 2, 3};
  const Gathered g = read_sparcml(f, members);
  expect_sparcml_partitions(g, f, members);
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_TRUE(s.results_ok) << f.allreduce->failure();
  EXPECT_EQ(static_cast<const fs::SparcmlAllreduce&>(*f.allreduce).dense_messages(), 2u * 4 * 3);
  EXPECT_EQ(g.dense_frames, 2u * 4 * 3 * 2);
  EXPECT_EQ(s.packets_sent, 2u * 4 * 3 * 2);
}

TEST(SparcmlFabric, MessagesADroppingLinkLostAreSentAgain) {
  quiet_systemc();
  // Host h3's link runs at half the others' rate and holds 4 frames: one message of 4 or 5
  // packets at a time fits, but the others' messages to it follow each other back to back and
  // overflow it; their senders time out and send them again, whole, at times the seed spreads.
  const fs::Topology t = fs::parse_topology_text(
      "switch leaf ports=4\nhost h0\nhost h1\nhost h2\nhost h3\n"
      "link leaf:0 h0\nlink leaf:1 h1\nlink leaf:2 h2\nlink leaf:3 h3 gbps=50 queue_bytes=4400\n",
      "drop.topo");
  fs::Config cfg = sparse_config("sparcml", 16 << 10, 0.5, 512, 1);
  cfg.hosts.timeout_ns = 50000;
  SparseFabric f(cfg, t);
  sc_core::sc_start();
  const std::vector<unsigned> members = {0, 1, 2, 3};
  expect_sparcml_partitions(read_sparcml(f, members), f, members);
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_TRUE(s.results_ok) << f.allreduce->failure();
  EXPECT_GT(s.retransmissions, 0u);
  EXPECT_EQ(s.gave_up, 0u);
  EXPECT_EQ(s.unfinished_ranks, 0u);
  fs::StatsTree report;
  f.net->report(report, fs::now_ps());
  EXPECT_GT(report["drops"].uint_value(), 0u);
}

}  // namespace
}  // namespace fs_tb
