// End to end: `flaresim gen allreduce` with the send-schedule options (--stagger, --mean-gap,
// --loss/--timeout, --duplicate): the option checks and their messages, the staggered order as
// written to a text trace, and a generated trace with all of them replayed through the switch
// and verified against its expected results.
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flare/flare_proto.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

struct TextPkt {
  std::string time;
  unsigned port = 0;
  uint32_t block = 0;
  std::string hex;
};

// The packets of a text trace written by flaresim ("<time> <port> hex <bytes>").
std::vector<TextPkt> read_text_trace(const std::string& path) {
  std::vector<TextPkt> out;
  std::istringstream in(slurp(path));
  std::string line, kind;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    TextPkt p;
    ls >> p.time >> p.port >> kind >> p.hex;
    EXPECT_EQ(kind, "hex");
    p.block = uint32_t(std::stoul(p.hex.substr(2 * (FLARE_PAYLOAD_OFFSET + FLARE_OFF_BLOCK), 8), nullptr, 16));
    out.push_back(p);
  }
  return out;
}

TEST(E2EGenOptions, BadValuesExitTwoWithTheOptionNamed) {
  ScratchDir dir;
  const std::string gen = "gen allreduce --hosts 4 --bytes 4KiB -o t.txt ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--loss 1.5", "flaresim: allreduce generator: --loss: 1.5 not in 0..1\n"},
      {"--loss=-0.25", "flaresim: allreduce generator: --loss: -0.25 not in 0..1\n"},
      {"--loss nan", "flaresim: allreduce generator: --loss: nan not in 0..1\n"},
      {"--loss lots", "flaresim: the argument ('lots') for option '--loss' is invalid\n"},
      {"--duplicate 2", "flaresim: allreduce generator: --duplicate: 2 not in 0..1\n"},
      {"--mean-gap=-1ns", "flaresim: --mean-gap: negative time '-1ns'\n"},
      {"--mean-gap 200", "flaresim: --mean-gap: time '200' has no unit (use ps, ns, us, ms or s)\n"},
      {"--mean-gap 2fs", "flaresim: --mean-gap: time '2fs' has unknown unit 'fs' (use ps, ns, us, ms or s)\n"},
      {"--timeout abc", "flaresim: --timeout: bad time 'abc': expected a decimal number with a unit, e.g. 1.25us\n"},
      {"--timeout=-5us", "flaresim: --timeout: negative time '-5us'\n"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = flaresim(gen + args, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, message) << args;
    EXPECT_FALSE(exists(dir / "t.txt")) << args;
    EXPECT_FALSE(exists(dir / "t.txt.expected")) << args;
  }
  const CliResult help = flaresim("gen allreduce --help", dir);
  EXPECT_EQ(help.code, 0);
  for (const char* opt : {"--stagger", "--mean-gap arg (=0ns)", "--loss arg (=0)", "--timeout arg (=100us)",
                          "--duplicate arg (=0)"})
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt << "\n" << help.out;
}

TEST(E2EGenOptions, StaggeredTextTrace) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB --stagger -o t.txt", dir).code, 0);
  // 8 blocks of 1 KiB; host h starts at block 2h. 1082-byte frames + 24 bytes = 88.48 ns each.
  std::map<unsigned, std::vector<TextPkt>> ports;
  for (const TextPkt& p : read_text_trace(dir / "t.txt")) ports[p.port].push_back(p);
  ASSERT_EQ(ports.size(), 4u);
  const char* times[8] = {"0ns", "88.48ns", "176.96ns", "265.44ns", "353.92ns", "442.4ns", "530.88ns", "619.36ns"};
  for (unsigned h = 0; h < 4; ++h) {
    ASSERT_EQ(ports[h].size(), 8u);
    for (unsigned k = 0; k < 8; ++k) {
      EXPECT_EQ(ports[h][k].block, (2 * h + k) % 8) << h << " " << k;
      EXPECT_EQ(ports[h][k].time, times[k]) << h << " " << k;
    }
  }
}

TEST(E2EGenOptions, AllOptionsReplayAndVerify) {
  ScratchDir dir;
  const CliResult gen = flaresim("gen allreduce --hosts 4 --bytes 64KiB --stagger --mean-gap 100ns --loss 0.05 "
                                 "--duplicate 0.05 -o t.txt",
                                 dir);
  ASSERT_EQ(gen.code, 0) << gen.err;
  // Seed 1: 256 contributions, some lost (and retransmitted 100 us later), some duplicated.
  unsigned packets = 0, lost = 0, dups = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "wrote t.txt (%u packets from 4 hosts, 64 blocks, %u lost and retransmitted, %u",
                        &packets, &lost, &dups),
            3)
      << gen.out;
  EXPECT_GT(lost, 0u);
  EXPECT_GT(dups, 0u);
  EXPECT_EQ(packets, 256u + dups);
  const std::vector<TextPkt> trace = read_text_trace(dir / "t.txt");
  EXPECT_EQ(trace.size(), packets);

  // The expected results do not depend on the schedule.
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 64KiB -o plain.txt", dir).code, 0);
  EXPECT_EQ(slurp(dir / "t.txt.expected"), slurp(dir / "plain.txt.expected"));

  const CliResult run = flaresim("run --trace t.txt --stats s.json --flare.ports 0-3 --hpu.model native "
                                 "--verify t.txt.expected",
                                 dir);
  ASSERT_EQ(run.code, 0) << run.err << run.out;
  EXPECT_NE(run.out.find("verify           OK"), std::string::npos) << run.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["totals"]["packets_in"], packets);
  EXPECT_EQ(s["totals"]["ingress_late_starts"], 0);  // no two frames overlap on a port
  const auto& outcomes = s["handlers"]["flare_dense"]["outcomes"];
  EXPECT_EQ(outcomes["result_sent"], 64);
  EXPECT_EQ(outcomes["duplicate"], dups);  // every copy is recognised and not aggregated again
  EXPECT_EQ(s["totals"]["packets_out"], 4 * 64);
}

}  // namespace
}  // namespace fs::test
