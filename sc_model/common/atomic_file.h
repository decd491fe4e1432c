// Output files that appear only when complete: writes go to "<path>.partial" and commit()
// renames it over <path>; destroying an uncommitted file removes the partial one, so a failed
// run never leaves a file that looks finished.
#pragma once
#include <cstdio>
#include <fstream>
#include <string>

#include "common/errors.h"

namespace fs {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".partial") {
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw InputError(path_ + ": cannot open for writing");
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (!committed_) {
      out_.close();
      std::remove(tmp_.c_str());
    }
  }
  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  void commit() {
    out_.flush();
    if (!out_) throw SimError(path_ + ": write failed");
    out_.close();
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
      throw SimError(path_ + ": cannot rename " + tmp_ + " into place");
    committed_ = true;
  }

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace fs
