// The PsPIN unit's memories and who sees what of them: every cluster's L1 (l1_memory.h), the L2
// handler memory, each installed handler set's ranges of both (handler_memory.h), and the view
// one HPU has of them while it runs a handler of one set (HpuMemoryView). Both HPU engines take
// their memory from the view: the native engine hands its host pointers to the C handler, the
// ISS maps it into the RISC-V address space (hpu_address_map.h). The L2 packet memory is the
// packet buffer (packet_buffer.h): packets keep their bytes until a cluster DMA copies them into
// an HPU's slot here.
// On the host, each set's range of each cluster's L1 state area and its range of L2 handler
// memory is a guarded memory of its own (common/guarded_memory.h), made when the set is assigned
// its ranges: its end touches a guard page, so a native handler's access past the end of its
// state traps (and the page padding, if the size is not a multiple of the page, is before the
// start). Where a range lies in the TCDM (its banks) is the layout's, not the host's.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/guarded_memory.h"
#include "config/config.h"
#include "fs_handler.h"
#include "net/packet.h"
#include "pspin/memory/handler_memory.h"
#include "pspin/memory/l1_memory.h"

namespace fs {

// A range of a simulated memory: host bytes, and where they lie in their cluster's TCDM (for
// bank selection; banks null outside L1 or when banks are not modelled).
struct MemRange {
  uint8_t* host = nullptr;
  uint32_t size = 0;
  iss::TcdmBanks* banks = nullptr;
  uint32_t tcdm_offset = 0;
};

// What HPU `hpu` of cluster `cluster` sees while it runs a handler of one set.
struct HpuMemoryView {
  unsigned cluster = 0, hpu = 0;
  MemRange pkt_slot;               // its L1 packet slot
  MemRange stack;                  // its stack (ISS HPUs)
  MemRange l2_handler;             // the set's range of L2 handler memory
  std::vector<MemRange> set_l1;    // the set's range of each cluster's L1 state area, by cluster
  const MemRange& local_l1() const { return set_l1[cluster]; }
};

// Where a packet's bytes go in an HPU's L1 packet slot: a frame at FS_PKT_FRAME_OFFSET, so that
// its IPv4 header (after the 14-byte Ethernet header) and UDP payload are word-aligned, as PsPIN
// hands its handlers IPv4 packets at aligned L1 addresses; a timer's event (ingress_port
// FS_TIMER_PORT, not a frame) at the slot's start, aligned for its words.
uint32_t packet_offset_in_slot(uint32_t ingress_port);

// The handler's arguments for a packet of `pkt_len` bytes (already in the slot, where
// packet_offset_in_slot says) that arrived on `ingress_port` (FS_TIMER_PORT for a timer), as the
// native handler sees them: host pointers.
fs_handler_args_t handler_args(const HpuMemoryView& view, uint32_t pkt_len, uint32_t ingress_port);

// Copies a packet into the view's slot where packet_offset_in_slot says (at most
// kMaxSlotFrameBytes: the packet buffer drops larger ones) and returns handler_args for it.
fs_handler_args_t place_packet(const HpuMemoryView& view, const Bytes& packet, uint32_t ingress_port);

class PspinMemory {
 public:
  // Banks are modelled when `hpu` makes ISS HPUs execute interleaved (see l1_memory.h).
  PspinMemory(const PspinConfig& pspin, const HpuConfig& hpu);
  PspinMemory(const PspinMemory&) = delete;
  PspinMemory& operator=(const PspinMemory&) = delete;

  const L1Layout& l1_layout() const { return layout_; }
  unsigned clusters() const { return unsigned(l1_.size()); }
  ClusterL1& l1(unsigned cluster) { return *l1_.at(cluster); }
  uint64_t l2_handler_bytes() const { return l2_handler_bytes_; }

  // Handler set `set` (any small key, the handler set index in the switch) owns `memory`: its
  // ranges are made (zeroed). Assigning a set again gives it fresh ones.
  void assign(int set, const HandlerSetMemory& memory);
  // Its ranges; zero sizes if none was assigned.
  const HandlerSetMemory& set_memory(int set) const;
  // The host bytes of its range of cluster `cluster`'s L1 state area, and of L2 handler memory
  // (the set must have been assigned).
  GuardedMemory& set_l1(int set, unsigned cluster);
  GuardedMemory& set_l2(int set);
  // What the set's installer fills: its ranges.
  InstallTarget install_target(int set);
  // What HPU `hpu` of cluster `cluster` sees running a handler of set `set` (built on first use;
  // the set's memory must have been assigned; the reference stays valid).
  const HpuMemoryView& view(unsigned cluster, unsigned hpu, int set);

 private:
  // A set's host memories.
  struct SetStorage {
    std::vector<std::unique_ptr<GuardedMemory>> l1;  // by cluster
    std::unique_ptr<GuardedMemory> l2;
  };
  SetStorage& storage(int set);

  L1Layout layout_;
  std::vector<std::unique_ptr<ClusterL1>> l1_;
  uint64_t l2_handler_bytes_;
  std::vector<HandlerSetMemory> sets_;  // by set key
  std::vector<SetStorage> storage_;     // by set key
  // By (set key, cluster, HPU), flattened: a lookup per handler run costs no search.
  std::vector<std::unique_ptr<HpuMemoryView>> views_;
};

}  // namespace fs
