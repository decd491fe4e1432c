// `flaresim trace merge|shift|filter`: edits packet traces (net/trace_edit.h; traces/FORMAT.md,
// "Trace tools"). Inputs are any trace flaresim reads (text, pcap, pcapng, with the capture
// options of `run`); the output is a text trace or pcapng, by --format or the -o name, written
// through common/output_files.h: never over an input, never left half-written under its name.
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "app/commands.h"
#include "common/errors.h"
#include "common/output_files.h"
#include "config/config.h"
#include "config/config_io.h"
#include "net/port_rule.h"
#include "net/trace_edit.h"
#include "net/trace_reader.h"
#include "net/trace_syntax.h"
#include "net/trace_writer.h"

namespace po = boost::program_options;

namespace fs {
namespace {

const char* kTraceUsage =
    "usage: flaresim trace merge  -o OUT [options] IN IN...\n"
    "       flaresim trace shift  -o OUT --by TIME [options] IN\n"
    "       flaresim trace filter -o OUT [--port LIST] [--from TIME] [--to TIME] [--index A-B]\n"
    "                             [--match FIELD=VALUE ...] [options] IN\n"
    "'flaresim trace SUBCOMMAND --help' shows its options (traces/FORMAT.md, \"Trace tools\").\n";

[[noreturn]] void bad_value(const std::string& option, const std::string& value, const std::string& expected) {
  throw InputError("bad value '" + value + "' for '--" + option + "': expected " + expected);
}

// The options every subcommand has: the output, and how the inputs are read.
po::options_description io_options() {
  po::options_description d("reading and writing");
  d.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>(), "the trace to write: pcapng if the name ends in .pcapng, else text ('-': standard output)")
      ("format", po::value<std::string>(), "text or pcapng, whatever the -o name")
      ("ports", po::value<unsigned>()->default_value(64),
       "switch ports (1..65536): the inputs' ports are below it, and a pcapng output has one interface per port")
      ("pcap-port", po::value<std::string>()->default_value(TraceOptions().pcap_port),
       (std::string("ingress ports of the packets of captures, as for run: ") + port_rule_choices() +
        " (traces/FORMAT.md)").c_str())
      ("capture-times", po::value<std::string>()->default_value("relative"),
       "capture timestamps: relative (time 0 = each capture's first packet) or absolute");
  return d;
}

struct Io {
  TraceOptions read;
  std::vector<std::string> inputs;
  std::string output;
  bool pcapng = false;
};

// Parses a subcommand's command line: its own options, the common ones, the inputs. Returns
// false after printing the help.
bool parse_io(const std::string& sub, const std::string& usage, const std::vector<std::string>& args,
              const po::options_description& own, po::variables_map* vm, Io* io) {
  po::options_description visible;
  visible.add(own).add(io_options());
  po::options_description all;
  all.add(visible);
  all.add_options()("input", po::value<std::vector<std::string>>(), "input traces");
  po::positional_options_description pos;
  pos.add("input", -1);
  *vm = parse_command_line(args, all, &pos);
  if (vm->count("help")) {
    std::cout << usage << "\n" << visible;
    return false;
  }
  if (!vm->count("output")) throw InputError("trace " + sub + ": missing -o OUT (see 'flaresim trace " + sub + " --help')");
  if (vm->count("input")) io->inputs = (*vm)["input"].as<std::vector<std::string>>();
  io->output = (*vm)["output"].as<std::string>();
  io->read.num_ports = (*vm)["ports"].as<unsigned>();
  if (io->read.num_ports < 1 || io->read.num_ports > 65536)
    bad_value("ports", std::to_string(io->read.num_ports), "a number of ports, 1..65536");
  io->read.pcap_port = (*vm)["pcap-port"].as<std::string>();
  const std::string times = (*vm)["capture-times"].as<std::string>();
  if (times != "relative" && times != "absolute") bad_value("capture-times", times, "one of relative, absolute");
  io->read.relative_capture_times = times == "relative";
  io->pcapng = is_pcapng_path(io->output);
  if (vm->count("format")) {
    const std::string f = (*vm)["format"].as<std::string>();
    if (f != "text" && f != "pcapng") bad_value("format", f, "one of text, pcapng");
    io->pcapng = f == "pcapng";
  }
  return true;
}

// Reads the inputs (each declared as an input of the output set), edits them, writes the result.
template <typename Edit>
int run_edit(const std::string& sub, const Io& io, Edit edit) {
  OutputFiles outputs;
  for (const std::string& in : io.inputs) outputs.input("trace " + in, in);
  if (!port_rule_file(io.read.pcap_port).empty()) outputs.input("--pcap-port", port_rule_file(io.read.pcap_port));
  std::ostream& out = outputs.add("-o", io.output);
  std::vector<std::vector<TraceRecord>> traces;
  for (const std::string& in : io.inputs) traces.push_back(read_trace(in, io.read));
  const std::vector<TraceRecord> result = edit(std::move(traces));
  if (io.pcapng)
    write_pcapng(out, io.read.num_ports, result);
  else
    write_text_trace(out, result);
  outputs.commit();
  (outputs.writes_stdout() ? std::cerr : std::cout)
      << "flaresim trace " << sub << ": " << io.inputs.size() << (io.inputs.size() == 1 ? " input, " : " inputs, ")
      << result.size() << (result.size() == 1 ? " packet" : " packets") << " written to " << io.output << "\n";
  return 0;
}

// --port-map N:FROM=TO[,FROM=TO...] into the port map of input N (counted from 1).
void add_port_map(const std::string& text, std::vector<MergeInput>& inputs, unsigned num_ports) {
  const std::string want = "N:FROM=TO[,FROM=TO...] (input N, counted from 1; ports below --ports)";
  const size_t colon = text.find(':');
  uint64_t n = 0;
  if (colon == std::string::npos || !parse_token_uint(text.substr(0, colon), 0xFFFFFFFFull, &n) || n == 0)
    bad_value("port-map", text, want);
  if (n > inputs.size())
    throw InputError("--port-map " + text + ": no input " + std::to_string(n) + " (" + std::to_string(inputs.size()) + " given)");
  MergeInput& in = inputs[n - 1];
  if (in.port_offset != 0) throw InputError("--port-map " + text + ": input " + std::to_string(n) + " has a --port-offset too");
  std::stringstream items(text.substr(colon + 1));
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    const size_t eq = item.find('=');
    uint64_t from = 0, to = 0;
    if (eq == std::string::npos || !parse_token_uint(item.substr(0, eq), num_ports - 1, &from) ||
        !parse_token_uint(item.substr(eq + 1), num_ports - 1, &to))
      bad_value("port-map", text, want);
    if (!in.port_map.emplace(unsigned(from), unsigned(to)).second)
      throw InputError("--port-map " + text + ": port " + std::to_string(from) + " of input " + std::to_string(n) +
                       " is mapped twice");
    any = true;
  }
  if (!any) bad_value("port-map", text, want);
}

int trace_merge(const std::vector<std::string>& args) {
  po::options_description own("flaresim trace merge options");
  own.add_options()
      ("port-offset", po::value<std::string>(),
       "comma-separated numbers, one per input in order: added to that input's ports (e.g. 0,8)")
      ("port-map", po::value<std::vector<std::string>>(),
       "N:FROM=TO[,FROM=TO...]: input N's (counted from 1) port FROM becomes TO; its other ports stay (repeatable)");
  po::variables_map vm;
  Io io;
  if (!parse_io("merge", "usage: flaresim trace merge -o OUT [options] IN IN...\n"
                         "Merges traces into one in time order; packets of equal times keep the order of the inputs.\n",
                args, own, &vm, &io))
    return 0;
  if (io.inputs.empty()) throw InputError("trace merge: no input traces (usage: flaresim trace merge -o OUT IN IN...)");
  std::vector<MergeInput> inputs(io.inputs.size());
  if (vm.count("port-offset")) {
    const std::string text = vm["port-offset"].as<std::string>();
    std::stringstream items(text);
    std::string item;
    size_t k = 0;
    while (std::getline(items, item, ',')) {
      uint64_t v = 0;
      if (!parse_token_uint(item, io.read.num_ports - 1, &v)) bad_value("port-offset", text, "one number below --ports per input");
      if (k < inputs.size()) inputs[k].port_offset = unsigned(v);
      ++k;
    }
    if (k != inputs.size() || text.empty() || text.back() == ',')
      throw InputError("--port-offset " + text + ": " + std::to_string(k) + " offsets for " +
                       std::to_string(inputs.size()) + " inputs (give one per input)");
  }
  if (vm.count("port-map"))
    for (const std::string& m : vm["port-map"].as<std::vector<std::string>>()) add_port_map(m, inputs, io.read.num_ports);
  return run_edit("merge", io, [&](std::vector<std::vector<TraceRecord>> traces) {
    for (size_t k = 0; k < traces.size(); ++k) inputs[k].records = std::move(traces[k]);
    return merge_traces(std::move(inputs), io.read.num_ports);
  });
}

int trace_shift(const std::vector<std::string>& args) {
  po::options_description own("flaresim trace shift options");
  own.add_options()("by", po::value<std::string>(),
                    "the time to add, with an optional sign: 2us, -1.5ns; no packet may end up before 0");
  po::variables_map vm;
  Io io;
  if (!parse_io("shift", "usage: flaresim trace shift -o OUT --by TIME [options] IN\nMoves every packet by TIME.\n", args,
                own, &vm, &io))
    return 0;
  if (io.inputs.size() != 1) throw InputError("trace shift: give exactly one input trace (" + std::to_string(io.inputs.size()) + " given)");
  if (!vm.count("by")) throw InputError("trace shift: missing --by TIME");
  TimeShift by;
  std::string err;
  if (!parse_time_shift(vm["by"].as<std::string>(), &by, &err)) throw InputError("--by: " + err);
  return run_edit("shift", io, [&](std::vector<std::vector<TraceRecord>> traces) {
    shift_trace(traces[0], by);
    return std::move(traces[0]);
  });
}

int trace_filter(const std::vector<std::string>& args) {
  po::options_description own("flaresim trace filter options (a packet is kept if it passes all of them)");
  own.add_options()
      ("port", po::value<std::string>(), "ingress ports to keep: a port list such as 0-3,7")
      ("from", po::value<std::string>(), "keep packets at this time or later (e.g. 1.5us)")
      ("to", po::value<std::string>(), "keep packets before this time")
      ("index", po::value<std::string>(),
       "keep packets A to B (A-B, A- or A), counted from 1 in trace order (captures: sorted by time)")
      ("match", po::value<std::vector<std::string>>(),
       "FIELD=VALUE on the packet's headers (repeatable): ethertype, vlan (an id or none), ip_proto (a number or "
       "udp, tcp, icmp, icmpv6), src_ip and dst_ip (an address or a prefix), sport and dport (UDP or TCP), "
       "src_mac, dst_mac");
  po::variables_map vm;
  Io io;
  if (!parse_io("filter", "usage: flaresim trace filter -o OUT [options] IN\nKeeps the packets that pass every test given.\n",
                args, own, &vm, &io))
    return 0;
  if (io.inputs.size() != 1) throw InputError("trace filter: give exactly one input trace (" + std::to_string(io.inputs.size()) + " given)");
  TraceFilter f;
  std::string err;
  if (vm.count("port")) {
    f.ports = parse_port_list("--port", vm["port"].as<std::string>());
    for (unsigned p : f.ports)
      if (p >= io.read.num_ports)
        throw InputError("--port " + vm["port"].as<std::string>() + ": port " + std::to_string(p) + " >= --ports " +
                         std::to_string(io.read.num_ports));
  }
  if (vm.count("from") && !parse_time_token(vm["from"].as<std::string>(), &f.from, &err)) throw InputError("--from: " + err);
  if (vm.count("to")) {
    if (!parse_time_token(vm["to"].as<std::string>(), &f.to, &err)) throw InputError("--to: " + err);
    f.to_given = true;
  }
  if (vm.count("index")) {
    const std::string text = vm["index"].as<std::string>();
    const size_t dash = text.find('-');
    const std::string a = text.substr(0, dash), b = dash == std::string::npos ? a : text.substr(dash + 1);
    if (!parse_token_uint(a, ~uint64_t(0), &f.first_index) || f.first_index == 0 ||
        (!b.empty() && !parse_token_uint(b, ~uint64_t(0), &f.last_index)) || f.last_index < f.first_index)
      bad_value("index", text, "A-B, A- or A with 1 <= A <= B");
  }
  if (vm.count("match"))
    for (const std::string& m : vm["match"].as<std::vector<std::string>>()) {
      FieldMatch fm;
      if (!FieldMatch::parse(m, &fm, &err)) throw InputError("--match " + m + ": " + err);
      f.matches.push_back(fm);
    }
  return run_edit("filter", io, [&](std::vector<std::vector<TraceRecord>> traces) {
    return filter_trace(std::move(traces[0]), f);
  });
}

}  // namespace

int cmd_trace(const std::vector<std::string>& args) {
  const std::string sub = args.empty() ? "" : args[0];
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub == "merge") return trace_merge(rest);
  if (sub == "shift") return trace_shift(rest);
  if (sub == "filter") return trace_filter(rest);
  if (sub == "--help" || sub == "-h") {
    std::cout << kTraceUsage;
    return 0;
  }
  throw InputError((sub.empty() ? std::string("trace: missing subcommand") : "trace: unknown subcommand '" + sub + "'") +
                   " (valid: merge, shift, filter; see 'flaresim trace --help')");
}

}  // namespace fs
