// Reading the configuration: INI files (Boost.Program_options syntax, "[section]" then
// "key = value") and command-line overrides "--section.key value". Unknown keys and bad values
// become InputErrors naming the key and what is valid.
#pragma once
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "config/config.h"

namespace fs {

// Every configuration key as a string-valued option, for a command's options_description.
boost::program_options::options_description config_options_description();

// Applies every key set in an INI file, or in a stats JSON's "config" section (a file that
// starts with '{': the run it records, re-run exactly); throws InputError naming the file and key.
void apply_ini_file(Config& cfg, const std::string& path);
// The stats JSON's "config" section read from `in`.
void apply_stats_config(Config& cfg, const std::string& path, std::istream& in);
// The whole configuration as INI text, every key (`section.key = value`), sorted by key: it
// reads back as the same configuration (--dump-config, a sweep run's config.ini).
std::string config_ini_text(const Config& cfg);
// The same for INI text read from `in`; `path` names it in messages.
void apply_ini(Config& cfg, const std::string& path, std::istream& in);

// Applies every configuration key present in a parsed command line.
void apply_overrides(Config& cfg, const boost::program_options::variables_map& vm);

// Parses a command's options, turning Boost's messages into InputErrors that name the option
// (an unknown --section.key gets the nearby keys). A negative number for an unsigned option is
// refused (Boost would wrap it). `positional`: the command's positional arguments, if any.
boost::program_options::variables_map parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& desc,
    const boost::program_options::positional_options_description* positional = nullptr);

// A generator's command line: its own options (`desc`, which has --config) followed by any
// configuration key. Prints `desc` and returns nullopt for --help or -h; otherwise the parsed
// options and the configuration from the --config file and the --section.key overrides.
struct ConfiguredCommandLine {
  boost::program_options::variables_map vm;
  Config cfg;
  // The --config file and --section.key overrides as given, shell-quoted, each with a leading
  // space: what a `flaresim run` of the generated trace needs to see the same switch.
  std::string run_options;
  // The `run` line a generator prints for its trace: flaresim as started, run_options, `extra`
  // (the generator's own keys, each with a leading space), the trace, stats.json and the check
  // against TRACE.expected.
  std::string run_line(const std::string& extra, const std::string& trace) const;
};
std::optional<ConfiguredCommandLine> parse_configured_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& desc);

// "unknown configuration key 'x'; did you mean ...? (flaresim info lists every key)"
std::string unknown_key_message(const std::string& key);

}  // namespace fs
