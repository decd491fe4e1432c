// The pkt_counter protocol as a plug-in (see pkt_counter.h): everything a protocol provides,
// written against the plug-in interface alone, in the test suite. Its configuration section
// (pkt_counter.slots), its handler set and control plane (memory for the counters, the
// installer), its text-trace syntax ('count [bytes=N]'), `flaresim gen pkt_counter`, its
// expected-results files and verifier, and its stats section (the counts read back from memory).
#include "protocols/pkt_counter/pkt_counter.h"

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <boost/program_options.hpp>

#include "common/output_files.h"
#include "config/config_io.h"
#include "config/config_keys.h"
#include "common/errors.h"
#include "net/frame.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "switch/switch.h"

extern "C" const fs_handler_set_desc_t pkt_counter_handler_set;

namespace fs_tb {
namespace {

using namespace fs;

struct CounterConfig {
  unsigned slots = 64;  // ports counted
};
constexpr const char* kSection = "pkt_counter";

class CounterControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t, uint64_t) const override {
    return MemoryNeed{pkt_counter_l1_bytes(cfg.sections.get<CounterConfig>(kSection).slots),
                      sizeof(pkt_counter_config_t)};
  }
  void install(const Config& cfg, const InstallTarget& t) const override {
    pkt_counter_config_t c{PKT_COUNTER_MAGIC, cfg.sections.get<CounterConfig>(kSection).slots, 0};
    std::memcpy(t.handler_mem, &c, sizeof c);
  }
};

Bytes counter_frame(uint16_t port, uint32_t bytes) {
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  const Bytes payload(bytes, 0);
  return build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, PKT_COUNTER_UDP_PORT, PKT_COUNTER_UDP_PORT,
                         payload.data(), payload.size());
}

class CountSyntax : public TraceSyntax {
 public:
  std::string keyword() const override { return "count"; }
  std::string usage() const override { return "count [bytes=N]"; }
  Bytes build(const std::vector<std::string>& toks, size_t first, uint16_t port,
              const std::string& where) const override {
    uint64_t bytes = 64;
    for (size_t i = first; i < toks.size(); ++i)
      if (toks[i].rfind("bytes=", 0) != 0 || !parse_token_uint(toks[i].substr(6), 1400, &bytes) || bytes < 4)
        throw InputError(where + ": count: expected bytes=N (4 to 1400), got " + quote_token(toks[i]));
    return counter_frame(port, uint32_t(bytes));
  }
};

// Every port must get back exactly `packets` answers, the last counting them all (one cluster).
class CounterVerifier : public ResultVerifier {
 public:
  explicit CounterVerifier(std::map<uint16_t, uint32_t> want) : want_(std::move(want)) {}
  void take(uint16_t port, Picos, const Bytes& frame) override {
    const FrameInfo f = parse_frame(frame.data(), frame.size());
    if (!f.ok || !f.udp || f.udp_dport != PKT_COUNTER_UDP_PORT || f.l4_len < 4) return;
    ++got_[port];
    last_[port] = fs_be32(frame.data() + f.l4_offset);
  }
  VerifyReport report() const override {
    VerifyReport r;
    for (const auto& [port, n] : want_) {
      const auto g = got_.find(port);
      const uint32_t got = g == got_.end() ? 0 : g->second;
      r.expected_packets += n;
      r.matched += std::min(n, got);
      r.missing += n > got ? n - got : 0;
      if (got && last_.at(port) != n) {
        ++r.wrong;
        r.problems.push_back("port " + std::to_string(port) + ": last count " + std::to_string(last_.at(port)));
      }
    }
    r.ok = !r.missing && !r.wrong;
    return r;
  }

 private:
  std::map<uint16_t, uint32_t> want_;
  std::map<uint16_t, uint32_t> got_, last_;  // per port: answers so far, the last one's count
};

class PktCounter : public Protocol {
 public:
  std::string name() const override { return "pkt_counter"; }
  std::string doc() const override { return "the test suite's packet counter"; }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kSection, CounterConfig{},
                          {uint_key("pkt_counter.slots", "ports the counter counts (0 .. slots-1)", 1, 4096,
                                    FS_SECTION_FIELD(CounterConfig, kSection, slots))}}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&pkt_counter_handler_set, &control_}}; }
  const TraceSyntax* trace_syntax() const override { return &syntax_; }
  std::vector<std::string> gen_names() const override { return {"pkt_counter"}; }

  // gen pkt_counter --ports N --packets K -o TRACE: K packets from each of ports 0..N-1, 1 us apart.
  int gen(const std::string&, const std::vector<std::string>& args) const override {
    namespace po = boost::program_options;
    unsigned ports = 0, packets = 0;
    std::string out;
    po::options_description desc("flaresim gen pkt_counter options");
    desc.add_options()("ports", po::value<unsigned>(&ports)->required(), "ports")(
        "packets", po::value<unsigned>(&packets)->required(), "packets per port")(
        "output,o", po::value<std::string>(&out)->required(), "trace");
    parse_command_line(args, desc);
    std::vector<TraceRecord> records;
    for (unsigned k = 0; k < packets; ++k)
      for (unsigned p = 0; p < ports; ++p)
        records.push_back(TraceRecord{Picos(k) * kPicosPerUs, uint16_t(p), counter_frame(uint16_t(p), 64), ""});
    OutputFiles files;
    std::ostream& trace = files.add("--output", out);
    std::ostream& expected = files.add("--output (its expected results)", out + ".expected");
    write_text_trace(trace, records);
    expected << expected_header() << "\n";
    for (unsigned p = 0; p < ports; ++p) expected << "port " << p << " packets " << packets << "\n";
    files.commit();
    return 0;
  }
  std::string expected_header() const override { return "pkt-counter-expected 1"; }
  std::unique_ptr<ResultVerifier> read_expected(const std::string& path) const override {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::map<uint16_t, uint32_t> want;
    for (size_t n = 2; std::getline(in, line); ++n) {
      std::istringstream w(line);
      std::string port_word, packets_word;
      unsigned port = 0, packets = 0;
      if (!(w >> port_word >> port >> packets_word >> packets) || port_word != "port" || packets_word != "packets")
        throw InputError(path + ":" + std::to_string(n) + ": expected 'port P packets N'");
      want[uint16_t(port)] = packets;
    }
    return std::make_unique<CounterVerifier>(want);
  }
  void add_stats(const RunView& run, nlohmann::json& stats) const override {
    const int set = find_handler_set("pkt_counter");
    const HandlerSetMemory& mem = run.sw.pspin().set_memory(set);
    if (!mem.l1_bytes) return;
    const unsigned slots = run.cfg.sections.get<CounterConfig>(kSection).slots;
    std::map<std::string, uint64_t> by_port;
    PspinMemory& memory = run.sw.pspin().memory();
    for (unsigned c = 0; c < memory.clusters(); ++c) {
      const uint8_t* l1 = memory.set_l1(set, c).data();
      for (unsigned p = 0; p < slots; ++p) {
        uint32_t v;
        std::memcpy(&v, l1 + 4 * p, 4);
        if (v) by_port[std::to_string(p)] += v;
      }
    }
    uint32_t total, bytes;
    std::memcpy(&total, memory.set_l1(set, 0).data() + 4 * slots, 4);
    std::memcpy(&bytes, memory.set_l2(set).data() + offsetof(pkt_counter_config_t, bytes), 4);
    stats["pkt_counter"] = {{"by_port", by_port}, {"packets", total}, {"bytes", bytes}};
  }

 private:
  CounterControl control_;
  CountSyntax syntax_;
};

}  // namespace

FS_PROTOCOL(PktCounter);

}  // namespace fs_tb
