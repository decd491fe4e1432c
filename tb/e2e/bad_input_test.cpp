// Bad input never crashes and never yields a plausible-looking result: malformed traces,
// configs and files give exit code 2 with a message naming the place and the reason, and leave
// no output file behind; malformed packets are dropped, counted, and the run goes on.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Neither output (s.json, e.pcapng) nor a temporary file of one is in `dir`.
void expect_no_outputs(const ScratchDir& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string n = e.path().filename().string();
    EXPECT_FALSE(n.rfind("s.json", 0) == 0 || n.rfind("e.pcapng", 0) == 0 || n.find("partial") != std::string::npos)
        << n << " was left behind";
  }
}

TEST(E2EBadInput, MalformedTraceLineNamesFileAndLine) {
  ScratchDir dir;
  write_file(dir / "t.txt",
             "# two good packets, then a bad one\n"
             "0ns 0 hex 0200000000010200000000020800\n"
             "10ns 1 hex 0200000000010200000000020800\n"
             "20ns 2 hex 02000000000102zz\n");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --egress e.pcapng", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.txt:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hex"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, TimeWithoutUnitIsAnError) {
  ScratchDir dir;
  write_file(dir / "t.txt", "\n\n100 0 hex 020000000001020000000002080045\n");
  const CliResult r = flaresim("run --trace t.txt --stats s.json", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.txt:3:"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, PortOutsideTheSwitchIsAnError) {
  ScratchDir dir;
  write_file(dir / "t.txt", "0ns 4 hex 0200000000010200000000020800\n");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --ports.count 4", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.txt:1:"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, MalformedPacketsAreDroppedAndCountedAndTheRunContinues) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o good.txt", dir).code, 0);
  std::string trace = slurp(dir / "good.txt");
  // Appended after the allreduce: a 10-byte runt (shorter than an Ethernet header), an IPv4
  // frame whose header checksum is wrong, and an IPv4 header cut short.
  trace +=
      "1ms 0 hex 02000000000102000000\n"
      "1ms 1 hex 02000000ffff020000000001080045000030000000004011ffff0a0100010a000001"
      "1356135600100000010000000000000000000000\n"
      "2ms 0 hex 020000000001020000000002080045000030\n";
  write_file(dir / "t.txt", trace);
  const CliResult r = flaresim("run --trace t.txt --stats s.json --flare.ports 0-1 --verify good.txt.expected", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["drops"]["by_cause"]["malformed"], 3);
  EXPECT_EQ(s["drops"]["total"], 3);
  EXPECT_EQ(s["totals"]["packets_in"], 2 * 2 + 3);
  EXPECT_EQ(s["handlers"]["flare_dense"]["runs"], 4);
}

TEST(E2EBadInput, EmptyTraceIsAValidRunWithZeroCounts) {
  ScratchDir dir;
  write_file(dir / "t.txt", "# nothing but a comment\n\n");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --egress e.pcapng", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["sim"]["time_ps"], 0);
  EXPECT_EQ(s["totals"]["packets_in"], 0);
  EXPECT_EQ(s["totals"]["packets_out"], 0);
  EXPECT_EQ(s["drops"]["total"], 0);
  // The handler sets the default rules name (canary, flare_dense and flare_sparse) are there, with zeros.
  EXPECT_EQ(s["handlers"].size(), 3u);
  for (const char* set : {"canary", "flare_dense", "flare_sparse"}) {
    SCOPED_TRACE(set);
    EXPECT_EQ(s["handlers"][set]["runs"], 0);
    EXPECT_EQ(s["handlers"][set]["cycles"]["count"], 0);
    EXPECT_EQ(s["handlers"][set]["cycles"]["histogram"], nlohmann::json::array());
  }
  EXPECT_TRUE(exists(dir / "e.pcapng"));
}

TEST(E2EBadInput, UnknownConfigKeyOnTheCommandLine) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --scheduler.polcy fcfs", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown configuration key 'scheduler.polcy'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scheduler.policy"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, BadConfigValueNamesKeyAndChoices) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --scheduler.policy lifo", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find("bad value 'lifo' for 'scheduler.policy': expected one of fcfs, hier-fcfs, home-cluster, flow\n"),
      std::string::npos)
      << r.err;
  const CliResult n = flaresim("run --trace t.txt --stats s.json --pspin.clusters many", dir);
  EXPECT_EQ(n.code, 2);
  EXPECT_NE(n.err.find("bad value 'many' for 'pspin.clusters'"), std::string::npos) << n.err;
  const CliResult m = flaresim("run --trace t.txt --stats s.json --scheduler.policy home-cluster "
                               "--scheduler.max_outstanding 0",
                               dir);
  EXPECT_EQ(m.code, 2);
  EXPECT_NE(m.err.find("bad value '0' for 'scheduler.max_outstanding': expected a whole number from 1 to 65535\n"),
            std::string::npos)
      << m.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, TooManyHpus) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  const CliResult r = flaresim("run --trace t.txt --stats s.json --pspin.clusters 4096 --pspin.hpus_per_cluster 8", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'pspin.clusters' x 'pspin.hpus_per_cluster' = 4096 x 8 HPUs; at most 16384 are supported"),
            std::string::npos)
      << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, NumbersAreDecimal) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  for (const char* v : {"0x10", "+8", "-8", "8.0", "99999999999999999999999"}) {
    const CliResult r = flaresim(std::string("run --trace t.txt --stats s.json --ports.count ") + v, dir);
    EXPECT_EQ(r.code, 2) << v;
    EXPECT_NE(r.err.find(std::string("bad value '") + v + "' for 'ports.count': expected a whole number from 1 to 4096"),
              std::string::npos)
        << r.err;
  }
  expect_no_outputs(dir);
  // A leading zero is still decimal, not octal.
  ASSERT_EQ(flaresim("run --trace t.txt --stats s.json --ports.count 010 --flare.ports 0-3", dir).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["config"]["ports"]["count"], 10);
}

TEST(E2EBadInput, TraceTimeBeyondTheModelsRange) {
  ScratchDir dir;
  // 2^62 ps = 4611686018427387904 ps is the last time a trace may use.
  write_file(dir / "t.txt", "0ns 0 flare block=0 values=1\n4611686018427387905ps 1 flare block=0 values=1\n");
  const CliResult r = flaresim("run --trace t.txt --stats s.json", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("t.txt:2: time 4611686018427387905 ps is beyond the longest trace the model runs"),
            std::string::npos)
      << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, SimulatedTimeOverflowIsASimulationError) {
  ScratchDir dir;
  // One HPU at 1 MHz (10^6 ps a cycle) charging 2^32-1 cycles per packet: each packet costs about
  // 4.3e15 ps, so 2200 packets need more than 2^63 ps (9.2e18) and the run must stop, not wrap.
  std::string trace;
  for (int i = 0; i < 2200; ++i) trace += "0ns 0 flare block=" + std::to_string(i) + " values=1\n";
  write_file(dir / "t.txt", trace);
  const CliResult r = flaresim("run --trace t.txt --stats s.json --flare.ports 0-1 --pspin.clusters 1 "
                               "--pspin.hpus_per_cluster 1 --pspin.clock_ghz 0.001 --hpu.model native "
                               "--hpu.native_fixed_cycles 4294967295",
                               dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("simulated time passed 2^63 ps"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, KeySetTwiceInAnIniFile) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  write_file(dir / "a.ini", "[pspin]\nclusters = 4\nclusters = 2\n");
  const CliResult r = flaresim("run --config a.ini --trace t.txt --stats s.json", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a.ini: key 'pspin.clusters' is set twice"), std::string::npos) << r.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, AKeyThatMovedToItsOwnSectionIsNamed) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  write_file(dir / "a.ini", "[pspin]\nicache_bytes = 64\n");
  const CliResult r = flaresim("run --config a.ini --trace t.txt --stats s.json", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: a.ini: unknown configuration key 'pspin.icache_bytes'; it is now 'icache.bytes'\n");
  expect_no_outputs(dir);
}

TEST(E2EBadInput, UnknownKeyAndBadValueInAnIniFile) {
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  write_file(dir / "a.ini", "[pspin]\nclusters = 4\nclustres = 8\n");
  const CliResult a = flaresim("run --config a.ini --trace t.txt --stats s.json", dir);
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("a.ini: unknown configuration key 'pspin.clustres'"), std::string::npos) << a.err;
  write_file(dir / "b.ini", "[scheduler]\nsubset = 3\n");
  const CliResult b = flaresim("run --config b.ini --trace t.txt --stats s.json", dir);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("'scheduler.subset': must divide pspin.hpus_per_cluster (8)"), std::string::npos) << b.err;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, MissingFiles) {
  ScratchDir dir;
  const CliResult t = flaresim("run --trace nope.txt --stats s.json", dir);
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("nope.txt"), std::string::npos) << t.err;
  write_file(dir / "t.txt", "");
  const CliResult c = flaresim("run --config nope.ini --trace t.txt --stats s.json", dir);
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("nope.ini: cannot open configuration file"), std::string::npos) << c.err;
  const CliResult v = flaresim("run --trace t.txt --stats s.json --verify nope.expected", dir);
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("nope.expected"), std::string::npos) << v.err;
  expect_no_outputs(dir);
  // Without --stats the run is made and summarised, and writes nothing.
  const CliResult m = flaresim("run --trace t.txt", dir);
  EXPECT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("simulated time   0.000 us"), std::string::npos) << m.out;
  expect_no_outputs(dir);
}

TEST(E2EBadInput, VerificationFailureExitsOne) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o t.txt", dir).code, 0);
  // Only 3 of the 4 hosts configured as children: the switch sends results early, with the sum
  // of three contributions, and then finds the fourth's buffer empty again.
  const CliResult r = flaresim("run --trace t.txt --stats s.json --flare.ports 0-2 --verify t.txt.expected", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("verification against t.txt.expected failed"), std::string::npos) << r.err;
}

TEST(E2EBadInput, UnknownCommandAndUsage) {
  ScratchDir dir;
  EXPECT_EQ(flaresim("frobnicate", dir).code, 2);
  EXPECT_EQ(flaresim("", dir).code, 2);
  const CliResult g = flaresim("gen allreduce --hosts 0 --bytes 1KiB -o t.txt", dir);
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.err.find("hosts"), std::string::npos) << g.err;
  const CliResult big = flaresim("gen allreduce --hosts 16 --bytes 1GiB -o t.txt", dir);
  EXPECT_EQ(big.code, 2);
  EXPECT_NE(big.err.find("--hosts x --bytes = 16 x 1073741824 bytes; at most 4 GiB"), std::string::npos) << big.err;
  EXPECT_FALSE(exists(dir / "t.txt"));
}

}  // namespace
}  // namespace fs::test
