// Sparse Flare frames (handlers/flare/flare_proto.h, handlers/flare/README.md) for the simulator
// side of the flare_sparse protocol: building a packet from its header and (index, value) pairs,
// and reading one back, with the checks a receiver makes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "flare/flare_proto.h"
#include "net/frame.h"

namespace fs {

// One non-zero element of a block: its index within the block and its value's bits (the dtype's
// little-endian bytes, zero-extended into 32 bits).
struct SparsePair {
  uint32_t index = 0;
  uint32_t bits = 0;
  bool operator==(const SparsePair& o) const { return index == o.index && bits == o.bits; }
};

// A sparse packet: the 20-byte header (pair_count is set from `pairs`; the sparse flag is always
// set) and the pairs. Addressing as build_flare_packet's: a contribution from the host on `port`
// to the switch, a result from the switch to the hosts' broadcast address. Throws InputError if
// the frame would exceed 65535 bytes.
Bytes build_sparse_packet(flare_sparse_header_t hdr, uint16_t port, const std::vector<SparsePair>& pairs,
                          uint16_t udp_port = FLARE_UDP_PORT_DEFAULT);

// A sparse packet read back from a frame.
struct SparsePacket {
  flare_sparse_header_t h{};
  std::vector<SparsePair> pairs;
};
// Reads the sparse Flare packet in `frame` (IPv4/UDP to any port). False, with the reason in
// *why, if it is not one: not IPv4/UDP, a UDP payload shorter than the header, version not 1, no
// sparse flag, an unknown dtype, or a pair count that disagrees with the payload's length.
bool parse_sparse_packet(const uint8_t* frame, size_t len, SparsePacket* out, std::string* why);

}  // namespace fs
