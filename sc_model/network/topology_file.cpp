// Edge-list topology files (network/topology.h's parse_topology_file and parse_topology_text):
// one declaration a line, '#' starting a comment, blank lines ignored:
//
//   switch NAME ports=N [kind=inc|plain|calibrated]     N from 1 to 4096; kind inc by default
//   host NAME                                          hosts are numbered in declaration order
//   link A:P B:P [gbps=X] [latency_ns=N] [queue_bytes=N] [ecn_bytes=N] [loss=P]
//
// A NAME starts with a letter or '_' and goes on with letters, digits, '_', '-' and '.'; switches
// and hosts share one set of names. A host has only port 0, so a link may name it without ":P".
// A link may name nodes declared further down. Its options override the ports section for that
// link: gbps as ports.gbps, latency_ns a whole number of nanoseconds, the sizes in bytes with an
// optional KiB, MiB or GiB suffix, loss the probability (0 to 1) that a frame is lost on the link
// (each direction drawn on its own; network.link_loss for every link). This file checks each
// line's form and resolves the names; validate() (topology.cpp) checks the rest (duplicate names,
// port ranges, a port used twice, links to itself or between hosts, connectivity) through each
// declaration's `where`, FILE:LINE.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "common/errors.h"
#include "common/text.h"
#include "config/config.h"
#include "config/config_keys.h"
#include "network/topology.h"

namespace fs {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& reason) { throw InputError(where + ": " + reason); }

// Runs one of the configuration's value parsers, whose InputError names the key and the value,
// and gives its message the place in the file.
template <typename Parse>
auto at(const std::string& where, Parse parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const InputError& e) {
    fail(where, e.what());
  }
}

// A size option ("64KiB") within [lo, hi], worded as the ports section's sizes are.
uint64_t parse_size_in(const std::string& key, const std::string& text, uint64_t lo, uint64_t hi) {
  const uint64_t v = parse_size(key, text);
  if (v < lo || v > hi)
    bad_value(key, text, "a size from " + std::to_string(lo) + " to " + std::to_string(hi) + " bytes");
  return v;
}

bool valid_name(const std::string& name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  for (char c : name)
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '.') return false;
  return true;
}

void check_name(const std::string& where, const std::string& name) {
  if (!valid_name(name))
    fail(where, "bad name '" + name +
                    "' (a name starts with a letter or '_' and goes on with letters, digits, '_', '-' or '.')");
}

// The KEY=VALUE words of a line from `first` on, each KEY one of `known` (at most once).
std::map<std::string, std::string> options_of(const std::vector<std::string>& words, size_t first,
                                              const std::vector<std::string>& known, const std::string& what,
                                              const std::string& where) {
  std::string expected;
  for (size_t i = 0; i < known.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == known.size() ? " or " : ", ") + known[i] + "=";
  std::map<std::string, std::string> options;
  for (size_t i = first; i < words.size(); ++i) {
    const size_t eq = words[i].find('=');
    const std::string key = words[i].substr(0, eq);
    if (eq == std::string::npos || std::find(known.begin(), known.end(), key) == known.end())
      fail(where, "unknown " + what + " option '" + words[i] + "' (expected " + expected + ")");
    if (!options.emplace(key, words[i].substr(eq + 1)).second) fail(where, key + "= given twice");
  }
  return options;
}

SwitchKind kind_named(const std::string& text, const std::string& where) {
  for (SwitchKind k : {SwitchKind::kInc, SwitchKind::kPlain, SwitchKind::kCalibrated})
    if (text == switch_kind_name(k)) return k;
  fail(where, "bad value '" + text + "' for 'kind': expected inc, plain or calibrated");
}

// "switch NAME ports=N [kind=...]"
TopoNode switch_line(const std::vector<std::string>& words, const std::string& where) {
  if (words.size() < 2) fail(where, "expected 'switch NAME ports=N [kind=inc|plain|calibrated]'");
  TopoNode n;
  n.name = words[1];
  n.where = where;
  check_name(where, n.name);
  const auto options = options_of(words, 2, {"ports", "kind"}, "switch", where);
  const auto ports = options.find("ports");
  if (ports == options.end()) fail(where, "switch " + n.name + " needs ports=N");
  n.ports = unsigned(at(where, [&] { return parse_key_uint("ports", ports->second, 1, kMaxSwitchPorts); }));
  if (options.count("kind")) n.kind = kind_named(options.at("kind"), where);
  return n;
}

// "host NAME"
TopoNode host_line(const std::vector<std::string>& words, unsigned index, const std::string& where) {
  if (words.size() != 2) fail(where, "expected 'host NAME'");
  check_name(where, words[1]);
  TopoNode n;
  n.name = words[1];
  n.host = true;
  n.host_index = index;
  n.where = where;
  return n;
}

// One end of a link as written, "NAME:PORT" or "NAME"; its name is resolved once every node is
// known.
struct LinkEnd {
  std::string text, name;
  std::optional<unsigned> port;
};

struct WrittenLink {
  LinkEnd a, b;
  LinkOverrides params;
  std::string where;
};

LinkEnd link_end(const std::string& text, const std::string& where) {
  LinkEnd end;
  end.text = text;
  const size_t colon = text.find(':');
  end.name = text.substr(0, colon);
  if (colon != std::string::npos) {
    uint64_t port = 0;
    if (!parse_decimal(text.substr(colon + 1), 0xFFFFFFFFu, &port))
      fail(where, "bad port in '" + text + "' (expected NAME:PORT, PORT a whole number)");
    end.port = unsigned(port);
  }
  return end;
}

// "link A:P B:P [options]", the options within the ports section's ranges.
WrittenLink link_line(const std::vector<std::string>& words, const std::string& where) {
  if (words.size() < 3) fail(where, "expected 'link A:P B:P [gbps=X] [latency_ns=N] [queue_bytes=N] [ecn_bytes=N] [loss=P]'");
  WrittenLink l;
  l.a = link_end(words[1], where);
  l.b = link_end(words[2], where);
  l.where = where;
  for (const auto& [key, value] :
       options_of(words, 3, {"gbps", "latency_ns", "queue_bytes", "ecn_bytes", "loss"}, "link", where)) {
    const std::string& v = value;  // a structured binding cannot be captured before C++20
    if (key == "gbps") l.params.gbps = at(where, [&] { return parse_key_double("gbps", v, 0.001, 1e6); });
    if (key == "latency_ns")
      l.params.latency_ns = at(where, [&] { return parse_key_uint("latency_ns", v, 0, 1ull << 40); });
    if (key == "queue_bytes")
      l.params.queue_bytes = at(where, [&] { return parse_size_in("queue_bytes", v, 1, 1ull << 40); });
    if (key == "ecn_bytes")
      l.params.ecn_bytes = at(where, [&] { return parse_size_in("ecn_bytes", v, 0, 1ull << 40); });
    if (key == "loss") l.params.loss = at(where, [&] { return parse_key_double("loss", v, 0, 1); });
  }
  return l;
}

// The node and port a link end names; a host's port may go unsaid.
std::pair<unsigned, unsigned> resolve(const Topology& t, const std::map<std::string, unsigned>& by_name,
                                      const LinkEnd& end, const std::string& where) {
  const auto it = by_name.find(end.name);
  if (it == by_name.end()) fail(where, "unknown node '" + end.name + "' (no switch or host of that name)");
  const TopoNode& n = t.nodes[it->second];
  if (!end.port && !n.host) fail(where, "switch " + n.name + " needs a port: " + n.name + ":P");
  return {it->second, end.port.value_or(0)};
}

}  // namespace

Topology parse_topology_text(const std::string& text, const std::string& file_name) {
  Topology t;
  std::vector<WrittenLink> written;
  std::istringstream in(text);
  std::string line;
  unsigned hosts = 0;
  for (size_t number = 1; std::getline(in, line); ++number) {
    const std::vector<std::string> words = line_words(line);
    if (words.empty()) continue;
    const std::string where = file_name + ":" + std::to_string(number);
    if (words[0] == "switch")
      t.nodes.push_back(switch_line(words, where));
    else if (words[0] == "host")
      t.nodes.push_back(host_line(words, hosts++, where));
    else if (words[0] == "link")
      written.push_back(link_line(words, where));
    else
      fail(where, "unknown declaration '" + words[0] + "' (expected switch, host or link)");
  }

  std::map<std::string, unsigned> by_name;  // the first of a duplicate name: validate() rejects the second
  for (unsigned i = 0; i < t.nodes.size(); ++i) by_name.emplace(t.nodes[i].name, i);
  for (const WrittenLink& w : written) {
    TopoLink l;
    std::tie(l.a, l.a_port) = resolve(t, by_name, w.a, w.where);
    std::tie(l.b, l.b_port) = resolve(t, by_name, w.b, w.where);
    l.params = w.params;
    l.where = w.where;
    t.links.push_back(l);
  }

  if (t.switches().empty()) fail(file_name, "no switch declared");
  if (hosts == 0) fail(file_name, "no host declared");
  validate(t);
  return t;
}

Topology parse_topology_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) fail(path, "a directory, not a topology file");
  std::ifstream in(path);
  if (!in) fail(path, "cannot open topology file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(path, "read error");
  return parse_topology_text(text.str(), path);
}

}  // namespace fs
