#include "run/strict_numbers.h"

#include <charconv>
#include <cmath>

namespace futexsim {

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

}  // namespace futexsim
