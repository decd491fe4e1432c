// The PsPIN unit's memories and the HPUs' views of them (see pspin_memory.h).
#include "pspin/memory/pspin_memory.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fs_packet.h"

namespace fs {

static_assert((FS_PKT_FRAME_OFFSET + FS_ETH_BYTES) % 4 == 0, "the IPv4 header must start on a word");
static_assert((FS_IPV4_BYTES + FS_UDP_BYTES) % 4 == 0, "so does the UDP payload after IPv4 and UDP headers");

uint32_t packet_offset_in_slot(uint32_t ingress_port) { return ingress_port == FS_TIMER_PORT ? 0 : FS_PKT_FRAME_OFFSET; }

fs_handler_args_t handler_args(const HpuMemoryView& view, uint32_t pkt_len, uint32_t ingress_port) {
  fs_handler_args_t args{};
  const bool timer = ingress_port == FS_TIMER_PORT;
  args.pkt = view.pkt_slot.host + packet_offset_in_slot(ingress_port);
  args.pkt_len = pkt_len;
  args.ip = timer ? nullptr : args.pkt + FS_ETH_BYTES;
  args.ip_len = timer || pkt_len < FS_ETH_BYTES ? 0 : pkt_len - FS_ETH_BYTES;
  args.ingress_port = ingress_port;
  args.cluster_id = view.cluster;
  args.hpu_id = view.hpu;
  args.num_clusters = uint32_t(view.set_l1.size());
  args.l1 = view.local_l1().host;
  args.l1_size = view.local_l1().size;
  args.handler_mem = view.l2_handler.host;
  args.handler_mem_size = view.l2_handler.size;
  return args;
}

fs_handler_args_t place_packet(const HpuMemoryView& view, const Bytes& packet, uint32_t ingress_port) {
  const uint32_t at = packet_offset_in_slot(ingress_port);
  if (packet.size() > view.pkt_slot.size - at)
    throw std::logic_error("place_packet: a " + std::to_string(packet.size()) + "-byte packet does not fit the L1 slot");
  std::copy(packet.begin(), packet.end(), view.pkt_slot.host + at);
  return handler_args(view, uint32_t(packet.size()), ingress_port);
}

PspinMemory::PspinMemory(const PspinConfig& pspin, const HpuConfig& hpu)
    : layout_(pspin, hpu), l2_handler_bytes_(pspin.l2_handler_bytes) {
  const bool banks = hpu.model == HpuModel::kIss && hpu.interleave == OnOff::kOn;
  for (unsigned c = 0; c < pspin.clusters; ++c)
    l1_.push_back(std::make_unique<ClusterL1>(layout_, banks ? pspin.l1_banks : 0, c));
}

void PspinMemory::assign(int set, const HandlerSetMemory& memory) {
  if (size_t(set) >= sets_.size()) {
    sets_.resize(size_t(set) + 1);
    storage_.resize(sets_.size());
    views_.resize(sets_.size() * l1_.size() * layout_.hpus());
  }
  sets_[size_t(set)] = memory;
  SetStorage& s = storage_[size_t(set)];
  s.l1.clear();
  for (unsigned c = 0; c < l1_.size(); ++c)
    s.l1.push_back(std::make_unique<GuardedMemory>(memory.l1_bytes, GuardedMemory::Exact::kEnd,
                                                   "cluster " + std::to_string(c) + "'s L1 state area"));
  s.l2 = std::make_unique<GuardedMemory>(memory.l2_bytes, GuardedMemory::Exact::kEnd, "L2 handler memory");
  // Views built before point at the old memories.
  for (size_t v = size_t(set) * l1_.size() * layout_.hpus(); v < (size_t(set) + 1) * l1_.size() * layout_.hpus(); ++v)
    views_[v].reset();
}

PspinMemory::SetStorage& PspinMemory::storage(int set) {
  if (size_t(set) >= storage_.size() || !storage_[size_t(set)].l2)
    throw std::out_of_range("PspinMemory: no memory assigned to set " + std::to_string(set));
  return storage_[size_t(set)];
}

GuardedMemory& PspinMemory::set_l1(int set, unsigned cluster) { return *storage(set).l1.at(cluster); }
GuardedMemory& PspinMemory::set_l2(int set) { return *storage(set).l2; }

InstallTarget PspinMemory::install_target(int set) {
  SetStorage& s = storage(set);
  InstallTarget target{s.l2->data(), uint32_t(s.l2->size()), sets_[size_t(set)].l1_bytes, clusters(), {}};
  for (auto& l1 : s.l1) target.l1_state.push_back(l1->data());
  return target;
}

const HandlerSetMemory& PspinMemory::set_memory(int set) const {
  static const HandlerSetMemory kNone{};
  return size_t(set) < sets_.size() ? sets_[size_t(set)] : kNone;
}

const HpuMemoryView& PspinMemory::view(unsigned cluster, unsigned hpu, int set) {
  if (cluster >= l1_.size() || hpu >= layout_.hpus() || size_t(set) >= sets_.size())
    throw std::out_of_range("PspinMemory::view: no HPU " + std::to_string(hpu) + " of cluster " +
                            std::to_string(cluster) + " for set " + std::to_string(set));
  std::unique_ptr<HpuMemoryView>& v = views_[(size_t(set) * l1_.size() + cluster) * layout_.hpus() + hpu];
  if (v) return *v;
  v = std::make_unique<HpuMemoryView>();
  const HandlerSetMemory& m = set_memory(set);
  SetStorage& mine = storage(set);
  ClusterL1& own = l1(cluster);
  v->cluster = cluster;
  v->hpu = hpu;
  v->pkt_slot = MemRange{own.slot(hpu), kL1PacketSlotBytes, own.banks(), layout_.slot_offset(hpu)};
  v->stack = MemRange{own.stack(hpu), layout_.stack_bytes(), own.banks(), layout_.stack_offset(hpu)};
  v->l2_handler = MemRange{mine.l2->data(), m.l2_bytes, nullptr, 0};
  for (size_t c = 0; c < l1_.size(); ++c)
    v->set_l1.push_back(MemRange{mine.l1[c]->data(), m.l1_bytes, l1_[c]->banks(), m.l1_offset});
  return *v;
}

}  // namespace fs
