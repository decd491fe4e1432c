// Statistics collection and the readable summary (see stats_report.h, simulation.h).
#include "app/stats_report.h"

#include <cstdio>
#include <sstream>

#include "app/simulation.h"
#include "common/text.h"
#include "plugin/protocol.h"
#include "pspin/handler_counters.h"

namespace fs {

namespace {

// handlers.<set>.iss: every row of pspin/handler_counters.def at its JSON path.
nlohmann::json iss_counters_json(const HandlerCounters& k) {
  nlohmann::json j = nlohmann::json::object();
  for (const HandlerCounterInfo& c : kHandlerCounters) {
    std::string pointer = std::string("/") + c.json;
    for (char& ch : pointer)
      if (ch == '.') ch = '/';
    j[nlohmann::json::json_pointer(pointer)] = k.*c.field;
  }
  return j;
}

}  // namespace

namespace {

// The blocks a run left open (handlers that keep block state waited for more packets): the
// first kMaxListed by (group, block), each with when it opened and the ports its packets came
// from, so that a protocol can tell which ports it still waits on.
constexpr size_t kMaxListed = 64;
nlohmann::json open_blocks_json(const HandlerSetStats& st) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& kv : st.open_blocks) {
    if (list.size() == kMaxListed) break;
    list.push_back({{"group", uint32_t(kv.first >> 32)}, {"block", uint32_t(kv.first)},
                    {"since_us", double(kv.second.since) / double(kPicosPerUs)},
                    {"ports", std::vector<uint32_t>(kv.second.ports.begin(), kv.second.ports.end())}});
  }
  return list;
}

}  // namespace

nlohmann::json collect_stats(Switch& sw, Picos end) {
  using nlohmann::json;
  const double seconds = double(end) / double(kPicosPerS);
  json j;
  j["sim"] = {{"time_ps", end}, {"time_us", double(end) / double(kPicosPerUs)}};

  json ports = json::array();
  uint64_t pin = 0, bin = 0, pout = 0, bout = 0, late = 0;
  for (size_t p = 0; p < sw.ingress().size(); ++p) {
    const IngressPort& in = *sw.ingress()[p];
    const EgressPort& out = *sw.egress()[p];
    pin += in.packets_in;
    bin += in.bytes_in;
    pout += out.packets_out;
    bout += out.bytes_out;
    late += in.late_starts;
    if (!in.packets_in && !out.packets_out) continue;
    ports.push_back({{"port", p}, {"packets_in", in.packets_in}, {"bytes_in", in.bytes_in},
                     {"packets_out", out.packets_out}, {"bytes_out", out.bytes_out},
                     {"egress_queue_max_bytes", out.queue_bytes.max()}, {"late_starts", in.late_starts}});
  }
  j["ports"] = ports;
  j["totals"] = {{"packets_in", pin}, {"bytes_in", bin}, {"packets_out", pout}, {"bytes_out", bout},
                 {"matched", sw.parser().matched}, {"routed", sw.parser().routed}, {"ingress_late_starts", late},
                 {"icrc_checked", sw.parser().icrc_checked}, {"icrc_engine_cycles", sw.parser().icrc_engine_cycles},
                 {"icrc_wait_us", double(sw.parser().icrc_wait_ps) / double(kPicosPerUs)}};

  json by_cause = {{"malformed", 0}, {"icrc", 0}, {"oversize", 0}, {"buffer_full", 0}, {"no_route", 0}, {"egress_full", 0}};
  for (const auto& kv : sw.drops.by_cause) by_cause[kv.first] = kv.second;
  j["drops"] = {{"total", sw.drops.total()}, {"by_cause", by_cause}};

  PspinUnit& pspin = sw.pspin();
  uint64_t handled = 0, handled_bytes = 0;
  json handlers = json::object();
  for (const auto& kv : pspin.handler_stats()) {
    handled += kv.second.runs;
    handlers[kv.first] = {{"runs", kv.second.runs}, {"cycles", kv.second.cycles.to_json()},
                          {"latency_ns", kv.second.latency_ps.to_json(1000.0)}, {"outcomes", kv.second.outcomes},
                          {"iss", iss_counters_json(kv.second.counters)},
                          {"faults", kv.second.faults}};
    const HandlerSetStats::BlockOccupancy b = kv.second.block_occupancy(end);
    if (b.completed || b.open_at_end)
      handlers[kv.first]["blocks"] = {{"completed", b.completed}, {"open_at_end", b.open_at_end},
                                      {"max_open", b.max_open}, {"avg_open", b.avg_open}};
    if (b.open_at_end) handlers[kv.first]["blocks"]["open"] = open_blocks_json(kv.second);
    if (kv.second.log_lines) handlers[kv.first]["log_lines"] = kv.second.log_lines;
  }
  j["handlers"] = handlers;

  // Where each installed handler set's memory is (pspin/memory/handler_memory.h).
  json memory = json::object();
  for (int set : pspin.installed_sets()) {
    const HandlerSetMemory& m = pspin.set_memory(set);
    memory[handler_sets()[size_t(set)].name] = {{"l1_offset", m.l1_offset}, {"l1_bytes", m.l1_bytes},
                                                {"l2_offset", m.l2_offset}, {"l2_bytes", m.l2_bytes}};
  }
  j["handler_memory"] = memory;

  auto gbps = [&](uint64_t bytes) { return seconds > 0 ? double(bytes) * 8.0 / seconds / 1e9 : 0.0; };
  auto per_s = [&](uint64_t n) { return seconds > 0 ? double(n) / seconds : 0.0; };
  json clusters = json::array();
  json hpus = json::array();
  double umin = 1.0, umax = 0.0, usum = 0.0;
  size_t nh = 0;
  const Clock& clk = pspin.clock();
  const double cycles_total = double(end) / double(clk.period_ps);
  for (const auto& c : pspin.clusters()) {
    Dma& dma = c->dma();
    handled_bytes += dma.bytes_moved - dma.handler_bytes;  // the packets copied to HPUs
    clusters.push_back({{"cluster", c->index()}, {"tasks", c->received}, {"queue_max", c->queued.max()},
                        {"queue_avg", c->queued.average(end)}, {"dma_transfers", dma.transfers},
                        {"dma_bytes", dma.bytes_moved}, {"dma_busy_cycles", dma.busy_cycles},
                        {"dma_handler_transfers", dma.handler_transfers}, {"dma_handler_bytes", dma.handler_bytes}});
    for (const auto& h : c->hpus()) {
      const double u = cycles_total > 0 ? double(h->handler_cycles) / cycles_total : 0.0;
      umin = std::min(umin, u);
      umax = std::max(umax, u);
      usum += u;
      ++nh;
      hpus.push_back({{"cluster", c->index()}, {"hpu", h->index()}, {"tasks", h->tasks},
                      {"handler_cycles", h->handler_cycles}, {"utilisation", u}});
    }
  }
  j["clusters"] = clusters;
  j["hpus"] = {{"utilisation", {{"min", nh ? umin : 0.0}, {"avg", nh ? usum / double(nh) : 0.0}, {"max", umax}}},
               {"per_hpu", hpus}};

  const PacketBuffer& buf = pspin.packet_buffer();
  j["packet_buffer"] = {{"capacity_bytes", buf.capacity()}, {"accepted", buf.accepted},
                        {"max_bytes", buf.occupancy_bytes.max()}, {"avg_bytes", buf.occupancy_bytes.average(end)},
                        {"max_packets", buf.occupancy_packets.max()},
                        {"avg_packets", buf.occupancy_packets.average(end)}};
  j["scheduler"] = {{"policy", sw.config().scheduler.policy}, {"assigned_per_cluster", pspin.scheduler().assigned()},
                    {"held", pspin.scheduler().held}};

  const CommandUnit& cu = pspin.command_unit();
  json writes = json::object();
  for (const auto& kv : cu.host_memory_writes) {
    uint64_t bytes = 0;
    for (const auto& w : kv.second) bytes += w.data.size();
    writes[std::to_string(kv.first)] = {{"writes", kv.second.size()}, {"bytes", bytes}};
  }
  j["commands"] = {{"sends", cu.sends}, {"multicasts", cu.multicasts}, {"frames_out", cu.frames_out},
                   {"host_writes", cu.host_writes}, {"host_writes_by_port", writes}};

  // Latency of departing frames (switch arrival of the packet that caused them to departure).
  json lat = json::array();
  for (const auto& e : sw.egress())
    if (e->latency_ps.count()) lat.push_back({{"port", e->index()}, {"latency_ns", e->latency_ps.to_json(1000.0)}});
  j["egress_latency"] = lat;

  j["throughput"] = {{"in_gbps", gbps(bin)}, {"out_gbps", gbps(bout)}, {"handled_packets_per_s", per_s(handled)},
                     {"handled_gbps", gbps(handled_bytes)}, {"handled_packets", handled}};
  return j;
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
    const auto& c = kv.value()["cycles"];
    std::snprintf(line, sizeof line, "handler %-8s runs %llu, cycles min %llu avg %.1f max %llu p99 %llu\n",
                  kv.key().c_str(), (unsigned long long)kv.value()["runs"].get<uint64_t>(),
                  (unsigned long long)c["min"].get<uint64_t>(), c["avg"].get<double>(),
                  (unsigned long long)c["max"].get<uint64_t>(), (unsigned long long)c["p99"].get<uint64_t>());
    o << line;
    o << "                 outcomes:";
    for (const auto& oc : kv.value()["outcomes"].items()) o << " " << oc.key() << " " << oc.value().get<uint64_t>();
    o << "\n";
    // A run that ends with handler state still waiting says so: an unfinished run must not look
    // like a finished one.
    if (kv.value().contains("blocks") && kv.value()["blocks"]["open_at_end"].get<uint64_t>()) {
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
