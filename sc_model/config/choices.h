// The configuration's fixed choices as enums, each with its names in enum order: a choice key
// (FS_ENUM in config/sections/*.def) is parsed into its enum once, when it is set, and blocks
// compare enums, never strings.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace fs {
namespace iss {
enum class IcacheReplacement : uint8_t;  // iss/icache.h
}

enum class HpuModel { kNative, kIss };
enum class HpuIsa { kRv32imafc, kRv32imafcXpulp };
enum class FaultAction { kAbort, kDrop };
enum class OnOff { kOn, kOff };
enum class IssEngineKind { kFast, kPlain };  // iss::Cpu::Engine
enum class IcrcCheck { kCheck, kOff };
enum class IcrcStamp { kStamp, kOff };
enum class SchedPolicy { kFcfs, kHierFcfs, kHomeCluster, kFlow };
enum class PathChoice { kDst, kEcmp, kAdaptive };

template <typename E>
struct ChoiceNames;
template <>
struct ChoiceNames<HpuModel> {
  static constexpr std::array<const char*, 2> names = {"native", "iss"};
};
template <>
struct ChoiceNames<HpuIsa> {
  static constexpr std::array<const char*, 2> names = {"rv32imafc", "rv32imafc_xpulp"};
};
template <>
struct ChoiceNames<FaultAction> {
  static constexpr std::array<const char*, 2> names = {"abort", "drop"};
};
template <>
struct ChoiceNames<OnOff> {
  static constexpr std::array<const char*, 2> names = {"on", "off"};
};
template <>
struct ChoiceNames<IssEngineKind> {
  static constexpr std::array<const char*, 2> names = {"fast", "plain"};
};
template <>
struct ChoiceNames<IcrcCheck> {
  static constexpr std::array<const char*, 2> names = {"check", "off"};
};
template <>
struct ChoiceNames<IcrcStamp> {
  static constexpr std::array<const char*, 2> names = {"stamp", "off"};
};
template <>
struct ChoiceNames<iss::IcacheReplacement> {
  static constexpr std::array<const char*, 2> names = {"random", "lru"};
};
template <>
struct ChoiceNames<SchedPolicy> {
  static constexpr std::array<const char*, 4> names = {"fcfs", "hier-fcfs", "home-cluster", "flow"};
};

template <>
struct ChoiceNames<PathChoice> {
  static constexpr std::array<const char*, 3> names = {"dst", "ecmp", "adaptive"};
};

// The name of a choice, and the choice of a name (false: no such name).
template <typename E>
const char* choice_name(E e) {
  return ChoiceNames<E>::names[size_t(e)];
}
template <typename E>
bool parse_choice(const std::string& name, E* out) {
  for (size_t i = 0; i < ChoiceNames<E>::names.size(); ++i)
    if (name == ChoiceNames<E>::names[i]) {
      *out = E(i);
      return true;
    }
  return false;
}

}  // namespace fs
