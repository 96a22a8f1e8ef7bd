// A count and its noun for the human lines: "1 run", "4 runs" (not "1
// runs"). The noun takes an s unless the count is 1.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace futexsim {

inline std::string count_noun(std::uint64_t n, std::string_view noun)
{
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace futexsim
