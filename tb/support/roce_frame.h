// Builds RoCEv2 frames for tests (the parser's ICRC check, end to end and per block).
#pragma once
#include "net/frame.h"
#include "net/icrc.h"

namespace fs::test {

// An Ethernet / IPv4 / UDP 4791 / BTH / payload / ICRC frame (the project's UDP frame builder
// around a BTH and `payload` bytes), its ICRC right or, with `corrupt`, one payload bit flipped
// after the ICRC was computed. `seed` varies the addresses, the destination QP and the bytes.
inline Bytes roce_frame(unsigned payload, uint8_t seed, bool corrupt) {
  const uint8_t src[6] = {2, 0, 0, 0, 0, seed}, dst[6] = {2, 0, 0, 0, 0, 99};
  Bytes udp_payload(kBthBytes + payload + kIcrcBytes, 0);
  udp_payload[0] = 0x0A;  // RDMA write only
  udp_payload[7] = seed;  // destination QP
  for (unsigned i = 0; i < payload; ++i) udp_payload[kBthBytes + i] = uint8_t(i * 13 + seed);
  Bytes f = build_udp_frame(src, dst, 0x0A000000u | seed, 0x0A000063u, uint16_t(0xC000 | seed), kRoceUdpPort,
                            udp_payload.data(), udp_payload.size());
  const uint32_t icrc = roce_icrc(f.data(), f.size());
  for (unsigned i = 0; i < 4; ++i) f[f.size() - 4 + i] = uint8_t(icrc >> (8 * i));
  if (corrupt) f[f.size() - kIcrcBytes - payload / 2 - 1] ^= 0x10;
  return f;
}

}  // namespace fs::test
