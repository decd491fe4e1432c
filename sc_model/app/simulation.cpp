// The `run` pipeline (see simulation.h): trace in, switch built and run, stats and egress out.
#include "app/simulation.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "app/stats_report.h"
#include "common/build_info.h"
#include "config/config_json.h"
#include "common/interrupt.h"
#include "common/text.h"
#include "common/errors.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "pspin/calibration.h"
#include "pspin/handler_api.h"
#include "pspin/state_dump.h"
#include "switch/switch.h"

namespace fs {
namespace {

constexpr Picos kMaxTraceTime = Picos(1) << 62;
constexpr Picos kMaxSimTime = Picos(1) << 63;

}  // namespace

void run_to_end(const std::function<bool()>& stopped, bool progress, Picos last_arrival,
                std::chrono::steady_clock::time_point t0) {
  using clock = std::chrono::steady_clock;
  auto last_print = t0;
  bool printed = false;
  const sc_core::sc_time slice = ps_time(10 * kPicosPerUs);
  // SC_EXIT_ON_STARVATION stops at the last event instead of running the clock on, but it also
  // does not advance when the next event lies beyond the slice: start each slice there.
  while (sc_core::sc_pending_activity()) {
    // Trace times stop at 2^62 ps; a run that goes on past 2^63 ps is the configuration's doing
    // (e.g. millions of cycles per byte) and would soon wrap the kernel's 64-bit clock.
    if (now_ps() > kMaxSimTime)
      throw SimError("simulated time passed 2^63 ps (about 106 days) at " + std::to_string(now_ps()) +
                     " ps; the configured costs are too large to simulate");
    sc_core::sc_start(sc_core::sc_time_to_pending_activity() + slice, sc_core::SC_EXIT_ON_STARVATION);
    if (stopped()) break;  // a handler fault stopped the kernel
    if (pending_interrupt()) {
      if (printed) std::fprintf(stderr, "\r%60s\r", "");
      char at[64];
      std::snprintf(at, sizeof at, "%.3f", double(now_ps()) / double(kPicosPerUs));
      check_interrupted(std::string("simulating, at ") + at + " us of simulated time");
    }
    if (progress) {
      const auto now = clock::now();
      if (now - t0 > std::chrono::seconds(2) && now - last_print > std::chrono::milliseconds(500)) {
        const double sim_us = double(now_ps()) / double(kPicosPerUs);
        const double total_us = double(last_arrival) / double(kPicosPerUs);
        if (total_us > 0) {
          std::fprintf(stderr, "\rsimulated %.1f us of trace %.1f us (%.0f%%)   ", sim_us, total_us,
                       std::min(100.0, 100.0 * sim_us / total_us));
        } else {
          std::fprintf(stderr, "\rsimulated %.1f us   ", sim_us);
        }
        std::fflush(stderr);
        last_print = now;
        printed = true;
      }
    }
  }
  if (printed) std::fprintf(stderr, "\r%60s\r", "");
}

namespace {

// SystemC's reports: stdout holds only flaresim's own output, so warnings and errors go to
// stderr and information ("Simulation stopped by user." after a handler fault) nowhere.
void report_to_stderr(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if ((actions & sc_core::SC_DISPLAY) && r.get_severity() >= sc_core::SC_WARNING)
    std::fprintf(stderr, "flaresim: SystemC: %s\n", r.get_msg());
  sc_core::sc_report_handler::default_handler(r, actions & ~sc_core::SC_DISPLAY);
}

}  // namespace

void quiet_systemc_reports() {
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_handler(report_to_stderr);
}

namespace {

// The Chrome/Perfetto trace-event timeline of handler runs.
class ChromeTrace : public HandlerRunObserver {
 public:
  ChromeTrace(unsigned clusters, unsigned hpus) {
    for (unsigned c = 0; c < clusters; ++c) {
      events_.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", c}, {"args", {{"name", "cluster " + std::to_string(c)}}}});
      for (unsigned h = 0; h < hpus; ++h)
        events_.push_back(
            {{"name", "thread_name"}, {"ph", "M"}, {"pid", c}, {"tid", h}, {"args", {{"name", "HPU " + std::to_string(h)}}}});
    }
  }
  void handler_ran(const HandlerEvent& e) override {
    events_.push_back({{"name", *e.handler_set}, {"cat", "handler"}, {"ph", "X"}, {"pid", e.cluster},
                       {"tid", e.hpu}, {"ts", double(e.started) / double(kPicosPerUs)},
                       {"dur", double(e.ended - e.started) / double(kPicosPerUs)},
                       {"args",
                        {{"packet", e.packet_id},
                         {"cycles", e.cycles},
                         {"handler_cycles", e.handler_cycles},
                         {"outcome", e.outcome}}}});
  }
  nlohmann::json json() const { return {{"traceEvents", events_}, {"displayTimeUnit", "ns"}}; }

 private:
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace

RunResult run_simulation(const RunRequest& req) {
  const auto wall0 = std::chrono::steady_clock::now();
  validate_config(req.cfg);
  // Not a protocol's host model: the ring allreduce runs on a network's hosts (network_run.h).
  if (req.cfg.hosts.model == "ring")
    throw InputError("hosts.model = ring runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file; a file can "
                     "declare one switch)");
  if (req.cfg.hosts.groups != 1)
    throw InputError("hosts.groups = " + std::to_string(req.cfg.hosts.groups) +
                     ": concurrent allreduces run on a network's hosts (network.topology leaf_spine, fat_tree or "
                     "file); a single switch's hosts run one allreduce");
  // The stats record these names, and JSON holds UTF-8 only: refuse others now, not after the run.
  for (const auto& [option, path] : {std::pair{"--trace", &req.trace_path}, std::pair{"--config", &req.config_path}})
    if (!valid_utf8(*path))
      throw InputError(std::string(option) + ": the file name is not valid UTF-8 (the stats record it); rename the file");
  TraceOptions topts;
  topts.num_ports = req.cfg.ports.count;
  topts.pcap_port = req.pcap_port;
  topts.relative_capture_times = req.relative_capture_times;
  TraceInfo trace_info;
  // The trace's records, checked, without their frames: the replay reads each when it is due.
  TraceFrames trace = req.trace_path.empty() ? TraceFrames() : open_trace(req.trace_path, topts, &trace_info, kMaxTraceTime);
  std::vector<Switch::Arrival> arrivals;
  arrivals.reserve(trace.entries.size());
  Picos last_arrival = 0;
  for (size_t i = 0; i < trace.entries.size(); ++i) {
    const TraceFrames::Entry& e = trace.entries[i];
    arrivals.push_back(Switch::Arrival{e.time, i, e.size, e.port});
    last_arrival = std::max(last_arrival, e.time);
  }

  quiet_systemc_reports();
  Switch sw("switch", req.cfg);
  sw.load(arrivals, [&trace](size_t i) { return trace.frame(i); });
  std::vector<Switch::Arrival>().swap(arrivals);
  std::unique_ptr<HostAgents> hosts;
  if (req.cfg.hosts.model != "none") {
    const Protocol* owner = protocol_for_host_model(req.cfg.hosts.model);
    if (!owner) throw InputError("bad value '" + req.cfg.hosts.model + "' for 'hosts.model': no protocol provides it");
    hosts = owner->make_hosts(req.cfg.hosts.model, req.cfg, sw);
  }

  RunResult result;
  if (hosts) result.hosts_expected = hosts->verifier();
  if (trace_info.format == TraceFormat::kPcapng && trace_info.port_rule == "src-mac" && !trace_info.port_rule_why.empty())
    result.trace_note = req.trace_path + " has one interface: each packet's ingress port is the last two bytes of its "
                        "source MAC (--pcap-port src-mac, " + trace_info.port_rule_why +
                        "; traces/FORMAT.md lists the other rules)";
  std::unique_ptr<PcapngWriter> pcap;
  if (req.egress) pcap = std::make_unique<PcapngWriter>(*req.egress, req.cfg.ports.count);
  sw.on_departure([&](unsigned port, Picos time, const Packet& p) {
    if (pcap) pcap->write(uint16_t(port), time, p.data.data(), p.data.size());
    if (req.verifier) req.verifier->take(uint16_t(port), time, p.data);
    if (result.hosts_expected) result.hosts_expected->take(uint16_t(port), time, p.data);
  });
  if (req.insn_trace) sw.pspin().set_insn_trace(*req.insn_trace, req.insn_trace_options);
  if (req.handler_log) {
    *req.handler_log << HandlerLog::kHeader << "\n";
    sw.pspin().set_handler_log(req.handler_log);
  }
  // Chrome trace: one process per cluster, one thread per HPU, one complete event per handler run.
  std::unique_ptr<ChromeTrace> chrome;
  if (req.chrome_trace) {
    chrome = std::make_unique<ChromeTrace>(req.cfg.pspin.clusters, req.cfg.pspin.hpus_per_cluster);
    sw.pspin().observe_handler_runs(chrome.get());
  }

  CalibrationRecorder calibration;
  if (req.calibration) sw.pspin().observe_handler_runs(&calibration);

  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate and run time-zero activity
  if (sw.pspin().fatal_error().empty())
    run_to_end([&sw]() { return !sw.pspin().fatal_error().empty(); }, req.progress, last_arrival, wall0);
  const Picos end = now_ps();
  if (!trace.error().empty()) throw InputError(trace.error());
  result.fault = sw.pspin().fatal_error();

  nlohmann::json stats;
  stats["flaresim"] = {{"version", build_version()}, {"git_commit", build_git_commit()}, {"stats_schema", kStatsSchema}};
  stats["seed"] = req.cfg.seed;
  stats["end"] = {{"reason", result.fault.empty() ? "finished" : "handler_fault"}, {"fault", result.fault}};
  stats["inputs"] = {{"trace", req.trace_path}, {"config_file", req.config_path}, {"port_rule", trace_info.port_rule}};
  stats["config"] = config_to_json(req.cfg);
  stats.update(collect_stats(sw, end));
  const RunView view{req.cfg, sw, end};
  for (const Protocol* p : protocols()) p->add_stats(view, stats);
  stats["hosts"] = hosts ? hosts->stats().json() : HostStats().json();
  if (hosts) {
    result.hosts_summary = hosts->summary();
    result.hosts_what = hosts->what();
  }
  stats["wall_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (chrome) *req.chrome_trace << chrome->json().dump() << "\n";
  if (req.calibration) *req.calibration << calibration.table().text();
  if (req.dump_state) dump_handler_state(*req.dump_state, sw.pspin());
  result.stats = std::move(stats);
  return result;
}

}  // namespace fs
