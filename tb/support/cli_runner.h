// Runs the real `flaresim` binary for end-to-end tests: a scratch directory per test, the
// command's exit code, stdout and stderr, small file helpers and CSV rows.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "app/commands.h"

namespace fs::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

// What a shell command prints on stdout ("" if it cannot start).
inline std::string command_output(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A PNG's width and height from its IHDR chunk; {0, 0} if the file is not a PNG.
inline std::pair<unsigned, unsigned> png_size(const std::string& path) {
  const std::string png = slurp(path);
  if (png.size() < 24 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || png.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    unsigned v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | (unsigned char)png[at + i];
    return v;
  };
  return {be32(16), be32(20)};
}

// A fresh directory under /tmp for one test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/flaresim-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~ScratchDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The lines of `text`, without their newlines.
// One line of RFC 4180 CSV into its fields.
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) f.emplace_back();
    else f.back() += c;
  }
  return f;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The names in `dir` (not in its subfolders), without the runner's own .stdout and .stderr.
inline std::set<std::string> files_in(const ScratchDir& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string n = e.path().filename().string();
    if (n != ".stdout" && n != ".stderr") names.insert(n);
  }
  return names;
}

// Runs `flaresim <args>` (args already shell-quoted where needed) in `dir`, with the environment
// variables of `env` ("NAME=value ...", shell-quoted) set for it.
// Runs one of the source tree's scripts/ (e.g. "flare-figures") in `dir` against this build (or
// the flaresim build folder `build`), its output in dir/out.txt and dir/err.txt; its exit code,
// -1 if it did not exit.
inline int run_source_script(const ScratchDir& dir, const std::string& script, const std::string& args,
                             const std::string& build = "") {
  const std::string bin_dir = build.empty() ? std::filesystem::path(FLARESIM_BIN).parent_path().string() : build;
  const std::string cmd = "cd '" + dir.path() + "' && FLARESIM_BUILD_DIR='" + bin_dir + "' '" FLARESIM_SOURCE_DIR
                          "/scripts/" + script + "' " + args + " >out.txt 2>err.txt";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline CliResult flaresim(const std::string& args, const ScratchDir& dir, const std::string& env = "") {
  const std::string out = dir / ".stdout", err = dir / ".stderr";
  const std::string cmd =
      "cd '" + dir.path() + "' && " + env + " '" FLARESIM_BIN "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The text between "<!-- BEGIN flaresim info --OPTION -->" and its END marker in docs/DOC: the
// table `flaresim info --OPTION` generates, as the docs hold it.
inline std::string generated_docs_table(const std::string& doc, const std::string& option) {
  const std::string docs = slurp(FLARESIM_SOURCE_DIR "/docs/" + doc);
  const std::string begin = "<!-- BEGIN flaresim info --" + option + " -->\n", end = "<!-- END flaresim info --" + option + " -->";
  const size_t b = docs.find(begin), e = docs.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return "(markers not found in docs/" + doc + ")";
  return docs.substr(b + begin.size(), e - b - begin.size());
}

// Runs the CLI in this process (where a test binary's own protocols are registered), capturing
// what it prints: the exit code; stdout and stderr into `out` and `err` if given.
inline int cli_in_process(std::vector<std::string> args, std::string* out = nullptr, std::string* err = nullptr) {
  args.insert(args.begin(), "flaresim");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = cli_main(int(argv.size()), argv.data());
  const std::string o = testing::internal::GetCapturedStdout(), e = testing::internal::GetCapturedStderr();
  if (out) *out = o;
  if (err) *err = e;
  return code;
}

// The same in a child process, so that one test can make several runs (SystemC elaborates once
// per process): the child runs the CLI with stdout and stderr into files in `dir`.
inline CliResult cli_in_child(std::vector<std::string> args, const ScratchDir& dir) {
  args.insert(args.begin(), "flaresim");
  const std::string out = dir / ".stdout", err = dir / ".stderr";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) _exit(125);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    const int code = cli_main(int(argv.size()), argv.data());
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  CliResult r;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace fs::test
