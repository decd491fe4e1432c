// The one interface through which a protocol plugs into flaresim. A protocol is
// handlers/<protocol>/ (C handlers, wire-format header) plus sc_model/protocols/<protocol>/,
// whose registration file implements Protocol and registers it with FS_PROTOCOL. At
// registration its configuration section, handler sets (with their control planes), default
// parser rules, text-trace syntax and host models are handed to the core's registries; the CLI
// asks the protocols for generators (`flaresim gen`), expected-results files (`run --verify`),
// closed-loop host agents (`hosts.model`), their part in networks of switches and stats sections.
// The core never names a protocol.
// docs/PROTOCOLS.md explains how to add one.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "common/units.h"
#include "fs_handler.h"
#include "net/packet.h"
#include "network/allreduce_run.h"
#include "net/trace_syntax.h"
#include "pspin/handler_sets.h"

namespace fs {

class Switch;
class Network;
struct Topology;

// A frame the switch sent, as result checks see it.
struct EgressRecord {
  uint16_t port = 0;
  Picos time = 0;  // when the packet left the port
  Bytes data;      // the frame as sent
};

// What checking the switch's results against the expected ones found.
struct VerifyReport {
  bool ok = false;
  uint64_t expected_packets = 0;  // results that must arrive (e.g. blocks x host ports)
  uint64_t matched = 0;     // first result for an expected one, correct
  uint64_t missing = 0;     // expected results that did not arrive
  uint64_t wrong = 0;       // first result for an expected one, incorrect
  uint64_t duplicate = 0;   // every further result for an already served one
  uint64_t unexpected = 0;  // results nobody expected
  std::vector<std::string> problems;  // the first 20, human readable, in detection order
};

// Checks what the switch sent: every departing frame, in departure order, as it leaves (the
// run keeps none of them), then what never came.
class ResultVerifier {
 public:
  virtual ~ResultVerifier() = default;
  virtual void take(uint16_t port, Picos time, const Bytes& frame) = 0;
  // After the last frame.
  virtual VerifyReport report() const = 0;
};
// take() for every record, then report().
VerifyReport verify_records(ResultVerifier& verifier, const std::vector<EgressRecord>& egress);

// The stats' "hosts" section (docs/STATS.md): the same keys whatever the host model, zeros and
// model "none" in a run without hosts, so that runs tabulate alike. `details` is the model's own
// (an object, {} for a model that has nothing more): its keys are the same in every run of
// that model.
struct HostStats {
  std::string model = "none";
  uint64_t hosts = 0, blocks = 0, sends = 0, retransmissions = 0, lost = 0, results = 0, blocks_completed = 0,
           max_in_flight = 0, gave_up = 0;
  double done_us = 0, allreduce_gbps = 0;
  nlohmann::json details = nlohmann::json::object();
  nlohmann::json json() const {
    return {{"model", model},       {"hosts", hosts},
            {"blocks", blocks},     {"sends", sends},
            {"retransmissions", retransmissions}, {"lost", lost},
            {"results", results},   {"blocks_completed", blocks_completed},
            {"max_in_flight", max_in_flight},     {"gave_up", gave_up},
            {"done_us", done_us},   {"allreduce_gbps", allreduce_gbps},
            {"details", details}};
  }
};

// Closed-loop host agents on the switch's ports, made before the simulation starts.
class HostAgents {
 public:
  virtual ~HostAgents() = default;
  virtual HostStats stats() const = 0;       // the stats' "hosts" section
  virtual std::string summary() const = 0;   // lines for the run's summary
  virtual std::string what() const = 0;      // in messages, e.g. "allreduce hosts"
  // What the hosts must have received, checked after the run.
  virtual std::unique_ptr<ResultVerifier> verifier() const = 0;
};

// A finished run, as a protocol's stats section sees it.
struct RunView {
  const Config& cfg;
  Switch& sw;
  Picos end;
};

struct HandlerSetSpec {
  const fs_handler_set_desc_t* desc;  // from FS_HANDLER_SET next to the C handler
  const HandlerSetControl* control;   // its control plane (nullptr: installs nothing, default memory)
};

// A protocol's part in a network run (network.topology other than single), made before the
// network is built: what each switch holds of the protocol and, when hosts.model is one of the
// protocol's models, the allreduce its agents run on the member hosts.
class NetworkRole {
 public:
  virtual ~NetworkRole() = default;
  // Switch `index`'s share of the protocol's state (e.g. its part of the reduction trees), set in
  // the configuration it is built with.
  virtual void configure_switch(unsigned index, Config& switch_cfg) const = 0;
  // The allreduce on the member hosts of the built network; nullptr when hosts.model is not one
  // of the protocol's.
  virtual std::unique_ptr<NetworkAllreduce> attach(Network& net) const = 0;
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  virtual std::string name() const = 0;  // e.g. the name of its folder
  virtual std::string doc() const = 0;   // one line

  // Handed to the core's registries when the protocol is registered.
  virtual std::vector<ConfigSection> config_sections() const { return {}; }
  virtual std::vector<HandlerSetSpec> handler_sets() const { return {}; }
  virtual std::vector<std::string> default_parser_rules() const { return {}; }
  virtual const TraceSyntax* trace_syntax() const { return nullptr; }
  virtual std::vector<KeyChoice> host_models() const { return {}; }
  // Those of host_models() that run only on a network (make_hosts refuses them on one switch).
  virtual std::vector<std::string> network_only_host_models() const { return {}; }

  // `flaresim gen NAME [options]` for each NAME of gen_names() (the first is the protocol's own
  // name): writes a trace and its expected results; returns the exit code, throws InputError.
  virtual std::vector<std::string> gen_names() const { return {}; }
  virtual int gen(const std::string& name, const std::vector<std::string>& args) const;

  // Closed-loop hosts of one of host_models(), attached to `sw`'s ports.
  virtual std::unique_ptr<HostAgents> make_hosts(const std::string& model, const Config& cfg, Switch& sw) const;

  // Its part in a network run over topology `t` (nullptr: its switches need nothing of it and it
  // has no network hosts); InputError for what the run's configuration gets wrong.
  virtual std::unique_ptr<NetworkRole> network_role(const Config& /*cfg*/, const Topology& /*t*/) const {
    return nullptr;
  }

  // Expected-results files (`run --verify`): the header line that starts them ("" = none), and
  // the file read into a verifier (throws InputError "file:line: reason").
  virtual std::string expected_header() const { return ""; }
  virtual std::unique_ptr<ResultVerifier> read_expected(const std::string& path) const;

  // Adds the protocol's part to the stats of a finished run (after the core's sections), and
  // the lines it adds to the run's summary from those stats ("" = none).
  virtual void add_stats(const RunView&, nlohmann::json& /*stats*/) const {}
  virtual std::string summary(const nlohmann::json& /*stats*/) const { return ""; }
};

// Registers a protocol and hands its parts to the core's registries; before main() runs.
void register_protocol(std::unique_ptr<Protocol> protocol);
// Every registered protocol, by name.
const std::vector<const Protocol*>& protocols();
const Protocol* find_protocol(const std::string& name);
// The protocol whose gen_names() has `name`, or whose host_models() has `model`; nullptr if none.
const Protocol* protocol_for_gen(const std::string& name);
const Protocol* protocol_for_host_model(const std::string& model);
// The first host model of the protocols (in name order) that runs on a single switch; "" if none.
std::string first_single_switch_host_model();

// Reads an expected-results file with the protocol whose expected_header() is its first line
// (blank lines and '#' comments aside); throws InputError naming the file.
std::unique_ptr<ResultVerifier> read_expected_results(const std::string& path);

// Registers protocol type T (default-constructible) when the program starts; in its .cpp file.
#define FS_PROTOCOL(T) \
  static const bool fs_protocol_registered_##T = (::fs::register_protocol(std::make_unique<T>()), true)

}  // namespace fs
