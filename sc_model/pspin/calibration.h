// Calibrated handler costs: what a calibrated in-network switch charges a natively run handler
// instead of the native cost model. The table holds, per handler set and outcome (and per set
// over all outcomes, "*"), a least-squares fit cycles = fixed + per_byte x packet bytes of ISS
// runs (the HPU's cycles with the runtime's entry and exit, less the cycles spent waiting for
// DMA, which the native engine models on the cluster's DMA engine itself). A run of
// `flaresim run --hpu.model iss --calibration-out FILE` records it (CalibrationRecorder);
// hpu.calibration reads it back (docs/NETWORKS.md, "Switch kinds").
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pspin/retire.h"

namespace fs {

struct CalibrationEntry {
  std::string set, outcome;  // outcome "*": every run of the set
  uint64_t runs = 0;
  double fixed_cycles = 0, cycles_per_byte = 0;
  uint64_t min_bytes = 0, max_bytes = 0;  // the packet sizes the fit saw
  double rms_error_cycles = 0;            // of the fit over those runs
  // The fit's cycles for a packet of `bytes` (never below 0).
  uint64_t cycles(uint64_t bytes) const;
};

class CalibrationTable {
 public:
  // Reads a table; InputError "FILE:LINE: reason" for a malformed line, or naming the file.
  static CalibrationTable read(const std::string& path);
  // The text of the table, as read() reads it.
  std::string text() const;
  // The entry for the set's outcome, else the set's over all outcomes; nullptr if neither.
  const CalibrationEntry* find(const std::string& set, const std::string& outcome) const;
  void add(CalibrationEntry e);
  const std::string& path() const { return path_; }
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::pair<std::string, std::string>, CalibrationEntry> entries_;
  std::string path_;
};

// Watches a run's handlers retire and fits the table from them (timer runs and faulted runs
// left out: a fault costs what the watchdog allows, not what the handler does).
class CalibrationRecorder : public HandlerRunObserver {
 public:
  void handler_ran(const HandlerEvent& e) override;
  CalibrationTable table() const;

 private:
  struct Sums {
    uint64_t n = 0, min_x = ~uint64_t(0), max_x = 0;
    long double x = 0, y = 0, xx = 0, xy = 0, yy = 0;
    void add(double px, double py);
  };
  std::map<std::pair<std::string, std::string>, Sums> sums_;
};

}  // namespace fs
