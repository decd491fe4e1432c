// `flaresim run | gen | info`, and cli_main, which dispatches every command: option parsing with
// Boost.Program_options, error-to-exit-code mapping and the output files (see commands.h).
#include "app/commands.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <iostream>

#include <boost/program_options.hpp>

#include "app/insn_trace_options.h"
#include "app/network_run.h"
#include "app/simulation.h"
#include "app/stats_report.h"
#include "common/build_info.h"
#include "common/interrupt.h"
#include "common/output_files.h"
#include "common/text.h"
#include "config/config_io.h"
#include "common/errors.h"
#include "net/port_rule.h"
#include "net/trace_reader.h"
#include "net/trace_writer.h"
#include "plugin/protocol.h"
#include "pspin/handler_api.h"
#include "pspin/handler_counters.h"
#include "pspin/handler_sets.h"

namespace po = boost::program_options;

namespace fs {
namespace {

const char* kUsage =
    "usage: flaresim <command> [options]\n"
    "commands:\n"
    "  run   replay a packet trace through the switch model\n"
    "  gen   generate a workload trace and its expected results (gen WORKLOAD ...)\n"
    "  info  list every configuration key, handler set and scheduling policy\n"
    "        (info --counters: the table of per-handler counters in docs/STATS.md;\n"
    "         info --api: the table of the handler API in docs/HANDLERS.md)\n"
    "  iss   run a bare RISC-V program (rv32imafc ELF) on the instruction-set simulator\n"
    "  sweep run every combination of a sweep file's configuration values and merge their results\n"
    "        (sweep SWEEP.ini [--jobs N] [--slurm]: here, or as a Slurm job array; docs/SWEEP.md)\n"
    "  trace merge, shift or filter packet traces (trace merge|shift|filter ...; traces/FORMAT.md)\n"
    "'flaresim <command> --help' shows a command's options.\n";

enum class StatsFormat { kJson, kCsv };

// --stats-format, or the --stats file's extension: .csv is csv, anything else json.
StatsFormat stats_format_of(const po::variables_map& vm) {
  if (vm.count("stats-format")) {
    const std::string f = vm["stats-format"].as<std::string>();
    if (f == "json") return StatsFormat::kJson;
    if (f == "csv") return StatsFormat::kCsv;
    throw InputError("bad value '" + f + "' for '--stats-format': expected json or csv");
  }
  if (!vm.count("stats")) return StatsFormat::kJson;
  const std::string path = vm["stats"].as<std::string>();
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0 ? StatsFormat::kCsv : StatsFormat::kJson;
}

// `flaresim run` of a network (network.topology other than single): the hosts drive it, so the
// single switch's inputs and per-switch outputs are refused; the stats and the effective
// configuration are written as for any run, messages left unfinished are reported, and a ring
// allreduce whose results are wrong or incomplete fails the run.
int run_network_command(RunRequest& req, const po::variables_map& vm, StatsFormat stats_format) {
  for (const char* option : {"trace", "verify", "chrome-trace", "trace-insn", "dump-state", "handler-log", "vcd"})
    if (vm.count(option))
      throw InputError(std::string("--") + option + ": not available in a network run (network.topology = " +
                       req.cfg.network.topology + "), whose hosts drive it (traffic.*)");
  OutputFiles outputs;
  if (vm.count("config")) outputs.input("--config", vm["config"].as<std::string>());
  if (!req.cfg.network.file.empty()) outputs.input("--network.file", req.cfg.network.file);
  std::ostream* stats_out = vm.count("stats") ? &outputs.add("--stats", vm["stats"].as<std::string>()) : nullptr;
  std::ostream* config_out =
      vm.count("dump-config") ? &outputs.add("--dump-config", vm["dump-config"].as<std::string>()) : nullptr;
  std::ostream* calibration_out =
      vm.count("calibration-out") ? &outputs.add("--calibration-out", vm["calibration-out"].as<std::string>()) : nullptr;
  std::ostream* egress_out = vm.count("egress") ? &outputs.add("--egress", vm["egress"].as<std::string>()) : nullptr;
  std::ostream& report = outputs.writes_stdout() ? std::cerr : std::cout;
  const NetworkRunResult result = run_network(req.cfg, req.config_path, isatty(2), calibration_out, egress_out);
  if (stats_out) *stats_out << (stats_format == StatsFormat::kCsv ? stats_csv(result.stats) : result.stats.dump(2) + "\n");
  if (config_out) *config_out << "# flaresim " << build_version() << " (" << build_git_commit()
                              << "): the effective configuration of a run; flaresim run --config reads it back\n"
                              << config_ini_text(req.cfg);
  outputs.commit();
  if (!result.fault.empty()) throw SimError(result.fault);
  if (!vm.count("quiet")) report << format_network_summary(result.stats);
  if (result.unfinished)
    std::cerr << "flaresim: warning: the run ended with " << result.unfinished
              << " background messages incomplete (packets dropped on the way: stats network.drops, traffic.unfinished)\n";
  if (!result.allreduce_advice.empty()) std::cerr << "flaresim: warning: " << result.allreduce_advice << "\n";
  // The ring allreduce checks its own results; wrong or missing ones fail the run, whose stats
  // (written above) record it, as a failed verification does.
  if (!result.allreduce_failure.empty())
    throw SimError(result.allreduce_failure +
                   (stats_out ? " (the stats record it: allreduce.results_ok is false)" : ""));
  return 0;
}

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  po::options_description run_opts("flaresim run options");
  run_opts.add_options()
      ("help,h", "show this help")
      ("config", po::value<std::string>(),
       "INI file with configuration keys (e.g. configs/pspin-4x8.ini), or a stats JSON: its run's configuration")
      ("trace", po::value<std::string>(), "packet trace: text (traces/FORMAT.md), pcapng or pcap")
      ("stats", po::value<std::string>(), "statistics to write (docs/STATS.md); without it, only the summary")
      ("stats-format", po::value<std::string>(),
       "json (default) or csv (one header line, one row: every value outside arrays by its dotted path); "
       "a --stats name ending in .csv means csv")
      ("dump-config", po::value<std::string>(),
       "write the effective configuration (every key) as an INI file that --config reads back")
      ("egress", po::value<std::string>(),
       "pcapng capture of every frame leaving the switch (interface = egress port); in a network run, of every "
       "frame a host received (interface = host)")
      ("verify", po::value<std::string>(), "expected results file (from 'flaresim gen'); exit 1 on mismatch")
      ("seed", po::value<std::string>(), "seed of the run (same as --sim.seed)")
      ("hpu-model", po::value<std::string>(), "native or iss (same as --hpu.model)")
      ("threads", po::value<std::string>(),
       "host threads stepping ISS HPUs (same as --hpu.threads; the results do not depend on it)")
      ("pcap-port", po::value<std::string>()->default_value(TraceOptions().pcap_port),
       (std::string("ingress ports of a capture's packets: ") + port_rule_choices() +
        " (traces/FORMAT.md); auto: the pcapng interface id for a pcapng with several interfaces or written by "
        "flaresim, the low 16 bits of the source MAC otherwise").c_str())
      ("capture-times", po::value<std::string>()->default_value("relative"),
       "pcap/pcapng timestamps: relative (time 0 = the capture's first packet) or absolute")
      ("trace-insn", po::value<std::string>(),
       "instruction trace of the handler runs (needs --hpu.model iss; filters below)")
      ("dump-state", po::value<std::string>(),
       "at the end (or at a handler fault), write every installed handler set's L1 and L2 state as a hex dump")
      ("chrome-trace", po::value<std::string>(), "Chrome/Perfetto trace-event JSON: one track per HPU, one slice per handler run")
      ("calibration-out", po::value<std::string>(),
       "a calibration table of this run's handler costs (ISS HPUs): what hpu.calibration and calibrated switches read")
      ("handler-log", po::value<std::string>(),
       "the handlers' fs_log lines, each with simulated time, cluster, HPU and handler set (either HPU model)")
      ("rtl", po::value<std::string>(),
       "blocks to simulate as Verilated RTL instead of their SystemC twins: a comma-separated list of pkt_sched, "
       "cluster_sched, crc32, or all (results are the same; see docs/RTL.md)")
      ("vcd", po::value<std::string>(), "VCD waveforms of the Verilated blocks (needs --rtl), for GTKWave")
      ("quiet,q", "print no summary");
  const po::options_description trace_opts = insn_trace_options_description();
  po::options_description all;
  all.add(run_opts).add(trace_opts).add(config_options_description());
  const po::variables_map vm = parse_command_line(args, all);
  if (vm.count("help")) {
    std::cout << "usage: flaresim run [--config FILE.ini] --trace TRACE [--stats STATS.json] [--egress OUT.pcapng]\n"
                 "                    [--verify EXPECTED] [--seed N] [--<section.key> VALUE ...]\n\n"
              << run_opts << "\n" << trace_opts << "\nAny configuration key may follow as --section.key VALUE; 'flaresim info' lists them.\n";
    return 0;
  }
  const StatsFormat stats_format = stats_format_of(vm);

  RunRequest req;
  if (vm.count("config")) {
    req.config_path = vm["config"].as<std::string>();
    apply_ini_file(req.cfg, req.config_path);
  }
  apply_overrides(req.cfg, vm);
  if (vm.count("seed")) find_config_key("sim.seed")->set(req.cfg, vm["seed"].as<std::string>());
  if (vm.count("hpu-model")) find_config_key("hpu.model")->set(req.cfg, vm["hpu-model"].as<std::string>());
  if (vm.count("threads")) find_config_key("hpu.threads")->set(req.cfg, vm["threads"].as<std::string>());
  if (vm.count("calibration-out") && req.cfg.hpu.model != HpuModel::kIss)
    throw InputError("--calibration-out: a calibration measures handlers on the ISS (--hpu.model iss), not on " +
                     std::string(choice_name(req.cfg.hpu.model)) + " HPUs");
  if (vm.count("rtl")) req.cfg.rtl = parse_rtl_blocks(vm["rtl"].as<std::string>());
  if (req.cfg.network.topology != "single") return run_network_command(req, vm, stats_format);
  const bool hosts = req.cfg.hosts.model != "none";
  if (!vm.count("trace") && !hosts) {
    const std::string model = first_single_switch_host_model();
    throw InputError("missing --trace (or closed-loop hosts: --hosts.model " + (model.empty() ? "MODEL" : model) +
                     "; see 'flaresim run --help')");
  }
  if (vm.count("trace")) req.trace_path = vm["trace"].as<std::string>();
  req.pcap_port = vm["pcap-port"].as<std::string>();
  const std::string capture_times = vm["capture-times"].as<std::string>();
  if (capture_times != "relative" && capture_times != "absolute")
    throw InputError("bad value '" + capture_times + "' for '--capture-times': expected one of relative, absolute");
  req.relative_capture_times = capture_times == "relative";
  req.progress = isatty(2);
  if (vm.count("vcd") && !req.cfg.rtl.any())
    throw InputError("--vcd: no block runs as RTL (add --rtl pkt_sched,cluster_sched,crc32)");

  std::unique_ptr<ResultVerifier> expected;
  if (vm.count("verify")) expected = read_expected_results(vm["verify"].as<std::string>());  // fail before running
  req.verifier = expected.get();

  // Every output is checked now, before the run, and appears only if the run completes.
  OutputFiles outputs;
  for (const char* in : {"trace", "config", "verify"})
    if (vm.count(in)) outputs.input(std::string("--") + in, vm[in].as<std::string>());
  if (!port_rule_file(req.pcap_port).empty()) outputs.input("--pcap-port", port_rule_file(req.pcap_port));
  auto optional = [&](const char* option) -> std::ostream* {
    return vm.count(option) ? &outputs.add(std::string("--") + option, vm[option].as<std::string>()) : nullptr;
  };
  std::ostream* stats_out = optional("stats");
  std::ostream* config_out = optional("dump-config");
  req.egress = optional("egress");
  req.chrome_trace = optional("chrome-trace");
  req.calibration = optional("calibration-out");
  req.insn_trace = optional("trace-insn");
  req.insn_trace_options = insn_trace_options(vm);
  req.dump_state = optional("dump-state");
  req.handler_log = optional("handler-log");
  if (vm.count("vcd")) req.cfg.rtl.vcd = outputs.add_named("--vcd", vm["vcd"].as<std::string>());
  // With an output on standard output, what flaresim reports goes to standard error.
  std::ostream& report = outputs.writes_stdout() ? std::cerr : std::cout;

  RunResult result = run_simulation(req);
  if (!result.trace_note.empty()) std::cerr << "flaresim: note: " << result.trace_note << "\n";
  // Results checked against what was expected: the --verify file's, and the closed-loop hosts'.
  // The outcome goes into the stats, which are written either way (a failed check is a finished
  // run whose results are wrong); the command then fails. A run a handler fault stopped is not
  // checked: its stats and outputs are the evidence of the fault.
  const bool stopped = !result.fault.empty();
  std::optional<VerifyReport> file_check, hosts_check;
  if (expected && !stopped) file_check = expected->report();
  if (result.hosts_expected && !stopped) hosts_check = result.hosts_expected->report();
  result.stats["verify"] = verify_section(vm.count("verify") ? vm["verify"].as<std::string>() : "",
                                          file_check ? &*file_check : nullptr, hosts_check ? &*hosts_check : nullptr);
  result.stats["inputs"]["verify"] = vm.count("verify") ? vm["verify"].as<std::string>() : "";
  if (stats_out) *stats_out << (stats_format == StatsFormat::kCsv ? stats_csv(result.stats) : result.stats.dump(2) + "\n");
  if (config_out) *config_out << "# flaresim " << build_version() << " (" << build_git_commit()
                              << "): the effective configuration of a run; flaresim run --config reads it back\n"
                              << config_ini_text(req.cfg);
  outputs.commit();
  if (stopped) {
    char at[64];
    std::snprintf(at, sizeof at, "%.3f us", result.stats["sim"]["time_us"].get<double>());
    // The fault itself comes last: it is the error (what sweeps and scripts read from the last line).
    std::cerr << "flaresim: a handler fault stopped the run (hpu.on_fault = abort) at " << at
              << " of simulated time; the outputs asked for hold the run up to it (stats: end.reason = "
                 "handler_fault)\n";
    throw SimError(result.fault);
  }
  if (!vm.count("quiet")) report << format_summary(result.stats) << result.hosts_summary;
  // Work left unfinished is reported even with --quiet: a run that produced no results for some
  // blocks must not pass for a finished one.
  for (const auto& kv : result.stats["handlers"].items()) {
    // Faults under hpu.on_fault = drop: the first one (the cause) is named, not buried.
    if (const uint64_t faults = kv.value()["outcomes"]["fault"].get<uint64_t>()) {
      const uint64_t later = kv.value()["fault_consequences"].get<uint64_t>();
      std::cerr << "flaresim: warning: " << faults << " runs of handler set " << kv.key() << " faulted (dropped)"
                << (later ? ", " + std::to_string(later) + " of them waiting on a word an earlier fault left held" : "")
                << "; the first: " << kv.value()["faults"][0].get<std::string>() << "\n";
    }
    if (kv.value()["blocks"]["open_at_end"].get<uint64_t>())
      std::cerr << "flaresim: warning: the run ended with " << kv.value()["blocks"]["open_at_end"].get<uint64_t>()
                << " blocks of handler set " << kv.key() << " still waiting for packets (stats: handlers." << kv.key()
                << ".blocks.open)\n";
  }

  auto check = [&](const VerifyReport& rep, const std::string& against) {
    report << "verify           " << (rep.ok ? "OK" : "FAILED") << ": " << rep.matched << " of "
           << rep.expected_packets << " result packets match (missing " << rep.missing << ", wrong " << rep.wrong
           << ", duplicate " << rep.duplicate << ", unexpected " << rep.unexpected << ")\n";
    if (!rep.ok) {
      for (const auto& p : rep.problems) std::cerr << "flaresim: verify: " << p << "\n";
      throw SimError("verification against " + against + " failed" +
                     (stats_out ? " (the stats record it: verify.ok is false)" : ""));
    }
  };
  if (file_check) check(*file_check, vm["verify"].as<std::string>());
  if (hosts_check) check(*hosts_check, "the " + result.hosts_what + "' expected results");
  return 0;
}

int cmd_gen(const std::vector<std::string>& args) {
  std::string names;
  for (const Protocol* p : protocols())
    for (const std::string& n : p->gen_names()) names += (names.empty() ? "" : ", ") + n;
  const Protocol* p = args.empty() ? nullptr : protocol_for_gen(args[0]);
  if (!p)
    throw InputError("usage: flaresim gen WORKLOAD [options] -o TRACE (workloads: " + names +
                     "; 'flaresim gen WORKLOAD --help' shows its options)");
  return p->gen(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
}

int cmd_info(const std::vector<std::string>& args) {
  if (args.size() == 1 && args[0] == "--counters") {  // the table in docs/STATS.md
    std::cout << handler_counters_markdown();
    return 0;
  }
  if (args.size() == 1 && args[0] == "--api") {  // the table in docs/HANDLERS.md
    std::cout << handler_api_markdown();
    return 0;
  }
  if (!args.empty()) throw InputError("flaresim info takes no arguments but --counters or --api");
  const Config defaults;
  std::cout << "flaresim " << build_version() << "\n\nConfiguration keys (INI section.key, or --section.key on the "
               "command line), with defaults:\n";
  for (const auto& k : config_schema()) {
    std::cout << "  " << k.name << " = " << k.show(defaults) << "\n      " << k.doc;
    if (!k.choices.empty()) std::cout << " [" << k.choices << "]";
    std::cout << "\n";
  }
  std::cout << "\nProtocols:\n";
  for (const Protocol* p : protocols()) {
    std::cout << "  " << p->name() << "  " << p->doc() << "\n";
    std::string gens;
    for (const std::string& g : p->gen_names()) gens += " " + g;
    if (!gens.empty()) std::cout << "      flaresim gen:" << gens << "\n";
    for (const KeyChoice& m : p->host_models()) std::cout << "      hosts.model " << m.value << ": " << m.doc << "\n";
  }
  std::cout << "\nHandler sets (parser.rules '... -> NAME'):\n";
  for (const auto& hs : handler_sets()) {
    std::cout << "  " << hs.name << "  " << hs.doc << "\n      outcomes:";
    for (const auto& oc : hs.outcomes) std::cout << " " << oc.name << (oc.drop ? "(drop)" : "");
    std::cout << "\n";
  }
  std::cout << "\nScheduling policies (scheduler.policy):\n"
               "  fcfs          each packet to the cluster with the fewest outstanding tasks, round robin on ties\n"
               "  hier-fcfs     all packets of a block to one subset of scheduler.subset HPUs; blocks spread over "
               "subsets\n"
               "  home-cluster  PsPIN's: all packets of block b to cluster b mod clusters while it holds fewer than "
               "scheduler.max_outstanding tasks, else to the least loaded cluster (lowest index on ties)\n"
               "  flow          all packets of a flow to one cluster, the CRC-32 of its scheduler.flow_key fields (5tuple: "
               "addresses, protocol, ports; VLAN tags seen through) mod clusters, for any handler set; a packet waits "
               "while its cluster holds scheduler.max_outstanding tasks\n";
  return 0;
}

int cli_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (argc > 0) set_program_path(argv[0]);
  install_interrupt_handlers();
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::cout << kUsage;
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::cout << "flaresim " << build_version() << " (git " << build_git_commit() << ")\n";
      return 0;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "run") return cmd_run(args);
    if (cmd == "gen") return cmd_gen(args);
    if (cmd == "info") return cmd_info(args);
    if (cmd == "iss") return cmd_iss(args);
    if (cmd == "sweep") return cmd_sweep(args);
    if (cmd == "plot") return cmd_plot(args);
    if (cmd == "trace") return cmd_trace(args);
    throw InputError("unknown command '" + cmd + "' (valid: run, gen, info, iss, sweep, plot, trace)");
  } catch (const Interrupted& e) {
    std::cerr << "flaresim: interrupted by " << signal_name(e.signal()) << " while " << e.during()
              << "; no output file was written\n";
    return 128 + e.signal();
  } catch (const InputError& e) {
    if (pending_interrupt()) {  // a blocked open or read gave up because of the signal
      std::cerr << "flaresim: interrupted by " << signal_name(pending_interrupt()) << " (" << e.what()
                << "); no output file was written\n";
      return 128 + pending_interrupt();
    }
    std::cerr << "flaresim: " << e.what() << "\n";
    return 2;
  } catch (const SimError& e) {
    std::cerr << "flaresim: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "flaresim: out of memory building or running the model (check pspin.clusters, pspin.l1_bytes, "
                 "pspin.l2_handler_bytes and the trace size)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flaresim: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace fs
