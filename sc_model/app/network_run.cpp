// The `run` pipeline for networks (see network_run.h).
#include "app/network_run.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>

#include "app/simulation.h"
#include "app/stats_report.h"
#include "common/build_info.h"
#include "common/errors.h"
#include "config/config_json.h"
#include "net/trace_writer.h"
#include "network/network.h"
#include "plugin/protocol.h"
#include "pspin/calibration.h"
#include "network/ring_allreduce.h"
#include "network/traffic.h"

namespace fs {
namespace {

// Retransmissions in a run that dropped nothing came from timeouts shorter than an ACK's way
// back, which follows the receiver's next segment on its link: the advice, "" if none is due.
std::string ring_timeout_advice(const Config& cfg, const AllreduceStats& s, uint64_t drops, double link_gbps) {
  if (!s.retransmissions || drops) return "";
  const double segment_us = double(s.bytes) / double(s.hosts) * 8.0 / link_gbps / 1e3;
  char line[400];
  std::snprintf(line, sizeof line,
                "the ring allreduce sent %llu segments again though the network dropped nothing: hosts.timeout_ns = "
                "%llu ran out while their ACKs were on the way (an ACK comes back about two segments' time after "
                "the segment's last packet went to the NIC, here 2 x %.3f us); raise hosts.timeout_ns",
                (unsigned long long)s.retransmissions, (unsigned long long)cfg.hosts.timeout_ns, segment_us);
  return line;
}

}  // namespace

// The hosts.model values a network's hosts run: the ring and every protocol's with a network role
// ("ring, allreduce, ... or roce_ring").
std::string network_host_models(const std::vector<const Protocol*>& with_roles) {
  std::vector<std::string> models = {"ring"};
  for (const Protocol* p : with_roles)
    for (const KeyChoice& m : p->host_models()) models.push_back(m.value);
  std::string out;
  for (size_t i = 0; i < models.size(); ++i)
    out += (i == 0 ? "" : i + 1 == models.size() ? " or " : ", ") + models[i];
  return out;
}

// The allreduce hosts.model runs on the network's members: the ring, or a protocol's (its role
// attaches it); nullptr for none. InputError for a protocol's model that has no network hosts.
std::unique_ptr<NetworkAllreduce> attach_allreduce(const Config& cfg, Network& net,
                                                   const std::vector<std::unique_ptr<NetworkRole>>& roles,
                                                   const std::vector<const Protocol*>& with_roles) {
  if (cfg.hosts.model == "none") return nullptr;
  if (cfg.hosts.model == "ring") {
    std::vector<std::unique_ptr<NetworkAllreduce>> rings;
    for (unsigned g = 0; g < cfg.hosts.groups; ++g)
      rings.push_back(std::make_unique<RingAllreduce>(g ? ("ring" + std::to_string(g)).c_str() : "ring", cfg, net, g));
    return grouped(std::move(rings));
  }
  for (const auto& role : roles)
    if (auto allreduce = role->attach(net)) return allreduce;
  throw InputError("hosts.model = " + cfg.hosts.model +
                   ": its hosts run on a single switch only in this version (network.topology = single); a network's "
                   "hosts run hosts.model = " + network_host_models(with_roles));
}

NetworkRunResult run_network(const Config& cfg, const std::string& config_path, bool progress,
                             std::ostream* calibration, std::ostream* egress) {
  const auto wall0 = std::chrono::steady_clock::now();
  validate_config(cfg);
  const bool with_traffic = cfg.traffic.pattern != "none";
  quiet_systemc_reports();
  Topology topology = topology_of(cfg.network);
  validate(topology);
  // Each protocol's part: what its switches hold (e.g. Flare's trees), and maybe its hosts.
  std::vector<std::unique_ptr<NetworkRole>> roles;
  std::vector<const Protocol*> with_roles;
  for (const Protocol* p : protocols())
    if (auto role = p->network_role(cfg, topology)) roles.push_back(std::move(role)), with_roles.push_back(p);
  if (cfg.hosts.model == "none" && !with_traffic)
    throw InputError("network.topology = " + cfg.network.topology +
                     ": nothing drives the network; set traffic.pattern (uniform, permutation or incast) or "
                     "hosts.model (" + network_host_models(with_roles) + ")");
  Network net("net", cfg, std::move(topology), [&roles](unsigned i, Config& c) {
    for (const auto& role : roles) role->configure_switch(i, c);
  });
  // Each binds its own UDP port on its hosts (the allreduce's, kTrafficUdpPort), so they share hosts.
  std::unique_ptr<BackgroundTraffic> traffic =
      with_traffic ? std::make_unique<BackgroundTraffic>("traffic", cfg, net) : nullptr;
  std::unique_ptr<NetworkAllreduce> allreduce = attach_allreduce(cfg, net, roles, with_roles);

  std::unique_ptr<PcapngWriter> capture;
  if (egress) {
    capture = std::make_unique<PcapngWriter>(*egress, unsigned(net.host_count()));
    net.observe_host_arrivals([&capture](unsigned host, Picos time, const Packet& p) {
      capture->write(uint16_t(host), time, p.data.data(), p.data.size());
    });
  }
  CalibrationRecorder recorder;
  if (calibration)
    for (size_t i = 0; i < net.switch_count(); ++i)
      if (net.switch_kind(i) == SwitchKind::kInc)
        net.switch_at(i).pspin().observe_handler_runs(&recorder);

  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  if (net.fatal_error().empty()) run_to_end([&net]() { return !net.fatal_error().empty(); }, progress, 0, wall0);
  const Picos end = now_ps();

  NetworkRunResult result;
  result.fault = net.fatal_error();
  result.unfinished = traffic ? traffic->unfinished() : 0;
  nlohmann::json& stats = result.stats;
  stats["flaresim"] = {{"version", build_version()}, {"git_commit", build_git_commit()}, {"stats_schema", kStatsSchema}};
  stats["seed"] = cfg.seed;
  stats["end"] = {{"reason", result.fault.empty() ? "finished" : "handler_fault"}, {"fault", result.fault}};
  stats["inputs"] = {{"trace", ""}, {"config_file", config_path}, {"topology_file", cfg.network.file}};
  stats["config"] = config_to_json(cfg);
  stats["sim"] = {{"time_ps", end}, {"time_us", double(end) / double(kPicosPerUs)}};
  StatsTree network, background, allreduce_stats;
  net.report(network, end);
  if (traffic) {
    traffic->report(background);
  } else {
    report_traffic("none", 0, 0, {}, 0, background);
  }
  const AllreduceStats rs = allreduce ? allreduce->stats() : AllreduceStats();
  rs.report(allreduce_stats);
  StatsTree& per_switch = network["per_switch"].make_array();
  for (size_t i = 0; i < net.switch_count(); ++i) {
    Switch& sw = net.switch_at(i);
    StatsTree& s = per_switch.append();
    s["name"] = net.switch_name(i);
    s["kind"] = switch_kind_name(net.switch_kind(i));
    uint64_t in = 0, out = 0;
    for (const auto& p : sw.ingress()) in += p->packets_in;
    for (const auto& p : sw.egress()) out += p->packets_out;
    s["packets_in"] = in, s["packets_out"] = out;
    s["drops"] = sw.drops.by_cause;
    // What its handlers did with the packets, by handler set and outcome (a plain switch: none).
    StatsTree& outcomes = s["handler_outcomes"].make_object();
    if (sw.has_pspin()) {
      for (const auto& [set, st] : sw.pspin().handler_stats()) outcomes[set] = st.outcomes;
      // And everything a single switch's stats say of its handlers: cycles, latency, the ISS's stalls.
      sw.pspin().retire().report(s["handlers"], sw.pspin().installed_sets(), end);
      sw.pspin().report_memory(s["handler_memory"]);  // where each set's state lies, and its size
    }
    sw.router().report(s["routing"]);
  }
  stats["network"] = to_json(network);
  stats["traffic"] = to_json(background);
  stats["allreduce"] = to_json(allreduce_stats);
  if (allreduce) {
    result.allreduce_failure = allreduce->failure();
    if (auto* ring = dynamic_cast<RingAllreduce*>(allreduce.get()))
      result.allreduce_advice = ring_timeout_advice(cfg, rs, network["drops"].uint_value(),
                                                    net.host(ring->host_of(0)).nic().params().gbps);
  }
  if (calibration) *calibration << recorder.table().text();
  stats["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return result;
}

std::string format_network_summary(const nlohmann::json& s) {
  std::ostringstream o;
  char line[256];
  const auto& n = s["network"];
  const auto& t = s["traffic"];
  std::snprintf(line, sizeof line, "simulated time   %.3f us\n", s["sim"]["time_us"].get<double>());
  o << line;
  std::snprintf(line, sizeof line, "network          %s: %llu switches, %llu hosts, %llu links\n",
                s["config"]["network"]["topology"].get<std::string>().c_str(),
                (unsigned long long)n["switches"].get<uint64_t>(), (unsigned long long)n["hosts"].get<uint64_t>(),
                (unsigned long long)n["links"].get<uint64_t>());
  o << line;
  std::snprintf(line, sizeof line, "links            %llu B in all, %llu B between switches; utilisation mean %.3f, max %.3f\n",
                (unsigned long long)n["bytes_total"].get<uint64_t>(),
                (unsigned long long)n["bytes_between_switches"].get<uint64_t>(), n["utilisation"]["mean"].get<double>(),
                n["utilisation"]["max"].get<double>());
  o << line;
  std::snprintf(line, sizeof line, "queues           %llu ECN marks, %llu drops\n",
                (unsigned long long)n["ecn_marked"].get<uint64_t>(), (unsigned long long)n["drops"].get<uint64_t>());
  o << line;
  if (t["pattern"] != "none") {
    std::snprintf(line, sizeof line,
                  "traffic          %s: %llu of %llu messages complete; FCT mean %.3f us, p99 %.3f us; goodput %.3f Gbit/s\n",
                  t["pattern"].get<std::string>().c_str(), (unsigned long long)t["completed"].get<uint64_t>(),
                  (unsigned long long)t["messages"].get<uint64_t>(), t["fct_us"]["mean"].get<double>(),
                  t["fct_us"]["p99"].get<double>(), t["goodput_gbps"].get<double>());
    o << line;
  }
  const auto& a = s["allreduce"];
  if (a["model"] != "none") {
    const double hosts = a["hosts"].get<double>();
    const uint64_t trees = a["trees"].get<uint64_t>();
    const std::string over = trees ? " over " + std::to_string(trees) + (trees == 1 ? " tree" : " trees") : "";
    // Concurrent allreduces (hosts.groups): also a host's goodput over its own group's time.
    const uint64_t groups = a["groups"].get<uint64_t>();
    char in_groups[64] = "", own[96] = "";
    if (groups > 1) {
      std::snprintf(in_groups, sizeof in_groups, " in %llu groups", (unsigned long long)groups);
      std::snprintf(own, sizeof own, "; %.3f over its group's own time", a["goodput_gbps"].get<double>());
    }
    std::snprintf(line, sizeof line, "allreduce        %s%s: %llu hosts%s, %llu bytes each, done in %.3f us (%.3f Gbit/s per host%s), results %s\n",
                  a["model"].get<std::string>().c_str(), over.c_str(), (unsigned long long)a["hosts"].get<uint64_t>(),
                  in_groups, (unsigned long long)a["bytes"].get<uint64_t>(), a["done_us"].get<double>(),
                  hosts > 0 ? a["allreduce_gbps"].get<double>() / hosts : 0.0, own,
                  a["results_ok"].get<bool>() ? "OK" : "WRONG");
    o << line;
  }
  return o.str();
}

}  // namespace fs
