/* Held-out ISS speed program (bench/iss-speed --held-out): table-driven CRC-32 (reflected,
 * polynomial 0xEDB88320) over a 64 KiB pseudo-random buffer, 160 times, each pass over the
 * buffer with one byte changed. Prints each 32nd CRC and the last; not part of the test suite. */
#include <stdint.h>
#include <stdio.h>

static uint32_t table[256];
static uint8_t buf[65536];

int main(void) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  uint32_t x = 12345;
  for (uint32_t i = 0; i < sizeof buf; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (uint8_t)(x >> 16);
  }
  uint32_t crc = 0;
  for (int pass = 0; pass < 160; pass++) {
    buf[(uint32_t)pass * 409u % sizeof buf] ^= (uint8_t)pass;
    uint32_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < sizeof buf; i++) c = table[(c ^ buf[i]) & 0xFF] ^ (c >> 8);
    crc = c ^ 0xFFFFFFFFu;
    if (pass % 32 == 0) printf("pass %d: %08lx\n", pass, (unsigned long)crc);
  }
  printf("last: %08lx\n", (unsigned long)crc);
  return 0;
}
