// The RoCEv2 invariant CRC (ICRC): a software reference that computes it for a frame, the byte
// stream and variant-field mask a frame gives the CRC engine, and the engine's cycle interface
// (IcrcCore) with its cycle-accurate C++ twin (IcrcEngineModel) of rtl/icrc_engine.sv; the
// Verilated RTL behind the same interface is rtl_bridge/icrc_rtl.*.
//
// What the ICRC covers (IPv4; IPv6 RoCEv2 frames are rejected): CRC-32 (reflected polynomial
// 0xEDB88320, initial value 0xFFFFFFFF, result inverted) over
//   8 bytes of 0xFF (in place of the InfiniBand LRH),
//   the IPv4 header (with its options) with TOS, TTL and header checksum replaced by all ones,
//   the UDP header with its checksum replaced by 0xFFFF,
//   the BTH with its byte 4 (FECN, BECN and the reserved bits above the destination QP) = 0xFF,
//   the rest of the UDP payload up to the ICRC, its last 4 bytes.
// The Ethernet header (and an 802.1Q tag) and Ethernet padding after the IP packet are not
// covered. The frame carries the CRC as 4 little-endian bytes: the value here, read as a
// little-endian word from the frame, is the ICRC.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/packet.h"

namespace fs {

constexpr uint16_t kRoceUdpPort = 4791;
constexpr size_t kBthBytes = 12;
constexpr size_t kIcrcBytes = 4;
constexpr size_t kIcrcPrefixBytes = 8;  // the 0xFF bytes standing in for the LRH

// Where the parts of a RoCEv2 frame are (offsets from the frame's first byte).
struct RoceLayout {
  size_t ip_offset = 0;    // the IPv4 header
  size_t ip_header = 0;    // its length (IHL * 4)
  size_t udp_offset = 0;   // the UDP header
  size_t bth_offset = 0;   // the BTH (the UDP payload)
  size_t icrc_offset = 0;  // the ICRC (the last 4 bytes of the UDP payload)
};

// Finds the layers of an Ethernet II frame (no FCS; at most one 802.1Q tag) carrying IPv4 / UDP
// to port 4791 / BTH ... ICRC. Throws InputError naming the reason for a frame that is not one:
// too short for a layer, not IPv4 (IPv6 is named as unsupported), IPv4 version/IHL/total length
// bad, a fragment, not UDP, UDP length not filling the IPv4 payload, another destination port,
// UDP payload shorter than BTH + ICRC. Checksums are not checked (the ICRC does not cover them).
RoceLayout roce_layout(const uint8_t* frame, size_t len);

// Whether a frame is addressed as RoCEv2: Ethernet (at most one 802.1Q tag), IPv4, UDP to port
// 4791 (the IPv4 header's IHL and protocol, and the UDP destination port, are present). Says
// nothing about whether roce_layout accepts the rest.
bool addressed_as_roce(const uint8_t* frame, size_t len);

// The ICRC the frame should carry, computed with a table-driven CRC over a masked copy of the
// covered bytes. Throws InputError as roce_layout does.
uint32_t roce_icrc(const uint8_t* frame, size_t len);
// The ICRC the frame does carry (its 4 bytes read little endian). Throws as roce_layout does.
uint32_t carried_icrc(const uint8_t* frame, size_t len);

// The bytes the engine takes for a frame, in order, and which of them it must replace by 0xFF:
// the 8 prefix bytes (fed as 0xFF with mask 1), then the frame from the IPv4 header to the byte
// before the ICRC, with mask 1 on the variant fields. Throws as roce_layout does.
struct IcrcStream {
  Bytes data;
  std::vector<uint8_t> mask;  // 1 = the byte enters the CRC as 0xFF; same length as data
};
IcrcStream icrc_stream(const uint8_t* frame, size_t len);

// The CRC of a stream with its mask applied (the same CRC-32 as the engine), by table.
uint32_t icrc_of_stream(const IcrcStream& s);

// One clock cycle's inputs of the engine. Bit i of keep and mask and data[i] are byte i of the
// beat; an engine of n bytes per cycle ignores bytes i >= n.
struct IcrcBeat {
  bool valid = false, first = false, last = false;
  uint8_t data[16] = {};
  uint16_t keep = 0, mask = 0;
};

// The engine's registered outputs after a clock edge.
struct IcrcOut {
  bool valid = false;
  uint32_t crc = 0;
  bool operator==(const IcrcOut& o) const { return valid == o.valid && crc == o.crc; }
  bool operator!=(const IcrcOut& o) const { return !(*this == o); }
};

// rtl/icrc_engine.sv one clock cycle at a time (its header comment gives the behaviour).
class IcrcCore {
 public:
  static constexpr unsigned kMaxBytesPerCycle = 16;
  virtual ~IcrcCore();
  virtual unsigned bytes_per_cycle() const = 0;
  // Synchronous reset (one clock cycle with rst high).
  virtual void reset() = 0;
  // One clock cycle: the beat is applied, the result is the outputs after the edge.
  virtual IcrcOut tick(const IcrcBeat& in) = 0;
};

// The C++ twin: bit for bit and cycle for cycle what the RTL does. Starts reset.
class IcrcEngineModel : public IcrcCore {
 public:
  // bytes_per_cycle: 1 .. 16, else InputError.
  explicit IcrcEngineModel(unsigned bytes_per_cycle);
  unsigned bytes_per_cycle() const override { return bytes_; }
  void reset() override;
  IcrcOut tick(const IcrcBeat& in) override;

 private:
  unsigned bytes_;
  uint32_t crc_;  // the running CRC register (not inverted)
  IcrcOut out_;   // the registered outputs
};

// Streams a RoCEv2 frame through a core as one message (beats of bytes_per_cycle bytes, the last
// one kept up to the end of the stream, no idle cycles) and returns the ICRC, which the core
// gives with out_valid after the last beat's clock edge. *ticks (if given) gets the clock cycles
// used: one per beat. Throws InputError as roce_layout does, SimError if out_valid is not there
// after the last beat (or is there before it).
uint32_t icrc_of_frame(IcrcCore& core, const uint8_t* frame, size_t len, uint64_t* ticks = nullptr);

// The beats that feed a stream to a core of bytes_per_cycle bytes (used by icrc_of_frame).
std::vector<IcrcBeat> icrc_beats(const IcrcStream& s, unsigned bytes_per_cycle);

}  // namespace fs
