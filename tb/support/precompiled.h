// The headers most test files include, precompiled once per test group (tb/CMakeLists.txt,
// flaresim_test_code_options): parsing them is about half of compiling a test file. Test files
// still include what they use; this only makes it faster.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
