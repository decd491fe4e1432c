// Every call of the handler API (handlers/include/fs_api.def) through both back ends, with the
// test suite's api_probe handler set (tb/protocols/api_probe/): natively (HandlerApi behind the
// host back end's table) and on the ISS (the firmware's inlined command-register sequences,
// decoded by the runtime registers into the same HandlerApi), with the same expectations: return codes, the frames
// and host writes the calls produce, DMA copies, fs_hash, and the handler log's lines (time,
// cluster, HPU, handler set, text, truncation). On the ISS also the guest pointers it refuses,
// and a failed run leaving no log file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "blocks/handler_harness.h"
#include "support/cli_runner.h"
#include "iss/elf.h"
#include "net/frame.h"
#include "net/trace_writer.h"
#include "protocols/api_probe/api_probe.h"

namespace fs::test {
namespace {

// Runs the CLI in this process (where the test protocols are registered).
int cli(std::vector<std::string> args, std::string* err = nullptr) { return cli_in_process(std::move(args), nullptr, err); }

// A probe frame from the host on `port`: op, then payload bytes 8..63 = 0x10, 0x11, ...
Bytes probe_frame(uint16_t port, uint8_t op) {
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  Bytes payload(API_PROBE_PAYLOAD, 0);
  payload[0] = op;
  for (size_t i = 8; i < payload.size(); ++i) payload[i] = uint8_t(0x10 + i - 8);
  return build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, API_PROBE_UDP_PORT, API_PROBE_UDP_PORT,
                         payload.data(), payload.size());
}
constexpr size_t kPayload = 42;  // Ethernet + IPv4 + UDP headers

std::string write_trace(const ScratchDir& dir, const std::vector<TraceRecord>& records) {
  const std::string path = dir / "t.txt";
  std::ofstream t(path);
  write_text_trace(t, records);
  return path;
}

// The frames that left each port, in order (from the egress capture's trace text).
std::map<uint16_t, std::vector<Bytes>> egress_by_port(const std::string& pcapng) {
  std::map<uint16_t, std::vector<Bytes>> out;
  for (const TraceRecord& r : read_trace(pcapng, TraceOptions{})) out[r.port].push_back(r.data);
  return out;
}

// A log line's time in picoseconds ("<ns>.<ps> ..."), and the rest after the time.
Picos line_time(const std::string& line) {
  const size_t dot = line.find('.');
  return Picos(std::stoull(line.substr(0, dot))) * 1000 + Picos(std::stoull(line.substr(dot + 1, 3)));
}
std::string after_time(const std::string& line) { return line.substr(line.find(' ') + 1); }

// What the probe answers to API_PROBE_ALL, computed here: the frame with the results at payload
// offset 8 (after payload bytes 24..39 were overwritten with bytes 8..23 by the DMA round trip).
struct Expected {
  Bytes answer;
  std::string log_probe;
};
// next_hop and next_hop_none: what fs_next_hop answers for 10.1.2.5 and 11.0.0.1.
Expected expected_all(const Bytes& frame, uint16_t port, uint32_t l1_size, int32_t next_hop, int32_t next_hop_none) {
  Bytes p = frame;
  std::memcpy(&p[kPayload + 24], &frame[kPayload + 8], 16);
  api_probe_result_t r{};
  r.send = 0;
  r.send_bad_port = -1;
  r.multicast = 0;
  r.multicast_bad_port = -1;
  r.host_write = 0;
  r.host_write_bad_port = -1;
  r.l1_size = l1_size;
  r.l1_bad = 1;
  r.dma_in = r.dma_out = 0;
  r.hash = fs_hash(&p[kPayload + 8], 32, 0x9747b28cu);
  char text[128];
  std::snprintf(text, sizeof text, "probe %zu bytes from port %u: hash %08x, tab\there", frame.size(), unsigned(port),
                unsigned(r.hash));
  r.log = int32_t(std::strlen(text));
  r.log_long = 255;  // "<" and 299 "x" and ">", cut at FS_LOG_MAX_LINE
  r.log_raw = 0;
  r.next_hop = next_hop, r.next_hop_none = next_hop_none;
  std::memcpy(&p[kPayload + 8], &r, sizeof r);
  std::string logged = text;
  logged[logged.find('\t')] = ' ';  // control characters become spaces
  return {p, logged};
}

// The log lines of one API_PROBE_ALL run, after the time: cluster, HPU, set, text.
std::vector<std::string> probe_log(unsigned cluster, unsigned hpu, const std::string& probe_text) {
  const std::string who = std::to_string(cluster) + " " + std::to_string(hpu) + " api_probe ";
  return {who + probe_text, who + "<" + std::string(254, 'x'), who + "raw"};
}

// Two probes at time 0 on ports 0 and 5 of a 2-cluster switch: fcfs gives them to clusters 0
// and 1 (the fewest outstanding tasks, then round robin), each on its HPU 0. The set is the only
// one installed, so it has all of each cluster's L1 state area: 1 MiB - 8 x 9216 bytes.
constexpr uint32_t kL1 = (1u << 20) - 8 * 9216;
void every_call(const std::string& model) {
  ScratchDir dir;
  const Bytes f0 = probe_frame(0, API_PROBE_ALL), f5 = probe_frame(5, API_PROBE_ALL);
  const std::string trace = write_trace(dir, {{0, 0, f0, ""}, {0, 5, f5, ""}});
  std::vector<std::string> args = {"run", "--trace", trace, "--stats", dir / "s.json", "--egress", dir / "e.pcapng",
                                   "--handler-log", dir / "log.txt", "--chrome-trace", dir / "chrome.json",
                                   "--parser.rules", "udp_dport=5001 -> api_probe", "--pspin.clusters", "2",
                                   "--routing.routes", "10.1.2.0/24 -> 6; 10.0.0.0/8 -> 7",
                                   "--routing.default_route", "drop", "--hpu.model", model};
  if (model == "iss") args.insert(args.end(), {"--trace-insn", dir / "insn.txt"});
  std::string err;
  ASSERT_EQ(cli(args, &err), 0) << err;

  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["handlers"]["api_probe"]["outcomes"],
            nlohmann::json({{"ok", 2}, {"iss_only", 0}, {"malformed", 0}, {"fault", 0}}));
  EXPECT_EQ(s["handlers"]["api_probe"]["log_lines"], 6);  // 3 per run
  EXPECT_EQ(s["handlers"]["api_probe"]["iss"]["dma_bytes"], 2 * 32);
  // fs_host_write: 8 bytes to port 3's host, once per run.
  EXPECT_EQ(s["commands"]["host_writes_by_port"],
            nlohmann::json::parse(R"([{"port": 3, "writes": 2, "bytes": 16}])"));

  // fs_next_hop: 10.1.2.5 by its /24 route to port 6; 11.0.0.1 by none (default drop): -1.
  const Expected e0 = expected_all(f0, 0, kL1, 6, -1), e5 = expected_all(f5, 5, kL1, 6, -1);
  auto out = egress_by_port(dir / "e.pcapng");
  // Each ingress port gets the frame as it came, then the answer.
  EXPECT_EQ(out[0], (std::vector<Bytes>{f0, e0.answer}));
  EXPECT_EQ(out[5], (std::vector<Bytes>{f5, e5.answer}));
  // Ports 1 and 2: the first 20 bytes of each frame, once per run.
  const Bytes h0(f0.begin(), f0.begin() + 20), h5(f5.begin(), f5.begin() + 20);
  for (uint16_t p : {1, 2}) {
    ASSERT_EQ(out[p].size(), 2u) << p;
    EXPECT_EQ(std::set<Bytes>(out[p].begin(), out[p].end()), (std::set<Bytes>{h0, h5})) << p;
  }
  EXPECT_EQ(out.size(), 4u);

  // The log: a header, then 3 lines per run, each run's in call order.
  const std::vector<std::string> log = lines_of(slurp(dir / "log.txt"));
  ASSERT_EQ(log.size(), 7u);
  EXPECT_EQ(log[0], "# time_ns cluster hpu handler_set text");
  std::vector<std::string> c0, c1;
  std::vector<Picos> t0, t1;
  for (size_t i = 1; i < log.size(); ++i) {
    const std::string rest = after_time(log[i]);
    (rest.rfind("0 ", 0) == 0 ? c0 : c1).push_back(rest);
    (rest.rfind("0 ", 0) == 0 ? t0 : t1).push_back(line_time(log[i]));
  }
  EXPECT_EQ(c0, probe_log(0, 0, e0.log_probe));
  EXPECT_EQ(c1, probe_log(1, 0, e5.log_probe));

  // Times: each run's start, from the Chrome trace (its `ts` in microseconds).
  std::map<unsigned, Picos> start;
  const auto chrome = nlohmann::json::parse(slurp(dir / "chrome.json"));
  for (const auto& ev : chrome["traceEvents"])
    if (ev["ph"] == "X") start[ev["pid"].get<unsigned>()] = Picos(std::llround(ev["ts"].get<double>() * 1e6));
  ASSERT_EQ(start.size(), 2u);
  if (model == "native") {
    // Natively every call happens when the handler starts.
    EXPECT_EQ(t0, std::vector<Picos>(3, start[0]));
    EXPECT_EQ(t1, std::vector<Picos>(3, start[1]));
    return;
  }
  // On the ISS a line's time is the cycle of the load that issues fs_log_write's command: a load
  // of CMD_ISSUE, offset 0x20 of the runtime registers ("lw a5, 32(s1)"), as the instruction
  // trace shows it (1 GHz: a cycle is 1000 ps), counted from the run's start, which is not on a
  // cycle boundary (the trace numbers the cycle it started in). fs_log_write is inlined: the
  // first two lines are issued inside fs_log (the one such load there), the third inside the
  // probe, by the last CMD_ISSUE load but one (the answer's send comes after it).
  const iss::ElfImage elf = iss::read_elf(FLARESIM_HANDLER_ELF_DIR "/api_probe.elf");
  const uint32_t fs_log_at = elf.symbols.at("fs_log");
  uint32_t fs_log_end = ~0u;
  for (const auto& [name, addr] : elf.symbols)
    if (addr > fs_log_at) fs_log_end = std::min(fs_log_end, addr);
  std::map<unsigned, std::vector<Picos>> issue, issue_in_fs_log;
  for (const std::string& line : lines_of(slurp(dir / "insn.txt"))) {
    if (line[0] == '#') continue;
    std::istringstream ls(line);
    uint64_t cycle;
    unsigned cluster, hpu;
    std::string set, pc, word, disassembly;
    ls >> cycle >> cluster >> hpu >> set >> pc >> word;
    std::getline(ls, disassembly);
    const uint32_t at = uint32_t(std::stoul(pc, nullptr, 16));
    if (disassembly.find(" lw ") != 0 || disassembly.find(", 32(") == std::string::npos ||
        disassembly.find("(sp)") != std::string::npos)
      continue;
    issue[cluster].push_back(Picos(cycle) * 1000);
    if (at >= fs_log_at && at < fs_log_end) issue_in_fs_log[cluster].push_back(Picos(cycle) * 1000);
  }
  for (unsigned c : {0u, 1u}) {
    ASSERT_EQ(issue_in_fs_log[c].size(), 2u) << c;
    ASSERT_GE(issue[c].size(), 2u) << c;
    issue[c] = {issue_in_fs_log[c][0], issue_in_fs_log[c][1], issue[c][issue[c].size() - 2]};
    for (Picos& t : issue[c]) t += start[c] % 1000;
  }
  EXPECT_EQ(t0, issue[0]);
  EXPECT_EQ(t1, issue[1]);
  ASSERT_EQ(t0.size(), 3u);
  EXPECT_GT(t0[0], start[0]);  // the formatting before the first line took cycles
}

TEST(HandlerApi, EveryCallNative) { every_call("native"); }
TEST(HandlerApi, EveryCallIss) { every_call("iss"); }

// The packet's layout (docs/HANDLERS.md): the frame 2 bytes into the HPU's packet slot, so that
// its IPv4 header (args->ip) and its UDP payload are word-aligned, on both back ends; on the ISS
// at 0x1B000002 and 0x1B000010 of the memory map.
void layout(const std::string& model) {
  ScratchDir dir;
  const Bytes f = probe_frame(3, API_PROBE_LAYOUT);
  const std::string trace = write_trace(dir, {{0, 3, f, ""}});
  std::string err;
  ASSERT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--egress", dir / "e.pcapng", "--parser.rules",
                 "udp_dport=5001 -> api_probe", "--hpu.model", model},
                &err),
            0)
      << err;
  auto out = egress_by_port(dir / "e.pcapng");
  ASSERT_EQ(out[3].size(), 1u);
  ASSERT_EQ(out[3][0].size(), f.size());
  api_probe_layout_t r;
  std::memcpy(&r, &out[3][0][kPayload + 8], sizeof r);
  EXPECT_EQ(r.pkt_mod4, 2u);  // FS_PKT_FRAME_OFFSET
  EXPECT_EQ(r.ip_mod4, 0u);
  EXPECT_EQ(r.payload_mod4, 0u);
  EXPECT_EQ(r.ip_minus_pkt, 14u);
  EXPECT_EQ(r.pkt_len, f.size());  // 42 + 72 = 114
  EXPECT_EQ(r.ip_len, f.size() - 14);
  uint32_t first;
  std::memcpy(&first, &f[14], 4);  // version/IHL, TOS, total length
  EXPECT_EQ(r.ip_first_word, first);
  if (model == "iss") {
    EXPECT_EQ(r.ip, 0x1B000010u);
  }
  // Everything else in the answer is the frame as it came.
  EXPECT_EQ(Bytes(out[3][0].begin(), out[3][0].begin() + kPayload + 8), Bytes(f.begin(), f.begin() + kPayload + 8));
}

TEST(HandlerApi, PacketLayoutNative) { layout("native"); }
TEST(HandlerApi, PacketLayoutIss) { layout("iss"); }

// The test harness carries the calls out with the same HandlerApi, at time 0.
TEST(HandlerApi, HarnessRecordsCallsAndLogLines) {
  fs::Config cfg;
  fs_tb::HandlerHarness h(cfg, "api_probe", /*install=*/false);
  const Bytes f = probe_frame(4, API_PROBE_ALL);
  const fs_tb::HandlerCall c = h.run(f, 4, /*cluster=*/3, /*hpu=*/6);
  EXPECT_EQ(c.outcome, FS_OK);
  const Expected e = expected_all(f, 4, h.l1_size(), -1, -1);  // the harness has no routes
  ASSERT_EQ(c.sent.size(), 4u);
  EXPECT_EQ(c.sent[0].data, f);
  EXPECT_EQ(c.sent[1].ports, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(c.sent[2].kind, fs_tb::SentFrame::kHostWrite);
  EXPECT_EQ(c.sent[2].host_addr, 0x1122334455667788u);
  EXPECT_EQ(c.sent[2].data, Bytes(f.begin() + kPayload + 8, f.begin() + kPayload + 16));
  EXPECT_EQ(c.sent[3].data, e.answer);
  std::vector<std::string> want;
  for (const std::string& l : probe_log(3, 6, e.log_probe)) want.push_back("0.000 " + l);
  EXPECT_EQ(c.log, want);
}

// Guest pointers the ISS refuses: device memory, unmapped addresses, read-only program memory as
// a DMA destination, frames over 65535 bytes. A port list at an odd address is read as it is.
TEST(HandlerApi, IssRefusesBadGuestPointers) {
  ScratchDir dir;
  const Bytes f = probe_frame(0, API_PROBE_BAD_POINTERS);
  const std::string trace = write_trace(dir, {{0, 0, f, ""}});
  std::string err;
  ASSERT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--egress", dir / "e.pcapng", "--parser.rules",
                 "udp_dport=5001 -> api_probe", "--hpu.model", "iss"},
                &err),
            0)
      << err;
  auto out = egress_by_port(dir / "e.pcapng");
  ASSERT_EQ(out[0].size(), 1u);
  api_probe_bad_pointers_t r;
  std::memcpy(&r, &out[0][0][kPayload + 8], sizeof r);
  EXPECT_EQ(r.send_mmio, -1);
  EXPECT_EQ(r.send_unmapped, -1);
  EXPECT_EQ(r.send_too_long, -1);
  EXPECT_EQ(r.dma_to_program, -1);
  EXPECT_EQ(r.dma_from_unmapped, -1);
  EXPECT_EQ(r.log_from_mmio, -1);
  EXPECT_EQ(r.multicast_unaligned_list, 0);
  EXPECT_EQ(r.multicast_unaligned_bad_port, -1);
  EXPECT_EQ(out[1], (std::vector<Bytes>{Bytes(f.begin(), f.begin() + 20)}));
  EXPECT_EQ(out[2], out[1]);
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["handlers"]["api_probe"]["iss"]["dma_bytes"], 0);
  EXPECT_EQ(s["handlers"]["api_probe"]["log_lines"], 0);  // no line was written
}

// The log file is written like the other outputs: only a run that succeeds leaves it. A handler
// that logs and then faults ends the run (hpu.on_fault = abort) and leaves none, not even a
// partial one; natively the same handler logs and returns, and the file is there.
TEST(HandlerApi, LogFileKeptWhenAFaultStopsTheRun) {
  // The handler logs, then faults: the log up to the fault is the evidence, and is kept.
  ScratchDir dir;
  const std::string trace = write_trace(dir, {{0, 0, probe_frame(0, API_PROBE_FAULT), ""}});
  std::string err;
  EXPECT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--handler-log", dir / "log.txt",
                 "--parser.rules", "udp_dport=5001 -> api_probe", "--hpu.model", "iss"},
                &err),
            1);
  EXPECT_NE(err.find("handler api_probe (cluster 0, HPU 0): ebreak at pc"), std::string::npos) << err;
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "s.json", "log.txt"}));  // no temporary file
  const std::vector<std::string> log = lines_of(slurp(dir / "log.txt"));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(after_time(log[1]), "0 0 api_probe about to fault on cluster 0");
}

TEST(HandlerApi, LogFileOfASucceedingRun) {
  ScratchDir dir;
  const std::string trace = write_trace(dir, {{0, 0, probe_frame(0, API_PROBE_FAULT), ""}});
  std::string err;
  ASSERT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--handler-log", dir / "log.txt",
                 "--parser.rules", "udp_dport=5001 -> api_probe", "--hpu.model", "native"},
                &err),
            0)
      << err;
  const std::vector<std::string> log = lines_of(slurp(dir / "log.txt"));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(after_time(log[1]), "0 0 api_probe about to fault on cluster 0");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "s.json", "log.txt"}));
}

// Without --handler-log the lines are dropped, but they cost their cycles and are counted.
TEST(HandlerApi, LinesCountedWithoutALogFile) {
  ScratchDir dir;
  const std::string trace = write_trace(dir, {{0, 0, probe_frame(0, API_PROBE_ALL), ""}});
  std::string err;
  ASSERT_EQ(cli({"run", "--trace", trace, "--stats", dir / "s.json", "--parser.rules", "udp_dport=5001 -> api_probe",
                 "--hpu.model", "iss"},
                &err),
            0)
      << err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["handlers"]["api_probe"]["log_lines"], 3);
  EXPECT_EQ(s["handlers"]["api_probe"]["outcomes"],
            nlohmann::json({{"ok", 1}, {"iss_only", 0}, {"malformed", 0}, {"fault", 0}}));
}

}  // namespace
}  // namespace fs::test
