// Comparing two runs' report lines: wall_seconds is the one field that
// may differ between runs of the same command and seed.
#pragma once

#include <regex>
#include <string>

namespace futexsim::test {

inline std::string without_wall(const std::string& json)
{
    return std::regex_replace(json, std::regex("\"wall_seconds\":[^,}]*"), "\"wall_seconds\":0");
}

}  // namespace futexsim::test
