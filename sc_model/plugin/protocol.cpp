// The protocol registry (see protocol.h): keeps the protocols and hands their parts to the
// configuration, handler-set and trace-syntax registries of the core.
#include "plugin/protocol.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/errors.h"
#include "common/text.h"

namespace fs {
namespace {

std::vector<std::unique_ptr<Protocol>>& owned() {
  static std::vector<std::unique_ptr<Protocol>> all;
  return all;
}
std::vector<const Protocol*>& by_name() {
  static std::vector<const Protocol*> all;
  return all;
}

}  // namespace

int Protocol::gen(const std::string& name, const std::vector<std::string>&) const {
  throw InputError("gen: protocol " + this->name() + " has no workload '" + name + "'");
}

std::unique_ptr<HostAgents> Protocol::make_hosts(const std::string& model, const Config&, Switch&) const {
  throw InputError("bad value '" + model + "' for 'hosts.model': protocol " + name() + " has no such host model");
}

std::unique_ptr<ResultVerifier> Protocol::read_expected(const std::string& path) const {
  throw InputError(path + ": protocol " + name() + " reads no expected-results files");
}

void register_protocol(std::unique_ptr<Protocol> p) {
  if (find_protocol(p->name())) throw std::logic_error("protocol '" + p->name() + "' registered twice");
  for (ConfigSection& s : p->config_sections()) register_config_section(std::move(s));
  for (const HandlerSetSpec& h : p->handler_sets()) register_handler_set(*h.desc, h.control);
  for (const std::string& rule : p->default_parser_rules()) register_default_parser_rule(p->name(), rule);
  if (const TraceSyntax* t = p->trace_syntax()) register_trace_syntax(t);
  for (const KeyChoice& m : p->host_models()) register_key_choice("hosts.model", m);
  auto& v = by_name();
  v.insert(std::upper_bound(v.begin(), v.end(), p.get(),
                            [](const Protocol* a, const Protocol* b) { return a->name() < b->name(); }),
           p.get());
  owned().push_back(std::move(p));
}

const std::vector<const Protocol*>& protocols() { return by_name(); }

const Protocol* find_protocol(const std::string& name) {
  for (const Protocol* p : protocols())
    if (p->name() == name) return p;
  return nullptr;
}

const Protocol* protocol_for_gen(const std::string& name) {
  for (const Protocol* p : protocols())
    for (const std::string& n : p->gen_names())
      if (n == name) return p;
  return nullptr;
}

const Protocol* protocol_for_host_model(const std::string& model) {
  for (const Protocol* p : protocols())
    for (const KeyChoice& m : p->host_models())
      if (m.value == model) return p;
  return nullptr;
}

VerifyReport verify_records(ResultVerifier& verifier, const std::vector<EgressRecord>& egress) {
  for (const EgressRecord& r : egress) verifier.take(r.port, r.time, r.data);
  return verifier.report();
}

std::unique_ptr<ResultVerifier> read_expected_results(const std::string& path) {
  std::vector<const Protocol*> readers;
  for (const Protocol* p : protocols())
    if (!p->expected_header().empty()) readers.push_back(p);
  std::string header;
  std::ifstream in(path);
  for (std::string line; header.empty() && std::getline(in, line);) {
    for (const std::string& w : line_words(line)) header += (header.empty() ? "" : " ") + w;
  }
  for (const Protocol* p : readers)
    if (p->expected_header() == header) return p->read_expected(path);
  if (readers.size() == 1) return readers[0]->read_expected(path);  // it says what is wrong
  std::string known;
  for (const Protocol* p : readers) known += (known.empty() ? "'" : ", '") + p->expected_header() + "'";
  throw InputError(path + ": not an expected-results file (its first line is none of " +
                   (known.empty() ? std::string("the protocols' headers: none reads such files") : known) + ")");
}

std::string first_single_switch_host_model() {
  for (const Protocol* p : protocols()) {
    const std::vector<std::string> network_only = p->network_only_host_models();
    for (const KeyChoice& m : p->host_models())
      if (std::find(network_only.begin(), network_only.end(), m.value) == network_only.end()) return m.value;
  }
  return "";
}

}  // namespace fs
