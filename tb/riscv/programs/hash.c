/* Hashes over a generated 64 KiB buffer: CRC-32 (bitwise and table-driven, cross-checked),
 * CRC-32 of "123456789" (the standard check value cbf43926), FNV-1a 32, Adler-32, djb2,
 * MurmurHash3 x86_32, and a SipHash-like ARX mix; all printed. */
#include "testlib.h"

static uint8_t data[65536];
static uint32_t crc_table[256];

static uint32_t crc32_bitwise(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}
static uint32_t crc32_table(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return ~c;
}
static uint32_t fnv1a(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}
static uint32_t adler32(const uint8_t* p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}
static uint32_t djb2(const uint8_t* p, size_t n) {
  uint32_t h = 5381;
  for (size_t i = 0; i < n; i++) h = h * 33 + p[i];
  return h;
}
static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static uint32_t murmur3(const uint8_t* p, size_t n, uint32_t seed) {
  uint32_t h = seed;
  const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
  size_t blocks = n / 4;
  for (size_t i = 0; i < blocks; i++) {
    uint32_t k;
    memcpy(&k, p + 4 * i, 4);
    k *= c1; k = rotl32(k, 15); k *= c2;
    h ^= k; h = rotl32(h, 13); h = h * 5 + 0xe6546b64u;
  }
  uint32_t k = 0;
  const uint8_t* tail = p + 4 * blocks;
  switch (n & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1: k ^= tail[0]; k *= c1; k = rotl32(k, 15); k *= c2; h ^= k;
  }
  h ^= (uint32_t)n;
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
  return h;
}
static uint32_t arx(const uint8_t* p, size_t n) {
  uint32_t v0 = 0x736f6d65u, v1 = 0x646f7261u, v2 = 0x6c796765u, v3 = 0x74656462u;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    uint32_t m;
    memcpy(&m, p + i, 4);
    v3 ^= m;
    for (int r = 0; r < 2; r++) {
      v0 += v1; v1 = rotl32(v1, 5); v1 ^= v0; v0 = rotl32(v0, 16);
      v2 += v3; v3 = rotl32(v3, 8); v3 ^= v2;
      v0 += v3; v3 = rotl32(v3, 7); v3 ^= v0;
      v2 += v1; v1 = rotl32(v1, 13); v1 ^= v2; v2 = rotl32(v2, 16);
    }
    v0 ^= m;
  }
  return v0 ^ v1 ^ v2 ^ v3;
}

int main(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
    crc_table[i] = c;
  }
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(rnd() >> 24);
  const uint8_t* check = (const uint8_t*)"123456789";
  show("crc32 check", crc32_table(check, 9));
  show("crc32 bitwise check", crc32_bitwise(check, 9));
  show("crc32 table", crc32_table(data, sizeof data));
  show("crc32 bitwise 4k", crc32_bitwise(data, 4096));
  show("crc32 table 4k", crc32_table(data, 4096));
  show("fnv1a", fnv1a(data, sizeof data));
  show("fnv1a empty", fnv1a(data, 0));
  show("adler32", adler32(data, sizeof data));
  show("adler32 wiki", adler32((const uint8_t*)"Wikipedia", 9));
  show("djb2", djb2(data, sizeof data));
  for (size_t n = 0; n < 8; n++) show("murmur3 tail", murmur3(data + 1, n, 0x9747b28cu));
  show("murmur3", murmur3(data, sizeof data, 42));
  show("arx", arx(data, sizeof data));
  return finish("hash");
}
