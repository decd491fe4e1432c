// Flare sparse on whole switches with ISS HPUs (interleaved, so handlers of one block run at the
// same time and contend for its locks): every storage x algorithm on one switch, and a two-level
// tree (hash tables with a small table at the two leaves, so they spill upwards, and an array at
// the root). Hosts' packets arrive at line-rate spacing, blocks in flight limited to what the
// switch holds, with some packets duplicated; every host's merged results must equal the dense
// reduction (tb/support/flare_sparse_reference.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "config/config.h"
#include "protocols/flare_sparse/sparse_setup.h"
#include "support/flare_sparse_reference.h"
#include "switch/switch.h"

namespace fs {
namespace {

using namespace fs_tb::sparse;

constexpr Picos kGap = 40000;  // between two packets of one host (a 1 KiB frame at 200 Gbit/s)

// Host packets of every block, host h on port ports[h] with rank h, block after block (hosts
// interleaved packet by packet), every 7th packet sent twice.
std::vector<PacketPtr> host_traffic(const Params& p, const Workload& w, const std::vector<unsigned>& ports,
                                    unsigned first_host, uint64_t* duplicates) {
  std::vector<PacketPtr> out;
  std::vector<Picos> next(ports.size(), 0);
  uint64_t k = 0;
  for (uint32_t b = 0; b < p.blocks; ++b)
    for (unsigned r = 0; r < ports.size(); ++r)
      for (const Bytes& f : host_packets(p, r, b, w.v[first_host + r][b])) {
        for (int copy = 0; copy < (++k % 7 == 0 ? 2 : 1); ++copy) {
          auto pkt = std::make_shared<Packet>();
          pkt->data = f;
          pkt->ingress_port = uint16_t(ports[r]);
          pkt->arrival = next[r] + Picos(r) * 1000;
          next[r] += kGap;
          out.push_back(pkt);
          if (copy) ++*duplicates;
        }
      }
  std::sort(out.begin(), out.end(), [](const PacketPtr& a, const PacketPtr& b) {
    return a->arrival != b->arrival ? a->arrival < b->arrival : a->ingress_port < b->ingress_port;
  });
  return out;
}

Config iss_config(const Params& p, uint32_t span, const std::string& ports) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  Config cfg = switch_config(p, span, ports);
  find_config_key("hpu.model")->set(cfg, "iss");
  cfg.parser.rules = "udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse";
  sparse_config(cfg).buffers = 2;  // 2 states x 2 clusters: 4 blocks in flight, the rest wait
  return cfg;
}

void one_switch(const char* storage, const char* algorithm) {
  Params p;
  p.storage = storage, p.algorithm = algorithm, p.hosts = 4, p.pairs = 16, p.density = 0.05, p.blocks = 4;
  p.dtype = FLARE_FLOAT32, p.exact_floats = true, p.seed = 3;
  const Workload w = make_workload(p);
  Switch sw("sw", iss_config(p, w.span, "0-3"));
  uint64_t duplicates = 0;
  sw.load(host_traffic(p, w, {0, 1, 2, 3}, 0, &duplicates));
  std::vector<Received> got(4);
  sw.on_departure([&](unsigned port, Picos, const Packet& pkt) {
    ASSERT_LT(port, 4u);
    got[port].take(pkt.data);
  });
  sc_core::sc_start();
  for (unsigned h = 0; h < 4; ++h) {
    EXPECT_EQ(got[h].problems, std::vector<std::string>{}) << "host " << h;
    for (uint32_t b = 0; b < p.blocks; ++b) {
      std::string problem;
      EXPECT_EQ(without_zeros(got[h].block(b, p.op, p.dtype, &problem)), without_zeros(reference(w, b, p)))
          << storage << " " << algorithm << " host " << h << " block " << b;
      EXPECT_EQ(problem, "");
    }
  }
  const auto& hs = sw.pspin().handler_stats().at("flare_sparse");
  EXPECT_EQ(hs.block_occupancy(now_ps()).completed, p.blocks);
  EXPECT_EQ(hs.block_occupancy(now_ps()).open_at_end, 0u);
  EXPECT_EQ(sw.drops.total(), duplicates);  // the duplicates, and nothing else
}

TEST(TopologySparseSwitch, HashSingleOnIssHpus) { one_switch("hash", "single"); }
TEST(TopologySparseSwitch, HashTreeOnIssHpus) { one_switch("hash", "tree"); }
TEST(TopologySparseSwitch, ArraySingleOnIssHpus) { one_switch("array", "single"); }
TEST(TopologySparseSwitch, ArrayTreeOnIssHpus) { one_switch("array", "tree"); }

// Leaves 0 and 1 (hosts on ports 0-2, the root behind port 19; hash tables of 8 slots), the root
// (leaf k on its port k; array).
TEST(TopologySparseSwitch, HashLeavesAndAnArrayRootOnIssHpus) {
  Params p;
  p.hosts = 6, p.pairs = 8, p.density = 0.05, p.blocks = 4, p.seed = 9;
  const Workload w = make_workload(p);
  Params leaf_p = p, root_p = p;
  leaf_p.storage = root_p.storage = "auto";
  leaf_p.hash_slots = 8;
  Config leaf0 = iss_config(leaf_p, w.span, "0-2"), leaf1 = leaf0;
  sparse_config(leaf0).parent = sparse_config(leaf1).parent = "19";
  sparse_config(leaf1).rank = 1;
  Switch a("leaf0", leaf0), b("leaf1", leaf1), root("root", iss_config(root_p, w.span, "0-1"));
  a.link(19, root, 0);
  root.link(0, a, 19);
  b.link(19, root, 1);
  root.link(1, b, 19);
  uint64_t duplicates = 0;
  a.load(host_traffic(p, w, {0, 1, 2}, 0, &duplicates));
  b.load(host_traffic(p, w, {0, 1, 2}, 3, &duplicates));
  std::vector<Received> got(6);
  uint64_t up_packets = 0;
  a.on_departure([&](unsigned port, Picos, const Packet& pkt) {
    if (port == 19) ++up_packets; else got[port].take(pkt.data);
  });
  b.on_departure([&](unsigned port, Picos, const Packet& pkt) {
    if (port == 19) ++up_packets; else got[3 + port].take(pkt.data);
  });
  sc_core::sc_start();
  for (unsigned g = 0; g < 6; ++g)
    for (uint32_t blk = 0; blk < p.blocks; ++blk) {
      std::string problem;
      EXPECT_EQ(without_zeros(got[g].block(blk, p.op, p.dtype, &problem)), without_zeros(reference(w, blk, p)))
          << "host " << g << " block " << blk;
      EXPECT_EQ(problem, "");
    }
  // The leaves' 8-slot tables spilled: more packets went up than one per block and leaf.
  EXPECT_GT(up_packets, 2u * p.blocks);
  auto spilled = [](Switch& s) {
    const auto& o = s.pspin().handler_stats().at("flare_sparse").outcomes;
    return o.count("spilled") ? o.at("spilled") : 0;
  };
  EXPECT_GT(spilled(a) + spilled(b), 0u);
  EXPECT_EQ(root.drops.total(), 0u);
  EXPECT_EQ(a.drops.total() + b.drops.total(), duplicates);
}

}  // namespace
}  // namespace fs
