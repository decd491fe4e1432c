// The pspin_examples protocol: PsPIN's five public example handlers (empty, ping_pong, aggregate,
// reduce, histogram; handlers/pspin_examples/) as a flaresim plug-in: the five handler sets and
// their control planes (the message states in L2 handler memory), `flaresim gen pspin_examples`
// and one gen name per set (the traffic of PsPIN's example drivers), the expected-results files
// and their verifier (pspin_workload.h), and a stats section with each installed set's message
// states. It adds no parser rule by default: a run names the set, e.g.
// --parser.rules 'udp_dport=9104 -> pspin_histogram_l1' (gen prints the line).
#include <algorithm>
#include <cstring>
#include <iostream>

#include <boost/program_options.hpp>

#include "common/errors.h"
#include "common/output_files.h"
#include "common/text.h"
#include "config/config_io.h"
#include "net/trace_reader.h"
#include "net/trace_syntax.h"
#include "net/trace_writer.h"
#include "net/frame.h"
#include "plugin/protocol.h"
#include "protocols/pspin_examples/pspin_workload.h"
#include "switch/switch.h"

extern "C" const fs_handler_set_desc_t pspin_empty_handler_set;
extern "C" const fs_handler_set_desc_t pspin_pingpong_handler_set;
extern "C" const fs_handler_set_desc_t pspin_aggregate_global_handler_set;
extern "C" const fs_handler_set_desc_t pspin_reduce_l1_handler_set;
extern "C" const fs_handler_set_desc_t pspin_histogram_l1_handler_set;

namespace po = boost::program_options;

namespace fs {
namespace {

// Bytes of one message state in each cluster's L1 (0: the example keeps none there).
uint32_t l1_state_bytes(uint32_t example) {
  if (example == PSPIN_EX_REDUCE_L1) return PSPIN_REDUCE_STATE_BYTES;
  if (example == PSPIN_EX_HISTOGRAM_L1) return PSPIN_HISTOGRAM_STATE_BYTES;
  return 0;
}

// "pspin_empty, pspin_pingpong, ...".
std::string example_names() {
  std::string names;
  for (const PspinExample& e : pspin_examples()) names += std::string(names.empty() ? "" : ", ") + e.set;
  return names;
}

bool keeps_messages(uint32_t example) { return example >= PSPIN_EX_AGGREGATE_GLOBAL; }

// The message states a set's memory holds: every id the L2 counters have room for, or as many
// L1 states as its share of each cluster's L1 state area holds.
uint32_t message_states(uint32_t example, uint64_t l1_bytes) {
  const uint32_t per = l1_state_bytes(example);
  return per ? uint32_t(std::min<uint64_t>(PSPIN_EX_MAX_MESSAGES, l1_bytes / per)) : PSPIN_EX_MAX_MESSAGES;
}

// The smallest range the layout gives (its alignment) for memory a set does not use, so that it
// takes no share from the sets installed beside it.
constexpr uint64_t kUnused = 64;

class ExampleControl : public HandlerSetControl {
 public:
  explicit ExampleControl(uint32_t example) : example_(example) {}
  MemoryNeed memory_need(const Config& cfg, uint64_t, uint64_t) const override {
    if (!keeps_messages(example_)) return MemoryNeed{kUnused, kUnused};
    return MemoryNeed{l1_state_bytes(example_) ? 0 : kUnused, pspin_ex_l2_bytes(example_, cfg.pspin.clusters)};
  }
  void install(const Config&, const InstallTarget& t) const override {
    if (!keeps_messages(example_)) return;
    const uint32_t states = message_states(example_, t.l1_state_bytes);
    if (!states)
      throw InputError(std::string("handler set ") + pspin_examples()[example_].set + ": its share of each cluster's L1 "
                       "state area, " + std::to_string(t.l1_state_bytes) + " bytes, holds no message state of " +
                       std::to_string(l1_state_bytes(example_)) + " bytes (pspin.l1_bytes, or the sets installed beside it)");
    std::memcpy(t.handler_mem, &states, 4);  // the counters and sums start at zero
  }

 private:
  uint32_t example_;
};

class PspinExamples : public Protocol {
 public:
  std::string name() const override { return "pspin_examples"; }
  std::string doc() const override {
    return "PsPIN's example handlers (empty, ping_pong, aggregate, reduce, histogram) and their drivers' traffic";
  }
  std::vector<HandlerSetSpec> handler_sets() const override {
    return {{&pspin_empty_handler_set, &controls_[PSPIN_EX_EMPTY]},
            {&pspin_pingpong_handler_set, &controls_[PSPIN_EX_PINGPONG]},
            {&pspin_aggregate_global_handler_set, &controls_[PSPIN_EX_AGGREGATE_GLOBAL]},
            {&pspin_reduce_l1_handler_set, &controls_[PSPIN_EX_REDUCE_L1]},
            {&pspin_histogram_l1_handler_set, &controls_[PSPIN_EX_HISTOGRAM_L1]}};
  }
  std::vector<std::string> gen_names() const override {
    std::vector<std::string> names{"pspin_examples"};
    for (const PspinExample& e : pspin_examples()) names.push_back(e.set);
    return names;
  }
  int gen(const std::string& name, const std::vector<std::string>& args) const override;
  std::string expected_header() const override { return kPspinExpectedHeader; }
  std::unique_ptr<ResultVerifier> read_expected(const std::string& path) const override {
    return std::make_unique<Verifier>(read_pspin_expected(path));
  }
  void add_stats(const RunView& run, nlohmann::json& stats) const override {
    nlohmann::json section = nlohmann::json::object();
    for (const PspinExample& e : pspin_examples()) {
      const HandlerSetMemory& mem = run.sw.pspin().set_memory(find_handler_set(e.set));
      if (!mem.l1_bytes || !keeps_messages(e.index)) continue;  // not installed, or no messages
      section[e.set] = {{"message_states", message_states(e.index, mem.l1_bytes)}};
    }
    stats["pspin_examples"] = section;  // keyed by installed set: {} when none is
  }

 private:
  // Keeps the frames to the example's UDP port (the only ones verify_pspin_egress looks at) and
  // checks them at the end.
  class Verifier : public ResultVerifier {
   public:
    explicit Verifier(PspinExpected e) : e_(std::move(e)), udp_(pspin_example_udp_port(e_.example)) {}
    void take(uint16_t port, Picos time, const Bytes& frame) override {
      const FrameInfo f = parse_frame(frame.data(), frame.size());
      if (f.ok && f.udp && f.udp_dport == udp_) kept_.push_back(EgressRecord{port, time, frame});
    }
    VerifyReport report() const override { return verify_pspin_egress(e_, kept_); }

   private:
    PspinExpected e_;
    uint16_t udp_;
    std::vector<EgressRecord> kept_;
  };
  const ExampleControl controls_[PSPIN_EX_COUNT] = {ExampleControl(0), ExampleControl(1), ExampleControl(2),
                                                    ExampleControl(3), ExampleControl(4)};
};

int PspinExamples::gen(const std::string& name, const std::vector<std::string>& rest) const {
  const bool generic = name == "pspin_examples";
  const PspinGenOptions d;
  const Config dc;
  std::string example_name = generic ? "" : name;
  PspinGenOptions o;
  po::options_description desc("flaresim gen " + name + " options (the defaults are those of PsPIN's generic driver)");
  auto add = desc.add_options();
  add("help,h", "show this help");
  if (generic)
    add("example", po::value<std::string>(&example_name)->required(), ("the example's handler set: " + example_names()).c_str());
  add("config", po::value<std::string>(), "INI file whose ports.* and sim.seed keys set what the options below leave "
      "open, as in 'flaresim run'; any such key may also be given as --section.key VALUE");
  add("messages", po::value<uint32_t>(&o.messages)->default_value(d.messages),
      ("messages, 1 to " + std::to_string(PSPIN_EX_MAX_MESSAGES)).c_str());
  add("packets", po::value<uint32_t>(&o.packets)->default_value(d.packets), "packets per message, 1 to 65535");
  add("size", po::value<uint32_t>(&o.size)->default_value(d.size), "bytes of each IPv4 packet, headers and the "
      "12-byte message header included (the Ethernet frame has 14 more); the data is 1 or more 32-bit words");
  add("gap", po::value<std::string>()->default_value("20ns"), "from one packet's arrival to the next's, within a message");
  add("message-gap", po::value<std::string>()->default_value("40ns"), "from a message's last packet's arrival to the next "
      "message's first");
  add("hosts", po::value<unsigned>(&o.hosts)->default_value(0), "ports the packets arrive on in turn (packet k on port "
      "k mod hosts); 0 = the fewest whose links carry the stream (ports.gbps)");
  add("seed", po::value<uint64_t>()->default_value(dc.seed), "seed of the data words (or sim.seed)");
  add("output,o", po::value<std::string>()->required(), "trace to write: .pcapng for pcapng, anything else text");
  const std::optional<ConfiguredCommandLine> line = parse_configured_command_line(rest, desc);
  if (!line) return 0;  // --help
  const po::variables_map& vm = line->vm;
  const Config& cfg = line->cfg;
  const bool seed_given = !vm["seed"].defaulted();
  if (seed_given && vm.count("sim.seed")) throw InputError("--seed and --sim.seed both given: give one");
  const PspinExample* ex = find_pspin_example(example_name);
  if (!ex) throw InputError("--example: no example " + quote_token(example_name) + " (" + example_names() + ")");
  o.example = ex->index;
  o.seed = seed_given ? vm["seed"].as<uint64_t>() : cfg.seed;
  o.gbps = cfg.ports.gbps;
  o.wire_overhead = cfg.ports.wire_overhead;
  o.num_ports = cfg.ports.count;
  auto time_option = [&](const char* opt) {
    Picos t = 0;
    std::string err;
    if (!parse_time_token(vm[opt].as<std::string>(), &t, &err)) throw InputError(std::string("--") + opt + ": " + err);
    return t;
  };
  o.gap = time_option("gap");
  o.message_gap = time_option("message-gap");
  o.names = {{"example", "--example"}, {"messages", "--messages"}, {"packets", "--packets"},     {"size", "--size"},
             {"gap", "--gap"},         {"hosts", "--hosts"},       {"gbps", "ports.gbps"},       {"num_ports", "ports.count"}};
  const std::string out = vm["output"].as<std::string>();
  if (out == "-") throw InputError("--output -: gen writes the trace and its expected results next to it; name a file");
  OutputFiles files;
  if (vm.count("config")) files.input("--config", vm["config"].as<std::string>());
  std::ostream& trace = files.add("--output", out);
  std::ostream& expected = files.add("--output (its expected results)", out + ".expected");
  const PspinWorkload w = generate_pspin_workload(o);
  write_trace(trace, out, o.num_ports, w.records);
  write_pspin_expected(expected, w.expected);
  files.commit();
  auto count = [](uint32_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  std::cout << "wrote " << out << " (" << count(o.messages, "message") << " of " << count(o.packets, "packet") << " of " << o.size
            << " bytes, on " << (w.hosts == 1 ? "port 0" : "ports 0-" + std::to_string(w.hosts - 1)) << ") and " << out << ".expected\n"
            << "run it with: "
            << line->run_line(line->vm.count("parser.rules") && !line->vm["parser.rules"].defaulted()
                                  ? ""
                                  : " --parser.rules " + shell_quote("udp_dport=" +
                                                                     std::to_string(pspin_example_udp_port(ex->index)) +
                                                                     " -> " + ex->set),
                              out)
            << "\n";
  return 0;
}

}  // namespace

FS_PROTOCOL(PspinExamples);

}  // namespace fs
