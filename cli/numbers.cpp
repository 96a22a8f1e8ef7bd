#include "cli/numbers.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace futexsim::cli {

std::optional<std::uint64_t> parse_whole(const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;  // out of range of 64 bits
    return v;
}

std::optional<double> parse_real(const std::string& text)
{
    // from_chars reads "inf", "nan" and "1e400" (as out of range); it does
    // not read a leading '+', hex without chars_format::hex, or spaces.
    if (text.empty() || text.find_first_not_of("0123456789.eE-+") != std::string::npos)
        return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

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
