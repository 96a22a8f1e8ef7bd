// Strict numbers in text that people type (command-line values, a
// workload's flags): plain decimals only. No sign on a whole number, no
// hex or octal, no NaN or infinity, nothing out of range of the type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace futexsim {

// Digits only (no sign, no exponent); nullopt past 2^64-1.
std::optional<std::uint64_t> parse_whole(const std::string& text);
// Decimal, optional sign and exponent, finite.
std::optional<double> parse_real(const std::string& text);

}  // namespace futexsim
