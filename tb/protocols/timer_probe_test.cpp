// Handler timers (fs_timer_arm, fs_timer_cancel), with the test suite's timer_probe handler set
// (tb/protocols/timer_probe): a timer fires its set's timer handler in the cluster that armed it,
// timed like a packet handler, and is moved, cancelled and stopped as the API says.
//
// The timeline every case checks (1 GHz: a cycle is a nanosecond): a handler arms a timer when
// it ends, at E. The timer fires at E + delay; the cluster scheduler reserves the event's copy
// pspin.dispatch_cycles (2) later, the DMA moves its 8 bytes in 1 cycle and completes
// dma.latency_cycles (13) after that, so the timer handler starts at E + delay + 16.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/simulation.h"
#include "common/errors.h"
#include "config/config.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

constexpr uint16_t kProbePort = 5002;

// A probe packet from the host on port 1: command, timer id, delay (big-endian words).
TraceRecord probe(Picos t, uint32_t cmd, uint32_t id, uint32_t delay) {
  uint8_t host[6], sw[6], payload[12];
  fs_host_mac(1, host);
  fs_switch_mac(sw);
  fs_put_be32(payload, cmd);
  fs_put_be32(payload + 4, id);
  fs_put_be32(payload + 8, delay);
  return TraceRecord{t, 1, build_udp_frame(host, sw, fs_host_ipv4(1), FS_SWITCH_IPV4, kProbePort, kProbePort, payload, 12), ""};
}

// Keeps every frame the switch sends (run_simulation keeps none).
class EgressRecorder : public ResultVerifier {
 public:
  void take(uint16_t port, Picos time, const Bytes& frame) override { egress.push_back(EgressRecord{port, time, frame}); }
  VerifyReport report() const override { return VerifyReport{}; }
  std::vector<EgressRecord> egress;
};

struct TimerRun {
  RunResult result;
  nlohmann::json runs;  // the Chrome trace's handler runs, in the order they ended
  std::vector<EgressRecord> egress;  // the frames the switch sent
};

TimerRun run(const std::vector<TraceRecord>& trace, const std::string& hpu_model, uint64_t max_chain = 1000000) {
  ScratchDir dir;
  {
    std::ofstream t(dir / "t.txt");
    write_text_trace(t, trace);
  }
  RunRequest req;
  req.trace_path = dir / "t.txt";
  EgressRecorder recorder;
  req.verifier = &recorder;
  std::ostringstream chrome_text;
  req.chrome_trace = &chrome_text;
  req.cfg.parser.rules = "udp_dport=5002 -> timer_probe";
  req.cfg.pspin.clusters = 2;
  req.cfg.hpu.max_timer_chain = max_chain;
  find_config_key("hpu.model")->set(req.cfg, hpu_model);
  TimerRun r;
  r.result = run_simulation(req);
  r.egress = std::move(recorder.egress);
  r.runs = nlohmann::json::array();
  const nlohmann::json chrome = nlohmann::json::parse(chrome_text.str());
  for (const auto& e : chrome["traceEvents"])
    if (e["ph"] == "X") r.runs.push_back(e);
  return r;
}

double end_us(const nlohmann::json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

void fires_once(const std::string& model) {
  const TimerRun r = run({probe(0, 1, 7, 1000)}, model);
  ASSERT_EQ(r.runs.size(), 2u) << r.runs.dump();
  const auto& arm = r.runs[0];
  const auto& timer = r.runs[1];
  EXPECT_EQ(arm["args"]["outcome"], "ok");
  EXPECT_EQ(timer["args"]["outcome"], "ok");
  // Fired 1000 cycles after the arming handler ended, started 16 cycles later (see the top).
  EXPECT_NEAR(timer["ts"].get<double>(), end_us(arm) + 1.000 + 0.016, 1e-9);
  // ... in the cluster that armed it, whose id the event carries, as the frame it sent shows.
  EXPECT_EQ(timer["pid"], arm["pid"]);
  ASSERT_EQ(r.egress.size(), 1u);
  const Bytes& f = r.egress[0].data;
  ASSERT_EQ(f.size(), FS_UDP_PAYLOAD_OFFSET + 8u);
  EXPECT_EQ(fs_be32(f.data() + FS_UDP_PAYLOAD_OFFSET), 7u);
  EXPECT_EQ(fs_be32(f.data() + FS_UDP_PAYLOAD_OFFSET + 4), arm["pid"].get<uint32_t>());
  const auto& s = r.result.stats;
  EXPECT_EQ(s["timers"], nlohmann::json::parse(R"({"armed":1,"moved":0,"cancelled":0,"fired":1,"pending_at_end":0})"));
  EXPECT_EQ(s["handlers"]["timer_probe"]["runs"], 2);
  EXPECT_EQ(s["handlers"]["timer_probe"]["timer_runs"], 1);
  // A timer's run held no packet-buffer slot and no scheduler count.
  EXPECT_EQ(s["packet_buffer"]["accepted"], 1);
  EXPECT_EQ(s["scheduler"]["assigned_per_cluster"][0].get<int>() + s["scheduler"]["assigned_per_cluster"][1].get<int>(), 1);
}

TEST(HandlerTimers, FireOnceNative) { fires_once("native"); }
TEST(HandlerTimers, FireOnceIss) { fires_once("iss"); }

TEST(HandlerTimers, ArmingAgainMovesTheTimer) {
  // Armed for 10000 cycles at the end of the first run, then again at the end of the second (a
  // packet 2 us later) for 500: one fire, 500 + 16 cycles after the second run ended.
  const TimerRun r = run({probe(0, 1, 3, 10000), probe(2 * kPicosPerUs, 1, 3, 500)}, "native");
  ASSERT_EQ(r.runs.size(), 3u) << r.runs.dump();
  EXPECT_NEAR(r.runs[2]["ts"].get<double>(), end_us(r.runs[1]) + 0.500 + 0.016, 1e-9);
  EXPECT_EQ(r.result.stats["timers"],
            nlohmann::json::parse(R"({"armed":1,"moved":1,"cancelled":0,"fired":1,"pending_at_end":0})"));
}

TEST(HandlerTimers, ACancelledTimerDoesNotFire) {
  const TimerRun r = run({probe(0, 1, 4, 10000), probe(2 * kPicosPerUs, 2, 4, 0), probe(3 * kPicosPerUs, 2, 9, 0)}, "native");
  ASSERT_EQ(r.runs.size(), 3u) << r.runs.dump();  // the three packets' runs only
  EXPECT_TRUE(r.egress.empty());
  // Cancelling a timer that is not armed (9) changes nothing.
  EXPECT_EQ(r.result.stats["timers"],
            nlohmann::json::parse(R"({"armed":1,"moved":0,"cancelled":1,"fired":0,"pending_at_end":0})"));
}

TEST(HandlerTimers, ATimerReArmedForEverStopsTheRun) {
  // Native: the 54-byte probe (42 + 12) is received at (54 + 24) * 8 / 100 = 6.24 ns; the parser's
  // 2 cycles make 8.24 ns; the NIC writes it into L2 in 1 cycle (54 / 64 rounded up) and hands it
  // on 3 later, 12.24 ns; the scheduler's 1 cycle makes 13.24 ns; its copy starts 2 cycles later,
  // takes 1 cycle and completes 13 later: the handler runs from 29.24 ns for 40 + 54 = 94 cycles
  // and arms timer 0x80000001 at 123.24 ns for 10 cycles. It fires at 133.24 ns; each timer run
  // starts 16 cycles after its fire, takes 40 + 8 = 48 cycles and arms it again for 100: fires
  // every 164 ns, those armed by a timer run at 297.24, 461.24, ... With hpu.max_timer_chain = 5
  // the sixth of these, at 297.24 + 5 x 164 = 1117.24 ns, stops the run.
  // The run stops there, and its result (stats and outputs up to that point) says why.
  const TimerRun r = run({probe(0, 1, 0x80000001u, 10)}, "native", 5);
  EXPECT_EQ(r.result.fault, "handler set timer_probe: timers armed by its timer handler fired 5 times in a row with no "
                            "packet's handler arming one (timer 2147483649 re-armed for ever?) at 1117240 ps");
  EXPECT_EQ(r.result.stats["end"]["reason"], "handler_fault");
  EXPECT_EQ(r.result.stats["end"]["fault"], r.result.fault);
}

}  // namespace
}  // namespace fs::test
