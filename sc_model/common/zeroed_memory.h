// A simulated memory (L1, L2 handler memory, packet slots): a zero-filled byte array. Backed by
// calloc, so large memories cost nothing until touched (the OS supplies zero pages) instead of
// being written over at construction; a 64-cluster switch has 64 MiB of L1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace fs {

class ZeroedMemory {
 public:
  explicit ZeroedMemory(size_t size) : size_(size), bytes_(static_cast<uint8_t*>(std::calloc(size ? size : 1, 1))) {
    if (!bytes_) throw std::bad_alloc();
  }
  uint8_t* data() { return bytes_.get(); }
  const uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  uint8_t& operator[](size_t i) { return bytes_.get()[i]; }
  uint8_t* begin() { return data(); }
  uint8_t* end() { return data() + size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<uint8_t, Free> bytes_;
};

}  // namespace fs
