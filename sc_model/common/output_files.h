// The output files of one command, written as a transaction. Every output is checked when it is
// declared, before any work starts: a directory, a missing or unwritable directory, a socket or
// block device, two outputs naming the same file, or an output naming one of the command's
// inputs is an InputError naming the option and the path. A regular file (or a path that does not
// exist yet) is written under a temporary name next to it ("NAME.flaresim-partial-XXXXXX") and
// renamed into place by commit(), together with the command's other outputs; a symbolic link is
// followed (its target is written, the link kept). "-" is standard output, and a FIFO or a
// character device (/dev/null) is written in place as a stream, never renamed over. Destroying
// the set without commit() (an error, an interrupt) removes every temporary file, so a failed run
// leaves no partial output under a final name.
#pragma once
#include <sys/types.h>

#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace fs {

class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();

  // An input of the command (`what`: its option, e.g. "--trace"): no output may name it.
  void input(const std::string& what, const std::string& path);
  // Declares the output `what` at `path`; returns the stream to write it through.
  std::ostream& add(const std::string& what, const std::string& path);
  // The same for a writer that opens the file by name itself (the VCD writer): returns the name
  // to open. "-" is refused: such writers cannot write to standard output.
  std::string add_named(const std::string& what, const std::string& path);
  // Flushes every output and renames the temporary files into place. Throws SimError naming the
  // path if a write failed (the temporary files are then removed).
  void commit();
  // True if an output is standard output (the command must then print nothing else there).
  bool writes_stdout() const;

 private:
  struct Output {
    std::string what, path;
    std::string target;  // the file written in the end: `path` with symbolic links followed
    std::string temp;    // the temporary file ("" for streams written in place)
    std::unique_ptr<std::ofstream> file;
    std::ostream* stream = nullptr;
    bool is_stdout = false;
  };
  // Checks `path` and fills an Output for it (no stream opened yet).
  Output prepare(const std::string& what, const std::string& path, bool named);
  void remove_temporaries();

  struct Input {
    std::string what, target;
    dev_t dev;
    ino_t ino;
  };
  std::vector<Input> inputs_;
  std::vector<std::unique_ptr<Output>> outputs_;
  bool committed_ = false;
};

}  // namespace fs
