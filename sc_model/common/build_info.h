// What build of flaresim this is: the version (CMake's project version) and the git commit
// its sources were at, recorded in every stats file and printed by `flaresim --version`.
#pragma once

namespace fs {

inline const char* build_version() { return FLARESIM_VERSION; }
// The commit's hash, with "-dirty" if tracked files had changes; "unknown" outside a git clone.
// Defined in a file generated at build time (cmake/build_info.cmake).
const char* build_git_commit();

}  // namespace fs
