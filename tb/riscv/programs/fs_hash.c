/* fs_hash (handlers/include/fs_handler.h, MurmurHash3 x86_32) on RISC-V: the known answers of
 * tb/blocks/fs_hash_test.cpp (published vectors and SMHasher's verification value), printed and
 * checked; exits 1 on a wrong answer. Run on the ISS and on qemu by tb/iss_diff. */
#include "testlib.h"

#include "fs_handler.h"

struct vector {
  const char* data;
  uint32_t len, seed, hash;
};

static const struct vector vectors[] = {
    {"", 0, 0, 0},
    {"", 0, 1, 0x514E28B7u},
    {"", 0, 0xFFFFFFFFu, 0x81F16F39u},
    {"\xFF\xFF\xFF\xFF", 4, 0, 0x76293B50u},
    {"\x21\x43\x65\x87", 4, 0, 0xF55B516Bu},
    {"\x21\x43\x65\x87", 4, 0x5082EDEEu, 0x2362F9DEu},
    {"\x21\x43\x65", 3, 0, 0x7E4A8634u},
    {"\x21\x43", 2, 0, 0xA0F7B07Au},
    {"\x21", 1, 0, 0x72661CF4u},
    {"\0\0\0\0", 4, 0, 0x2362F9DEu},
    {"\0\0\0", 3, 0, 0x85F0B427u},
    {"\0\0", 2, 0, 0x30F4C306u},
    {"\0", 1, 0, 0x514E28B7u},
    {"Hello, world!", 13, 0x9747B28Cu, 0x24884CBAu},
    {"The quick brown fox jumps over the lazy dog", 43, 0x9747B28Cu, 0x2FA826CDu},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 0, 0xEE925B90u},
};

int main(void) {
  int wrong = 0;
  for (unsigned i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    const struct vector* v = &vectors[i];
    const uint32_t h = fs_hash(v->data, v->len, v->seed);
    printf("vector %u: %u bytes seed %08x hash %08x%s\n", i, (unsigned)v->len, (unsigned)v->seed, (unsigned)h,
           h == v->hash ? "" : " WRONG");
    wrong += h != v->hash;
  }
  /* Unaligned data. */
  static char shifted[64];
  memcpy(shifted + 1, vectors[14].data, 43);
  const uint32_t u = fs_hash(shifted + 1, 43, 0x9747B28Cu);
  printf("unaligned: %08x%s\n", (unsigned)u, u == 0x2FA826CDu ? "" : " WRONG");
  wrong += u != 0x2FA826CDu;
  /* SMHasher's verification. */
  static uint8_t key[256], hashes[4 * 256];
  for (uint32_t i = 0; i < 256; i++) {
    key[i] = (uint8_t)i;
    const uint32_t h = fs_hash(key, i, 256 - i);
    for (int b = 0; b < 4; b++) hashes[4 * i + b] = (uint8_t)(h >> (8 * b));
  }
  const uint32_t verification = fs_hash(hashes, sizeof hashes, 0);
  printf("verification: %08x%s\n", (unsigned)verification, verification == 0xB0F57EE3u ? "" : " WRONG");
  wrong += verification != 0xB0F57EE3u;
  return wrong ? 1 : 0;
}
