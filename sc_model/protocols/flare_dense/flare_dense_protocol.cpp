// The flare_dense protocol (Flare's dense allreduce, Flare sections 4-6) as a flaresim plug-in:
// its configuration section (flare.*), the flare_dense handler set and its control plane, the
// default parser rule, the 'flare' text-trace syntax, `flaresim gen allreduce`, the closed-loop
// allreduce hosts, the expected-results files and the stats section with the allreduce table
// and the blocks a run left open.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <boost/program_options.hpp>

#include "common/output_files.h"
#include "config/config_io.h"
#include "config/config_keys.h"
#include "common/errors.h"
#include "common/float_bits.h"
#include "common/interrupt.h"
#include "common/text.h"
#include "flare/flare_dense.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/allreduce_hosts.h"
#include "protocols/flare_dense/fabric_allreduce.h"
#include "protocols/flare_dense/flare_frame.h"
#include "protocols/flare_dense/flare_setup.h"
#include "protocols/flare_dense/verify.h"
#include "switch/switch.h"

extern "C" const fs_handler_set_desc_t flare_dense_handler_set;

namespace po = boost::program_options;

namespace fs {

#define FLARE(field) FS_SECTION_FIELD(FlareConfig, kFlareSection, field)

std::vector<ConfigKey> flare_config_keys() {
  constexpr uint64_t kMaxU32 = 0xFFFFFFFFull;
  std::vector<ConfigKey> s;
  s.push_back(uint_key("flare.allreduce_id", "id of the Flare allreduce (in its packets' headers)", 0, kMaxU32, FLARE(allreduce_id)));
  s.push_back(string_key("flare.ports", "ports of the allreduce's children (hosts or switches), in rank order (e.g. 0-15)", {}, FLARE(ports),
                         [](const std::string& k, const std::string& v) { parse_port_list(k, v); }));
  s.push_back(string_key("flare.algorithm", "aggregation: auto (Flare 6.4: tree if reproducible or up to 128 KiB per host, 2 buffers up to 256 KiB, 4 up to 512 KiB, single above; single when flare.bytes is 0), single, multi, tree", {"auto", "single", "multi", "tree"}, FLARE(algorithm)));
  s.push_back(uint_key("flare.multi_buffers", "buffers per block with the multi algorithm; 0 = by flare.bytes (4 above 256 KiB, else 2)", 0, 16, FLARE(multi_buffers)));
  s.push_back(size_key("flare.bytes", "data per host of the allreduce, for flare.algorithm = auto; 0 = unknown", 0, 1ull << 40, FLARE(bytes)));
  s.push_back(bool_key("flare.reproducible", "float sums must not depend on arrival order (chooses the tree)", FLARE(reproducible)));
  s.push_back(string_key("flare.parent", "port towards the parent switch, or none at the root of the reduction tree", {}, FLARE(parent)));
  s.push_back(uint_key("flare.rank", "this switch's rank among its parent's children", 0, 65534, FLARE(rank)));
  s.push_back(uint_key("flare.max_payload", "element bytes one block buffer holds", 4, 65535 * 4, FLARE(max_payload)));
  s.push_back(uint_key("flare.buffers", "block states per cluster for the allreduce (hosts may have this many times pspin.clusters blocks in flight); 0 = share the L1 state area equally among the allreduces", 0, kMaxU32, FLARE(buffers)));
  s.push_back(uint_key("flare.trees", "network runs (hosts.model = allreduce): static reduction trees, ids flare.allreduce_id and up, roots drawn from sim.seed; block b goes to tree b mod flare.trees", 1, FLARE_MAX_ALLREDUCES, FLARE(trees)));
  s.push_back(string_key("flare.allreduces", "several allreduces: ';'-separated entries of key=value words, the keys of flare.* (id, ports, algorithm, multi_buffers, bytes, reproducible, parent, rank, max_payload, buffers); unset keys take the flare.* values; empty = the one allreduce flare.* describes; none = no allreduce (a network's switches get theirs from the reduction trees)", {}, FLARE(allreduces)));
  return s;
}

#undef FLARE

namespace {

// The parser rule that sends dense Flare packets to UDP port `udp_port` to the flare_dense set:
// sparse packets go to the same port, and the sparse flag (in the kind byte) tells them apart.
std::string dense_rule(uint16_t udp_port) {
  static_assert(FLARE_FLAG_SPARSE == 0x80 && FLARE_OFF_KIND == 1, "the rule below names the sparse flag's bit");
  return "udp_dport=" + std::to_string(udp_port) + ",payload[1]&0x80=0 -> flare_dense";
}

[[noreturn]] void fail_at(const std::string& where, const std::string& why) { throw InputError(where + ": " + why); }

// '<time> <port> flare key=value ...' lines (traces/FORMAT.md).
class FlareTraceSyntax : public TraceSyntax {
 public:
  std::string keyword() const override { return "flare"; }
  std::string usage() const override { return "flare key=value..."; }
  Bytes build(const std::vector<std::string>& toks, size_t first, uint16_t port,
              const std::string& where) const override;
};

// Builds the frame of a `flare key=value ...` descriptor (tokens after "flare").
Bytes FlareTraceSyntax::build(const std::vector<std::string>& toks, size_t first, uint16_t port,
                              const std::string& where) const {
  static const char* keys[] = {"kind", "ar", "block", "rank", "dtype", "op", "values", "udp"};
  std::map<std::string, std::string> kv;
  for (size_t i = first; i < toks.size(); ++i) {
    const size_t eq = toks[i].find('=');
    if (eq == std::string::npos || eq == 0)
      fail_at(where, "flare: expected key=value, got " + quote_token(toks[i]));
    const std::string key = toks[i].substr(0, eq);
    if (std::find(std::begin(keys), std::end(keys), key) == std::end(keys))
      fail_at(where, "flare: unknown key " + quote_token(key) +
                         " (keys: kind ar block rank dtype op values udp)");
    if (!kv.emplace(key, toks[i].substr(eq + 1)).second)
      fail_at(where, "flare: duplicate key " + key);
  }
  auto bad = [&](const std::string& key, const std::string& expect) {
    fail_at(where, "flare: bad value " + quote_token(kv[key]) + " for key " + key + " (expected " +
                       expect + ")");
  };
  auto number = [&](const std::string& key, uint64_t max, uint64_t def, const char* expect) {
    auto it = kv.find(key);
    if (it == kv.end()) return def;
    uint64_t v;
    if (!parse_token_uint(it->second, max, &v)) bad(key, expect);
    return v;
  };
  flare_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  if (kv.count("kind")) {
    if (kv["kind"] == "result") h.kind = FLARE_KIND_RESULT;
    else if (kv["kind"] != "contrib") bad("kind", "contrib or result");
  }
  h.allreduce_id = uint32_t(number("ar", 0xFFFFFFFFu, 0, "a 32-bit unsigned number"));
  if (!kv.count("block")) fail_at(where, "flare: missing required key block");
  h.block_id = uint32_t(number("block", 0xFFFFFFFFu, 0, "a 32-bit unsigned number"));
  h.sender_rank = uint16_t(number("rank", 0xFFFF, port, "a number 0..65535"));
  h.dtype = FLARE_INT32;
  if (kv.count("dtype") && !flare_dtype_from_name(kv["dtype"], &h.dtype))
    bad("dtype", kFlareDtypeChoices);
  h.op = FLARE_OP_SUM;
  if (kv.count("op") && !flare_op_from_name(kv["op"], &h.op)) bad("op", kFlareOpChoices);
  const uint16_t udp = uint16_t(number("udp", 0xFFFF, FLARE_UDP_PORT_DEFAULT, "a port 1..65535"));
  if (udp == 0) bad("udp", "a port 1..65535");
  if (!kv.count("values")) fail_at(where, "flare: missing required key values");
  const std::string& vals = kv["values"];
  const uint32_t dsize = flare_dtype_bytes(h.dtype);
  Bytes elems;
  size_t count = 0, pos = 0;
  while (true) {
    const size_t comma = std::min(vals.find(',', pos), vals.size());
    const std::string item = vals.substr(pos, comma - pos);
    ++count;
    const std::string what = "flare: values: item " + std::to_string(count) + " " + quote_token(item);
    if (item.empty()) fail_at(where, what + " is empty");
    const char* b = item.data();
    const char* e = b + item.size();
    if (h.dtype == FLARE_FLOAT32) {
      float f = 0;
      auto r = std::from_chars(b, e, f, std::chars_format::general);
      if (r.ec == std::errc::result_out_of_range)
        fail_at(where, what + " is out of float32 range");
      if (r.ec != std::errc() || r.ptr != e) fail_at(where, what + " is not a number");
      const uint32_t bits = bits_of_float(f);
      for (int k = 0; k < 4; ++k) elems.push_back(uint8_t(bits >> (8 * k)));
    } else {
      int64_t v = 0;
      auto r = std::from_chars(b, e, v);
      const int64_t hi = (int64_t(1) << (8 * dsize - 1)) - 1, lo = -hi - 1;
      if (r.ptr == e && (r.ec == std::errc::result_out_of_range ||
                         (r.ec == std::errc() && (v < lo || v > hi))))
        fail_at(where, what + " is out of " + flare_dtype_name(h.dtype) + " range " +
                           std::to_string(lo) + ".." + std::to_string(hi));
      if (r.ec != std::errc() || r.ptr != e) fail_at(where, what + " is not an integer");
      for (uint32_t k = 0; k < dsize; ++k) elems.push_back(uint8_t(uint64_t(v) >> (8 * k)));
    }
    if (count > 65535) fail_at(where, "flare: values: more than 65535 values");
    if (comma == vals.size()) break;
    pos = comma + 1;
  }
  if (elems.size() > kMaxFlareElemBytes)
    fail_at(where, "flare: values: " + std::to_string(count) + " " + flare_dtype_name(h.dtype) +
                       " values need " + std::to_string(elems.size()) + " bytes, over the " +
                       std::to_string(kMaxFlareElemBytes) + " that fit in a 65535-byte frame");
  h.elem_count = uint16_t(count);
  return build_flare_packet(h, port, elems.data(), elems.size(), udp);
}


// The closed-loop allreduce hosts as the core sees them.
class FlareHosts : public HostAgents {
 public:
  FlareHosts(const Config& cfg, Switch& sw) : hosts_("hosts", cfg, sw) {}
  HostStats stats() const override { return hosts_.stats(); }
  std::string summary() const override { return hosts_.summary(); }
  std::string what() const override { return "allreduce hosts"; }
  std::unique_ptr<ResultVerifier> verifier() const override { return std::make_unique<FlareVerifier>(hosts_.expected()); }

 private:
  AllreduceHosts hosts_;
};

class FlareDense : public Protocol {
 public:
  std::string name() const override { return "flare_dense"; }
  std::string doc() const override { return "Flare dense allreduce: single buffer, multiple buffers or tree (Flare 4-6)"; }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kFlareSection, FlareConfig{}, flare_config_keys()}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&flare_dense_handler_set, &control_}}; }
  std::vector<std::string> default_parser_rules() const override {
    return {dense_rule(FLARE_UDP_PORT_DEFAULT)};
  }
  const TraceSyntax* trace_syntax() const override { return &syntax_; }
  std::vector<KeyChoice> host_models() const override {
    return {{"allreduce", "the flare.ports hosts (on a network: hosts.members, over flare.trees reduction trees) run a Flare allreduce, sending within their window and retransmitting on timeout"}};
  }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<FlareFabricRole>(cfg, t);
  }
  std::vector<std::string> gen_names() const override { return {"flare_dense", "allreduce"}; }
  int gen(const std::string& name, const std::vector<std::string>& args) const override;
  std::unique_ptr<HostAgents> make_hosts(const std::string&, const Config& cfg, Switch& sw) const override {
    return std::make_unique<FlareHosts>(cfg, sw);
  }
  std::string expected_header() const override { return "flaresim-expected 1"; }
  std::unique_ptr<ResultVerifier> read_expected(const std::string& path) const override {
    return std::make_unique<FlareVerifier>(fs::read_expected(path));
  }
  void add_stats(const RunView& run, nlohmann::json& stats) const override;
  std::string summary(const nlohmann::json& stats) const override;

 private:
  FlareDenseControl control_;
  FlareTraceSyntax syntax_;
};

// The options of `gen` that are also configuration keys: a flag, or the key (from --config or
// --section.key, else the key's default), never both. The trace is then made with the same
// port and workload parameters a `run` with that configuration uses.
struct SharedOption {
  const char* flag;
  const char* key;
  const char* field;  // in AllreduceGenOptions
};
constexpr SharedOption kSharedOptions[] = {
    {"bytes", "hosts.bytes", "bytes"},        {"elem-bytes", "hosts.elem_bytes", "elem_bytes"},
    {"dtype", "hosts.dtype", "dtype"},        {"op", "hosts.op", "op"},
    {"allreduce-id", "flare.allreduce_id", "allreduce_id"},
    {"seed", "sim.seed", "seed"},             {"gbps", "ports.gbps", "gbps"},
    {"ports", "ports.count", "num_ports"},    {"stagger", "hosts.stagger", "stagger"},
    {"loss", "hosts.loss", "loss"},           {"timeout", "hosts.timeout_ns", "timeout"},
    {"window", "hosts.window", "window"},
};

// The `flaresim run` of a generated trace on the switch it was made for: the configuration gen was
// given, the gen flags a run must see as keys, the hosts' ports as flare.ports, the rule for a
// non-default UDP port, and the check of its results.
std::string run_line(const ConfiguredCommandLine& line, const AllreduceGenOptions& o, const std::string& out) {
  const po::variables_map& vm = line.vm;
  auto given = [&](const std::string& name) { return vm.count(name) && !vm[name].defaulted(); };
  std::string run;  // what this generator adds
  std::ostringstream gbps;
  gbps << std::setprecision(15) << o.gbps;
  if (given("ports")) run += " --ports.count " + std::to_string(o.num_ports);
  if (given("gbps")) run += " --ports.gbps " + gbps.str();
  if (given("allreduce-id")) run += " --flare.allreduce_id " + std::to_string(o.allreduce_id);
  if (!given("flare.ports")) run += " --flare.ports 0-" + std::to_string(o.hosts - 1);
  if (o.udp_port != 4950 && !given("parser.rules"))
    run += " --parser.rules " + shell_quote(dense_rule(o.udp_port));
  return line.run_line(run, out);
}

// The generator's fields that only `gen` sets, by flag.
constexpr std::pair<const char*, const char*> kGenOnlyOptions[] = {
    {"hosts", "hosts"},   {"udp-port", "udp_port"}, {"mean-gap", "mean_gap"}, {"duplicate", "duplicate"},
    {"states", "states"}, {"result-latency", "result_latency"},
};

int FlareDense::gen(const std::string& name, const std::vector<std::string>& rest) const {
  AllreduceGenOptions o;
  const Config d;  // the keys' defaults, shown as the options'
  po::options_description desc("flaresim gen " + name + " options");
  desc.add_options()
      ("help,h", "show this help")
      ("config", po::value<std::string>(), "INI file whose ports.*, hosts.*, sim.seed and flare.allreduce_id keys "
       "set what the options below leave open, as in 'flaresim run'; any such key may also be given as "
       "--section.key VALUE")
      ("hosts", po::value<unsigned>(&o.hosts)->required(), "hosts taking part (on ports 0..H-1, ranks 0..H-1)")
      ("bytes", po::value<std::string>(), "data per host, e.g. 1MiB (or hosts.bytes)")
      ("elem-bytes", po::value<uint32_t>()->default_value(d.hosts.elem_bytes), "element bytes per packet (or hosts.elem_bytes)")
      ("dtype", po::value<std::string>()->default_value(d.hosts.dtype), "int32, int16, int8 or float32 (or hosts.dtype)")
      ("op", po::value<std::string>()->default_value(d.hosts.op), "sum, min or max (or hosts.op)")
      ("allreduce-id", po::value<uint32_t>()->default_value(flare_config(d).allreduce_id), "allreduce id in every packet (or flare.allreduce_id)")
      ("udp-port", po::value<uint16_t>(&o.udp_port)->default_value(4950), "UDP destination port of the Flare packets")
      ("seed", po::value<uint64_t>()->default_value(d.seed), "seed of the element values and of the send schedule's "
       "random draws (or sim.seed)")
      ("gbps", po::value<double>()->default_value(d.ports.gbps), "host line rate in Gbit/s (or ports.gbps)")
      ("ports", po::value<unsigned>()->default_value(d.ports.count), "switch ports, hosts must fit (or ports.count)")
      ("stagger", po::bool_switch(), "staggered sending: host h sends blocks (h*blocks/hosts + k) mod blocks, "
       "k = 0, 1, ... (or hosts.stagger; without: every host block 0, 1, ...)")
      ("mean-gap", po::value<std::string>()->default_value("0ns"),
       "mean of the exponential gap before each host's next packet, e.g. 200ns (0 = back to back at line rate)")
      ("loss", po::value<double>()->default_value(d.hosts.loss), "probability (0..1) that a send is lost; the host "
       "retransmits it --timeout after it left the wire, the 16th send always arrives (or hosts.loss)")
      ("timeout", po::value<std::string>()->default_value(std::to_string(d.hosts.timeout_ns / 1000) + "us"),
       "retransmission timeout, e.g. 100us (or hosts.timeout_ns)")
      ("duplicate", po::value<double>(&o.duplicate)->default_value(0),
       "probability (0..1) that a delivered packet is followed by an identical copy")
      ("window", po::value<unsigned>()->default_value(d.hosts.window), "blocks a host may have in flight (Flare 4.3); "
       "0 = no limit (or hosts.window)")
      ("states", po::value<unsigned>(&o.states)->default_value(0),
       "block states the switch has for the allreduce (block b in state b mod states): block b waits for "
       "block b - states's result; 0 = as many as --window. With --stagger hosts stagger within groups of "
       "min(window, states / 2) blocks")
      ("result-latency", po::value<std::string>()->default_value("10us"),
       "with --window or --states: when a block's result reaches the hosts, after the last contribution to it "
       "arrived")
      ("output,o", po::value<std::string>()->required(), "trace to write: .pcapng for pcapng, anything else text");
  const std::optional<ConfiguredCommandLine> line = parse_configured_command_line(rest, desc);
  if (!line) return 0;  // --help
  const po::variables_map& vm = line->vm;
  const Config& cfg = line->cfg;
  for (const SharedOption& so : kSharedOptions) {
    const std::string flag = so.flag;
    if (vm.count(flag) && !vm[flag].defaulted() && vm.count(so.key))
      throw InputError("--" + flag + " and --" + so.key + " both given: give one");
  }
  auto given = [&](const char* flag) { return vm.count(flag) && !vm[flag].defaulted(); };
  o.bytes = given("bytes") ? parse_size("--bytes", vm["bytes"].as<std::string>()) : cfg.hosts.bytes;
  o.elem_bytes = given("elem-bytes") ? vm["elem-bytes"].as<uint32_t>() : cfg.hosts.elem_bytes;
  o.dtype = given("dtype") ? vm["dtype"].as<std::string>() : cfg.hosts.dtype;
  o.op = given("op") ? vm["op"].as<std::string>() : cfg.hosts.op;
  o.allreduce_id = given("allreduce-id") ? vm["allreduce-id"].as<uint32_t>() : flare_config(cfg).allreduce_id;
  o.seed = given("seed") ? vm["seed"].as<uint64_t>() : cfg.seed;
  o.gbps = given("gbps") ? vm["gbps"].as<double>() : cfg.ports.gbps;
  o.num_ports = given("ports") ? vm["ports"].as<unsigned>() : cfg.ports.count;
  o.wire_overhead = cfg.ports.wire_overhead;
  o.stagger = given("stagger") ? vm["stagger"].as<bool>() : cfg.hosts.stagger;
  o.loss = given("loss") ? vm["loss"].as<double>() : cfg.hosts.loss;
  o.window = given("window") ? vm["window"].as<unsigned>() : cfg.hosts.window;
  auto time_option = [&](const char* name) {
    Picos t = 0;
    std::string err;
    if (!parse_time_token(vm[name].as<std::string>(), &t, &err)) throw InputError(std::string("--") + name + ": " + err);
    return t;
  };
  o.mean_gap = time_option("mean-gap");
  o.timeout = given("timeout") ? time_option("timeout") : Picos(cfg.hosts.timeout_ns) * 1000;
  o.result_latency = time_option("result-latency");
  for (const SharedOption& so : kSharedOptions) o.names[so.field] = given(so.flag) ? std::string("--") + so.flag : so.key;
  for (const auto& [flag, field] : kGenOnlyOptions) o.names[field] = std::string("--") + flag;
  // The whole workload is built in memory before it is written: keep it well within the machine.
  constexpr uint64_t kMaxWorkloadBytes = 4ull << 30;
  if (o.hosts && o.bytes > kMaxWorkloadBytes / o.hosts)
    throw InputError("--hosts x --bytes = " + std::to_string(o.hosts) + " x " + std::to_string(o.bytes) +
                     " bytes; at most 4 GiB of contributions in one trace");
  const std::string out = vm["output"].as<std::string>();
  if (out == "-") throw InputError("--output -: gen writes the trace and its expected results next to it; name a file");
  // Both files are checked before the workload is built, and appear together.
  OutputFiles files;
  if (vm.count("config")) files.input("--config", vm["config"].as<std::string>());
  std::ostream& trace = files.add("--output", out);
  std::ostream& expected = files.add("--output (its expected results)", out + ".expected");
  const AllreduceWorkload w = generate_allreduce(o);

  write_trace(trace, out, o.num_ports, w.records);
  write_expected(expected, w);
  files.commit();
  std::cout << "wrote " << out << " (" << w.records.size() << " packets from " << o.hosts << " hosts, "
            << w.expected.size() << " blocks";
  if (o.loss > 0) std::cout << ", " << w.lost << " lost and retransmitted";
  if (o.duplicate > 0) std::cout << ", " << w.duplicates << " duplicated";
  std::cout << ") and " << out << ".expected\n"
            << "run it with: " << run_line(*line, o, out) << "\n";
  return 0;
}

void FlareDense::add_stats(const RunView& run, nlohmann::json& stats) const {
  const int set = find_handler_set("flare_dense");
  const HandlerSetMemory& mem = run.sw.pspin().set_memory(set);
  stats["flare"] = {{"allreduces", nlohmann::json::array()}, {"left_open", nlohmann::json::array()}};
  if (!mem.l1_bytes) return;  // not installed: the section is there, empty
  // The allreduce table as installed: algorithm, buffers and L1 share of each allreduce.
  nlohmann::json& ars = stats["flare"]["allreduces"];
  for (const FlareAllreduce& a : flare_allreduces(run.cfg, mem.l1_bytes))
    ars.push_back({{"id", a.id}, {"algorithm", a.algorithm}, {"buffers_per_block", a.buffers_per_block},
                   {"children", a.ports.size()}, {"state_bytes", a.state_bytes},
                   {"states_per_cluster", a.states_per_cluster}, {"l1_offset", a.l1_offset}});

  // Blocks the run left open, by allreduce: how many, and the children none of whose
  // contributions reached some of them (what those blocks still wait for).
  const auto hs = run.sw.pspin().handler_stats().find("flare_dense");
  if (hs == run.sw.pspin().handler_stats().end() || hs->second.open_blocks.empty()) return;
  std::map<uint32_t, std::pair<uint64_t, std::set<unsigned>>> open;  // allreduce -> blocks, ports
  for (const FlareAllreduce& a : flare_allreduces(run.cfg, mem.l1_bytes))
    for (const auto& [key, block] : hs->second.open_blocks) {
      if (uint32_t(key >> 32) != a.id) continue;
      auto& o = open[a.id];
      ++o.first;
      for (unsigned p : a.ports)
        if (!std::binary_search(block.ports.begin(), block.ports.end(), p)) o.second.insert(p);
    }
  nlohmann::json left = nlohmann::json::array();
  for (const auto& [id, o] : open)
    left.push_back({{"allreduce", id}, {"blocks", o.first},
                    {"waiting_on_ports", std::vector<unsigned>(o.second.begin(), o.second.end())}});
  stats["flare"]["left_open"] = left;
}

std::string FlareDense::summary(const nlohmann::json& stats) const {
  if (!stats.contains("flare") || !stats["flare"].contains("left_open")) return "";
  std::string out;
  for (const auto& l : stats["flare"]["left_open"])
    out += "flare            allreduce " + std::to_string(l["allreduce"].get<uint32_t>()) + ": " +
           std::to_string(l["blocks"].get<uint64_t>()) + " blocks left open, waiting on ports " +
           format_ranges(l["waiting_on_ports"].get<std::vector<unsigned>>()) + "\n";
  return out;
}

}  // namespace

FS_PROTOCOL(FlareDense);

}  // namespace fs
