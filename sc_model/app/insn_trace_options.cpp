// The instruction trace's command-line options (see insn_trace_options.h).
#include "app/insn_trace_options.h"

#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "config/config.h"
#include "net/trace_reader.h"

namespace po = boost::program_options;

namespace fs {
namespace {

const char* const kFilters[] = {"trace-clusters", "trace-hpus",  "trace-sets",   "trace-packets",
                                "trace-from",     "trace-to",    "trace-limit",  "trace-symbols"};

Picos time_option(const po::variables_map& vm, const char* option) {
  Picos t = 0;
  std::string err;
  const std::string text = vm[option].as<std::string>();
  if (!parse_time_token(text, &t, &err))
    throw InputError("bad value '" + text + "' for '--" + option + "': " + err + " (a time such as 1.5us)");
  return t;
}

// A decimal number in `text`, part of the option's value `all`; `want` says what was expected.
uint64_t number(const char* option, const std::string& text, const std::string& all, const char* want) {
  uint64_t v = 0;
  if (!parse_decimal(text, ~0ull, &v))
    throw InputError("bad value '" + all + "' for '--" + option + "': expected " + want);
  return v;
}

}  // namespace

po::options_description insn_trace_options_description() {
  po::options_description d("instruction trace (--trace-insn FILE; docs/HANDLERS.md, \"Debugging\")");
  d.add_options()
      ("trace-clusters", po::value<std::string>(), "trace only these clusters (e.g. 0,2-3)")
      ("trace-hpus", po::value<std::string>(), "trace only these HPUs of each cluster (e.g. 0-1)")
      ("trace-sets", po::value<std::string>(), "trace only these handler sets (comma-separated names)")
      ("trace-packets", po::value<std::string>(),
       "trace only runs on these packets: an id or a range A-B (ids count the trace's packets from 0)")
      ("trace-from", po::value<std::string>(), "trace only instructions from this simulated time on (e.g. 2us)")
      ("trace-to", po::value<std::string>(), "trace only instructions up to this simulated time")
      ("trace-limit", po::value<std::string>(), "stop after this many instruction lines (fault markers still follow)")
      ("trace-symbols", "name each PC's function and source line (from the handler ELF's debug information)");
  return d;
}

InsnTraceOptions insn_trace_options(const po::variables_map& vm) {
  InsnTraceOptions o;
  if (!vm.count("trace-insn"))
    for (const char* f : kFilters)
      if (vm.count(f)) throw InputError(std::string("--") + f + " filters the instruction trace: add --trace-insn FILE");
  if (vm.count("trace-clusters"))
    for (unsigned c : parse_number_list("--trace-clusters", vm["trace-clusters"].as<std::string>(), "cluster"))
      o.clusters.insert(c);
  if (vm.count("trace-hpus"))
    for (unsigned h : parse_number_list("--trace-hpus", vm["trace-hpus"].as<std::string>(), "HPU")) o.hpus.insert(h);
  if (vm.count("trace-sets")) {
    std::stringstream ss(vm["trace-sets"].as<std::string>());
    for (std::string name; std::getline(ss, name, ',');) {
      if (name.empty()) throw InputError("bad value '" + vm["trace-sets"].as<std::string>() + "' for '--trace-sets': an empty name");
      o.sets.insert(name);
    }
  }
  if (vm.count("trace-packets")) {
    const std::string text = vm["trace-packets"].as<std::string>();
    const size_t dash = text.find('-');
    const char* want = "a packet id or a range A-B of packet ids";
    o.first_packet = number("trace-packets", text.substr(0, dash), text, want);
    o.last_packet = dash == std::string::npos ? o.first_packet : number("trace-packets", text.substr(dash + 1), text, want);
    if (o.last_packet < o.first_packet)
      throw InputError("bad value '" + text + "' for '--trace-packets': the range ends before it starts");
  }
  if (vm.count("trace-from")) o.from = time_option(vm, "trace-from");
  if (vm.count("trace-to")) o.to = time_option(vm, "trace-to");
  if (o.to < o.from) throw InputError("--trace-to is before --trace-from: the trace would be empty");
  if (vm.count("trace-limit")) {
    const std::string text = vm["trace-limit"].as<std::string>();
    o.max_lines = number("trace-limit", text, text, "a number of lines");
  }
  o.symbols = vm.count("trace-symbols") > 0;
  return o;
}

}  // namespace fs
