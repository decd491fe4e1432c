// Native handlers catch what the ISS catches (pspin/native_call.h, common/guarded_memory.h), with
// the test suite's deliberately broken handler (tb/protocols/native_faults/): stores past the end
// of its L1 state area and of L2 handler memory and before its packet, a load past L2, a memcpy
// of the C library's past L2, all trapped by guard pages and reported with the memory, the offset
// and the handler's source line; a handler that spins, on a word or on a lock nobody releases,
// stopped by the watchdog; a watchdog that fires inside a call into the simulator waits for the
// call to return. In the host harness (HandlerHarness::run throws HandlerFault) and in
// `flaresim run --hpu.model native`, where a fault follows hpu.on_fault as the ISS's do. The ISS
// faults on the same packets (the independent check that the handler is broken as it says), and
// flare_dense gives the same frames natively as on the ISS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blocks/handler_harness.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "pspin/native_call.h"
#include "support/cli_runner.h"

namespace fs_tb {
namespace {

constexpr uint16_t kPort = 5003;
const std::string kRule = "udp_dport=5003 -> native_faults";

// Modes of native_faults.c (the first payload byte).
enum Mode : uint8_t {
  kOk = 0, kL1PastEnd, kL2PastEnd, kBeforePacket, kL2Load, kSpin, kTakeLock, kMemcpy, kLog, kL1Before, kLocal
};

// A UDP frame from host 0 to the switch whose payload asks for `mode` (and `operand`).
fs::Bytes frame(uint8_t mode, uint32_t operand = 0) {
  uint8_t host[6], sw[6], payload[22] = {0};
  fs_host_mac(0, host);
  fs_switch_mac(sw);
  payload[0] = mode;
  std::memcpy(payload + 4, &operand, 4);
  return fs::build_udp_frame(host, sw, fs_host_ipv4(0), FS_SWITCH_IPV4, kPort, kPort, payload, sizeof payload);
}

// The line of `file` (under the source tree) that holds `marker`, as "file's name:line".
std::string line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(FLARESIM_SOURCE_DIR "/" + file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return file.substr(file.rfind('/') + 1) + ":" + std::to_string(n);
  return "(no '" + marker + "' in " + file + ")";
}
std::string handler_line(const std::string& fault) {
  return line_of("tb/protocols/native_faults/native_faults.c", "/* fault: " + fault + " */");
}

// The message with what differs from build to build and run to run written as '?': host addresses
// ("host pc 0x?": the program is loaded at a random address) and the folders of source files
// (" at native_faults.c:31": the compiler names files relative to where it ran).
std::string masked(std::string m) {
  for (size_t at = 0; (at = m.find("host pc 0x", at)) != std::string::npos;) {
    at += 10;
    size_t end = at;
    while (end < m.size() && std::isxdigit(static_cast<unsigned char>(m[end]))) ++end;
    m.replace(at, end - at, "?");
  }
  for (size_t at = 0; (at = m.find(" at /", at)) != std::string::npos;) {
    const size_t colon = m.find(':', at), slash = m.rfind('/', colon);
    m.erase(at + 4, slash + 1 - (at + 4));
    at += 4;
  }
  return m;
}

// 2 clusters of 2 HPUs, 64 KiB L1: a state area of 65536 - 2 x 9216 = 47104 bytes (11.5 pages:
// its end touches the guard page, the half page of padding is before it); 4 KiB of L2.
fs::Config small() {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.l1_bytes = 65536;
  cfg.pspin.l2_handler_bytes = 4096;
  cfg.ports.count = 4;
  cfg.hpu.native_watchdog_ms = 50;
  return cfg;
}

// The fault HandlerHarness::run threw on `f`, masked; "(no fault)" if it returned.
std::string harness_fault(HandlerHarness& h, const fs::Bytes& f, uint32_t cluster = 0, uint32_t hpu = 0) {
  try {
    h.run(f, 0, cluster, hpu);
  } catch (const HandlerFault& e) {
    return masked(e.what());
  }
  return "(no fault)";
}

TEST(NativeFaults, HarnessStorePastTheEndOfL1) {
  HandlerHarness h(small(), "native_faults");
  // Cluster 1's state area: the store at l1_size + 11 is the 12th byte past it.
  EXPECT_EQ(harness_fault(h, frame(kL1PastEnd), 1, 1),
            "handler native_faults (cluster 1, HPU 1): store access fault 12 bytes past the end of cluster 1's L1 "
            "state area (offset 47115 of its 47104 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("l1") + "; packet 0 from port 0");
  // Nothing was written, and the harness goes on: the next packet runs, and is packet 1.
  EXPECT_EQ(h.run(frame(kOk)).outcome, FS_OK);
  EXPECT_EQ(harness_fault(h, frame(kL1PastEnd)),
            "handler native_faults (cluster 0, HPU 0): store access fault 12 bytes past the end of cluster 0's L1 "
            "state area (offset 47115 of its 47104 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("l1") + "; packet 2 from port 0");
}

TEST(NativeFaults, HarnessStoreAndLoadPastTheEndOfL2HandlerMemory) {
  HandlerHarness h(small(), "native_faults");
  EXPECT_EQ(harness_fault(h, frame(kL2PastEnd)),
            "handler native_faults (cluster 0, HPU 0): store access fault 1 byte past the end of L2 handler memory "
            "(offset 4096 of its 4096 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("l2") + "; packet 0 from port 0");
  EXPECT_EQ(harness_fault(h, frame(kL2Load)),
            "handler native_faults (cluster 0, HPU 0): load access fault 101 bytes past the end of L2 handler memory "
            "(offset 4196 of its 4096 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("l2 load") + "; packet 1 from port 0");
}

TEST(NativeFaults, HarnessStoreBeforeThePacket) {
  HandlerHarness h(small(), "native_faults");
  // The frame is 2 bytes into the slot (FS_PKT_FRAME_OFFSET): pkt[-3] is the byte before the slot.
  EXPECT_EQ(harness_fault(h, frame(kBeforePacket), 0, 1),
            "handler native_faults (cluster 0, HPU 1): store access fault 1 byte before the start of HPU 1 of "
            "cluster 0's packet slot (offset -1 of its 9216 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("before packet") + "; packet 0 from port 0");
}

// Both edges of a state area of whole pages (2 x 9216 bytes of slots + 8192 of state) touch a
// guard page.
TEST(NativeFaults, HarnessStoreBeforeAnL1StateAreaOfWholePages) {
  fs::Config cfg = small();
  cfg.pspin.l1_bytes = 2 * 9216 + 8192;
  HandlerHarness h(cfg, "native_faults");
  EXPECT_EQ(harness_fault(h, frame(kL1Before)),
            "handler native_faults (cluster 0, HPU 0): store access fault 1 byte before the start of cluster 0's L1 "
            "state area (offset -1 of its 8192 bytes) at host pc 0x? in native_faults_handler at " +
                handler_line("l1 before") + "; packet 0 from port 0");
}

#if defined(__SANITIZE_ADDRESS__)
// The harness without a watchdog: ASan's report, which symbolises the stack, may take longer than
// small()'s 50 ms (the watchdog lets a report that has begun finish, not one about to begin).
fs::Config asan() {
  fs::Config cfg = small();
  cfg.hpu.native_watchdog_ms = 0;
  return cfg;
}

// With AddressSanitizer (FS_SANITIZE=address, FLARESIM_SANITIZE) the page padding is poisoned: the
// 47104-byte state area's 2048 bytes before its start are reported, not written.
TEST(NativeFaultsAsan, PagePaddingIsPoisoned) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  HandlerHarness h(asan(), "native_faults");
  EXPECT_DEATH(h.run(frame(kL1Before)), "use-after-poison");
}

// And what no guard page sees: a handler's local array overrun (reported by ASan, or first by
// UBSan's bounds check where it is on too, in FLARESIM_SANITIZE builds).
TEST(NativeFaultsAsan, LocalArrayOverrun) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  HandlerHarness h(asan(), "native_faults");
  EXPECT_EQ(h.run(frame(kLocal, 15)).outcome, 0);  // its last element: fine
  EXPECT_DEATH(h.run(frame(kLocal, 16)), "AddressSanitizer: stack-buffer-overflow|index 16 out of bounds for type");
}
#else
// Without it, the guarantee is the pages': the 47104-byte state area (11.5 pages) has its half
// page of padding before its start, which takes a store without a trap (docs/HANDLERS.md).
TEST(NativeFaults, PagePaddingTakesAStoreWithoutAsan) {
  HandlerHarness h(small(), "native_faults");
  EXPECT_EQ(h.run(frame(kL1Before)).outcome, FS_OK);
  EXPECT_EQ(h.l1(0)[-1], 9);
}
#endif

// The store is the C library's (its name and its code vary with the machine: not checked); the
// message names the handler's call of memcpy too. 4 bytes copied to the end of L2: the first
// byte past it is the one that traps whichever way memcpy moves them.
TEST(NativeFaults, HarnessMemcpyPastTheEndOfL2NamesTheHandlersCall) {
  HandlerHarness h(small(), "native_faults");
  const std::string m = harness_fault(h, frame(kMemcpy, 4));
  const std::string head =
      "handler native_faults (cluster 0, HPU 0): store access fault 1 byte past the end of L2 handler memory "
      "(offset 4096 of its 4096 bytes) at host pc 0x?";
  const std::string tail = ", called from host pc 0x? in native_faults_handler at " + handler_line("memcpy") +
                           "; packet 0 from port 0";
  EXPECT_EQ(m.substr(0, head.size()), head) << m;
  ASSERT_GE(m.size(), tail.size()) << m;
  EXPECT_EQ(m.substr(m.size() - tail.size()), tail) << m;
}

TEST(NativeFaults, HarnessWatchdogStopsASpinningHandler) {
  HandlerHarness h(small(), "native_faults");
  EXPECT_EQ(harness_fault(h, frame(kSpin)),
            "handler native_faults (cluster 0, HPU 0): ran longer than hpu.native_watchdog_ms = 50 ms (wall time), "
            "stopped at host pc 0x? in native_faults_handler at " +
                handler_line("spin") + "; packet 0 from port 0");
  // Once its word is set, the same handler returns.
  h.l1(0)[0] = 1;
  EXPECT_EQ(h.run(frame(kSpin)).outcome, FS_OK);
}

// The first packet takes the lock and returns without releasing it; the second waits in fs_lock
// (fs_handler.h, inlined into the handler) until the watchdog stops it.
TEST(NativeFaults, HarnessWatchdogStopsAWaitForALockNobodyReleases) {
  HandlerHarness h(small(), "native_faults");
  EXPECT_EQ(h.run(frame(kTakeLock)).outcome, FS_OK);
  EXPECT_EQ(harness_fault(h, frame(kTakeLock)),
            "handler native_faults (cluster 0, HPU 0): ran longer than hpu.native_watchdog_ms = 50 ms (wall time), "
            "stopped at host pc 0x? in fs_lock at " +
                line_of("handlers/include/fs_handler.h", "while (__atomic_load_n(lock, __ATOMIC_RELAXED))") +
                ", inlined into native_faults_handler at " + handler_line("lock") + "; packet 1 from port 0");
}

// A stream whose writes wait until the watchdog has fired: a call into the simulator (fs_log_write)
// that takes longer than the bound. The call is not cut: it returns, and the handler stops there.
class WaitsForTheWatchdog : public std::streambuf {
 public:
  std::string text;

 protected:
  int overflow(int c) override {
    wait();
    if (c != EOF) text += char(c);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    wait();
    text.append(s, size_t(n));
    return n;
  }

 private:
  void wait() {
    while (!fs::native_stop_pending()) {
    }
  }
};

TEST(NativeFaults, WatchdogInsideACallIntoTheSimulatorWaitsForItsReturn) {
  fs::Config cfg = small();
  fs::PspinMemory memory(cfg.pspin, cfg.hpu);
  const int set = fs::find_handler_set("native_faults");
  ASSERT_GE(set, 0);
  memory.assign(set, fs::HandlerSetMemory{0, memory.l1_layout().state_bytes(), 0, 4096});
  const fs::HpuMemoryView& view = memory.view(0, 0, set);
  const fs::HandlerJob job{fs::handler_sets()[size_t(set)], fs::place_packet(view, frame(kLog), 0), view};
  WaitsForTheWatchdog buffer;
  std::ostream out(&buffer);
  fs::HandlerLog log(&out);
  fs::NativeEngine engine(cfg.hpu, cfg.dma);
  engine.set_handler_log(&log);
  fs::HpuEnvironment env;
  env.num_ports = 4;
  const fs::HandlerRun run = engine.execute(job, env);
  // The call wrote its whole line, then the handler stopped at the call's return.
  EXPECT_EQ(buffer.text, "0.000 0 0 native_faults slow\n");
  EXPECT_EQ(run.log_lines, 1u);
  EXPECT_EQ(masked(run.fault),
            "handler native_faults (cluster 0, HPU 0): ran longer than hpu.native_watchdog_ms = 50 ms (wall time), "
            "stopped at host pc 0x? in native_faults_handler at " +
                handler_line("log"));
}

// A pointer just past a simulated memory is refused by the call, as the ISS refuses an address
// no region holds, and the guard never traps inside the simulator.
int passes_stray_pointers(const fs_handler_args_t* a) {
  int refused = 0;
  refused += fs_send(a->handler_mem + a->handler_mem_size - 4, 8, 0) == -1;
  refused += fs_host_write(0, 0, a->pkt - 3, 4) == -1;
  refused += fs_dma_copy(a->l1 + a->l1_size, a->pkt, 1) == -1;
  refused += fs_dma_copy(a->l1, a->l1 + a->l1_size - 1, 2) == -1;
  refused += fs_log_write(reinterpret_cast<const char*>(a->handler_mem + a->handler_mem_size), 1) == -1;
  const uint32_t ports[1] = {0};
  refused += fs_multicast(a->l1 + a->l1_size, 1, ports, 1) == -1;
  refused += fs_cluster_l1(1, reinterpret_cast<uint32_t*>(a->l1 + a->l1_size)) == nullptr;
  // In range: made (the frame from the stack too).
  const uint8_t local[4] = {1, 2, 3, 4};
  const int made = (fs_send(local, 4, 1) == 0) + (fs_dma_copy(a->l1, a->pkt, 16) == 0);
  return refused * 10 + made;
}

TEST(NativeFaults, CallsRefusePointersThatReachAGuard) {
  fs::HandlerSet set;
  set.name = "strays";
  set.fn = passes_stray_pointers;
  set.outcomes = {{"ok", false}};
  set.block_id_offset = set.block_group_offset = -1;
  HandlerHarness h(small(), set, false);
  const HandlerCall c = h.run(frame(kOk));
  EXPECT_EQ(c.outcome, 7 * 10 + 2);
  ASSERT_EQ(c.sent.size(), 1u);
  EXPECT_EQ(c.sent[0].data, fs::Bytes({1, 2, 3, 4}));
}

// ---- `flaresim run --hpu.model native` ----

// Three packets on port 0, 10 us apart: fine, `mode`, fine.
std::string three_packets(const fs::test::ScratchDir& dir, uint8_t mode) {
  std::ofstream t(dir / "t.txt");
  fs::write_text_trace(t, {{0, 0, frame(kOk), ""}, {10 * fs::kPicosPerUs, 0, frame(mode), ""},
                           {20 * fs::kPicosPerUs, 0, frame(kOk), ""}});
  return dir / "t.txt";
}

std::vector<std::string> run_args(const fs::test::ScratchDir& dir, uint8_t mode, const std::string& model,
                                  const std::string& on_fault) {
  return {"run", "--trace", three_packets(dir, mode), "--stats", dir / "s.json", "--parser.rules", kRule,
          "--pspin.clusters", "1", "--pspin.hpus_per_cluster", "1", "--hpu.model", model, "--hpu.on_fault", on_fault,
          "--hpu.native_watchdog_ms", "50"};
}

// The L1 state area of one cluster with one HPU: 1 MiB - 9216 bytes.
const std::string kL1Fault = "handler native_faults (cluster 0, HPU 0): store access fault 12 bytes past the end of "
                             "cluster 0's L1 state area (offset 1039371 of its 1039360 bytes) at host pc 0x? in "
                             "native_faults_handler at ";

TEST(NativeFaults, RunOnFaultAbortStopsWithTheMessage) {
  fs::test::ScratchDir dir;
  std::string err;
  EXPECT_EQ(fs::test::cli_in_process(run_args(dir, kL1PastEnd, "native", "abort"), nullptr, &err), 1);
  EXPECT_NE(masked(err).find(kL1Fault + handler_line("l1") + "; packet 1 from port 0\n"), std::string::npos) << err;
  // The stats are kept as the evidence, and say the run stopped at the fault.
  EXPECT_EQ(nlohmann::json::parse(fs::test::slurp(dir / "s.json"))["end"]["reason"], "handler_fault");
}

TEST(NativeFaults, RunOnFaultDropCountsTheFault) {
  fs::test::ScratchDir dir;
  std::string err;
  ASSERT_EQ(fs::test::cli_in_process(run_args(dir, kL1PastEnd, "native", "drop"), nullptr, &err), 0) << err;
  const auto s = nlohmann::json::parse(fs::test::slurp(dir / "s.json"));
  const auto& h = s["handlers"]["native_faults"];
  EXPECT_EQ(h["outcomes"], nlohmann::json({{"ok", 2}, {"fault", 1}}));
  ASSERT_EQ(h["faults"].size(), 1u);
  EXPECT_EQ(masked(h["faults"][0]), kL1Fault + handler_line("l1") + "; packet 1 from port 0");
  EXPECT_EQ(s["drops"]["by_handler"]["native_faults"]["fault"], 1);
}

// The ISS, which checks every access, faults on the same packet: the handler is broken as it says.
TEST(NativeFaults, RunOnTheIssFaultsOnTheSamePacket) {
  fs::test::ScratchDir dir;
  std::string err;
  ASSERT_EQ(fs::test::cli_in_process(run_args(dir, kL1PastEnd, "iss", "drop"), nullptr, &err), 0) << err;
  const auto s = nlohmann::json::parse(fs::test::slurp(dir / "s.json"));
  const auto& h = s["handlers"]["native_faults"];
  EXPECT_EQ(h["outcomes"], nlohmann::json({{"ok", 2}, {"fault", 1}}));
  ASSERT_EQ(h["faults"].size(), 1u);
  // L1 (local) at 0x10000000: the store at 1039360 + 11 = 0xFDC0B past it.
  EXPECT_NE(h["faults"][0].get<std::string>().find("store access fault at address 0x100fdc0b"), std::string::npos)
      << h["faults"][0];
}

TEST(NativeFaults, RunWatchdogStopsASpinningHandler) {
  fs::test::ScratchDir dir;
  std::string err;
  ASSERT_EQ(fs::test::cli_in_process(run_args(dir, kSpin, "native", "drop"), nullptr, &err), 0) << err;
  const auto s = nlohmann::json::parse(fs::test::slurp(dir / "s.json"));
  const auto& h = s["handlers"]["native_faults"];
  EXPECT_EQ(h["outcomes"], nlohmann::json({{"ok", 2}, {"fault", 1}}));
  ASSERT_EQ(h["faults"].size(), 1u);
  EXPECT_EQ(masked(h["faults"][0]),
            "handler native_faults (cluster 0, HPU 0): ran longer than hpu.native_watchdog_ms = 50 ms (wall time), "
            "stopped at host pc 0x? in native_faults_handler at " +
                handler_line("spin") + "; packet 1 from port 0");
}

// flare_dense natively, its memories guarded: the allreduce verifies, nothing faults, and the
// switch sends the same frames as with the ISS running its RISC-V build.
TEST(NativeFaults, FlareDenseGivesTheSameFramesNativelyAsOnTheIss) {
  fs::test::ScratchDir dir;
  ASSERT_EQ(fs::test::flaresim("gen allreduce --hosts 4 --bytes 10000 --seed 3 -o t.txt", dir).code, 0);
  std::vector<std::vector<std::pair<uint16_t, fs::Bytes>>> frames;
  for (const char* model : {"native", "iss"}) {
    const fs::test::CliResult r =
        fs::test::flaresim(std::string("run --trace t.txt --flare.ports 0-3 --verify t.txt.expected -q --egress e-") +
                               model + ".pcapng --stats s-" + model + ".json --hpu.model " + model,
                           dir);
    ASSERT_EQ(r.code, 0) << model << ": " << r.err;
    EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << r.out;
    const auto s = nlohmann::json::parse(fs::test::slurp(dir / ("s-" + std::string(model) + ".json")));
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["fault"], 0) << model;
    std::vector<std::pair<uint16_t, fs::Bytes>> sent;
    for (const fs::TraceRecord& rec : fs::read_trace(dir / ("e-" + std::string(model) + ".pcapng"), {}))
      sent.push_back({rec.port, rec.data});
    std::sort(sent.begin(), sent.end());
    frames.push_back(sent);
  }
  EXPECT_EQ(frames[0].size(), 40u);  // 4 hosts x 10 blocks: the result to each
  EXPECT_EQ(frames[0], frames[1]);
}

}  // namespace
}  // namespace fs_tb
