// Statistics collection and the readable summary (see stats_report.h, simulation.h).
#include "app/stats_report.h"

#include <cstdio>
#include <sstream>

#include "app/simulation.h"
#include "common/text.h"
#include "plugin/protocol.h"
#include "pspin/handler_counters.h"
#include "pspin/handler_sets.h"
#include "sweep/results.h"

namespace fs {

nlohmann::json to_json(const StatsTree& t) {
  switch (t.kind()) {
    case StatsTree::Kind::kNull: return nullptr;
    case StatsTree::Kind::kUint: return t.uint_value();
    case StatsTree::Kind::kDouble: return t.double_value();
    case StatsTree::Kind::kBool: return t.bool_value();
    case StatsTree::Kind::kText: return t.text();
    case StatsTree::Kind::kObject: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : t.members()) j[kv.first] = to_json(kv.second);
      return j;
    }
    case StatsTree::Kind::kArray: {
      nlohmann::json j = nlohmann::json::array();
      for (const StatsTree& e : t.items()) j.push_back(to_json(e));
      return j;
    }
  }
  return nullptr;
}

// Each block reports its own counters; here they are put together, and what spans blocks
// (totals, utilisation, throughput) is worked out.
nlohmann::json collect_stats(Switch& sw, Picos end) {
  const double seconds = double(end) / double(kPicosPerS);
  StatsTree j;
  j["sim"]["time_ps"] = end;
  j["sim"]["time_us"] = double(end) / double(kPicosPerUs);

  StatsTree& ports = j["ports"].make_array();
  uint64_t pin = 0, bin = 0, pout = 0, bout = 0, late = 0;
  for (size_t p = 0; p < sw.ingress().size(); ++p) {
    const IngressPort& in = *sw.ingress()[p];
    const EgressPort& out = *sw.egress()[p];
    pin += in.packets_in, bin += in.bytes_in, pout += out.packets_out, bout += out.bytes_out, late += in.late_starts;
    if (!in.packets_in && !out.packets_out) continue;
    StatsTree& port = ports.append();
    port["port"] = p;
    in.report(port);
    out.report(port);
  }
  StatsTree& totals = j["totals"];
  totals["packets_in"] = pin, totals["bytes_in"] = bin, totals["packets_out"] = pout, totals["bytes_out"] = bout;
  totals["ingress_late_starts"] = late;
  sw.parser().report(totals);

  StatsTree& drops = j["drops"];
  drops["total"] = sw.drops.total();
  for (const char* cause : {"malformed", "icrc", "oversize", "buffer_full", "no_route", "filtered", "egress_full"})
    drops["by_cause"][cause] = 0;
  for (const auto& kv : sw.drops.by_cause) drops["by_cause"][kv.first] = kv.second;
  // Handlers' drops: every installed set's dropping outcomes and `fault`, zeros included.
  PspinUnit& pspin = sw.pspin();
  StatsTree& by_handler = drops["by_handler"].make_object();
  for (int i : pspin.installed_sets()) {
    const HandlerSet& set = handler_sets()[size_t(i)];
    StatsTree& d = by_handler[set.name].make_object();
    for (const HandlerOutcome& oc : set.outcomes)
      if (oc.drop) d[oc.name] = 0;
    d["fault"] = 0;
  }
  for (const auto& set : sw.drops.by_handler)
    for (const auto& kv : set.second) by_handler[set.first][kv.first] = kv.second;

  pspin.retire().report(j["handlers"], pspin.installed_sets(), end);
  pspin.report_memory(j["handler_memory"]);
  pspin.timers().report(j["timers"]);
  uint64_t handled = 0, handled_bytes = 0;
  for (const auto& kv : pspin.handler_stats()) handled += kv.second.runs;

  StatsTree& clusters = j["clusters"].make_array();
  StatsTree& per_hpu = j["hpus"]["per_hpu"].make_array();
  double umin = 1.0, umax = 0.0, usum = 0.0;
  size_t nh = 0;
  const double cycles_total = double(end) / double(pspin.clock().period_ps);
  for (const auto& c : pspin.clusters()) {
    handled_bytes += c->dma().bytes_moved - c->dma().handler_bytes;  // the packets copied to HPUs
    c->report(clusters.append(), end);
    for (const auto& h : c->hpus()) {
      const double u = h->report(per_hpu.append(), cycles_total);
      umin = std::min(umin, u), umax = std::max(umax, u), usum += u, ++nh;
    }
  }
  StatsTree& util = j["hpus"]["utilisation"];
  util["min"] = nh ? umin : 0.0, util["avg"] = nh ? usum / double(nh) : 0.0, util["max"] = umax;

  sw.router().report(j["routing"]);
  pspin.packet_buffer().report(j["packet_buffer"], end);
  pspin.scheduler().report(j["scheduler"]);
  pspin.command_unit().report(j["commands"]);

  // Latency of departing frames (switch arrival of the packet that caused them to departure).
  StatsTree& lat = j["egress_latency"].make_array();
  for (const auto& e : sw.egress())
    if (e->latency_ps.count()) {
      StatsTree& l = lat.append();
      l["port"] = e->index();
      e->latency_ps.report(l["latency_ns"], 1000.0);
    }

  auto gbps = [&](uint64_t bytes) { return seconds > 0 ? double(bytes) * 8.0 / seconds / 1e9 : 0.0; };
  StatsTree& th = j["throughput"];
  th["in_gbps"] = gbps(bin), th["out_gbps"] = gbps(bout);
  th["handled_packets_per_s"] = seconds > 0 ? double(handled) / seconds : 0.0;
  th["handled_gbps"] = gbps(handled_bytes), th["handled_packets"] = handled;
  return to_json(j);
}

nlohmann::json verify_section(const std::string& expected_file, const VerifyReport* file, const VerifyReport* hosts) {
  auto check = [](const VerifyReport* r) {
    const VerifyReport none;
    const VerifyReport& v = r ? *r : none;
    return nlohmann::json{{"checked", r != nullptr},  {"ok", v.ok},
                          {"expected_packets", v.expected_packets}, {"matched", v.matched},
                          {"missing", v.missing},    {"wrong", v.wrong},
                          {"duplicate", v.duplicate}, {"unexpected", v.unexpected}};
  };
  nlohmann::json j;
  j["ok"] = (!file || file->ok) && (!hosts || hosts->ok);
  j["checks"] = int(file != nullptr) + int(hosts != nullptr);
  j["file"] = check(file);
  j["file"]["expected_file"] = expected_file;
  j["hosts"] = check(hosts);
  return j;
}

namespace {

void flatten(const nlohmann::json& j, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& kv : j.items()) flatten(kv.value(), path.empty() ? kv.key() : path + "." + kv.key(), out);
    return;
  }
  if (j.is_array()) return;
  out.emplace_back(path, j.is_string() ? j.get<std::string>() : j.is_null() ? std::string() : j.dump());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_stats(const nlohmann::json& stats) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten(stats, "", out);
  return out;
}

std::string stats_csv(const nlohmann::json& stats) {
  std::string head, row;
  const char* sep = "";
  for (const auto& [path, value] : flatten_stats(stats)) {
    head += sep + sweep::csv_field(path);
    row += sep + sweep::csv_field(value);
    sep = ",";
  }
  return head + "\n" + row + "\n";
}

std::string format_summary(const nlohmann::json& s) {
  std::ostringstream o;
  char line[256];
  const auto& t = s["totals"];
  std::snprintf(line, sizeof line, "simulated time   %.3f us\n", s["sim"]["time_us"].get<double>());
  o << line;
  std::snprintf(line, sizeof line, "packets          in %llu (%llu B), out %llu (%llu B)\n",
                (unsigned long long)t["packets_in"].get<uint64_t>(), (unsigned long long)t["bytes_in"].get<uint64_t>(),
                (unsigned long long)t["packets_out"].get<uint64_t>(), (unsigned long long)t["bytes_out"].get<uint64_t>());
  o << line;
  std::snprintf(line, sizeof line, "parser           matched %llu, routed %llu\n",
                (unsigned long long)t["matched"].get<uint64_t>(), (unsigned long long)t["routed"].get<uint64_t>());
  o << line;
  o << "drops            " << s["drops"]["total"].get<uint64_t>();
  bool first = true;
  for (const auto& kv : s["drops"]["by_cause"].items())
    if (kv.value().get<uint64_t>()) {
      o << (first ? " (" : ", ") << kv.key() << " " << kv.value().get<uint64_t>();
      first = false;
    }
  for (const auto& set : s["drops"]["by_handler"].items())
    for (const auto& kv : set.value().items())
      if (kv.value().get<uint64_t>()) {
        o << (first ? " (" : ", ") << set.key() << " " << kv.key() << " " << kv.value().get<uint64_t>();
        first = false;
      }
  o << (first ? "" : ")") << "\n";
  const auto& th = s["throughput"];
  std::snprintf(line, sizeof line, "throughput       in %.2f Gbit/s, out %.2f Gbit/s, handled %.3f Mpkt/s\n",
                th["in_gbps"].get<double>(), th["out_gbps"].get<double>(),
                th["handled_packets_per_s"].get<double>() / 1e6);
  o << line;
  const auto& pb = s["packet_buffer"];
  std::snprintf(line, sizeof line, "packet buffer    max %llu B (%llu pkts), avg %.1f B of %llu B\n",
                (unsigned long long)pb["max_bytes"].get<uint64_t>(), (unsigned long long)pb["max_packets"].get<uint64_t>(),
                pb["avg_bytes"].get<double>(), (unsigned long long)pb["capacity_bytes"].get<uint64_t>());
  o << line;
  const auto& u = s["hpus"]["utilisation"];
  std::snprintf(line, sizeof line, "HPU utilisation  min %.1f%%, avg %.1f%%, max %.1f%%\n", 100 * u["min"].get<double>(),
                100 * u["avg"].get<double>(), 100 * u["max"].get<double>());
  o << line;
  for (const auto& kv : s["handlers"].items()) {
    if (!kv.value()["runs"].get<uint64_t>()) continue;  // installed, never ran
    const auto& c = kv.value()["cycles"];
    std::snprintf(line, sizeof line, "handler %-8s runs %llu, cycles min %llu avg %.1f max %llu p99 %llu\n",
                  kv.key().c_str(), (unsigned long long)kv.value()["runs"].get<uint64_t>(),
                  (unsigned long long)c["min"].get<uint64_t>(), c["avg"].get<double>(),
                  (unsigned long long)c["max"].get<uint64_t>(), (unsigned long long)c["p99"].get<uint64_t>());
    o << line;
    const auto& rt = kv.value()["runtime_cycles"];
    std::snprintf(line, sizeof line, "                 runtime around it: entry avg %.1f, exit avg %.1f cycles\n",
                  rt["entry"]["avg"].get<double>(), rt["exit"]["avg"].get<double>());
    o << line;
    // Where contended handlers' cycles went: turns of wait loops (a held fs_lock, a flag).
    const uint64_t spin = kv.value()["iss"]["spin_cycles"].get<uint64_t>();
    const double total = c["avg"].get<double>() * double(c["count"].get<uint64_t>());
    if (spin) {
      std::snprintf(line, sizeof line, "                 waiting on locks and flags: %llu cycles, %.1f%% of its cycles\n",
                    (unsigned long long)spin, total > 0 ? 100.0 * double(spin) / total : 0.0);
      o << line;
    }
    o << "                 outcomes:";
    for (const auto& oc : kv.value()["outcomes"].items())
      if (oc.value().get<uint64_t>()) o << " " << oc.key() << " " << oc.value().get<uint64_t>();
    o << "\n";
    // A run that ends with handler state still waiting says so: an unfinished run must not look
    // like a finished one.
    if (kv.value()["blocks"]["open_at_end"].get<uint64_t>()) {
      const auto& first = kv.value()["blocks"]["open"][0];
      o << "left open        " << kv.value()["blocks"]["open_at_end"].get<uint64_t>() << " blocks of " << kv.key()
        << " still wait for packets at the end (first: block " << first["block"].get<uint32_t>() << " of group "
        << first["group"].get<uint32_t>() << ", packets from ports "
        << format_ranges(first["ports"].get<std::vector<uint32_t>>()) << ")\n";
    }
  }
  for (const Protocol* p : protocols()) o << p->summary(s);
  return o.str();
}

}  // namespace fs
