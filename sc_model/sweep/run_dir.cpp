// The sweep's output folder and its per-run folders (see run_dir.h).
#include "sweep/run_dir.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/text.h"

namespace fsys = std::filesystem;

namespace fs::sweep {
namespace {

const char* kMarker = ".flaresim-sweep";

bool is_ours_or_new(const std::string& dir) {
  std::error_code ec;
  if (!fsys::exists(dir, ec)) return true;
  if (!fsys::is_directory(dir, ec)) throw InputError(dir + ": exists and is not a folder; choose another -o");
  if (fsys::exists(fsys::path(dir) / kMarker, ec)) return true;
  if (fsys::is_empty(dir, ec)) return true;
  throw InputError(dir + ": exists and is not a flaresim sweep folder (it has no " + std::string(kMarker) +
                   "); choose another -o or empty it");
}

}  // namespace

const char* state_name(RunState::Kind k) {
  return k == RunState::kDone ? "done" : k == RunState::kFailed ? "failed" : "pending";
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw SimError(path + ": cannot write");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw SimError(path + ": cannot write");
  }
}

void SweepDir::check(const std::string& dir) { is_ours_or_new(dir); }

bool SweepDir::is_sweep(const std::string& dir) {
  std::error_code ec;
  return fsys::is_directory(dir, ec) && fsys::exists(fsys::path(dir) / kMarker, ec);
}

SweepDir::SweepDir(const std::string& dir) {
  is_ours_or_new(dir);
  std::error_code ec;
  fsys::create_directories(fsys::path(dir) / "runs", ec);
  if (ec) throw InputError(dir + ": cannot create the sweep folder: " + ec.message());
  dir_ = fsys::absolute(dir).lexically_normal().string();
  if (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
  const std::string marker = dir_ + "/" + kMarker;
  if (!fsys::exists(marker)) write_atomically(marker, "flaresim sweep output folder (docs/SWEEP.md)\n");
}

std::string SweepDir::run_dir(const std::string& id) const { return dir_ + "/runs/" + id; }

RunState SweepDir::state(const std::string& id) const {
  RunState s;
  std::ifstream in(run_dir(id) + "/status.json");
  if (!in) return s;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("status") || !j["status"].is_string()) return s;  // unreadable: run again
  const std::string st = j["status"];
  s.exit_code = j.value("exit_code", 0);
  s.signal = j.value("signal", 0);
  s.wall_seconds = j.value("wall_seconds", 0.0);
  s.error = j.value("error", "");
  if (st == "done" && fsys::exists(run_dir(id) + "/stats.json")) s.kind = RunState::kDone;
  if (st == "failed") s.kind = RunState::kFailed;
  return s;
}

void SweepDir::prepare(const RunPoint& p, const std::vector<std::string>& argv) const {
  const std::string run = run_dir(p.id);
  std::error_code ec;
  fsys::remove_all(run, ec);
  fsys::create_directories(run, ec);
  if (ec) throw SimError(run + ": cannot create the run's folder: " + ec.message());
  std::string header = "# flaresim sweep run " + p.id + " (run " + std::to_string(p.index + 1) + " of the sweep): " +
                       describe(p.swept) + "\n";
  if (!p.trace.empty()) header += "# with --trace " + p.trace + "\n";
  if (!p.verify.empty()) header += "# with --verify " + p.verify + "\n";
  write_atomically(run + "/config.ini", header + p.config_text);
  write_atomically(run + "/command", command_line(argv) + "\n");
}

void SweepDir::record(const std::string& id, const RunState& s) const {
  nlohmann::json j = {{"status", state_name(s.kind)},
                      {"exit_code", s.exit_code},
                      {"signal", s.signal},
                      {"wall_seconds", s.wall_seconds},
                      {"error", s.error}};
  write_atomically(run_dir(id) + "/status.json", j.dump(2) + "\n");
}

std::vector<std::string> run_argv(const std::string& exe, const std::string& run_dir, const RunPoint& p) {
  std::vector<std::string> argv = {exe, "run", "--config", run_dir + "/config.ini", "--stats", run_dir + "/stats.json"};
  const auto abs = [](const std::string& f) { return fsys::absolute(f).lexically_normal().string(); };
  if (!p.trace.empty()) argv.insert(argv.end(), {"--trace", abs(p.trace)});
  if (!p.verify.empty()) argv.insert(argv.end(), {"--verify", abs(p.verify)});
  return argv;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  return cmd;
}

std::vector<std::string> split_command(const std::string& line, const std::string& where) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) throw SimError(where + ": unterminated quote in the command line");
      word += line.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  if (words.empty()) throw SimError(where + ": the command line is empty");
  return words;
}

std::vector<std::string> read_command(const std::string& run_dir) {
  const std::string path = run_dir + "/command";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SimError(path + ": cannot read the run's command (was its folder prepared?)");
  std::stringstream text;
  text << in.rdbuf();
  return split_command(text.str(), path);
}

std::string last_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line, last;
  while (std::getline(in, line))
    if (!trim(line).empty()) last = trim(line);
  if (last.size() > 500) last = last.substr(0, 500) + "...";
  return valid_utf8(last) ? last : "(the last line of " + path + " is not UTF-8)";
}

}  // namespace fs::sweep
