#include "cli/numbers.h"

#include <fmt/format.h>

namespace futexsim::cli {

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi)
{
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            const auto v = parse_whole(text);
            if (!v || *v < lo || *v > hi)
                return fmt::format("'{}' is not a whole number from {} to {}", text, lo, hi);
            text = std::to_string(*v);  // no leading zeros, which CLI11 would read as octal
            return {};
        },
        fmt::format("INT in [{} - {}]", lo, hi));
}

CLI::Validator real_number(double lo, double hi)
{
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            const auto v = parse_real(text);
            if (!v || *v < lo || *v > hi)
                return fmt::format("'{}' is not a number from {} to {}", text, lo, hi);
            text = fmt::format("{}", *v);  // shortest form that reads back as the same double
            return {};
        },
        fmt::format("NUMBER in [{} - {}]", lo, hi));
}

}  // namespace futexsim::cli
