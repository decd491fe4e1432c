// fs_hash (fs_handler.h) is MurmurHash3 x86_32: known answers from Ian Boyd's published test
// vectors (Stack Overflow answer 31929528, also in the mmh3 package's tests), the classic
// string vectors, and SMHasher's verification value for MurmurHash3_x86_32 (0xB0F57EE3: the hash,
// seed 0, of the 256 hashes of keys {}, {0}, {0, 1}, ... with seeds 256, 255, ...). The same
// answers on the ISS: tb/riscv/programs/fs_hash.c (and the api_probe handler set).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "support/cli_runner.h"
#include "fs_handler.h"

namespace fs::test {
namespace {

struct Vector {
  std::string data;
  uint32_t seed, hash;
};

TEST(FsHash, PublishedVectors) {
  const Vector vectors[] = {
      {"", 0, 0},
      {"", 1, 0x514E28B7},
      {"", 0xFFFFFFFF, 0x81F16F39},
      {"\xFF\xFF\xFF\xFF", 0, 0x76293B50},
      {"\x21\x43\x65\x87", 0, 0xF55B516B},
      {"\x21\x43\x65\x87", 0x5082EDEE, 0x2362F9DE},
      {"\x21\x43\x65", 0, 0x7E4A8634},
      {"\x21\x43", 0, 0xA0F7B07A},
      {"\x21", 0, 0x72661CF4},
      {std::string(4, '\0'), 0, 0x2362F9DE},
      {std::string(3, '\0'), 0, 0x85F0B427},
      {std::string(2, '\0'), 0, 0x30F4C306},
      {std::string(1, '\0'), 0, 0x514E28B7},
      {"Hello, world!", 0x9747B28C, 0x24884CBA},
      {"The quick brown fox jumps over the lazy dog", 0x9747B28C, 0x2FA826CD},
      {"aaaa", 0x9747B28C, 0x5A97808A},
      {"aaa", 0x9747B28C, 0x283E0130},
      {"aa", 0x9747B28C, 0x5D211726},
      {"a", 0x9747B28C, 0x7FA09EA6},
      {"abcd", 0x9747B28C, 0xF0478627},
      {"abc", 0x9747B28C, 0xC84A62DD},
      {"ab", 0x9747B28C, 0x74875592},
      {std::string(256, 'a'), 0x9747B28C, 0x37405BDC},
      {"abc", 0, 0xB3DD93FA},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0, 0xEE925B90},
  };
  for (const Vector& v : vectors)
    EXPECT_EQ(fs_hash(v.data.data(), uint32_t(v.data.size()), v.seed), v.hash)
        << "'" << v.data << "' (" << v.data.size() << " bytes), seed " << v.seed;
}

TEST(FsHash, SmhasherVerificationValue) {
  uint8_t key[256], hashes[4 * 256];
  for (uint32_t i = 0; i < 256; ++i) {
    key[i] = uint8_t(i);
    const uint32_t h = fs_hash(key, i, 256 - i);
    for (int b = 0; b < 4; ++b) hashes[4 * i + b] = uint8_t(h >> (8 * b));  // little-endian, as SMHasher
  }
  EXPECT_EQ(fs_hash(hashes, sizeof hashes, 0), 0xB0F57EE3u);
}

TEST(FsHash, UnalignedDataHashesTheSame) {
  const char text[] = "xThe quick brown fox jumps over the lazy dog";
  EXPECT_EQ(fs_hash(text + 1, 43, 0x9747B28C), 0x2FA826CDu);
}

// The same answers from the handler's RISC-V build of fs_hash, on the ISS (tb/iss_diff also runs
// the program on qemu).
TEST(FsHash, SameAnswersOnTheIss) {
  ScratchDir dir;
  const CliResult r = flaresim("iss '" FLARESIM_RISCV_TEST_DIR "/fs_hash.elf'", dir);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("WRONG"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector 14: 43 bytes seed 9747b28c hash 2fa826cd\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector 15: 56 bytes seed 00000000 hash ee925b90\nunaligned: 2fa826cd\nverification: b0f57ee3\n"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace fs::test
