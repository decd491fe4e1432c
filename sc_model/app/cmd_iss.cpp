// `flaresim iss PROG.elf`: runs a bare RV32IMAFC program (with RI5CY's Xpulp under
// --isa rv32imafc_xpulp) on the instruction-set simulator with the Linux exit/write system calls;
// the program's exit status becomes flaresim's, and the retired instructions and cycles go to
// stderr at the end.
#include <iostream>

#include <boost/program_options.hpp>

#include "app/commands.h"
#include "common/errors.h"
#include "config/choices.h"
#include "config/config_io.h"
#include "iss/bare_run.h"

namespace po = boost::program_options;

namespace fs {

int cmd_iss(const std::vector<std::string>& args) {
  iss::BareRunOptions opts;
  std::string isa = choice_name(HpuIsa::kRv32imafc);
  std::string engine = choice_name(IssEngineKind::kFast);
  po::options_description desc("flaresim iss options");
  desc.add_options()
      ("help,h", "show this help")
      ("isa", po::value<std::string>(&isa)->default_value(isa),
       "rv32imafc, or rv32imafc_xpulp to decode RI5CY's Xpulp instructions as hpu.isa does")
      ("engine", po::value<std::string>(&engine)->default_value(engine),
       "fast, or plain: every instruction through every check (the reference; as hpu.iss_engine)")
      ("max-instructions", po::value<uint64_t>(&opts.max_instructions)->default_value(opts.max_instructions),
       "stop the program (exit 1) after this many instructions")
      ("quiet,q", "do not print instructions and cycles to stderr");
  po::options_description hidden;
  hidden.add_options()("elf", po::value<std::string>(), "program");
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("elf", 1);
  const po::variables_map vm = parse_command_line(args, all, &pos);
  if (vm.count("help")) {
    std::cout << "usage: flaresim iss [options] PROG.elf\n\n" << desc;
    return 0;
  }
  if (!vm.count("elf")) throw InputError("iss: missing the program (usage: flaresim iss PROG.elf)");
  HpuIsa chosen;
  if (!parse_choice(isa, &chosen))
    throw InputError("iss: bad value '" + isa + "' for '--isa': expected one of rv32imafc, rv32imafc_xpulp");
  opts.xpulp = chosen == HpuIsa::kRv32imafcXpulp;
  IssEngineKind kind;
  if (!parse_choice(engine, &kind))
    throw InputError("iss: bad value '" + engine + "' for '--engine': expected one of fast, plain");
  opts.plain = kind == IssEngineKind::kPlain;
  std::cout.flush();
  const iss::BareRunResult r = iss::run_bare_elf(vm["elf"].as<std::string>(), opts, std::cout, std::cerr);
  std::cout.flush();
  if (!vm.count("quiet"))
    std::cerr << "flaresim iss: " << r.instret << " instructions, " << r.cycles << " cycles\n";
  return r.exit_code;
}

}  // namespace fs
