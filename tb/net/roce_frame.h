// Builds RoCEv2 frames for tests (the parser's ICRC check, end to end and per block).
#pragma once
#include "flare_proto.h"
#include "net/icrc.h"

namespace fs::test {

// An Ethernet / IPv4 / UDP 4791 / BTH / payload / ICRC frame, its ICRC right (or, with
// `corrupt`, one payload bit flipped after the ICRC was computed).
inline Bytes roce_frame(unsigned payload, uint8_t seed, bool corrupt) {
  Bytes f(14 + 20 + 8 + kBthBytes + payload + kIcrcBytes, 0);
  f[12] = 0x08;  // IPv4
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  ip[1] = uint8_t(seed * 7);  // TOS: not covered
  const unsigned ip_len = unsigned(f.size() - 14);
  ip[2] = uint8_t(ip_len >> 8), ip[3] = uint8_t(ip_len);
  ip[8] = 64;
  ip[9] = 17;  // UDP
  ip[12] = 10, ip[15] = seed, ip[16] = 10, ip[19] = 99;
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, 20));  // the parser checks it
  uint8_t* udp = ip + 20;
  udp[0] = 0xC0, udp[1] = seed;
  udp[2] = uint8_t(kRoceUdpPort >> 8), udp[3] = uint8_t(kRoceUdpPort & 0xFF);
  const unsigned udp_len = ip_len - 20;
  udp[4] = uint8_t(udp_len >> 8), udp[5] = uint8_t(udp_len);
  uint8_t* bth = udp + 8;
  bth[0] = 0x0A;  // RDMA write only
  bth[7] = seed;  // destination QP
  for (unsigned i = 0; i < payload; ++i) bth[kBthBytes + i] = uint8_t(i * 13 + seed);
  const uint32_t icrc = roce_icrc(f.data(), f.size());
  for (unsigned i = 0; i < 4; ++i) f[f.size() - 4 + i] = uint8_t(icrc >> (8 * i));
  if (corrupt) bth[kBthBytes + payload / 2] ^= 0x10;
  return f;
}

}  // namespace fs::test
