// CRC-32 as Ethernet, zlib and the RoCEv2 ICRC compute it (reflected polynomial 0xEDB88320,
// initial value 0xFFFFFFFF, result inverted), by a byte-at-a-time table: the one software CRC of
// the simulator (the ICRC reference, the flow policy's flow hash).
#pragma once
#include <cstddef>
#include <cstdint>

namespace fs {

constexpr uint32_t kCrc32Poly = 0xEDB88320u;  // reflected
constexpr uint32_t kCrc32Init = 0xFFFFFFFFu;

// The running (not inverted) CRC register after `n` more bytes.
uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n);

// The CRC-32 of `n` bytes: ~crc32_update(kCrc32Init, p, n) (zlib's crc32 of the same bytes).
inline uint32_t crc32(const uint8_t* p, size_t n) { return ~crc32_update(kCrc32Init, p, n); }

}  // namespace fs
