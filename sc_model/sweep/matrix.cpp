// Expands a sweep into its runs and names each by a hash of what determines its result (see
// matrix.h).
#include "sweep/matrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "config/config_io.h"

namespace fs::sweep {

std::string hex16(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[size_t(i)] = digits[v & 15];
  return s;
}

std::string file_fingerprint(const std::string& path, const std::string& what) {
  if (std::filesystem::is_directory(path)) throw InputError(what + " '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(what + " '" + path + "' cannot be opened");
  uint64_t h = kFnvOffset;
  std::string buf(1 << 16, '\0');
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0)
    h = fnv1a64(buf.substr(0, size_t(in.gcount())), h);
  return hex16(h);
}

std::string run_id(const std::string& config_text, const std::string& trace, const std::string& verify,
                   std::map<std::string, std::string>& fingerprints) {
  std::string ident = config_text;
  auto input = [&](const char* name, const std::string& path) {
    if (path.empty()) return;
    const std::string abs = std::filesystem::absolute(path).lexically_normal().string();
    auto it = fingerprints.find(abs);
    if (it == fingerprints.end()) it = fingerprints.emplace(abs, file_fingerprint(path, name)).first;
    ident += std::string(name) + " = " + abs + "\n" + name + ".content = " + it->second + "\n";
  };
  input("trace", trace);
  input("verify", verify);
  return hex16(fnv1a64(ident));
}

std::string describe(const std::vector<Override>& swept) {
  std::string s;
  for (const Override& o : swept) s += (s.empty() ? "" : ", ") + o.key + " = " + o.value;
  return s;
}

namespace {

// Sets `key` (a configuration key or trace/verify) in the point being built.
void apply(Config& cfg, RunPoint& p, const std::string& key, const std::string& value) {
  if (key == "trace") p.trace = value;
  else if (key == "verify") p.verify = value;
  else find_config_key(key)->set(cfg, value);
}

// The point's configuration text must read back as itself: config.ini reruns the run.
void check_round_trip(const RunPoint& p, const std::string& where) {
  Config again;
  std::istringstream in(p.config_text);
  apply_ini(again, where + " config.ini", in);
  const std::string back = config_ini_text(again);
  if (back == p.config_text) return;
  std::istringstream a(p.config_text), b(back);
  std::string la, lb;
  while (std::getline(a, la) && std::getline(b, lb))
    if (la != lb) throw InputError(where + ": the value '" + la + "' does not read back from config.ini (reads '" + lb + "')");
  throw InputError(where + ": the effective configuration does not read back from config.ini");
}

}  // namespace

std::vector<RunPoint> expand(const SweepSpec& spec) {
  Config base;
  if (!spec.base.empty()) apply_ini_file(base, spec.base);
  RunPoint fixed;
  for (const Setting& s : spec.set) apply(base, fixed, s.key, s.value);

  size_t total = 1;
  for (const Dimension& d : spec.dims) {
    total *= d.size();
    if (total > kMaxRuns)
      throw InputError(spec.path + ": the sweep has more than " + std::to_string(kMaxRuns) + " runs");
  }
  std::map<std::string, std::string> fingerprints;
  std::vector<RunPoint> points;
  std::map<std::string, size_t> first_with_id;
  for (size_t i = 0; i < total; ++i) {
    RunPoint p = fixed;
    p.index = i;
    Config cfg = base;
    // Mixed-radix digits of i, the last dimension the least significant.
    std::vector<size_t> digit(spec.dims.size());
    for (size_t rest = i, d = spec.dims.size(); d-- > 0;) {
      digit[d] = rest % spec.dims[d].size();
      rest /= spec.dims[d].size();
    }
    for (size_t d = 0; d < spec.dims.size(); ++d)
      for (const Axis& a : spec.dims[d].axes) {
        apply(cfg, p, a.key, a.values[digit[d]]);
        p.swept.push_back({a.key, a.values[digit[d]]});
      }
    const std::string where =
        spec.path + ": run " + std::to_string(i + 1) + " of " + std::to_string(total) + " (" + describe(p.swept) + ")";
    try {
      if (p.trace.empty() && cfg.hosts.model == "none")
        throw InputError("no input: give a 'trace' or closed-loop hosts ('hosts.model = allreduce')");
      validate_config(cfg);
      p.config_text = config_ini_text(cfg);
      check_round_trip(p, where);
      p.id = run_id(p.config_text, p.trace, p.verify, fingerprints);
    } catch (const InputError& e) {
      const std::string msg = e.what();
      throw InputError(msg.rfind(where, 0) == 0 ? msg : where + ": " + msg);
    }
    auto same = first_with_id.emplace(p.id, i);
    if (!same.second)
      throw InputError(where + ": the same effective configuration as run " + std::to_string(same.first->second + 1) +
                       " (" + describe(points[same.first->second].swept) + "); each run must differ");
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace fs::sweep
