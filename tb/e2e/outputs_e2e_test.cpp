// Outputs as a transaction and clean signals, through the CLI (common/output_files.h,
// common/interrupt.h): symbolic links are followed, "-", FIFOs and character devices are written
// in place as streams, bad output paths are refused before the run with nothing written, a failed
// or interrupted run leaves no file behind, and traces may be streams but not endless non-traces.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/elf_builder.h"

namespace fs::test {
namespace {

// Two packets of an unmatched protocol: a run of a few microseconds.
const char* kTrace =
    "0ns 0 hex 02000000000102000000000208004500001c000000004011f9ce0a0000010a000002\n"
    "10ns 1 hex 02000000000102000000000208004500001c000000004011f9ce0a0000010a000002\n";

TEST(E2EOutputs, ASymlinkIsFollowedAndKept) {
  ScratchDir dir;
  write_file(dir / "t.txt", kTrace);
  write_file(dir / "old.json", "old");
  symlink("old.json", (dir / "s.json").c_str());
  symlink("made.pcapng", (dir / "e.pcapng").c_str());  // dangling: its target is created
  const CliResult r = flaresim("run --trace t.txt --stats s.json --egress e.pcapng -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(lstat((dir / "s.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "old.json"))["totals"]["packets_in"], 2);
  ASSERT_EQ(lstat((dir / "e.pcapng").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(slurp(dir / "made.pcapng").substr(0, 4), std::string("\x0a\x0d\x0d\x0a", 4));
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "old.json", "s.json", "e.pcapng", "made.pcapng"}));
}

TEST(E2EOutputs, DashIsStandardOutputAndTheSummaryMovesToStandardError) {
  ScratchDir dir;
  write_file(dir / "t.txt", kTrace);
  const CliResult r = flaresim("run --trace t.txt --stats -", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["totals"]["packets_in"], 2);
  EXPECT_NE(r.err.find("simulated time"), std::string::npos) << r.err;
  EXPECT_EQ(files_in(dir), std::set<std::string>{"t.txt"});  // no file named "-"
}

TEST(E2EOutputs, CharacterDevicesAndFifosAreWrittenInPlace) {
  ScratchDir dir;
  write_file(dir / "t.txt", kTrace);
  ASSERT_EQ(mkfifo((dir / "egress.fifo").c_str(), 0600), 0);
  // A reader copies the FIFO to a file, as `cat fifo > copy` would.
  std::thread reader([&] {
    std::ifstream in(dir / "egress.fifo", std::ios::binary);
    std::ofstream(dir / "copy.pcapng", std::ios::binary) << in.rdbuf();
  });
  const CliResult r = flaresim("run --trace t.txt --stats /dev/null --egress egress.fifo -q", dir);
  reader.join();
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  ASSERT_EQ(lstat((dir / "egress.fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  const std::string copy = slurp(dir / "copy.pcapng");
  ASSERT_GT(copy.size(), 4u);
  EXPECT_EQ(copy.substr(0, 4), std::string("\x0a\x0d\x0d\x0a", 4));
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "egress.fifo", "copy.pcapng"}));
}

// The command was refused as bad input: exit 2 and exactly this message.
void expect_input_error(const CliResult& r, const std::string& message) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "flaresim: " + message + "\n");
}

// A bad output is refused before the run: exit 2, the option, the path and the reason ("{dir}"
// stands for the scratch directory), nothing written.
void expect_refused(const std::string& args, std::string message) {
  ScratchDir dir;
  write_file(dir / "t.txt", kTrace);
  std::filesystem::create_directory(dir / "d");
  const size_t at = message.find("{dir}");
  if (at != std::string::npos) message.replace(at, 5, dir.path());
  SCOPED_TRACE(args);
  const CliResult r = flaresim("run --trace t.txt " + args, dir);
  expect_input_error(r, message);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "d"})) << args;
}

TEST(E2EOutputs, BadOutputPathsAreRefusedBeforeTheRun) {
  expect_refused("--stats d",
                 "--stats d: is a directory; an output must be a regular file, a FIFO or a character device");
  expect_refused("--stats s.json --egress s.json", "--egress s.json: --stats names the same file");
  expect_refused("--stats s.json --egress ./d/../s.json", "--egress ./d/../s.json: --stats names the same file");
  expect_refused("--stats - --egress -", "--egress -: --stats writes to standard output too");
  expect_refused("--stats s.json --egress t.txt", "--egress t.txt: is the input --trace; name another file");
  expect_refused("--stats t.txt", "--stats t.txt: is the input --trace; name another file");
  expect_refused("--stats s.json --chrome-trace nowhere/c.json",
                 "--chrome-trace nowhere/c.json: the directory {dir}/nowhere does not exist");
  expect_refused("--stats s.json --rtl pkt_sched --vcd -",
                 "--vcd -: this output cannot go to standard output; name a file");
}

TEST(E2EOutputs, AHandlerFaultKeepsEveryOutputAsEvidence) {
  // The watchdog stops the first handler run (one cycle allowed): exit 1 after the simulation
  // started, and every output asked for is written, under its own name, as the run left it.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-1 --stats s.json --egress e.pcapng "
                               "--handler-log h.log --chrome-trace c.json --trace-insn i.txt --hpu.max_cycles 1",
                               dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("hpu.max_cycles"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // nothing from the SystemC kernel ("Simulation stopped by user.")
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"t.txt", "t.txt.expected", "s.json", "e.pcapng", "h.log", "c.json",
                                                  "i.txt"}));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["end"]["reason"], "handler_fault");
  EXPECT_NE(slurp(dir / "i.txt").find(" FAULT after "), std::string::npos);
}

// flaresim started in the background in `dir`, its stdout and stderr into files. SIGINT and
// SIGTERM have their default actions in it, whatever the test's own are; with `pending`, that
// signal is already waiting, blocked, when flaresim starts (it is delivered when flaresim
// installs its handlers, so the run's first check for signals stops it).
class Background {
 public:
  Background(const ScratchDir& dir, const std::vector<std::string>& args, int pending = 0) : dir_(dir) {
    pid_ = fork();
    if (pid_ == 0) {
      if (chdir(dir.path().c_str()) != 0) _exit(127);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      if (pending) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, pending);
        sigprocmask(SIG_BLOCK, &set, nullptr);
        raise(pending);
      }
      const int out = open(".stdout", O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = open(".stderr", O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> argv{const_cast<char*>(FLARESIM_BIN)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(FLARESIM_BIN, argv.data());
      _exit(127);
    }
  }
  // Sends `sig` (0: none) and returns the exit code (-1 if it did not exit normally).
  int stop(int sig) {
    if (sig) kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err() const { return slurp(dir_ / ".stderr"); }

 private:
  const ScratchDir& dir_;
  pid_t pid_;
};

// Waits up to 20 s for `ready`.
template <typename F>
bool wait_for(F ready) {
  for (int i = 0; i < 2000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(E2EOutputs, SigtermWhileReadingAFifoTrace) {
  // The trace's writer opens the FIFO and sends nothing: flaresim waits in its read.
  ScratchDir dir;
  ASSERT_EQ(mkfifo((dir / "t.fifo").c_str(), 0600), 0);
  Background run(dir, {"run", "--trace", "t.fifo", "--stats", "s.json", "--egress", "e.pcapng"});
  const int writer = open((dir / "t.fifo").c_str(), O_WRONLY);  // returns once flaresim has it open
  ASSERT_GE(writer, 0);
  ASSERT_TRUE(wait_for([&] { return files_in(dir).size() == 3; }));  // the FIFO and two temporary files
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into the read
  EXPECT_EQ(run.stop(SIGTERM), 128 + SIGTERM);
  close(writer);
  EXPECT_EQ(run.err(), "flaresim: interrupted by SIGTERM while reading the trace t.fifo; no output file was written\n");
  EXPECT_EQ(files_in(dir), std::set<std::string>{"t.fifo"});
}

TEST(E2EOutputs, SigintWhileSimulating) {
  // Closed-loop hosts with 8 MiB each on the ISS run for seconds (tens under the sanitizer); the egress capture grows as
  // results leave, which shows the simulation is under way.
  ScratchDir dir;
  Background run(dir, {"run", "--hosts.model", "allreduce", "--flare.ports", "0-3", "--hosts.bytes", "8MiB",
                       "--stats", "s.json", "--egress", "e.pcapng"});
  auto egress_size = [&] {
    for (const std::string& n : files_in(dir))
      if (n.rfind("e.pcapng.flaresim-partial-", 0) == 0) return std::filesystem::file_size(dir / n);
    return std::uintmax_t(0);
  };
  ASSERT_TRUE(wait_for([&] { return egress_size() > 1000; })) << run.err();
  EXPECT_EQ(run.stop(SIGINT), 128 + SIGINT);
  const std::string err = run.err();
  EXPECT_EQ(err.rfind("flaresim: interrupted by SIGINT while simulating, at ", 0), 0u) << err;
  EXPECT_NE(err.find(" us of simulated time; no output file was written\n"), std::string::npos) << err;
  EXPECT_EQ(files_in(dir), std::set<std::string>{});
}

TEST(E2EOutputs, ASignalThatArrivedBeforeTheHandlersStopsGenAtItsFirstCheck) {
  // SIGINT pending (blocked) at exec: gen's output files exist as temporaries when the generator
  // first checks; they are removed.
  ScratchDir dir;
  Background gen(dir, {"gen", "flare_dense", "--hosts", "2", "--bytes", "4KiB", "-o", "g.txt"}, SIGINT);
  EXPECT_EQ(gen.stop(0), 128 + SIGINT);
  EXPECT_EQ(gen.err(), "flaresim: interrupted by SIGINT while generating the hosts' packets; no output file was written\n");
  EXPECT_EQ(files_in(dir), std::set<std::string>{});
}

TEST(E2EOutputs, SigintWhileTheBareIssRuns) {
  // write(2, "go\n", 3), then j . forever: once "go" is on stderr the program is in its loop.
  ScratchDir dir;
  std::vector<uint8_t> elf = test::make_elf({0x00200513u /* li a0, 2 */, 0x000205b7u /* lui a1, 0x20 */,
                                             0x00300613u /* li a2, 3 */, 0x04000893u /* li a7, 64 */,
                                             0x00000073u /* ecall */, 0x0000006fu /* j . */},
                                            "go\n");
  write_file(dir / "p.elf", std::string(elf.begin(), elf.end()));
  Background iss(dir, {"iss", "p.elf"});
  ASSERT_TRUE(wait_for([&] { return iss.err() == "go\n"; })) << iss.err();
  EXPECT_EQ(iss.stop(SIGINT), 128 + SIGINT);
  const std::string err = iss.err();
  EXPECT_EQ(err.rfind("go\nflaresim: interrupted by SIGINT while running p.elf, after ", 0), 0u) << err;
  EXPECT_NE(err.find(" instructions; no output file was written\n"), std::string::npos) << err;
}

TEST(E2EOutputs, TheBareIssDecodesXpulpOnlyWhenAsked) {
  // li a0, -5; p.abs a0, a0; li a7, 93; ecall: exit status 5 with --isa rv32imafc_xpulp, an
  // illegal instruction under the default rv32imafc.
  ScratchDir dir;
  std::vector<uint8_t> elf = test::make_elf({0xffb00513u /* li a0, -5 */, 0x04050533u /* p.abs a0, a0 */,
                                             0x05d00893u /* li a7, 93 */, 0x00000073u /* ecall */});
  write_file(dir / "p.elf", std::string(elf.begin(), elf.end()));
  const CliResult x = flaresim("iss --isa rv32imafc_xpulp p.elf", dir);
  EXPECT_EQ(x.code, 5) << x.err;
  EXPECT_EQ(x.err, "flaresim iss: 3 instructions, 3 cycles\n");
  const CliResult plain = flaresim("iss p.elf", dir);
  EXPECT_EQ(plain.code, 1) << plain.err;
  EXPECT_NE(plain.err.find("illegal instruction 0x04050533 at pc 0x00010004"), std::string::npos) << plain.err;
  expect_input_error(flaresim("iss --isa rv64 p.elf", dir),
                     "iss: bad value 'rv64' for '--isa': expected one of rv32imafc, rv32imafc_xpulp");
  // The plain engine runs it alike (Xpulp goes through it on the fast one too).
  const CliResult on_plain = flaresim("iss --isa rv32imafc_xpulp --engine plain p.elf", dir);
  EXPECT_EQ(on_plain.code, 5) << on_plain.err;
  EXPECT_EQ(on_plain.err, "flaresim iss: 3 instructions, 3 cycles\n");
  expect_input_error(flaresim("iss --engine jit p.elf", dir),
                     "iss: bad value 'jit' for '--engine': expected one of fast, plain");
}

TEST(E2EOutputs, AnElfWhoseSegmentsDoNotFitIsRefusedBeforeAllocating) {
  // A 4-byte program whose p_memsz reaches the stack: refused, not zero-filled to 2 GiB (under
  // `ulimit -v` of 512 MiB the allocation would fail).
  ScratchDir dir;
  std::vector<uint8_t> elf = test::make_elf({0x00000073u});
  test::put32(elf, test::elf_phdr_field(0, 20), 0x7FF00000u - 0x10000u);
  write_file(dir / "p.elf", std::string(elf.begin(), elf.end()));
  const CliResult r = flaresim("iss p.elf", dir);
  expect_input_error(r, "p.elf: segment 0 (0x00010000, 2146369536 bytes) overlaps the stack (0x7fe00000 to 0x7fffffff)");
}

TEST(E2EOutputs, ErrorsNameTheKeyOrOptionTheValueCameFrom) {
  // The generator's cross-checks name the key in a run with closed-loop hosts, and in gen the
  // option or the key, as the user gave it.
  const std::string run = "run --hosts.model allreduce --flare.ports 0-1 --stats s.json ";
  const std::string gen = "gen flare_dense --hosts 2 -o g.txt ";
  const std::pair<std::string, std::string> cases[] = {
      {run + "--hosts.elem_bytes 6", "hosts.elem_bytes: 6 is not a positive multiple of the int32 size 4"},
      {run + "--hosts.bytes 6", "hosts.bytes: 6 is not a multiple of the int32 size 4"},
      {gen + "--elem-bytes 6", "--elem-bytes: 6 is not a positive multiple of the int32 size 4"},
      {gen + "--hosts.elem_bytes 6", "hosts.elem_bytes: 6 is not a positive multiple of the int32 size 4"},
      {gen + "--hosts.dtype int16 --elem-bytes 6 --bytes 5", "--bytes: 5 is not a multiple of the int16 size 2"},
      {"gen flare_dense --hosts 9 --ports 8 -o g.txt", "--hosts: 9 not in 1..8"},
  };
  ScratchDir dir;
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    expect_input_error(flaresim(args, dir), "allreduce generator: " + message);
  }
  EXPECT_EQ(files_in(dir), std::set<std::string>{});
}

TEST(E2EOutputs, NegativeNumbersForUnsignedOptionsAreRefused) {
  ScratchDir dir;
  expect_input_error(flaresim("iss --max-instructions -1 x.elf", dir),
                     "bad value '-1' for '--max-instructions': expected a whole number >= 0");
  expect_input_error(flaresim("gen allreduce --hosts -1 --bytes 1KiB -o g.txt", dir),
                     "bad value '-1' for '--hosts': expected a whole number >= 0");
  expect_input_error(flaresim("gen allreduce --hosts 2 --bytes 1KiB --window -1 -o g.txt", dir),
                     "bad value '-1' for '--window': expected a whole number >= 0");
  const CliResult k = flaresim("run --trace t.txt --stats s.json --pspin.clusters -1", dir);
  EXPECT_EQ(k.code, 2);
  EXPECT_NE(k.err.find("'pspin.clusters'"), std::string::npos) << k.err;
  EXPECT_EQ(files_in(dir), std::set<std::string>{});
}

TEST(E2EOutputs, PortListsAreCheckedWholeAndInLinearTime) {
  // 100 000 ports: the list is read in one pass (a pairwise check of repeats took seconds), then
  // refused by the protocol's limit; a repeat anywhere in a list is named.
  ScratchDir dir;
  write_file(dir / "t.txt", kTrace);
  expect_input_error(flaresim("run --trace t.txt --stats s.json --flare.ports 0-99999", dir),
                     "bad value '0-99999' for 'flare.ports': 1 to 256 children");
  expect_input_error(flaresim("run --trace t.txt --stats s.json --flare.ports 0-7,9,3", dir),
                     "bad value '0-7,9,3' for 'flare.ports': expected a port list without repeated ports");
  EXPECT_EQ(files_in(dir), std::set<std::string>{"t.txt"});
}

}  // namespace
}  // namespace fs::test
