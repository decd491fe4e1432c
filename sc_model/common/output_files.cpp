// Output files as a transaction (see output_files.h).
#include "common/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/errors.h"

namespace fs {
namespace {

namespace stdfs = std::filesystem;

// `path` with every symbolic link followed, also a dangling last one (its target is what gets
// written); the directories on the way need not all exist.
std::string follow_links(const std::string& path, const std::string& what) {
  stdfs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const stdfs::path c = stdfs::weakly_canonical(stdfs::absolute(p), ec);
      return ec ? stdfs::absolute(p).lexically_normal().string() : c.string();
    }
    std::error_code ec;
    const stdfs::path t = stdfs::read_symlink(p, ec);
    if (ec) throw InputError(what + " " + path + ": cannot read the symbolic link: " + ec.message());
    p = t.is_absolute() ? t : p.parent_path() / t;
  }
  throw InputError(what + " " + path + ": too many levels of symbolic links");
}

std::string file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

}  // namespace

OutputFiles::~OutputFiles() {
  if (!committed_) remove_temporaries();
}

void OutputFiles::remove_temporaries() {
  for (auto& o : outputs_) {
    if (o->file) o->file->close();
    if (!o->temp.empty()) std::remove(o->temp.c_str());
  }
}

void OutputFiles::input(const std::string& what, const std::string& path) {
  if (path == "-") return;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;  // the input's reader reports it
  inputs_.push_back(Input{what, follow_links(path, what), st.st_dev, st.st_ino});
}

OutputFiles::Output OutputFiles::prepare(const std::string& what, const std::string& path, bool named) {
  Output o;
  o.what = what;
  o.path = path;
  const std::string name = what + " " + path;
  if (path.empty()) throw InputError(what + ": empty file name");
  if (path == "-") {
    if (named) throw InputError(name + ": this output cannot go to standard output; name a file");
    o.is_stdout = true;
  } else {
    o.target = follow_links(path, what);
    struct stat st;
    const bool exists = stat(o.target.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
      throw InputError(name + ": is " + file_kind(st.st_mode) + "; an output must be a regular file, a FIFO or a character device");
    for (const Input& in : inputs_)
      if ((exists && st.st_dev == in.dev && st.st_ino == in.ino) || o.target == in.target)
        throw InputError(name + ": is the input " + in.what + "; name another file");
    const bool in_place = exists && !S_ISREG(st.st_mode);  // a FIFO or a character device
    if (!in_place) {
      const std::string dir = stdfs::path(o.target).parent_path().string();
      struct stat ds;
      if (stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
        throw InputError(name + ": the directory " + dir + " does not exist");
      if (access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError(name + ": cannot write in the directory " + dir + " (" + std::strerror(errno) + ")");
    }
    for (const auto& other : outputs_) {
      struct stat os;
      const bool same_file = exists && !other->is_stdout && stat(other->target.c_str(), &os) == 0 &&
                             os.st_dev == st.st_dev && os.st_ino == st.st_ino;
      if (!other->is_stdout && (other->target == o.target || same_file))
        throw InputError(name + ": " + other->what + " names the same file");
    }
    if (!in_place) {
      std::string tmpl = o.target + ".flaresim-partial-XXXXXX";
      const int fd = mkstemp(tmpl.data());
      if (fd < 0) throw InputError(name + ": cannot create a file next to it (" + std::strerror(errno) + ")");
      // The permissions a newly created file would get (mkstemp makes it private).
      const mode_t mask = umask(0);
      umask(mask);
      fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
      close(fd);
      o.temp = tmpl;
    }
  }
  for (const auto& other : outputs_)
    if (other->is_stdout && o.is_stdout) throw InputError(name + ": " + other->what + " writes to standard output too");
  return o;
}

std::ostream& OutputFiles::add(const std::string& what, const std::string& path) {
  auto o = std::make_unique<Output>(prepare(what, path, false));
  if (o->is_stdout) {
    o->stream = &std::cout;
  } else {
    const std::string& open = o->temp.empty() ? o->target : o->temp;
    o->file = std::make_unique<std::ofstream>(open, std::ios::binary | std::ios::trunc);
    if (!*o->file) {
      if (!o->temp.empty()) std::remove(o->temp.c_str());
      throw InputError(what + " " + path + ": cannot open for writing (" + std::strerror(errno) + ")");
    }
    o->stream = o->file.get();
  }
  outputs_.push_back(std::move(o));
  return *outputs_.back()->stream;
}

std::string OutputFiles::add_named(const std::string& what, const std::string& path) {
  auto o = std::make_unique<Output>(prepare(what, path, true));
  const std::string open = o->temp.empty() ? o->target : o->temp;
  outputs_.push_back(std::move(o));
  return open;
}

void OutputFiles::commit() {
  for (auto& o : outputs_) {
    if (!o->stream) continue;  // opened by its writer, which has closed it
    o->stream->flush();
    if (o->file) o->file->close();
    if (!*o->stream) {
      remove_temporaries();
      committed_ = true;
      throw SimError(o->what + " " + o->path + ": write failed");
    }
  }
  for (auto& o : outputs_)
    if (!o->temp.empty() && std::rename(o->temp.c_str(), o->target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      remove_temporaries();
      committed_ = true;
      throw SimError(o->what + " " + o->path + ": cannot put it in place (" + why + ")");
    }
  committed_ = true;
}

bool OutputFiles::writes_stdout() const {
  for (const auto& o : outputs_)
    if (o->is_stdout) return true;
  return false;
}

}  // namespace fs
