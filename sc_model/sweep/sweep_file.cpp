// Parses the sweep file (see sweep_file.h and docs/SWEEP.md for the grammar).
#include "sweep/sweep_file.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "common/errors.h"
#include "common/text.h"
#include "config/config.h"
#include "config/config_io.h"

namespace fs::sweep {

bool is_path_key(const std::string& key) { return key == "trace" || key == "verify"; }

std::vector<std::string> SweepSpec::swept_keys() const {
  std::vector<std::string> keys;
  for (const Dimension& d : dims)
    for (const Axis& a : d.axes) keys.push_back(a.key);
  return keys;
}

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> values;
  std::string cur;
  bool quoted = false, was_quoted = false;
  auto finish = [&] {
    const std::string v = was_quoted ? cur : trim(cur);
    if (v.empty() && !was_quoted) throw InputError("empty value in '" + text + "'");
    values.push_back(v);
    cur.clear();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      if (!trim(cur).empty() || was_quoted) throw InputError("a quote must enclose a whole value in '" + text + "'");
      cur.clear();
      quoted = was_quoted = true;
    } else if (c == ',') {
      finish();
    } else if (was_quoted && c != ' ' && c != '\t') {
      throw InputError("text after a quoted value in '" + text + "'");
    } else {
      cur += c;
    }
  }
  if (quoted) throw InputError("unterminated quote in '" + text + "'");
  finish();
  return values;
}

namespace {

// The text of a line without its comment: '#' outside quotes starts one anywhere, ';' only at
// the start of a line (values such as parser.rules hold ';').
std::string strip_comment(const std::string& line) {
  const std::string t = trim(line);
  if (!t.empty() && t[0] == ';') return "";
  bool quoted = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '"') quoted = !quoted;
    if (t[i] == '#' && !quoted) return trim(t.substr(0, i));
  }
  return t;
}

class Parser {
 public:
  Parser(const std::string& path) : path_(path) {
    spec_.path = path;
    dir_ = std::filesystem::path(path).parent_path();
  }

  void line(int no, const std::string& raw) {
    line_ = no;
    const std::string t = strip_comment(raw);
    if (t.empty()) return;
    if (t.front() == '[') return section(t);
    const size_t eq = t.find('=');
    if (eq == std::string::npos) fail("expected 'key = value' or a [section], got '" + t + "'");
    const std::string key = trim(t.substr(0, eq)), value = trim(t.substr(eq + 1));
    if (key.empty()) fail("missing key before '='");
    if (section_.empty()) fail("'" + key + "' comes before any section ([sweep], [axes], [zip] or [set])");
    if (section_ == "sweep") return sweep_key(key, value);
    std::vector<std::string> values = split(value, key);
    check_key(key, values);
    if (section_ == "set") {
      if (values.size() != 1)
        fail("[set] key '" + key + "' takes one value, got " + std::to_string(values.size()) +
             " (a value holding a comma is written in double quotes)");
      spec_.set.push_back({key, values[0], no});
    } else if (section_ == "axes") {
      spec_.dims.push_back(Dimension{{Axis{key, values, no}}});
    } else {  // zip
      Dimension& d = spec_.dims.back();
      if (!d.axes.empty() && d.axes.front().values.size() != values.size())
        fail("[zip] key '" + key + "' has " + std::to_string(values.size()) + (values.size() == 1 ? " value" : " values") + " but '" + d.axes.front().key +
             "' (line " + std::to_string(d.axes.front().line) + ") has " + std::to_string(d.size()) +
             "; the keys of a [zip] advance together and need as many values each");
      d.axes.push_back(Axis{key, values, no});
    }
  }

  SweepSpec finish() {
    close_zip();
    if (spec_.dims.empty()) throw InputError(path_ + ": the sweep has no [axes] or [zip] key: nothing to sweep");
    return spec_;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(path_ + ":" + std::to_string(line_) + ": " + why);
  }

  void section(const std::string& t) {
    if (t.back() != ']') fail("malformed section header '" + t + "'");
    const std::string name = trim(t.substr(1, t.size() - 2));
    if (name != "sweep" && name != "axes" && name != "zip" && name != "set")
      fail("unknown section [" + name + "] (valid: [sweep], [axes], [zip], [set])");
    close_zip();
    section_ = name;
    if (name == "zip") {
      spec_.dims.push_back(Dimension{});
      zip_line_ = line_;
    }
  }

  // A [zip] section with no key is refused when the next section starts or the file ends.
  void close_zip() {
    if (section_ == "zip" && spec_.dims.back().axes.empty()) {
      line_ = zip_line_;
      fail("[zip] section has no keys");
    }
  }

  void sweep_key(const std::string& key, const std::string& value) {
    if (key != "base") fail("unknown [sweep] key '" + key + "' (valid: base)");
    if (spec_.base_line) fail("'base' is already given on line " + std::to_string(spec_.base_line));
    if (value.empty()) fail("'base' needs the path of a configuration file");
    spec_.base = resolve(value);
    spec_.base_line = line_;
  }

  std::vector<std::string> split(const std::string& value, const std::string& key) const {
    if (value.empty()) fail("key '" + key + "' has no value");
    try {
      return split_values(value);
    } catch (const InputError& e) {
      fail("key '" + key + "': " + e.what());
    }
  }

  // The key must be known and given once; each value must be one the key accepts.
  void check_key(const std::string& key, std::vector<std::string>& values) {
    auto seen = lines_.find(key);
    if (seen != lines_.end()) fail("key '" + key + "' is already given on line " + std::to_string(seen->second));
    lines_[key] = line_;
    if (is_path_key(key)) {
      for (std::string& v : values) v = resolve(v);
      return;
    }
    const ConfigKey* k = find_config_key(key);
    if (!k) fail(unknown_key_message(key));
    for (const std::string& v : values) {
      Config scratch;
      try {
        k->set(scratch, v);
      } catch (const InputError& e) {
        fail(e.what());
      }
    }
  }

  // A path relative to the sweep file's folder.
  std::string resolve(const std::string& p) const {
    if (p.empty() || p[0] == '/' || dir_.empty()) return p;
    return (dir_ / p).lexically_normal().string();
  }

  std::string path_;
  std::filesystem::path dir_;
  SweepSpec spec_;
  std::string section_;
  int line_ = 0, zip_line_ = 0;
  std::map<std::string, int> lines_;
};

}  // namespace

SweepSpec parse_sweep(const std::string& path, std::istream& in) {
  Parser p(path);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) p.line(no, line);
  return p.finish();
}

SweepSpec parse_sweep_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw InputError(path + ": a directory; flaresim sweep takes a sweep file");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open sweep file");
  return parse_sweep(path, in);
}

}  // namespace fs::sweep
