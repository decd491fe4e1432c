// RoCEv2 frames (handlers/netreduce/netreduce_proto.h) for the simulator side of the netreduce
// protocol: a packet of the hosts' RDMA connections built with its invariant CRC, and read back
// with every check a receiving NIC makes (the layers, the extension headers its opcode needs,
// the pad count, the ICRC); the hosts and the tests build and read theirs with it.
#pragma once
#include <cstdint>
#include <string>

#include "net/packet.h"
#include "netreduce/netreduce_proto.h"

namespace fs {

// One RoCEv2 packet: its BTH, the extension headers its opcode carries (roce_has_reth,
// roce_has_imm, roce_has_aeth), and its payload without the pad bytes.
struct RocePacket {
  roce_bth_t bth{};
  roce_reth_t reth{};
  uint32_t imm = 0;
  roce_aeth_t aeth{};
  Bytes payload;
};

// The frame of `p` from network host `from_host` to IPv4 address `to_ip`, next hop the switch
// (fs_packet.h's addressing), UDP from `udp_sport` (RoCEv2's entropy: one per connection) to port
// 4791: the payload padded with zeros to a multiple of 4 (bth.pad_count is set to match), and the
// ICRC computed over it (net/icrc.h). Throws InputError for an opcode this format does not use,
// or a frame IPv4 cannot carry.
Bytes build_roce_frame(const RocePacket& p, unsigned from_host, uint32_t to_ip, uint16_t udp_sport);

// Reads the RoCEv2 packet in `frame`. False, with the reason in *why, if a NIC would drop it: not
// IPv4/UDP to port 4791 (net/icrc.h's roce_layout), an opcode this format does not use, too short
// for its extension headers, a pad count larger than the payload, a wrong ICRC.
bool parse_roce_frame(const uint8_t* frame, size_t len, RocePacket* out, std::string* why);

}  // namespace fs
