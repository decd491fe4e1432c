// `flaresim gen` reads the same configuration keys as `run` (ports.*, hosts.*, sim.seed,
// flare.allreduce_id) from --config or --section.key, where its own flags leave them open.
#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(E2EGenConfig, KeysFromAnIniFileMakeTheSameTraceAsTheFlags) {
  ScratchDir dir;
  write_file(dir / "w.ini", "[sim]\nseed = 7\n[ports]\ngbps = 400\ncount = 8\n[hosts]\nbytes = 4KiB\nelem_bytes = 512\n"
                            "dtype = int16\nop = max\nstagger = true\n[flare]\nallreduce_id = 9\n");
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --config w.ini -o a.txt", dir).code, 0);
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --seed 7 --gbps 400 --ports 8 --bytes 4KiB --elem-bytes 512 "
                     "--dtype int16 --op max --stagger --allreduce-id 9 -o b.txt",
                     dir)
                .code,
            0);
  EXPECT_EQ(slurp(dir / "a.txt"), slurp(dir / "b.txt"));
  EXPECT_EQ(slurp(dir / "a.txt.expected"), slurp(dir / "b.txt.expected"));
  // --section.key works the same way, and a flag wins over the INI file's key.
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --config w.ini --ports.gbps 100 --hosts.elem_bytes 1024 -o c.txt", dir)
                .code,
            0);
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --config w.ini --gbps 100 --elem-bytes 1024 -o d.txt", dir).code, 0);
  EXPECT_EQ(slurp(dir / "c.txt"), slurp(dir / "d.txt"));
}

TEST(E2EGenConfig, TheWireOverheadKeyTimesTheTrace) {
  // 2 hosts, 2 blocks of 1 KiB: frames of 42 + 16 + 1024 = 1082 bytes. At 100 Gbit/s a host's
  // second frame starts one wire time after its first: (1082 + 24) * 8 / 100 = 88.48 ns with
  // the default overhead, 1082 * 8 / 100 = 86.56 ns with ports.wire_overhead = 0.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o a.txt", dir).code, 0);
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB --ports.wire_overhead 0 -o b.txt", dir).code, 0);
  EXPECT_NE(slurp(dir / "a.txt").find("\n88.48ns 0 hex "), std::string::npos);
  EXPECT_NE(slurp(dir / "b.txt").find("\n86.56ns 0 hex "), std::string::npos);
}

TEST(E2EGenConfig, AFlagAndItsKeyTogetherAreAnError) {
  ScratchDir dir;
  const CliResult r = flaresim("gen allreduce --hosts 2 --bytes 2KiB --hosts.bytes 4KiB -o t.txt", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --bytes and --hosts.bytes both given: give one\n");
  EXPECT_FALSE(exists(dir / "t.txt"));
  const CliResult k = flaresim("gen allreduce --hosts 2 --hosts.colour red -o t.txt", dir);
  EXPECT_EQ(k.code, 2);
  EXPECT_NE(k.err.find("unknown configuration key 'hosts.colour'"), std::string::npos) << k.err;
}

}  // namespace
}  // namespace fs::test
