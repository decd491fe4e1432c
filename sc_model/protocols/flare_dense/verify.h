// Allreduce verifier: checks the packets the switch sent against the expected results. Every
// expected block must reach every host port exactly once as a Flare result packet with the
// expected header fields and payload (integers exactly, float32 within a tolerance).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/units.h"
#include "net/packet.h"
#include "plugin/protocol.h"
#include "protocols/flare_dense/allreduce_gen.h"

namespace fs {

// A Flare result packet is a valid IPv4/UDP frame (parse_frame ok) to UDP destination port
// expected.udp_port whose UDP payload holds at least a 16-byte Flare header with version 1 and kind 1
// (result); every other packet (contributions, other traffic, malformed frames) is ignored.
// A result is correct when rank is 0xFFFF, dtype/op/count equal the expected block's, the UDP
// payload after the header holds exactly count elements, and the elements equal the expected
// ones: int types bit for bit; float32 element-wise with |got - want| <= 1e-6 or
// |got - want| <= 1e-5 * |want| (identical bit patterns, including NaN, also match).
// Problems are listed per egress record in the given order, then the missing ones by
// (block order, port order). ok = nothing missing, wrong, duplicate or unexpected.
class FlareVerifier : public ResultVerifier {
 public:
  explicit FlareVerifier(Expected expected);
  // Sharing the expected results with their owner (the closed-loop hosts).
  explicit FlareVerifier(std::shared_ptr<const Expected> expected);
  void take(uint16_t port, Picos time, const Bytes& frame) override;
  VerifyReport report() const override;

 private:
  void problem(const std::string& s);
  std::shared_ptr<const Expected> owned_;
  const Expected& expected_;
  std::map<std::pair<uint32_t, uint32_t>, size_t> index_;  // (ar, block) -> expected.blocks index
  std::map<uint16_t, size_t> port_index_;
  // (block index, port index) -> 0: not served, 1: first was right, 2: first was wrong.
  std::vector<uint8_t> served_;
  VerifyReport rep_;
};
VerifyReport verify_egress(const Expected& expected, const std::vector<EgressRecord>& egress);

// The float32 rule above, on the values' bits: identical bits, or |got - want| <= 1e-6, or
// |got - want| <= 1e-5 * |want|. Shared with the sparse verifier.
bool float32_matches(uint32_t got_bits, uint32_t want_bits);

}  // namespace fs
