// Merges the runs' stats into results.csv and results.json (see results.h).
#include "sweep/results.h"

#include <fstream>
#include <set>

namespace fs::sweep {

std::vector<RunRecord> collect(const SweepDir& dir, const std::vector<RunPoint>& points) {
  std::vector<RunRecord> runs;
  for (const RunPoint& p : points) {
    RunRecord r{&p, dir.state(p.id), nullptr};
    // A failed run may have written stats too (a run whose verification failed has completed):
    // they are merged, under its failed status.
    std::ifstream in(dir.run_dir(p.id) + "/stats.json");
    if (r.state.kind != RunState::kPending && in) {
      try {
        r.stats = nlohmann::json::parse(in);
      } catch (const nlohmann::json::exception& e) {
        r.stats = nullptr;
        r.state.kind = RunState::kFailed;
        if (r.state.error.empty()) r.state.error = "its stats.json cannot be read: " + std::string(e.what());
      }
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

std::vector<std::string> headline_metrics(const std::vector<RunRecord>& runs) {
  std::vector<std::string> m = {"sim.time_us",         "throughput.handled_gbps", "throughput.handled_packets",
                                "throughput.out_gbps", "drops.total",             "hpus.utilisation.avg",
                                "hosts.allreduce_gbps", "hosts.done_us"};
  std::set<std::string> sets;
  for (const RunRecord& r : runs)
    if (r.stats.is_object() && r.stats.contains("handlers") && r.stats["handlers"].is_object())
      for (const auto& kv : r.stats["handlers"].items()) sets.insert(kv.key());
  for (const std::string& s : sets)
    for (const char* f : {"cycles.avg", "latency_ns.avg", "latency_ns.p99"}) m.push_back("handlers." + s + "." + f);
  return m;
}

namespace {

const nlohmann::json* at_path(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* cur = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

}  // namespace

std::string metric_text(const nlohmann::json& stats, const std::string& path) {
  const nlohmann::json* v = at_path(stats, path);
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

std::string csv_field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' ' || s.front() == '\t' || s.back() == '\t'));
  if (!quote) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<RunRecord>& runs) {
  const std::vector<std::string> metrics = headline_metrics(runs);
  std::vector<std::string> header = {"run"};
  header.insert(header.end(), swept_keys.begin(), swept_keys.end());
  header.insert(header.end(), metrics.begin(), metrics.end());
  header.insert(header.end(), {"status", "exit_code", "wall_seconds"});
  auto row = [](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_field(cells[i]);
    return line + "\n";
  };
  std::string csv = row(header);
  for (const RunRecord& r : runs) {
    std::vector<std::string> cells = {r.point->id};
    for (const Override& o : r.point->swept) cells.push_back(o.value);
    for (const std::string& m : metrics) cells.push_back(metric_text(r.stats, m));
    const bool ended = r.state.kind != RunState::kPending;
    cells.push_back(state_name(r.state.kind));
    cells.push_back(ended ? std::to_string(r.state.signal ? 128 + r.state.signal : r.state.exit_code) : "");
    cells.push_back(ended ? seconds_text(r.state.wall_seconds) : "");
    csv += row(cells);
  }
  return csv;
}

nlohmann::json results_json(const std::vector<RunRecord>& runs) {
  const std::vector<std::string> metrics = headline_metrics(runs);
  nlohmann::json all = nlohmann::json::array();
  for (const RunRecord& r : runs) {
    nlohmann::json swept = nlohmann::json::object(), heads = nlohmann::json::object();
    for (const Override& o : r.point->swept) swept[o.key] = o.value;
    for (const std::string& m : metrics) {
      const nlohmann::json* v = r.stats.is_null() ? nullptr : at_path(r.stats, m);
      heads[m] = v ? *v : nlohmann::json(nullptr);
    }
    const bool ended = r.state.kind != RunState::kPending;
    all.push_back({{"run", r.point->id},
                   {"dir", "runs/" + r.point->id},
                   {"index", r.point->index},
                   {"swept", swept},
                   {"metrics", heads},
                   {"status", state_name(r.state.kind)},
                   {"exit_code", ended ? nlohmann::json(r.state.exit_code) : nlohmann::json(nullptr)},
                   {"signal", ended ? nlohmann::json(r.state.signal) : nlohmann::json(nullptr)},
                   {"wall_seconds", ended ? nlohmann::json(r.state.wall_seconds) : nlohmann::json(nullptr)},
                   {"error", r.state.error},
                   {"stats", r.stats}});
  }
  return all;
}

void write_results(const SweepDir& dir, const std::vector<std::string>& swept_keys, const std::vector<RunRecord>& runs) {
  write_atomically(dir.path() + "/results.csv", results_csv(swept_keys, runs));
  write_atomically(dir.path() + "/results.json", results_json(runs).dump(2) + "\n");
}

}  // namespace fs::sweep
