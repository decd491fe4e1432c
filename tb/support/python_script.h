// Runs one of the test suite's Python scripts with /usr/bin/python3 (where Debian's scapy is) and
// gives its standard output, for tests that check flaresim against an independent
// implementation (scapy's dissection, zlib's CRC).
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace fs::test {

// Runs `/usr/bin/python3 <FLARESIM_SOURCE_DIR>/<script> <args>` and returns "" with its standard
// output in *out, or why it failed (the script's exit status, with a hint about scapy).
inline std::string run_python_script(const std::string& script, const std::string& args, std::string* out) {
  const std::string cmd = "/usr/bin/python3 '" FLARESIM_SOURCE_DIR "/" + script + "' " + args;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "cannot run " + cmd;
  out->clear();
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out->append(buf, n);
  const int status = pclose(p);
  if (status != 0)
    return cmd + " failed (" +
           (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : "status " + std::to_string(status)) +
           "): /usr/bin/python3 needs scapy (python3-scapy); run scripts/install-deps";
  return "";
}

// The lines of a text, without empty ones and '#' comments.
inline std::vector<std::string> script_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(at, eol - at);
    at = eol + 1;
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

}  // namespace fs::test
