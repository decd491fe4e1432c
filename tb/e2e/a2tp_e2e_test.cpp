// End to end: a2tp gradients of two jobs (2 workers each: hosts 0-1 to the PS on host 4, hosts
// 2-3 to the PS on host 5), written to a pcapng and replayed through `flaresim run` with the a2tp
// handler set routed UDP port 4960 and 16 aggregators, on ISS HPUs (the handler's RISC-V build)
// and on native ones. Each job's fragment f uses its own aggregator (job 1: f, job 2: 8 + f), so
// no collision happens whatever the order: every fragment's result leaves towards its PS with the
// two workers' values summed, worked out here. Then each PS's result for each fragment, sent to
// its job's group address, comes out once to each of the job's workers and frees the fragment's
// aggregator.
#include <algorithm>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "protocols/a2tp/a2tp_frame.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

constexpr unsigned kFragments = 4;

int32_t value(unsigned job, unsigned worker, unsigned fragment, unsigned k) {
  return int32_t(job * 1000003u + worker * 7919u + fragment * 104729u + k) * (worker ? -1 : 1);
}

struct Result {
  unsigned port;
  uint32_t job, sequence, bitmap;
  uint8_t flags;
  std::vector<int32_t> values;
  bool operator<(const Result& o) const { return std::tie(job, sequence) < std::tie(o.job, o.sequence); }
  bool operator==(const Result& o) const {
    return std::tie(port, job, sequence, bitmap, flags, values) ==
           std::tie(o.port, o.job, o.sequence, o.bitmap, o.flags, o.values);
  }
};

void PrintTo(const Result& r, std::ostream* os) {
  *os << "port " << r.port << " job " << r.job << " seq " << r.sequence << " bitmap " << r.bitmap << " flags "
      << int(r.flags) << " values " << r.values.size();
}

class A2tpE2E : public testing::TestWithParam<const char*> {};

TEST_P(A2tpE2E, TwoJobsGradientsComeOutSummedTowardsTheirParameterServers) {
  ScratchDir dir;
  std::vector<TraceRecord> records;
  std::vector<Result> expected;
  for (uint32_t job = 1; job <= 2; ++job)
    for (uint32_t f = 0; f < kFragments; ++f) {
      const unsigned ps = job == 1 ? 4 : 5;
      Result r{ps, job, f, 3, A2TP_FLAG_RESULT, std::vector<int32_t>(A2TP_ELEMENTS)};
      for (uint8_t w = 0; w < 2; ++w) {
        a2tp_header_t h{};
        h.job = job, h.sequence = f, h.aggregator = uint16_t((job - 1) * 8 + f), h.worker = w, h.workers = 2;
        h.bitmap[0] = 1u << w;
        std::vector<int32_t> values(A2TP_ELEMENTS);
        for (unsigned k = 0; k < values.size(); ++k) {
          values[k] = value(job, w, f, k);
          r.values[k] = int32_t(uint32_t(r.values[k]) + uint32_t(values[k]));
        }
        const unsigned host = (job - 1) * 2 + w;
        records.push_back(
            {Picos(records.size()) * 100000, uint16_t(host), build_a2tp_packet(h, host, fs_host_ipv4(ps), values), ""});
      }
      expected.push_back(r);
    }
  // The PSes' results, 100 us after the gradients (long after the switch summed them, on ISS
  // HPUs too): to the group address of the job's workers.
  const size_t gradients = records.size();
  for (uint32_t job = 1; job <= 2; ++job)
    for (uint32_t f = 0; f < kFragments; ++f) {
      a2tp_header_t h{};
      h.job = job, h.sequence = f, h.aggregator = uint16_t((job - 1) * 8 + f), h.workers = 2, h.bitmap[0] = 3;
      h.flags = A2TP_FLAG_RESULT;
      const unsigned ps = job == 1 ? 4 : 5;
      records.push_back({100 * kPicosPerUs + Picos(records.size()) * 100000, uint16_t(ps),
                         build_a2tp_packet(h, ps, a2tp_group_ipv4((job - 1) * 2), {int32_t(f)}), ""});
    }
  {
    std::ofstream out(dir / "t.pcapng", std::ios::binary);
    write_pcapng(out, 6, records);
  }
  const CliResult run = flaresim(std::string("run --trace t.pcapng --ports.count 6 --hpu.model ") + GetParam() +
                                     " --parser.rules 'udp_dport=4960 -> a2tp' --a2tp.aggregators 16"
                                     " --routing.routes '10.1.0.0/32 -> 0; 10.1.0.1/32 -> 1; 10.1.0.2/32 -> 2; 10.1.0.3/32 -> 3;"
                                     " 10.1.0.4/32 -> 4; 10.1.0.5/32 -> 5' --egress e.pcapng"
                                     " --stats s.json -q",
                                 dir);
  ASSERT_EQ(run.code, 0) << run.err;
  std::vector<Result> got;
  std::vector<std::tuple<unsigned, uint32_t, uint32_t>> copies;  // (port, job, sequence) of the PSes' results
  for (const TraceRecord& r : read_trace(dir / "e.pcapng", TraceOptions{})) {
    A2tpPacket p;
    std::string why;
    ASSERT_TRUE(parse_a2tp_packet(r.data.data(), r.data.size(), &p, &why)) << why;
    if (r.port >= 4)
      got.push_back({r.port, p.h.job, p.h.sequence, p.h.bitmap[0], p.h.flags, p.values});
    else
      copies.emplace_back(r.port, p.h.job, p.h.sequence);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
  std::vector<std::tuple<unsigned, uint32_t, uint32_t>> want_copies;
  for (uint32_t job = 1; job <= 2; ++job)
    for (uint32_t f = 0; f < kFragments; ++f)
      for (unsigned w = 0; w < 2; ++w) want_copies.emplace_back((job - 1) * 2 + w, job, f);
  std::sort(copies.begin(), copies.end());
  std::sort(want_copies.begin(), want_copies.end());
  EXPECT_EQ(copies, want_copies);
  EXPECT_EQ(gradients, 16u);
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& o = s["handlers"]["a2tp"]["outcomes"];
  EXPECT_EQ(o["taken"], 8);
  EXPECT_EQ(o["completed"], 8);
  EXPECT_EQ(o["collision"], 0);
  EXPECT_EQ(o["released"], 8);  // each aggregator held from its first gradient to the PS's result
  EXPECT_EQ(s["handlers"]["a2tp"]["blocks"]["completed"], 8);
  EXPECT_EQ(s["handlers"]["a2tp"]["blocks"]["open_at_end"], 0);
  // On ISS HPUs the handler's RISC-V build ran (and took more than a native run's cycles).
  if (std::string(GetParam()) == "iss") {
    EXPECT_GT(s["handlers"]["a2tp"]["iss"]["instructions"].get<uint64_t>(), 16u * A2TP_ELEMENTS);
  }
}

INSTANTIATE_TEST_SUITE_P(Hpus, A2tpE2E, testing::Values("iss", "native"));

}  // namespace
}  // namespace fs::test
