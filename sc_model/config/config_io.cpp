// Reads INI files and command-line overrides into the configuration tree (see config_io.h).
#include "config/config_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/text.h"

namespace po = boost::program_options;

namespace fs {
namespace {

// Edit distance, used to suggest the key a user probably meant.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string unknown_key_message(const std::string& key) {
  std::string k = key;
  while (!k.empty() && k[0] == '-') k.erase(0, 1);
  std::vector<std::string> close;
  const std::string section = k.substr(0, k.find('.'));
  for (const auto& ck : config_schema()) {
    const bool same_section = ck.name.compare(0, section.size() + 1, section + ".") == 0;
    if (distance(ck.name, k) <= 3 || (same_section && k.find('.') != std::string::npos)) close.push_back(ck.name);
  }
  std::string msg = "unknown configuration key '" + k + "'";
  // A key that moved to a section of its own (pspin.icache_bytes -> icache.bytes).
  const std::string field = k.substr(k.find('.') + 1);
  for (const auto& ck : config_schema()) {
    std::string flat = ck.name;
    std::replace(flat.begin(), flat.end(), '.', '_');
    if (k.find('.') != std::string::npos && flat == field) return msg + "; it is now '" + ck.name + "'";
  }
  if (!close.empty()) {
    msg += "; valid keys nearby: ";
    for (size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "") + close[i];
  }
  return msg + " ('flaresim info' lists every key)";
}

namespace {

// Boost reads "-1" into an unsigned option as 2^32 - 1: refuse a sign for every unsigned one.
void refuse_signed_values(const po::parsed_options& parsed, const po::options_description& desc) {
  for (const po::option& o : parsed.options) {
    const po::option_description* d = desc.find_nothrow(o.string_key, false);
    if (!d) continue;
    const po::value_semantic* sem = d->semantic().get();
    const bool is_unsigned = dynamic_cast<const po::typed_value<unsigned>*>(sem) ||
                             dynamic_cast<const po::typed_value<unsigned long>*>(sem) ||
                             dynamic_cast<const po::typed_value<unsigned long long>*>(sem) ||
                             dynamic_cast<const po::typed_value<unsigned short>*>(sem);
    for (const std::string& v : o.value) {
      const size_t first = v.find_first_not_of(" \t");
      if (is_unsigned && first != std::string::npos && v[first] == '-')
        throw InputError("bad value '" + v + "' for '--" + o.string_key + "': expected a whole number >= 0");
    }
  }
}

}  // namespace

po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                                     const po::positional_options_description* positional) {
  po::variables_map vm;
  try {
    po::command_line_parser parser(args);
    parser.options(desc);
    if (positional) parser.positional(*positional);
    const po::parsed_options parsed = parser.run();
    refuse_signed_values(parsed, desc);
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    const std::string opt = e.get_option_name();
    if (opt.find('.') != std::string::npos) throw InputError(unknown_key_message(opt));
    throw InputError("unknown option '" + opt + "' (see --help)");
  } catch (const po::error& e) {
    throw InputError(e.what());
  }
  return vm;
}

po::options_description config_options_description() {
  po::options_description desc("Configuration keys (any key of 'flaresim info')");
  for (const auto& k : config_schema())
    desc.add_options()(k.name.c_str(), po::value<std::string>(), k.doc.c_str());
  return desc;
}

void apply_ini_file(Config& cfg, const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file; --config takes an INI file");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open configuration file");
  // A stats file (it starts with '{'): its "config" section, every key of the run it records.
  in >> std::ws;
  if (in.peek() == '{') return apply_stats_config(cfg, path, in);
  apply_ini(cfg, path, in);
}

void apply_stats_config(Config& cfg, const std::string& path, std::istream& in) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": starts with '{' but is not valid JSON (" + e.what() + "); --config takes an INI file "
                     "or a stats JSON");
  }
  if (!j.is_object() || !j.contains("config") || !j["config"].is_object())
    throw InputError(path + ": a JSON file without a \"config\" object; --config takes an INI file or a stats JSON "
                     "(flaresim run --stats)");
  for (const auto& section : j["config"].items()) {
    if (!section.value().is_object())
      throw InputError(path + ": config." + section.key() + " is not an object of keys");
    for (const auto& kv : section.value().items()) {
      const std::string name = section.key() + "." + kv.key();
      const ConfigKey* key = find_config_key(name);
      if (!key) throw InputError(path + ": " + unknown_key_message(name));
      const nlohmann::json& v = kv.value();
      if (!v.is_string() && !v.is_number() && !v.is_boolean())
        throw InputError(path + ": config." + name + " is " + v.type_name() + ", not a value");
      try {
        key->set(cfg, v.is_string() ? v.get<std::string>() : v.dump());
      } catch (const InputError& e) {
        throw InputError(path + ": " + e.what());
      }
    }
  }
}

std::string config_ini_text(const Config& cfg) {
  std::vector<std::string> lines;
  for (const ConfigKey& k : config_schema()) lines.push_back(k.name + " = " + k.show(cfg) + "\n");
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& l : lines) text += l;
  return text;
}

void apply_ini(Config& cfg, const std::string& path, std::istream& in) {
  po::parsed_options parsed(nullptr);
  try {
    parsed = po::parse_config_file(in, config_options_description(), /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    throw InputError(path + ": " + e.what());
  }
  std::vector<std::string> seen;
  for (const auto& opt : parsed.options) {
    if (opt.unregistered) throw InputError(path + ": " + unknown_key_message(opt.string_key));
    if (std::find(seen.begin(), seen.end(), opt.string_key) != seen.end())
      throw InputError(path + ": key '" + opt.string_key + "' is set twice");
    seen.push_back(opt.string_key);
    const ConfigKey* key = find_config_key(opt.string_key);
    if (opt.value.size() != 1)
      throw InputError(path + ": key '" + opt.string_key + "' needs exactly one value");
    try {
      key->set(cfg, opt.value[0]);
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
  }
}

void apply_overrides(Config& cfg, const po::variables_map& vm) {
  for (const auto& k : config_schema()) {
    auto it = vm.find(k.name);
    if (it != vm.end() && !it->second.defaulted()) k.set(cfg, it->second.as<std::string>());
  }
}

std::string ConfiguredCommandLine::run_line(const std::string& extra, const std::string& trace) const {
  return shell_quote(program_path()) + " run" + run_options + extra + " --trace " + shell_quote(trace) +
         " --stats stats.json --verify " + shell_quote(trace + ".expected");
}

std::optional<ConfiguredCommandLine> parse_configured_command_line(const std::vector<std::string>& args,
                                                                   const po::options_description& desc) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << desc << "\nAny configuration key may follow as --section.key VALUE ('flaresim info' lists them).\n";
    return std::nullopt;
  }
  po::options_description all;
  all.add(desc).add(config_options_description());
  ConfiguredCommandLine c{parse_command_line(args, all), Config{}, ""};
  if (c.vm.count("config")) {
    apply_ini_file(c.cfg, c.vm["config"].as<std::string>());
    c.run_options += " --config " + shell_quote(c.vm["config"].as<std::string>());
  }
  apply_overrides(c.cfg, c.vm);
  for (const auto& k : config_schema()) {
    const auto it = c.vm.find(k.name);
    if (it != c.vm.end() && !it->second.defaulted())
      c.run_options += " --" + k.name + " " + shell_quote(it->second.as<std::string>());
  }
  return c;
}

}  // namespace fs
