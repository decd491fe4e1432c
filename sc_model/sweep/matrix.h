// The run matrix of a sweep: expansion of a SweepSpec into one RunPoint per combination, each
// with its effective configuration (base file, then [set], then the point's swept values) in
// canonical text and the id hashed from it. Pure: nothing here runs or writes anything, so a
// local pool and a batch-system backend expand a sweep the same way.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/fnv1a.h"
#include "config/config.h"
#include "sweep/sweep_file.h"

namespace fs::sweep {

struct Override {
  std::string key, value;
};

struct RunPoint {
  size_t index = 0;             // position in the matrix (0-based)
  std::vector<Override> swept;  // the point's value of every swept key, in SweepSpec::swept_keys() order
  std::string trace, verify;    // `flaresim run`'s --trace and --verify ("" if not given)
  std::string config_text;      // the effective configuration: every key, sorted, "key = value" lines
  std::string id;               // 16 hex digits: hash of config_text and the inputs' paths and contents
};

std::string hex16(uint64_t v);


// Hash of a file's contents as 16 hex digits; InputError naming `what` if it cannot be read.
std::string file_fingerprint(const std::string& path, const std::string& what);

// What identifies a run: its effective configuration and each input's path and content hash.
// `fingerprints` caches file hashes by path across the points of a matrix.
std::string run_id(const std::string& config_text, const std::string& trace, const std::string& verify,
                   std::map<std::string, std::string>& fingerprints);

// The largest matrix expand() builds.
constexpr size_t kMaxRuns = 1000000;

// Every point of the matrix, in order: the dimensions nested in file order, the last fastest.
// Throws InputError if the base file cannot be read, a point's configuration is invalid (naming
// the point; a point without a trace needs closed-loop hosts), a trace or verify file cannot be
// read, or two points have the same configuration ("64KiB, 65536").
std::vector<RunPoint> expand(const SweepSpec& spec);

// "pspin.clusters = 4, scheduler.policy = fcfs" (for messages and listings).
std::string describe(const std::vector<Override>& swept);

}  // namespace fs::sweep
