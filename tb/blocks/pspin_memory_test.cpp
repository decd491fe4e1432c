// The PsPIN unit's memories (pspin/memory/): the L1 layout, the HPU views of two handler sets, where
// a packet goes in its slot, and the RISC-V address map made from a view, against offsets worked
// out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/errors.h"
#include "fs_memory_map.h"
#include "fs_packet.h"
#include "pspin/handler_program.h"
#include "pspin/memory/hpu_address_map.h"
#include "pspin/memory/pspin_memory.h"

namespace fs_tb {
namespace {

fs::Config small() {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.l1_bytes = 20480;  // 2 slots of 9216: a state area of 2048
  cfg.pspin.l2_handler_bytes = 8192;
  cfg.hpu.stack_bytes = 512;
  return cfg;
}

TEST(BlocksPspinMemory, L1LayoutStateThenSlotsThenStacks) {
  const fs::Config cfg = small();
  const fs::L1Layout l(cfg.pspin, cfg.hpu);
  EXPECT_EQ(l.state_bytes(), 2048u);
  EXPECT_EQ(l.slot_offset(0), 2048u);
  EXPECT_EQ(l.slot_offset(1), 2048u + 9216u);
  EXPECT_EQ(l.stack_offset(0), 2048u + 2 * 9216u);  // 20480: past pspin.l1_bytes
  EXPECT_EQ(l.stack_offset(1), 20480u + 512u);
}

TEST(BlocksPspinMemory, L1WithoutRoomForStateIsAnInputError) {
  fs::Config cfg = small();
  cfg.pspin.l1_bytes = 18432;  // exactly the two slots
  try {
    fs::L1Layout l(cfg.pspin, cfg.hpu);
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "'pspin.l1_bytes' = 18432 leaves no L1 state area after 2 HPU packet slots of 9216 bytes");
  }
}

// Each set's ranges are host memories of their own (guarded: common/guarded_memory.h), so that a
// native handler that overruns its state traps rather than reaching another set's; in the TCDM
// (its banks) they lie where the layout puts them, side by side.
TEST(BlocksPspinMemory, TwoSetsSeeDisjointRangesOfTheSameMemory) {
  const fs::Config cfg = small();
  fs::PspinMemory mem(cfg.pspin, cfg.hpu);
  mem.assign(3, fs::HandlerSetMemory{0, 1024, 0, 4096});
  mem.assign(5, fs::HandlerSetMemory{1024, 1024, 4096, 4096});
  const fs::HpuMemoryView& a = mem.view(1, 0, 3);
  const fs::HpuMemoryView& b = mem.view(1, 0, 5);
  EXPECT_EQ(a.local_l1().host, mem.set_l1(3, 1).data());
  EXPECT_EQ(b.local_l1().host, mem.set_l1(5, 1).data());
  EXPECT_EQ(b.set_l1[0].host, mem.set_l1(5, 0).data());
  EXPECT_EQ(mem.set_l1(5, 0).size(), 1024u);
  EXPECT_EQ(a.local_l1().tcdm_offset, 0u);
  EXPECT_EQ(b.set_l1[0].tcdm_offset, 1024u);
  EXPECT_EQ(b.local_l1().tcdm_offset, 1024u);
  EXPECT_EQ(a.l2_handler.host, mem.set_l2(3).data());
  EXPECT_EQ(b.l2_handler.host, mem.set_l2(5).data());
  EXPECT_EQ(b.l2_handler.size, 4096u);
  EXPECT_EQ(mem.set_l2(5).size(), 4096u);
  // Disjoint: every pair of the sets' ranges in cluster 1 and L2 is apart.
  const fs::MemRange ranges[] = {a.local_l1(), b.local_l1(), a.set_l1[0], b.set_l1[0], a.l2_handler, b.l2_handler};
  for (const fs::MemRange& x : ranges)
    for (const fs::MemRange& y : ranges)
      if (&x != &y) {
        EXPECT_TRUE(x.host + x.size <= y.host || y.host + y.size <= x.host);
      }
  // The HPU's slot and stack are the same whichever set runs.
  EXPECT_EQ(a.pkt_slot.host, b.pkt_slot.host);
  EXPECT_EQ(a.stack.host, b.stack.host);
  EXPECT_NE(mem.view(1, 1, 3).pkt_slot.host, a.pkt_slot.host);
  EXPECT_EQ(&mem.view(1, 0, 3), &a);  // built once

  const fs_handler_args_t args = fs::handler_args(b, 60, 7);
  EXPECT_EQ(args.pkt, a.pkt_slot.host + 2);  // FS_PKT_FRAME_OFFSET
  EXPECT_EQ(args.pkt_len, 60u);
  EXPECT_EQ(args.ip, a.pkt_slot.host + 16);  // after the 14-byte Ethernet header
  EXPECT_EQ(args.ip_len, 46u);
  EXPECT_EQ(args.ingress_port, 7u);
  EXPECT_EQ(args.cluster_id, 1u);
  EXPECT_EQ(args.hpu_id, 0u);
  EXPECT_EQ(args.num_clusters, 2u);
  EXPECT_EQ(args.l1, mem.set_l1(5, 1).data());
  EXPECT_EQ(args.l1_size, 1024u);
  EXPECT_EQ(args.handler_mem_size, 4096u);
}

// A frame goes 2 bytes into the slot, so its IPv4 header and UDP payload are word-aligned; a
// timer's event (not a frame) goes at the slot's start, aligned for its words.
TEST(BlocksPspinMemory, PacketPlacementInTheSlot) {
  const fs::Config cfg = small();
  fs::PspinMemory mem(cfg.pspin, cfg.hpu);
  mem.assign(0, fs::HandlerSetMemory{0, 2048, 0, 8192});
  const fs::HpuMemoryView& v = mem.view(1, 1, 0);
  uint8_t* slot = v.pkt_slot.host;
  std::fill(slot, slot + v.pkt_slot.size, 0xEE);
  fs::Bytes frame(100);
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = uint8_t(i);
  EXPECT_EQ(fs::packet_offset_in_slot(3), 2u);
  const fs_handler_args_t a = fs::place_packet(v, frame, 3);
  EXPECT_EQ(a.pkt, slot + 2);
  EXPECT_EQ(a.pkt_len, 100u);
  EXPECT_EQ(a.ip, slot + 16);
  EXPECT_EQ(a.ip_len, 86u);
  EXPECT_EQ(a.ingress_port, 3u);
  EXPECT_EQ(fs::Bytes(slot + 2, slot + 102), frame);
  EXPECT_EQ(slot[0], 0xEE);  // the 2 bytes before the frame are not written
  EXPECT_EQ(slot[1], 0xEE);
  EXPECT_EQ(slot[102], 0xEE);
  EXPECT_EQ((a.ip - slot) % 4, 0);
  EXPECT_EQ((a.pkt + FS_UDP_PAYLOAD_OFFSET - slot) % 4, 0);  // 2 + 42 = 44
  // A frame shorter than its Ethernet header has no L3 bytes.
  EXPECT_EQ(fs::place_packet(v, fs::Bytes(10, 1), 3).ip_len, 0u);
  // The largest frame fills the slot; one byte more is a bug of the caller (the packet buffer
  // drops such frames as oversize).
  EXPECT_EQ(fs::place_packet(v, fs::Bytes(fs::kMaxSlotFrameBytes, 1), 3).pkt_len, 9214u);
  EXPECT_THROW(fs::place_packet(v, fs::Bytes(fs::kMaxSlotFrameBytes + 1, 1), 3), std::logic_error);

  const fs::Bytes event = {1, 0, 0, 0, 1, 0, 0, 0};
  EXPECT_EQ(fs::packet_offset_in_slot(FS_TIMER_PORT), 0u);
  const fs_handler_args_t t = fs::place_packet(v, event, FS_TIMER_PORT);
  EXPECT_EQ(t.pkt, slot);
  EXPECT_EQ(t.pkt_len, 8u);
  EXPECT_EQ(t.ip, nullptr);
  EXPECT_EQ(t.ip_len, 0u);
  EXPECT_EQ(fs::Bytes(slot, slot + 8), event);
}

// The RV32 handler sees every pointer of its arguments at its place in the memory map: the frame
// at 0x1B000002, its IPv4 header at 0x1B000010.
TEST(BlocksPspinMemory, Rv32HandlerArguments) {
  const fs::Config cfg = small();
  fs::PspinMemory mem(cfg.pspin, cfg.hpu);
  mem.assign(0, fs::HandlerSetMemory{1024, 1024, 4096, 4096});
  const fs::HpuMemoryView& v = mem.view(0, 1, 0);
  const fs_handler_args_rv32_t a = fs::rv32_handler_args(fs::place_packet(v, fs::Bytes(60, 0), 5), v);
  EXPECT_EQ(a.pkt, FS_PKT_SLOT_BASE + 2);
  EXPECT_EQ(a.pkt, 0x1B000002u);
  EXPECT_EQ(a.pkt_len, 60u);
  EXPECT_EQ(a.ip, 0x1B000010u);
  EXPECT_EQ(a.ip_len, 46u);
  EXPECT_EQ(a.ingress_port, 5u);
  EXPECT_EQ(a.cluster_id, 0u);
  EXPECT_EQ(a.hpu_id, 1u);
  EXPECT_EQ(a.num_clusters, 2u);
  EXPECT_EQ(a.l1, FS_L1_LOCAL_BASE);
  EXPECT_EQ(a.l1_size, 1024u);
  EXPECT_EQ(a.handler_mem, FS_L2_HANDLER_BASE);
  EXPECT_EQ(a.handler_mem_size, 4096u);
  const fs_handler_args_rv32_t t = fs::rv32_handler_args(fs::place_packet(v, fs::Bytes(8, 0), FS_TIMER_PORT), v);
  EXPECT_EQ(t.pkt, FS_PKT_SLOT_BASE);
  EXPECT_EQ(t.ip, 0u);  // NULL
  // A pointer outside the HPU's memory is the simulator's bug, not a guest address.
  uint8_t elsewhere = 0;
  EXPECT_THROW(fs::guest_address(v, &elsewhere), std::logic_error);
}

TEST(BlocksPspinMemory, BanksOnlyForInterleavedIssHpus) {
  fs::Config cfg = small();
  EXPECT_NE(fs::PspinMemory(cfg.pspin, cfg.hpu).l1(0).banks(), nullptr);  // iss, interleave on
  cfg.hpu.interleave = fs::OnOff::kOff;
  EXPECT_EQ(fs::PspinMemory(cfg.pspin, cfg.hpu).l1(0).banks(), nullptr);
  cfg.hpu.interleave = fs::OnOff::kOn;
  cfg.hpu.model = fs::HpuModel::kNative;
  EXPECT_EQ(fs::PspinMemory(cfg.pspin, cfg.hpu).l1(0).banks(), nullptr);
}

TEST(BlocksPspinMemory, AddressMapOfHpu1OfCluster0) {
  const fs::Config cfg = small();
  fs::PspinMemory mem(cfg.pspin, cfg.hpu);
  mem.assign(0, fs::HandlerSetMemory{1024, 1024, 4096, 4096});
  const fs::HpuMemoryView& v = mem.view(0, 1, 0);
  const auto own = fs::hpu_address_map(v);
  const auto shared = fs::shared_address_map(v, fs::MemoryCosts{24, 15});
  struct Want {
    uint32_t base, size;
    const uint8_t* host;
    uint32_t extra, tcdm_offset;
    fs::iss::AccessClass access;
    fs::iss::Sharing sharing;
    bool banked;
  };
  // The HPU's own: slot, stack, its cluster's L1 at the local alias and at its global address.
  const Want want_own[] = {
      {FS_PKT_SLOT_BASE, 9216, mem.l1(0).slot(1), 0, 2048 + 9216, fs::iss::kLocalL1Access, fs::iss::kPrivate, true},
      {FS_STACK_BASE, 512, mem.l1(0).stack(1), 0, 20480 + 512, fs::iss::kLocalL1Access, fs::iss::kPrivate, true},
      {FS_L1_LOCAL_BASE, 1024, mem.set_l1(0, 0).data(), 0, 1024, fs::iss::kLocalL1Access, fs::iss::kClusterShared,
       true},
      {FS_L1_GLOBAL_BASE, 1024, mem.set_l1(0, 0).data(), 0, 1024, fs::iss::kLocalL1Access,
       fs::iss::kClusterShared, true},
  };
  // The set's, for every HPU: L2, and every cluster's L1 as another cluster sees it.
  const Want want_shared[] = {
      {FS_L2_HANDLER_BASE, 4096, mem.set_l2(0).data(), 15, 0, fs::iss::kL2Access, fs::iss::kGlobalShared, false},
      {FS_L1_GLOBAL_BASE, 1024, mem.set_l1(0, 0).data(), 24, 1024, fs::iss::kRemoteL1Access,
       fs::iss::kGlobalShared, true},
      {FS_L1_GLOBAL_BASE + FS_L1_GLOBAL_STRIDE, 1024, mem.set_l1(0, 1).data(), 24, 1024, fs::iss::kRemoteL1Access,
       fs::iss::kGlobalShared, true},
  };
  auto check = [](const std::vector<fs::iss::MemRegion>& map, const Want* want, size_t n) {
    ASSERT_EQ(map.size(), n);
    for (size_t i = 0; i < n; ++i) {
      SCOPED_TRACE(map[i].name);
      EXPECT_EQ(map[i].base, want[i].base);
      EXPECT_EQ(map[i].size, want[i].size);
      EXPECT_EQ(map[i].host, want[i].host);
      EXPECT_EQ(map[i].extra_cycles, want[i].extra);
      EXPECT_EQ(map[i].bank_offset, want[i].tcdm_offset);
      EXPECT_EQ(map[i].access_class, want[i].access);
      EXPECT_EQ(map[i].sharing, want[i].sharing);
      EXPECT_EQ(map[i].banks != nullptr, want[i].banked);
      EXPECT_EQ(map[i].lrsc, !want[i].banked);  // LR/SC only off L1 (PsPIN's TCDM has none): L2
    }
  };
  check(own, want_own, std::size(want_own));
  check(shared, want_shared, std::size(want_shared));
  EXPECT_EQ(shared[2].banks, mem.l1(1).banks());  // another cluster's L1 goes through its banks

  // Put together as the ISS engine does, the own cluster's L1 is local at its global address,
  // the other's remote; host bytes map back through either part.
  auto common = std::make_shared<fs::iss::AddressSpace>();
  for (const auto& r : shared) common->add(r);
  fs::iss::AddressSpace space;
  space.share(common);
  for (const auto& r : own) space.add(r);
  EXPECT_EQ(space.find(FS_L1_GLOBAL_BASE + 8, 4)->access_class, fs::iss::kLocalL1Access);
  EXPECT_EQ(space.find(FS_L1_GLOBAL_BASE + FS_L1_GLOBAL_STRIDE + 8, 4)->access_class, fs::iss::kRemoteL1Access);
  EXPECT_EQ(space.find(FS_L1_GLOBAL_BASE + 1022, 4), nullptr);  // crosses the end
  EXPECT_EQ(space.guest_address(mem.set_l1(0, 1).data() + 12), FS_L1_GLOBAL_BASE + FS_L1_GLOBAL_STRIDE + 12);
  EXPECT_EQ(space.guest_address(mem.set_l2(0).data() + 4), FS_L2_HANDLER_BASE + 4);
  EXPECT_EQ(space.describe_miss(FS_L1_GLOBAL_BASE + FS_L1_GLOBAL_STRIDE + 1024, 4, false),
            "0 bytes past the end of L1 of cluster 1 [0x20200000, 0x20200400)");
}

TEST(BlocksPspinMemory, AnHpusOwnRegionMayShadowASharedOneOnlyWhole) {
  uint8_t bytes[64] = {};
  auto common = std::make_shared<fs::iss::AddressSpace>();
  common->add(fs::iss::MemRegion{0x1000, 32, bytes, true, false, 0, "shared"});
  fs::iss::AddressSpace space;
  space.share(common);
  space.add(fs::iss::MemRegion{0x1000, 32, bytes + 32, true, false, 0, "whole"});  // the same extent
  EXPECT_EQ(space.find(0x1004, 4)->name, "whole");
  fs::iss::AddressSpace partly;
  partly.share(common);
  try {
    partly.add(fs::iss::MemRegion{0x1010, 32, bytes, true, false, 0, "partly"});
    FAIL() << "a partial shadow was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "memory region 'partly' partly overlaps shared region 'shared'");
  }
}

TEST(BlocksPspinMemory, AddressMapOfASetWithoutMemoryHasOnlyTheHpusOwnRegions) {
  // A set that takes no memory (MemoryNeed::none) has empty L1 and L2 ranges: no region for them
  // (the ISS refuses an empty one), so its handler's accesses there fault as unmapped. Its
  // arguments still point at the ranges' (empty) starts, with sizes 0.
  const fs::Config cfg = small();
  fs::PspinMemory mem(cfg.pspin, cfg.hpu);
  mem.assign(0, fs::HandlerSetMemory{0, 0, 0, 0});
  const fs::HpuMemoryView& v = mem.view(1, 0, 0);
  const auto map = fs::hpu_address_map(v);
  ASSERT_EQ(map.size(), 2u);
  EXPECT_TRUE(fs::shared_address_map(v, fs::MemoryCosts{24, 15}).empty());
  EXPECT_EQ(map[0].name, "L1 packet slot");
  EXPECT_EQ(map[0].base, uint32_t(FS_PKT_SLOT_BASE));
  EXPECT_EQ(map[1].name, "stack");
  EXPECT_EQ(map[1].base, uint32_t(FS_STACK_BASE));
  const fs_handler_args_t args = fs::handler_args(v, 60, 3);
  EXPECT_EQ(args.l1_size, 0u);
  EXPECT_EQ(args.handler_mem_size, 0u);
  EXPECT_EQ(fs::guest_address(v, args.l1), uint32_t(FS_L1_LOCAL_BASE));
  EXPECT_EQ(fs::guest_address(v, args.handler_mem), uint32_t(FS_L2_HANDLER_BASE));
}

}  // namespace
}  // namespace fs_tb
