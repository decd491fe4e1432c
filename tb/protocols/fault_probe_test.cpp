// Debugging handlers on the ISS, with the test suite's broken handler set (tb/protocols/
// fault_probe): a fault under hpu.on_fault = abort keeps the stats, the instruction trace, the
// Chrome trace and the state dump, and its message names the instruction, the source line and
// the region the address missed; under drop, the lock a faulted run left held is reported once
// and the runs that wait on it are reported as its consequences; the instruction trace's filters,
// markers, addresses and symbols; fs_log lines and --dump-state.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fs_memory_map.h"
#include "common/text.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

constexpr uint16_t kProbePort = 5003;
enum Command : uint32_t { kCount = 1, kStorePast = 2, kLockFault = 3, kLog = 4 };

// A probe packet from host `port` at time `t`: the command and its argument (big-endian words).
TraceRecord probe(Picos t, uint16_t port, uint32_t cmd, uint32_t arg = 0) {
  uint8_t host[6], sw[6], payload[8];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  fs_put_be32(payload, cmd);
  fs_put_be32(payload + 4, arg);
  return TraceRecord{t, port, build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, kProbePort, kProbePort, payload, 8), ""};
}

struct Probed {
  int code;
  std::string out, err;
  nlohmann::json stats;  // null if no stats were written
};

// Runs `trace` through the fault probe on the ISS (one cluster of one HPU unless `extra` says
// otherwise), with the stats in dir/s.json and the options in `extra`, in a child process.
Probed run(const ScratchDir& dir, const std::vector<TraceRecord>& trace, std::vector<std::string> extra) {
  {
    std::ofstream t(dir / "t.txt");
    write_text_trace(t, trace);
  }
  std::vector<std::string> args = {"run", "--trace", dir / "t.txt", "--stats", dir / "s.json", "--hpu.model", "iss",
                                   "--parser.rules", "udp_dport=5003 -> fault_probe", "-q"};
  for (const char* key : {"--pspin.clusters", "--pspin.hpus_per_cluster"})
    if (std::find(extra.begin(), extra.end(), key) == extra.end()) args.insert(args.end(), {key, "1"});
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = cli_in_child(args, dir);
  Probed p{r.code, r.out, r.err, nullptr};
  if (exists(dir / "s.json")) p.stats = nlohmann::json::parse(slurp(dir / "s.json"));
  return p;
}

// The line of `file` (from the source tree) that holds `text`, counted from 1; 0 if none.
unsigned line_holding(const std::string& file, const std::string& text) {
  std::istringstream in(slurp(FLARESIM_SOURCE_DIR "/" + file));
  unsigned n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n, line.find(text) != std::string::npos) return n;
  return 0;
}

TEST(FaultProbe, AbortKeepsTheEvidenceAndNamesTheSourceLine) {
  ScratchDir dir;
  const Probed p = run(dir, {probe(0, 1, kCount), probe(2 * kPicosPerUs, 1, kStorePast, 4), probe(4 * kPicosPerUs, 1, kCount)},
                       {"--trace-insn", dir / "i.txt", "--chrome-trace", dir / "c.json", "--egress", dir / "e.pcapng",
                        "--dump-state", dir / "d.txt"});
  EXPECT_EQ(p.code, 1);
  ASSERT_FALSE(p.stats.is_null()) << p.err;
  // The store goes 4 bytes past the end of the set's L1 range, which the handler sees at FS_L1_LOCAL_BASE.
  const uint32_t l1_bytes = p.stats["handler_memory"]["fault_probe"]["l1_bytes"];
  const uint32_t end = FS_L1_LOCAL_BASE + l1_bytes;
  const std::string line = std::to_string(line_holding("tb/protocols/fault_probe/fault_probe.c", "= 0xdeadbeefu;"));
  const std::string fault = "handler fault_probe (cluster 0, HPU 0): store access fault at address " + hex32(end + 4);
  EXPECT_NE(p.err.find("flaresim: " + fault), std::string::npos) << p.err;
  EXPECT_NE(p.err.find(": `sw "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find(" in fault_probe_handler+0x"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("/tb/protocols/fault_probe/fault_probe.c:" + line + "; the address is 4 bytes past the end of "
                       "L1 (local) [" + hex32(FS_L1_LOCAL_BASE) + ", " + hex32(end) + "); packet 1 from port 1\n"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(p.err.rfind("flaresim: a handler fault stopped the run (hpu.on_fault = abort) at 2.", 0), 0u) << p.err;

  // The stats: the run up to the fault (packet 2 never ran), and why it ended.
  EXPECT_EQ(p.stats["end"]["reason"], "handler_fault");
  EXPECT_EQ(p.stats["end"]["fault"].get<std::string>().rfind(fault, 0), 0u);
  EXPECT_EQ(p.stats["handlers"]["fault_probe"]["runs"], 2);
  EXPECT_EQ(p.stats["handlers"]["fault_probe"]["outcomes"]["ok"], 1);
  EXPECT_EQ(p.stats["handlers"]["fault_probe"]["outcomes"]["fault"], 1);
  EXPECT_EQ(p.stats["verify"]["checks"], 0);

  // The instruction trace: both runs, with start and end markers, and the fault marked.
  const std::vector<std::string> trace = lines_of(slurp(dir / "i.txt"));
  uint64_t instructions = 0;
  std::vector<std::string> markers;
  for (const std::string& l : trace)
    if (l.rfind("# ", 0) == 0 && l.size() > 2 && std::isdigit(static_cast<unsigned char>(l[2])))
      markers.push_back(l.substr(l.find(" fault_probe ") + 13));
    else if (!l.empty() && l[0] != '#')
      ++instructions;
  EXPECT_EQ(instructions, p.stats["handlers"]["fault_probe"]["iss"]["instructions"].get<uint64_t>());
  ASSERT_EQ(markers.size(), 4u);
  const uint32_t len = uint32_t(probe(0, 1, kCount).data.size());
  EXPECT_EQ(markers[0].rfind("start packet 0 port 1 len " + std::to_string(len) + " (run from cycle ", 0), 0u) << markers[0];
  EXPECT_EQ(markers[1].rfind("end ok after ", 0), 0u) << markers[1];
  EXPECT_EQ(markers[2].rfind("start packet 1 port 1 len ", 0), 0u) << markers[2];
  EXPECT_EQ(markers[3].rfind("FAULT after ", 0), 0u) << markers[3];
  EXPECT_NE(markers[3].find(" cycles: " + fault), std::string::npos) << markers[3];

  // The Chrome trace has both runs; the egress capture is a valid (empty) capture; the state
  // dump shows the lock free and the count at 1.
  size_t runs = 0;
  const nlohmann::json chrome = nlohmann::json::parse(slurp(dir / "c.json"));
  for (const auto& e : chrome["traceEvents"]) runs += e["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(runs, 2u);
  EXPECT_EQ(read_trace(dir / "e.pcapng", TraceOptions{}).size(), 0u);
  const std::string dump = slurp(dir / "d.txt");
  EXPECT_NE(dump.find("## fault_probe L1 of cluster 0 (" + std::to_string(l1_bytes) + " bytes at state area offset 0)\n"
                      "00000000  00 00 00 00 01 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
                      "00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n"),
            std::string::npos)
      << dump.substr(0, 600);
}

TEST(FaultProbe, DropReportsTheHeldLockOnceAndTheRunsWaitingOnItAsConsequences) {
  ScratchDir dir;
  // Packet 0 takes the lock and faults on a load from address 0; packets 1 and 2 wait for the
  // lock until the watchdog stops them.
  const Probed p = run(dir, {probe(0, 1, kLockFault, 0), probe(kPicosPerUs, 2, kCount), probe(2 * kPicosPerUs, 3, kCount)},
                       {"--hpu.on_fault", "drop", "--hpu.max_cycles", "3000"});
  ASSERT_EQ(p.code, 0) << p.err;
  const auto& h = p.stats["handlers"]["fault_probe"];
  EXPECT_EQ(h["outcomes"]["fault"], 3);
  EXPECT_EQ(h["fault_consequences"], 2);
  ASSERT_EQ(h["faults"].size(), 3u);
  const std::string first = h["faults"][0];
  const std::string lock_line = std::to_string(line_holding("handlers/include/fs_handler.h", "__atomic_exchange_n(lock, 1u"));
  EXPECT_EQ(first.rfind("handler fault_probe (cluster 0, HPU 0): load access fault at address 0x00000000 (pc ", 0), 0u)
      << first;
  EXPECT_NE(first.find("; the address is in no region; packet 0 from port 1; the run left 1 shared word(s) changed "
                       "by its atomics, which no one will release (a lock it held?): " +
                       hex32(FS_L1_LOCAL_BASE) + " (L1 (local) +0x0) = 1 (was 0; `amoswap.w"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("/handlers/include/fs_handler.h:" + lock_line + ")"), std::string::npos) << first;
  for (int k : {1, 2}) {
    const std::string later = h["faults"][k];
    EXPECT_EQ(later.rfind("consequence of the fault of handler set fault_probe on packet 0, which left the word it "
                          "waited on held: handler fault_probe (cluster 0, HPU 0): ran longer than hpu.max_cycles = "
                          "3000 cycles",
                          0),
              0u)
        << later;
    EXPECT_NE(later.find("; it was waiting on the word at " + hex32(FS_L1_LOCAL_BASE) + " (L1 (local) +0x0), which holds 1; "
                         "packet " + std::to_string(k) + " from port " + std::to_string(k + 1)),
              std::string::npos)
        << later;
    EXPECT_EQ(later.find("the run left"), std::string::npos) << later;  // the lock is reported once
  }
  EXPECT_NE(p.err.find("flaresim: warning: 3 runs of handler set fault_probe faulted (dropped), 2 of them waiting on "
                       "a word an earlier fault left held; the first: " + first + "\n"),
            std::string::npos)
      << p.err;
}

// Instruction lines of a trace (not markers), split into fields: cycle, cluster, hpu, set, pc, ...
std::vector<std::vector<std::string>> insn_lines(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& l : lines_of(text)) {
    if (l.empty() || l[0] == '#') continue;
    std::istringstream ls(l);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    out.push_back(f);
  }
  return out;
}

bool has(const std::vector<std::string>& fields, const std::string& prefix) {
  for (const std::string& f : fields)
    if (f.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(FaultProbe, TraceFiltersMarkersAddressesAndSymbols) {
  ScratchDir dir;
  // Four packets on a 2 x 2 unit, 1 us apart (each run takes well under 1 us: they never overlap).
  std::vector<TraceRecord> trace;
  for (unsigned k = 0; k < 4; ++k) trace.push_back(probe(k * kPicosPerUs, uint16_t(k + 1), kCount));
  const std::vector<std::string> unit = {"--pspin.clusters", "2", "--pspin.hpus_per_cluster", "2"};
  auto traced = [&](std::vector<std::string> filters) {
    filters.insert(filters.begin(), unit.begin(), unit.end());
    filters.insert(filters.end(), {"--trace-insn", dir / "i.txt"});
    const Probed p = run(dir, trace, filters);
    EXPECT_EQ(p.code, 0) << p.err;
    return slurp(dir / "i.txt");
  };
  const std::string all = traced({});
  const auto every = insn_lines(all);
  const std::string one = traced({"--trace-packets", "2"});
  // Packet 2's run alone: its start marker, then exactly the lines of the full trace on its HPU
  // in its time (the runs never overlap, so they are the lines between its markers there).
  const std::vector<std::string> one_lines = lines_of(one);
  ASSERT_GE(one_lines.size(), 4u);
  EXPECT_EQ(one_lines[2].find(" start packet 2 port 3 len "), one_lines[2].find(" fault_probe") + 12) << one_lines[2];
  EXPECT_EQ(one_lines.back().substr(one_lines.back().find(" fault_probe ") + 13, 7), "end ok ") << one_lines.back();
  const size_t start = all.find(one_lines[2]), stop = all.find(one_lines.back());
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(stop, std::string::npos);
  EXPECT_EQ(one.substr(one.find(one_lines[2])), all.substr(start, stop + one_lines.back().size() + 1 - start));

  // A cluster, an HPU: only its lines, as many as the full trace has there. The four packets
  // arrive together here, so that both HPUs of each cluster run.
  std::vector<TraceRecord> together;
  for (unsigned k = 0; k < 4; ++k) together.push_back(probe(0, uint16_t(k + 1), kLog));
  std::swap(trace, together);
  const auto both = insn_lines(traced({}));
  for (const auto& [option, column] : {std::pair<std::string, size_t>{"--trace-clusters", 1}, {"--trace-hpus", 2}}) {
    const auto some = insn_lines(traced({option, "1"}));
    size_t expected = 0;
    for (const auto& f : both) expected += f[column] == "1";
    EXPECT_GT(expected, 0u);
    EXPECT_EQ(some.size(), expected) << option;
    for (const auto& f : some) EXPECT_EQ(f[column], "1") << option;
  }
  std::swap(trace, together);
  // A time window (1 GHz: a cycle is a nanosecond): the lines whose cycle lies in it.
  {
    const auto window = insn_lines(traced({"--trace-from", "1.1us", "--trace-to", "2.5us"}));
    size_t expected = 0;
    for (const auto& f : every) expected += std::stoull(f[0]) >= 1100 && std::stoull(f[0]) <= 2500;
    EXPECT_GT(expected, 0u);
    EXPECT_EQ(window.size(), expected);
  }
  // A line limit: ten lines, then the marker that says the trace stops.
  {
    const std::string limited = traced({"--trace-limit", "10"});
    EXPECT_EQ(insn_lines(limited).size(), 10u);
    EXPECT_NE(limited.find("# the trace stops here: 10 instruction lines (--trace-limit)"), std::string::npos);
  }
  // Loads and stores show the address they accessed; nothing else does. The count's store is
  // to the second word of the set's L1 range.
  size_t stores_to_count = 0;
  for (const auto& f : every) {
    const std::string op = f[6];
    const bool access = op == "lw" || op == "sw" || op == "lbu" || op == "lhu" || op == "lb" || op == "lh" ||
                        op == "sb" || op == "sh" || op.rfind("amo", 0) == 0 || op == "c.lw" || op == "c.sw" ||
                        op == "c.lwsp" || op == "c.swsp" || op == "flw" || op == "fsw";
    EXPECT_EQ(has(f, "mem=0x"), access) << f[4] << " " << op;
    stores_to_count += has(f, "mem=" + hex32(FS_L1_LOCAL_BASE + 4)) && op.find("sw") != std::string::npos;
  }
  EXPECT_EQ(stores_to_count, 4u);
  // Symbols: the handler's first instruction is named, with the source line binutils'
  // addr2line gives for it.
  const std::string elf = FLARESIM_HANDLER_ELF_DIR "/fault_probe.elf";
  std::string where;
  {
    FILE* nm = popen(("riscv64-unknown-elf-addr2line -e '" + elf + "' $(riscv64-unknown-elf-nm '" + elf +
                      "' | sed -n 's/ T fault_probe_handler$//p')").c_str(), "r");
    ASSERT_NE(nm, nullptr);
    char buf[512] = {};
    ASSERT_NE(std::fgets(buf, sizeof buf, nm), nullptr);
    pclose(nm);
    where = buf;
    where = where.substr(where.rfind('/') + 1);
    where = where.substr(0, where.find_first_of(" \n"));
  }
  EXPECT_EQ(where.rfind("fault_probe.c:", 0), 0u) << where;
  size_t entries = 0;
  for (const auto& f : insn_lines(traced({"--trace-symbols"})))
    if (has(f, "<fault_probe_handler>")) {
      ++entries;
      EXPECT_EQ(f.back(), where);
    }
  EXPECT_EQ(entries, 4u);
}

TEST(FaultProbe, LogLinesAndStateDump) {
  ScratchDir dir;
  const Probed p = run(dir, {probe(0, 1, kLog), probe(kPicosPerUs, 2, kLog), probe(2 * kPicosPerUs, 3, kCount)},
                       {"--handler-log", dir / "h.log", "--dump-state", dir / "d.txt"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.stats["end"]["reason"], "finished");
  EXPECT_EQ(p.stats["end"]["fault"], "");
  const std::vector<std::string> log = lines_of(slurp(dir / "h.log"));
  ASSERT_EQ(log.size(), 3u);  // the header and two lines
  EXPECT_NE(log[1].find(" 0 0 fault_probe packet on port 1, count 0"), std::string::npos) << log[1];
  EXPECT_NE(log[2].find(" 0 0 fault_probe packet on port 2, count 1"), std::string::npos) << log[2];
  // Three packets counted, the lock free.
  EXPECT_NE(slurp(dir / "d.txt").find(" L1 of cluster 0 (" + p.stats["handler_memory"]["fault_probe"]["l1_bytes"].dump() +
                                      " bytes at state area offset 0)\n"
                                      "00000000  00 00 00 00 03 00 00 00  00 00 00 00 00 00 00 00  |................|\n"),
            std::string::npos);
}

TEST(FaultProbe, TraceFilterMistakesAreNamed) {
  ScratchDir dir;
  const std::vector<TraceRecord> trace = {probe(0, 1, kCount)};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--trace-limit", "5"}, "flaresim: --trace-limit filters the instruction trace: add --trace-insn FILE\n"},
      {{"--trace-insn", dir / "i.txt", "--trace-sets", "nosuch"},
       "flaresim: --trace-sets: no handler set 'nosuch' is installed (parser.rules installs them)\n"},
      {{"--trace-insn", dir / "i.txt", "--trace-packets", "5-2"},
       "flaresim: bad value '5-2' for '--trace-packets': the range ends before it starts\n"},
      {{"--trace-insn", dir / "i.txt", "--trace-clusters", "1,x"},
       "flaresim: bad value '1,x' for '--trace-clusters': expected a cluster list such as 0-15 or 0,2,5-7\n"},
      {{"--trace-insn", dir / "i.txt", "--trace-from", "3us", "--trace-to", "1us"},
       "flaresim: --trace-to is before --trace-from: the trace would be empty\n"},
  };
  for (const auto& [options, message] : cases) {
    const Probed p = run(dir, trace, options);
    EXPECT_EQ(p.code, 2) << message;
    EXPECT_EQ(p.err, message);
  }
}

}  // namespace
}  // namespace fs::test
