// End to end: the parser checks the invariant CRC of RoCEv2 frames on its CRC engine, the C++
// twin or (--rtl crc32) the Verilated RTL: frames with a wrong ICRC are dropped and counted, the
// engine's cycles are counted, and an allreduce with RoCEv2 traffic beside it gives the same
// stats with every RTL twin on and off.
#include <sstream>

#include <nlohmann/json.hpp>

#include "net/frame.h"
#include "net/icrc.h"
#include "net/trace_writer.h"
#include "support/cli_runner.h"
#include "support/roce_frame.h"

namespace fs::test {
namespace {

struct RoceTraffic {
  std::string lines;
  unsigned frames = 0, bad = 0;
  uint64_t cycles = 0;  // the engine's: 8 bytes a cycle over 8 prefix bytes + IPv4 header .. payload
};

RoceTraffic roce_traffic() {
  RoceTraffic t;
  for (unsigned k = 0; k < 24; ++k) {
    const unsigned payload = 4 * ((k * 37) % 300);
    const bool bad = k % 5 == 2;
    Bytes f = roce_frame(payload, uint8_t(k), bad);
    if (k % 4 == 1) {  // an 802.1Q tag (VLAN 5) before the IPv4 ethertype: not covered by the ICRC
      const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
      f.insert(f.begin() + 12, tag, tag + 4);
    }
    t.lines += "0ns 20 hex " + to_hex(f.data(), f.size()) + "\n";
    ++t.frames;
    t.bad += bad;
    t.cycles += (8 + f.size() - (k % 4 == 1 ? 18 : 14) - 4 + 7) / 8;
  }
  return t;
}

TEST(E2EIcrc, WrongIcrcsAreDroppedAndEveryTwinGivesTheSameStats) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB -o ar.txt", dir).code, 0);
  const RoceTraffic roce = roce_traffic();
  ASSERT_EQ(roce.bad, 5u);  // one of them VLAN-tagged (k = 17); 6 of the 24 frames are
  write_file(dir / "t.txt", roce.lines + slurp(dir / "ar.txt"));
  nlohmann::json first;
  for (const char* rtl : {"", " --rtl crc32", " --rtl all"}) {
    const CliResult r =
        flaresim(std::string("run --stats s.json --trace t.txt --flare.ports 0-3 --verify ar.txt.expected") + rtl, dir);
    ASSERT_EQ(r.code, 0) << rtl << r.out << r.err;
    auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    s.erase("wall_seconds");
    EXPECT_EQ(s["drops"]["by_cause"]["icrc"], roce.bad) << rtl;
    EXPECT_EQ(s["totals"]["icrc_checked"], roce.frames) << rtl;
    EXPECT_EQ(s["totals"]["icrc_engine_cycles"], roce.cycles) << rtl;
    if (first.is_null())
      first = s;
    else
      EXPECT_EQ(s, first) << rtl;
  }
  // Not checked: nothing is counted, and the bad frames are routed like the good ones.
  const CliResult off = flaresim("run --stats s.json --trace t.txt --flare.ports 0-3 --parser.icrc off", dir);
  ASSERT_EQ(off.code, 0) << off.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["by_cause"]["icrc"], 0);
  EXPECT_EQ(s["totals"]["icrc_checked"], 0);
}

TEST(E2EIcrc, ARoceFrameWithNoRoomForItsIcrcIsMalformed) {
  ScratchDir dir;
  Bytes f = roce_frame(0, 1, false);
  f.resize(f.size() - 8);  // cut into the BTH; fix the lengths so only RoCE finds it short
  const unsigned ip_len = unsigned(f.size() - 14);
  f[16] = uint8_t(ip_len >> 8), f[17] = uint8_t(ip_len);
  f[38] = uint8_t((ip_len - 20) >> 8), f[39] = uint8_t(ip_len - 20);
  f[24] = f[25] = 0;
  fs_put_be16(&f[24], fs_ipv4_checksum(&f[14], 20));
  write_file(dir / "t.txt", "0ns 1 hex " + to_hex(f.data(), f.size()) + "\n");
  ASSERT_EQ(flaresim("run --stats s.json --trace t.txt --rtl crc32", dir).code, 0);
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["by_cause"]["malformed"], 1);
  EXPECT_EQ(s["totals"]["icrc_checked"], 0);
  // Without the check the frame is a good UDP frame: routed, not dropped.
  ASSERT_EQ(flaresim("run --stats s.json --trace t.txt --parser.icrc off", dir).code, 0);
  s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["by_cause"]["malformed"], 0);
  EXPECT_EQ(s["totals"]["routed"], 1);
}

}  // namespace
}  // namespace fs::test
