// A two-level Flare reduction tree in one simulation: two leaf switches with two hosts each send
// their aggregated blocks to a root switch, which multicasts the result back down; each leaf
// forwards it to its hosts. Every host gets the sum over all four hosts, on native and on ISS HPUs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "protocols/flare_dense/flare_setup.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "switch/switch.h"

namespace fs {
namespace {

constexpr unsigned kBlocks = 6, kElems = 64;

// Host `global` (0..3) contributes global * 1000 + block * 10 + i to element i of block `block`.
int32_t value(unsigned global, unsigned block, unsigned i) { return int32_t(global * 1000 + block * 10 + i); }

PacketPtr contribution(unsigned global, uint16_t rank, uint16_t port, uint32_t block, Picos at) {
  std::vector<int32_t> v(kElems);
  for (unsigned i = 0; i < kElems; ++i) v[i] = value(global, block, i);
  flare_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  h.dtype = FLARE_INT32;
  h.op = FLARE_OP_SUM;
  h.allreduce_id = 3;
  h.block_id = block;
  h.sender_rank = rank;
  h.elem_count = kElems;
  auto p = std::make_shared<Packet>();
  p->data = build_flare_packet(h, port, reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
  p->ingress_port = port;
  p->arrival = at;
  return p;
}

void two_level_tree(const char* model) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  Config cfg;
  cfg.ports.count = 4;
  cfg.pspin.clusters = 2;
  find_config_key("hpu.model")->set(cfg, model);
  flare_config(cfg).allreduce_id = 3;
  flare_config(cfg).ports = "0-1";
  // Leaves: hosts on ports 0 and 1, the root behind port 3; leaf k is child k of the root.
  Config leaf0 = cfg, leaf1 = cfg;
  flare_config(leaf0).parent = flare_config(leaf1).parent = "3";
  flare_config(leaf0).rank = 0;
  flare_config(leaf1).rank = 1;
  Switch a("leaf0", leaf0), b("leaf1", leaf1), root("root", cfg);
  a.link(3, root, 0);
  root.link(0, a, 3);
  b.link(3, root, 1);
  root.link(1, b, 3);

  std::vector<PacketPtr> to_a, to_b;
  for (uint32_t blk = 0; blk < kBlocks; ++blk) {
    const Picos t = blk * 200000;
    to_a.push_back(contribution(0, 0, 0, blk, t));
    to_a.push_back(contribution(1, 1, 1, blk, t + 1000));
    to_b.push_back(contribution(2, 0, 0, blk, t + 3000));
    to_b.push_back(contribution(3, 1, 1, blk, t + 500));
  }
  a.load(to_a);
  b.load(to_b);
  // What leaves each switch on each port: leaves send contributions up and results to hosts.
  std::map<std::pair<int, unsigned>, std::vector<Bytes>> out;
  a.on_departure([&](unsigned port, Picos, const Packet& p) { out[{0, port}].push_back(p.data); });
  b.on_departure([&](unsigned port, Picos, const Packet& p) { out[{1, port}].push_back(p.data); });
  root.on_departure([&](unsigned port, Picos, const Packet& p) { out[{2, port}].push_back(p.data); });
  sc_core::sc_start();

  auto header = [](const Bytes& f) {
    flare_header_t h;
    flare_decode(f.data() + FLARE_PAYLOAD_OFFSET, &h);
    return h;
  };
  auto elems = [](const Bytes& f) {
    std::vector<int32_t> v(kElems);
    std::memcpy(v.data(), f.data() + FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES, kElems * 4);
    return v;
  };
  // Each leaf sent one aggregate per block up, as its rank at the root, with its two hosts' sum.
  for (int leaf = 0; leaf < 2; ++leaf) {
    const auto& up = out[{leaf, 3u}];
    ASSERT_EQ(up.size(), kBlocks) << model << " leaf " << leaf;
    for (const Bytes& f : up) {
      const flare_header_t h = header(f);
      EXPECT_EQ(h.kind, FLARE_KIND_CONTRIB);
      EXPECT_EQ(h.sender_rank, leaf);
      for (unsigned i = 0; i < kElems; ++i)
        EXPECT_EQ(elems(f)[i], value(2 * leaf, h.block_id, i) + value(2 * leaf + 1, h.block_id, i));
    }
  }
  // The root multicast each block's result to both leaves, and each leaf to both its hosts.
  for (int sw = 0; sw < 3; ++sw) {
    for (unsigned port : {0u, 1u}) {
      const auto& got = out[{sw, port}];
      ASSERT_EQ(got.size(), kBlocks) << model << " switch " << sw << " port " << port;
      std::vector<bool> seen(kBlocks, false);
      for (const Bytes& f : got) {
        const flare_header_t h = header(f);
        EXPECT_EQ(h.kind, FLARE_KIND_RESULT);
        ASSERT_LT(h.block_id, kBlocks);
        seen[h.block_id] = true;
        for (unsigned i = 0; i < kElems; ++i) {
          int32_t want = 0;
          for (unsigned g = 0; g < 4; ++g) want += value(g, h.block_id, i);
          EXPECT_EQ(elems(f)[i], want) << "block " << h.block_id << " element " << i;
        }
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), true), long(kBlocks));
    }
  }
  EXPECT_EQ(a.drops.total() + b.drops.total() + root.drops.total(), 0u);
  // Every switch completed every block and left none open: a leaf's forwarded results are no
  // contributions, so they do not open the block again after it went up.
  for (Switch* s : {&a, &b, &root}) {
    const auto occ = s->pspin().handler_stats().at("flare_dense").block_occupancy(now_ps());
    EXPECT_EQ(occ.completed, kBlocks) << model;
    EXPECT_EQ(occ.open_at_end, 0u) << model;
  }
}

TEST(TopologyTwoLevelTree, NativeHpus) { two_level_tree("native"); }
TEST(TopologyTwoLevelTree, IssHpus) { two_level_tree("iss"); }

}  // namespace
}  // namespace fs
