// The sweep file (docs/SWEEP.md): its grammar and the checks that need no configuration but the
// key table. parse_sweep() turns the text into a SweepSpec, the sweep's dimensions in file order;
// every problem is an InputError "FILE:LINE: reason". Expansion into runs is sweep/matrix.h's.
#pragma once
#include <istream>
#include <string>
#include <vector>

namespace fs::sweep {

// `trace` and `verify` are not configuration keys but `flaresim run`'s --trace and --verify:
// they may be swept or set like a key, and their paths are relative to the sweep file.
bool is_path_key(const std::string& key);

// One swept key with its values, in the order written.
struct Axis {
  std::string key;
  std::vector<std::string> values;
  int line = 0;
};

// A dimension of the run matrix: one [axes] key, or one [zip] group whose keys advance together.
struct Dimension {
  std::vector<Axis> axes;  // one for an [axes] key; the group's keys, all as long, for a [zip]
  size_t size() const { return axes.front().values.size(); }
};

// A fixed override of every run ([set]).
struct Setting {
  std::string key, value;
  int line = 0;
};

struct SweepSpec {
  std::string path;   // the sweep file, as named
  std::string base;   // [sweep] base: the configuration file, resolved against the sweep file's folder
  int base_line = 0;
  std::vector<Dimension> dims;  // in file order; the last varies fastest
  std::vector<Setting> set;

  // Every swept key, in file order (the columns of results.csv).
  std::vector<std::string> swept_keys() const;
};

// Parses sweep text; `path` names it in messages and is where relative paths start from.
SweepSpec parse_sweep(const std::string& path, std::istream& in);
SweepSpec parse_sweep_file(const std::string& path);

// Splits "a, b, \"c,d\"" into its values; throws InputError(reason) on an empty value or an
// unterminated quote.
std::vector<std::string> split_values(const std::string& text);

}  // namespace fs::sweep
