// One simulation run as the CLI's `run` command performs it: read the trace, build the switch
// from the configuration, run to completion, and produce the statistics, the egress capture and
// the verification report. Kept apart from the CLI so tests can drive it directly.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "net/trace_reader.h"
#include "plugin/protocol.h"
#include "pspin/insn_trace.h"

namespace fs {

struct RunRequest {
  Config cfg;
  std::string trace_path;    // "" = none (closed-loop hosts drive the switch)
  std::string config_path;   // for the record in the stats file; "" if none
  std::string pcap_port = TraceOptions().pcap_port;  // ingress port rule for captures (net/port_rule.h)
  bool relative_capture_times = true;  // pcap/pcapng: time 0 = the capture's first packet
  // The --verify file's check, given every departing frame as it leaves (nullptr: none).
  ResultVerifier* verifier = nullptr;
  bool progress = false;     // print progress to stderr while running
  // Where the run's optional outputs go (nullptr: not written); the caller owns the streams
  // (the CLI's are common/output_files.h's, put in place once the run succeeds).
  std::ostream* egress = nullptr;        // pcapng of every departing frame
  std::ostream* chrome_trace = nullptr;  // Chrome/Perfetto trace-event JSON of handler runs
  std::ostream* calibration = nullptr;   // the handlers' calibration table (pspin/calibration.h)
  std::ostream* insn_trace = nullptr;    // instruction trace of ISS handler runs
  InsnTraceOptions insn_trace_options;   // which runs and lines it takes
  std::ostream* dump_state = nullptr;    // the handler sets' L1/L2 state at the end (pspin/state_dump.h)
  std::ostream* handler_log = nullptr;   // the handlers' fs_log lines (else dropped)
};

struct RunResult {
  nlohmann::json stats;
  // Closed-loop hosts: their check of what they must get, given every departing frame as it left.
  std::unique_ptr<ResultVerifier> hosts_expected;
  std::string hosts_what;                          // and what they are, for messages
  std::string hosts_summary;
  // The handler fault that stopped the run (hpu.on_fault = abort), "" if it ran to its end. The
  // stats and every output describe the run up to the fault.
  std::string fault;
  // A note for the user about how the trace was read ("" if none): a one-interface pcapng's
  // ingress ports taken from the source MACs by default.
  std::string trace_note;
};

// Runs the whole simulation; throws InputError / SimError, or Interrupted (common/interrupt.h)
// when a signal asks it to stop. A handler fault that stops the run is no exception: the result
// says so (RunResult::fault, stats `end`). Call once per process (SystemC elaborates once).
RunResult run_simulation(const RunRequest& req);

// Advances the simulation to its end in slices of simulated time, showing progress on stderr
// between them if asked (against the last trace arrival, 0 if none) and stopping early when
// `stopped` says a handler fault stopped the kernel or a signal asks to stop (Interrupted). The
// slice length does not change the result: the kernel stops at the last event.
void run_to_end(const std::function<bool()>& stopped, bool progress, Picos last_arrival,
                std::chrono::steady_clock::time_point t0);
// SystemC's reports on stderr as flaresim's own (its information messages nowhere).
void quiet_systemc_reports();

// The readable summary printed by `flaresim run`.
std::string format_summary(const nlohmann::json& stats);

}  // namespace fs
