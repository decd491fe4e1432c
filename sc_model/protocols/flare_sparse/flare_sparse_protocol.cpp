// The flare_sparse protocol (Flare's sparse allreduce, Flare section 7) as a flaresim plug-in:
// its configuration section (flare_sparse.*), the flare_sparse handler set and its control
// plane, the 'flare_sparse' text-trace syntax, `flaresim gen flare-sparse`, the closed-loop
// sparse allreduce hosts, the sparse expected-results files and the stats section with the
// sparse allreduce table.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/output_files.h"
#include "common/text.h"
#include "config/config_io.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "protocols/flare_dense/flare_frame.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_fabric.h"
#include "protocols/flare_sparse/sparse_gen.h"
#include "protocols/flare_sparse/sparse_hosts.h"
#include "protocols/flare_sparse/sparse_setup.h"
#include "protocols/flare_sparse/sparse_verify.h"
#include "switch/switch.h"

extern "C" const fs_handler_set_desc_t flare_sparse_handler_set;

namespace po = boost::program_options;

namespace fs {
namespace {

[[noreturn]] void fail_at(const std::string& where, const std::string& why) { throw InputError(where + ": " + why); }

// '<time> <port> flare_sparse key=value ...' lines (traces/FORMAT.md): any sparse packet, well
// formed or not (indices are not checked against a span, nor sorted), for hand-made tests.
class SparseTraceSyntax : public TraceSyntax {
 public:
  std::string keyword() const override { return "flare_sparse"; }
  std::string usage() const override { return "flare_sparse key=value..."; }
  Bytes build(const std::vector<std::string>& toks, size_t first, uint16_t port,
              const std::string& where) const override;
};

Bytes SparseTraceSyntax::build(const std::vector<std::string>& toks, size_t first, uint16_t port,
                               const std::string& where) const {
  static const char* keys[] = {"kind", "ar", "block", "rank", "dtype", "op", "shard", "shards", "last", "pairs", "udp"};
  const std::string key_list = "kind ar block rank dtype op shard shards last pairs udp";
  std::map<std::string, std::string> kv;
  for (size_t i = first; i < toks.size(); ++i) {
    const size_t eq = toks[i].find('=');
    if (eq == std::string::npos || eq == 0) fail_at(where, "flare_sparse: expected key=value, got " + quote_token(toks[i]));
    const std::string key = toks[i].substr(0, eq);
    if (std::find(std::begin(keys), std::end(keys), key) == std::end(keys))
      fail_at(where, "flare_sparse: unknown key " + quote_token(key) + " (keys: " + key_list + ")");
    if (!kv.emplace(key, toks[i].substr(eq + 1)).second) fail_at(where, "flare_sparse: duplicate key " + key);
  }
  auto bad = [&](const std::string& key, const std::string& expect) {
    fail_at(where, "flare_sparse: bad value " + quote_token(kv[key]) + " for key " + key + " (expected " + expect + ")");
  };
  auto number = [&](const std::string& key, uint64_t max, uint64_t def, const char* expect) {
    const auto it = kv.find(key);
    if (it == kv.end()) return def;
    uint64_t v;
    if (!parse_token_uint(it->second, max, &v)) bad(key, expect);
    return v;
  };
  flare_sparse_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  if (kv.count("kind")) {
    if (kv["kind"] == "result") h.kind = FLARE_KIND_RESULT;
    else if (kv["kind"] != "contrib") bad("kind", "contrib or result");
  }
  h.allreduce_id = uint32_t(number("ar", 0xFFFFFFFFu, 0, "a 32-bit unsigned number"));
  if (!kv.count("block")) fail_at(where, "flare_sparse: missing required key block");
  h.block_id = uint32_t(number("block", 0xFFFFFFFFu, 0, "a 32-bit unsigned number"));
  h.sender_rank = uint16_t(number("rank", 0xFFFF, port, "a number 0..65535"));
  h.dtype = FLARE_INT32;
  if (kv.count("dtype") && !flare_dtype_from_name(kv["dtype"], &h.dtype)) bad("dtype", kFlareDtypeChoices);
  h.op = FLARE_OP_SUM;
  if (kv.count("op") && !flare_op_from_name(kv["op"], &h.op)) bad("op", kFlareOpChoices);
  h.shard = uint16_t(number("shard", 0xFFFF, 0, "a number 0..65535"));
  const bool last = number("last", 1, 1, "0 or 1") == 1;
  h.flags = last ? FLARE_FLAG_LAST : 0;
  h.shards = uint16_t(number("shards", 0xFFFF, last ? std::min<uint64_t>(h.shard + 1u, 0xFFFF) : 0, "a number 0..65535"));
  const uint16_t udp = uint16_t(number("udp", 0xFFFF, FLARE_UDP_PORT_DEFAULT, "a port 1..65535"));
  if (udp == 0) bad("udp", "a port 1..65535");
  if (!kv.count("pairs")) fail_at(where, "flare_sparse: missing required key pairs (index:value,... or - for none)");
  std::vector<SparsePair> pairs;
  const std::string& text = kv["pairs"];
  for (size_t pos = 0, n = 1; text != "-"; ++n) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const std::string what = "flare_sparse: pairs: item " + std::to_string(n) + " " + quote_token(item);
    const size_t colon = item.find(':');
    uint64_t index = 0;
    SparsePair p;
    if (colon == std::string::npos) fail_at(where, what + " is not index:value");
    if (!parse_token_uint(item.substr(0, colon), 0xFFFFFFFFu, &index))
      fail_at(where, what + ": bad index (expected 0..4294967295)");
    if (!parse_sparse_value(item.substr(colon + 1), h.dtype, &p.bits))
      fail_at(where, what + ": bad " + flare_dtype_name(h.dtype) + " value " + quote_token(item.substr(colon + 1)));
    p.index = uint32_t(index);
    pairs.push_back(p);
    if (comma == text.size()) break;
    pos = comma + 1;
  }
  try {
    return build_sparse_packet(h, port, pairs, udp);
  } catch (const InputError& e) {
    fail_at(where, std::string("flare_sparse: ") + e.what());
  }
}

// The closed-loop sparse hosts as the core sees them.
class FlareSparseHosts : public HostAgents {
 public:
  FlareSparseHosts(const Config& cfg, Switch& sw) : hosts_("sparse_hosts", cfg, sw) {}
  HostStats stats() const override { return hosts_.stats(); }
  std::string summary() const override { return hosts_.summary(); }
  std::string what() const override { return "sparse allreduce hosts"; }
  std::unique_ptr<ResultVerifier> verifier() const override { return std::make_unique<SparseVerifier>(hosts_.expected()); }

 private:
  SparseHosts hosts_;
};

// The parser rule that sends sparse Flare packets on UDP port `port` to the flare_sparse set:
// dense ones share the port, and the sparse flag in the kind byte tells them apart.
std::string sparse_rule(unsigned port) {
  static_assert(FLARE_FLAG_SPARSE == 0x80 && FLARE_OFF_KIND == 1, "the rule names the sparse flag's bit");
  return "udp_dport=" + std::to_string(port) + ",payload[1]&0x80=0x80 -> flare_sparse";
}

class FlareSparse : public Protocol {
 public:
  std::string name() const override { return "flare_sparse"; }
  std::string doc() const override {
    return "Flare sparse allreduce: hash tables with spill buffers or arrays, single storage or tree (Flare 7)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kFlareSparseSection, FlareSparseConfig{}, sparse_config_keys()}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&flare_sparse_handler_set, &control_}}; }
  // Dense packets share the UDP port; the sparse flag in the kind byte picks this set.
  std::vector<std::string> default_parser_rules() const override { return {sparse_rule(FLARE_UDP_PORT_DEFAULT)}; }
  const TraceSyntax* trace_syntax() const override { return &syntax_; }
  std::vector<KeyChoice> host_models() const override {
    return {{kSparseAllreduceModel, "the flare_sparse.ports hosts (on a network: hosts.members, over flare_sparse.trees "
                                    "reduction trees) run a Flare sparse allreduce (the flare_sparse.* workload), a block's "
                                    "packets back to back, within their window, retransmitting on timeout"},
            {kSparcmlModel, "on a network: hosts.members run SparCML's host-based sparse allreduce (split allgather) on the "
                            "flare_sparse.* workload, the baseline of Flare sparse"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kSparcmlModel}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<FlareSparseFabricRole>(cfg, t);
  }
  std::vector<std::string> gen_names() const override { return {"flare_sparse", "flare-sparse"}; }
  int gen(const std::string& name, const std::vector<std::string>& args) const override;
  std::unique_ptr<HostAgents> make_hosts(const std::string& model, const Config& cfg, Switch& sw) const override {
    if (model == kSparcmlModel)
      throw InputError("hosts.model = sparcml runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file)");
    return std::make_unique<FlareSparseHosts>(cfg, sw);
  }
  std::string expected_header() const override { return "flaresim-expected-sparse 1"; }
  std::unique_ptr<ResultVerifier> read_expected(const std::string& path) const override {
    return std::make_unique<SparseVerifier>(read_sparse_expected(path));
  }
  void add_stats(const RunView& run, nlohmann::json& stats) const override;

 private:
  FlareSparseControl control_;
  SparseTraceSyntax syntax_;
};

// The options of `gen` that are also configuration keys: a flag, or the key (from --config or
// --section.key, else the key's default), never both. A given flag sets its key, so the trace is
// made from the same configuration a `run` with those keys uses (the span above all). `run` says
// whether the run line carries the key: the keys the switch reads (its ports, the allreduce id,
// and what the span and the hash table size follow from).
struct SharedOption {
  const char* flag;
  const char* key;
  const char* field;  // in SparseWorkloadOptions / AllreduceGenOptions, for messages
  bool run;
  const char* help;
};
constexpr SharedOption kSharedOptions[] = {
    {"bytes", "hosts.bytes", "bytes", false, "dense data per host (its elements x the dtype's size), e.g. 1MiB"},
    {"elem-bytes", "hosts.elem_bytes", "elem_bytes", true, "pair bytes a packet carries at most"},
    {"dtype", "hosts.dtype", "dtype", true, "int32, int16, int8 or float32"},
    {"op", "hosts.op", "op", false, "sum, min or max"},
    {"allreduce-id", "flare_sparse.allreduce_id", "allreduce_id", true, "allreduce id in every packet"},
    {"seed", "sim.seed", "seed", false, "seed of the positions, values and the send schedule's random draws"},
    {"gbps", "ports.gbps", "gbps", true, "host line rate in Gbit/s"},
    {"ports", "ports.count", "num_ports", true, "switch ports, hosts must fit"},
    {"loss", "hosts.loss", "loss", false, "probability (0..1) that a send of a block loses one of its packets; the "
                                          "host sends all of them again --timeout after the last left the wire"},
    {"window", "hosts.window", "window", false, "blocks a host may have in flight (Flare 4.3); 0 = no limit"},
    {"density", "flare_sparse.density", "density", true, "share of each host's elements that are non-zero"},
    {"distribution", "flare_sparse.distribution", "distribution", true, "uniform, clustered or topk"},
    {"run-length", "flare_sparse.run_length", "run_length", true, "clustered: elements per run of non-zeros"},
    {"overlap", "flare_sparse.overlap", "overlap", true, "share of each host's non-zero positions common to all hosts"},
    {"span", "flare_sparse.span", "span", true, "elements per block; 0 = pairs per packet / density"},
};


int FlareSparse::gen(const std::string& name, const std::vector<std::string>& rest) const {
  const Config d;  // the keys' defaults, shown as the options'
  unsigned hosts = 0;
  SparseGenOptions o;
  po::options_description desc("flaresim gen " + name + " options");
  desc.add_options()("help,h", "show this help")(
      "config", po::value<std::string>(),
      "INI file whose ports.*, hosts.*, sim.seed and flare_sparse.* keys set what the options below leave open, as "
      "in 'flaresim run'; any such key may also be given as --section.key VALUE")(
      "hosts", po::value<unsigned>(&hosts)->required(), "hosts taking part (on ports 0..H-1, ranks 0..H-1)");
  for (const SharedOption& so : kSharedOptions)
    desc.add_options()(so.flag, po::value<std::string>()->default_value(find_config_key(so.key)->show(d)),
                       (std::string(so.help) + " (or " + so.key + ")").c_str());
  desc.add_options()("stagger", po::bool_switch(),
                     "staggered sending: host h sends blocks (h*blocks/hosts + k) mod blocks (or hosts.stagger)")(
      "timeout", po::value<std::string>()->default_value(std::to_string(d.hosts.timeout_ns / 1000) + "us"),
      "retransmission timeout, e.g. 100us (or hosts.timeout_ns)")(
      "duplicate", po::value<double>(&o.schedule.duplicate)->default_value(0),
      "probability (0..1) that a delivered send of a block is followed by a copy of all its packets")(
      "states", po::value<unsigned>(&o.schedule.states)->default_value(0),
      "block states the switch has for the allreduce (block b in state b mod states): block b waits for block b - "
      "states's result; 0 = as many as --window")(
      "result-latency", po::value<std::string>()->default_value("10us"),
      "with --window or --states: when a block's result reaches the hosts, after the last contribution to it arrived")(
      "output,o", po::value<std::string>()->required(), "trace to write: .pcapng for pcapng, anything else text");
  const std::optional<ConfiguredCommandLine> line = parse_configured_command_line(rest, desc);
  if (!line) return 0;  // --help
  const po::variables_map& vm = line->vm;
  Config cfg = line->cfg;
  auto given = [&](const char* flag) { return vm.count(flag) && !vm[flag].defaulted(); };
  std::string run;  // what the run line adds
  for (const SharedOption& so : kSharedOptions) {
    if (!given(so.flag)) continue;
    if (vm.count(so.key)) throw InputError(std::string("--") + so.flag + " and --" + so.key + " both given: give one");
    const std::string value = vm[so.flag].as<std::string>();
    try {
      find_config_key(so.key)->set(cfg, value);
    } catch (const InputError& e) {
      throw InputError(std::string("--") + so.flag + ": " + e.what());
    }
    if (so.run) run += std::string(" --") + so.key + " " + shell_quote(value);
  }
  if (given("stagger")) {
    if (vm.count("hosts.stagger")) throw InputError("--stagger and --hosts.stagger both given: give one");
    cfg.hosts.stagger = true;
  }
  auto time_option = [&](const char* opt) {
    Picos t = 0;
    std::string err;
    if (!parse_time_token(vm[opt].as<std::string>(), &t, &err)) throw InputError(std::string("--") + opt + ": " + err);
    return t;
  };
  if (given("timeout") && vm.count("hosts.timeout_ns"))
    throw InputError("--timeout and --hosts.timeout_ns both given: give one");
  o.schedule.timeout = given("timeout") ? time_option("timeout") : Picos(cfg.hosts.timeout_ns) * kPicosPerNs;
  o.schedule.result_latency = time_option("result-latency");
  o.schedule.gbps = cfg.ports.gbps;
  o.schedule.wire_overhead = cfg.ports.wire_overhead;
  o.schedule.num_ports = cfg.ports.count;
  o.schedule.stagger = cfg.hosts.stagger;
  o.schedule.loss = cfg.hosts.loss;
  o.schedule.window = cfg.hosts.window;
  o.workload = sparse_workload_options(cfg, hosts);
  for (const SharedOption& so : kSharedOptions)
    o.workload.names[so.field] = given(so.flag) ? std::string("--") + so.flag : so.key;
  for (const char* f : {"hosts", "duplicate", "states"}) o.workload.names[f] = std::string("--") + f;

  const std::string out = vm["output"].as<std::string>();
  if (out == "-") throw InputError("--output -: gen writes the trace and its expected results next to it; name a file");
  // Both files are checked before the workload is built, and appear together.
  OutputFiles files;
  if (vm.count("config")) files.input("--config", vm["config"].as<std::string>());
  std::ostream& trace = files.add("--output", out);
  std::ostream& expected = files.add("--output (its expected results)", out + ".expected");
  const SparseTrace t = generate_sparse_trace(o);
  write_trace(trace, out, o.schedule.num_ports, t.records);
  write_sparse_expected(expected, sparse_expected_of(t.workload, t.ports, o.schedule.udp_port));
  files.commit();

  if (!vm.count("flare_sparse.ports")) run += " --flare_sparse.ports 0-" + std::to_string(hosts - 1);
  // The sparse rule alone: the switch then installs only the sparse set, which gets the whole L1
  // state area instead of sharing it with flare_dense (whose default rule also names port 4950).
  if (!vm.count("parser.rules")) run += " --parser.rules " + shell_quote(sparse_rule(o.schedule.udp_port));
  std::cout << "wrote " << out << " (" << t.records.size() << " packets from " << hosts << " hosts, "
            << t.workload.blocks() << " blocks of " << t.workload.span << " elements, " << t.workload.nonzeros
            << " non-zeros per host";
  if (o.schedule.loss > 0) std::cout << ", " << t.lost << " block sends lost a packet";
  if (o.schedule.duplicate > 0) std::cout << ", " << t.duplicates << " block sends repeated";
  std::cout << ") and " << out << ".expected\n"
            << "run it with: " << line->run_line(run, out) << "\n";
  return 0;
}

void FlareSparse::add_stats(const RunView& run, nlohmann::json& stats) const {
  const int set = find_handler_set("flare_sparse");
  const HandlerSetMemory& mem = run.sw.pspin().set_memory(set);
  stats["flare_sparse"] = {{"allreduces", nlohmann::json::array()}};
  if (!mem.l1_bytes) return;  // not installed: the section is there, empty
  nlohmann::json& ars = stats["flare_sparse"]["allreduces"];
  for (const SparseAllreduce& a : sparse_allreduces(run.cfg, mem.l1_bytes))
    ars.push_back({{"id", a.table.allreduce_id},
                   {"algorithm", a.algorithm},
                   {"storage", a.storage},
                   {"children", a.ports.size()},
                   {"span", a.table.span},
                   {"hash_slots", a.storage == "hash" ? a.table.hash_slots : 0},
                   {"storage_bytes", a.table.storage_bytes},
                   {"state_bytes", a.table.state_bytes},
                   {"states_per_cluster", a.table.states_per_cluster},
                   {"l1_offset", a.table.l1_offset}});
}

}  // namespace

FS_PROTOCOL(FlareSparse);

}  // namespace fs
