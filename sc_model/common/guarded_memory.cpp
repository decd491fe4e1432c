// Guarded memories and their registry (see guarded_memory.h).
#include "common/guarded_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <mutex>
#include <new>

#include "common/errors.h"

#if defined(FS_ASAN_RUNTIME) || defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define FS_POISON_PADDING 1
#endif

namespace fs {
namespace {

size_t page_bytes() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct Entry {
  uintptr_t mapping_end;
  uintptr_t data, size;
  const std::string* name;
};

// Live memories by the start of their mapping.
struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Entry> by_mapping;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: memories may outlive static destruction
  return *r;
}

// The padding of a memory: the parts of its mapping's accessible pages that are not its bytes.
void set_padding_poison([[maybe_unused]] uint8_t* pages_begin, [[maybe_unused]] uint8_t* pages_end,
                        [[maybe_unused]] uint8_t* data, [[maybe_unused]] size_t size, [[maybe_unused]] bool poison) {
#ifdef FS_POISON_PADDING
  auto apply = [poison](uint8_t* from, uint8_t* to) {
    if (to <= from) return;
    if (poison)
      __asan_poison_memory_region(from, size_t(to - from));
    else
      __asan_unpoison_memory_region(from, size_t(to - from));
  };
  apply(pages_begin, data);
  apply(data + size, pages_end);
#endif
}

// A number from a /proc file's first line, or -1.
long read_proc_number(const char* path) {
  std::ifstream in(path);
  long n = -1;
  return in >> n ? n : -1;
}

// The process's memory mappings: the lines of /proc/self/maps, or -1.
long mapping_count() {
  std::ifstream in("/proc/self/maps");
  if (!in) return -1;
  long n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// The mapping of `name` failed (errno says why).
[[noreturn]] void mapping_failed(const std::string& name) {
  const int err = errno;
  const std::string why = mapping_limit_reason(err, mapping_count(), read_proc_number("/proc/sys/vm/max_map_count"));
  if (!why.empty()) throw SimError("cannot map " + name + ": " + why);
  throw std::bad_alloc();
}

}  // namespace

std::string mapping_limit_reason(int err, long maps, long limit) {
  if (err != ENOMEM || limit <= 0 || maps < 0 || maps + 16 < limit) return "";
  return "the process has " + std::to_string(maps) + " memory mappings and Linux allows it " + std::to_string(limit) +
         " (vm.max_map_count); each simulated memory region (an L1 state area, a stack, L2 handler memory) takes up "
         "to three, itself and its guard pages, so many switches of many clusters reach the limit: simulate fewer "
         "or smaller switches, or raise the limit (as root: sysctl -w vm.max_map_count=" +
         std::to_string(limit * 4) + ")";
}

GuardedMemory::GuardedMemory(size_t size, Exact exact, std::string name) : size_(size), name_(std::move(name)) {
  const size_t page = page_bytes();
  const size_t pages = round_up(size ? size : 1, page);
  mapping_bytes_ = kGuardBytes + pages + kGuardBytes;
  void* m = mmap(nullptr, mapping_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) mapping_failed(name_);
  mapping_ = static_cast<uint8_t*>(m);
  uint8_t* pages_begin = mapping_ + kGuardBytes;
  if (mprotect(pages_begin, pages, PROT_READ | PROT_WRITE) != 0) {
    const int err = errno;
    munmap(mapping_, mapping_bytes_);
    errno = err;
    mapping_failed(name_);
  }
  data_ = exact == Exact::kStart ? pages_begin : pages_begin + pages - round_up(size, 16);
  set_padding_poison(pages_begin, pages_begin + pages, data_, size_, true);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_mapping[uintptr_t(mapping_)] =
      Entry{uintptr_t(mapping_) + mapping_bytes_, uintptr_t(data_), uintptr_t(size_), &name_};
}

GuardedMemory::~GuardedMemory() {
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.by_mapping.erase(uintptr_t(mapping_));
  }
  const size_t pages = mapping_bytes_ - 2 * kGuardBytes;
  set_padding_poison(mapping_ + kGuardBytes, mapping_ + kGuardBytes + pages, data_, size_, false);
  munmap(mapping_, mapping_bytes_);
}

std::string describe_guarded_address(uintptr_t addr) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_mapping.upper_bound(addr);
  if (it == r.by_mapping.begin()) return "";
  --it;
  const Entry& e = it->second;
  if (addr >= e.mapping_end) return "";
  const auto bytes = [](uintptr_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); };
  const std::string offset = addr < e.data ? "-" + std::to_string(e.data - addr) : std::to_string(addr - e.data);
  const std::string where = " (offset " + offset + " of its " + bytes(e.size) + ")";
  if (addr < e.data) return bytes(e.data - addr) + " before the start of " + *e.name + where;
  // As C counts "one past the end": the first byte after the memory is 1 byte past its end.
  if (addr >= e.data + e.size) return bytes(addr - (e.data + e.size) + 1) + " past the end of " + *e.name + where;
  return "inside " + *e.name + where;
}

bool reaches_guard(const void* p, size_t len) {
  if (!len) return false;
  const uintptr_t begin = uintptr_t(p), end = begin + len < begin ? UINTPTR_MAX : begin + len;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  // Every mapping that starts before the range's end, from the last one that starts at or before
  // its beginning.
  auto it = r.by_mapping.upper_bound(begin);
  if (it != r.by_mapping.begin()) --it;
  for (; it != r.by_mapping.end() && it->first < end; ++it) {
    const Entry& e = it->second;
    const uintptr_t from = std::max(begin, it->first), to = std::min(end, e.mapping_end);
    if (from < to && (from < e.data || to > e.data + e.size)) return true;
  }
  return false;
}

}  // namespace fs
