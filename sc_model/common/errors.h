// Error types shared by every part of the simulator. InputError means the user gave us something
// we cannot use (bad trace, config, file): the CLI exits 2. SimError means the simulation itself
// failed (handler fault, verification mismatch): the CLI exits 1. Both carry a message that names
// the place (file:line, key, handler and PC) and the reason.
#pragma once
#include <stdexcept>
#include <string>

namespace fs {

struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

struct SimError : std::runtime_error {
  explicit SimError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace fs
