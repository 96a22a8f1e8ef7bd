// Strict numbers on the command line. CLI11 converts with strtoull/strtold
// in base 0, so on its own it takes "-1" as 2^64-1, "010" as octal, "0x10"
// as hex, "nan" and "inf", and a NaN slips through CLI::Range (every
// comparison with it is false). These validators accept plain decimal
// numbers inside a range only, and rewrite the text into the one form
// CLI11 then converts the same way.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

#include "run/strict_numbers.h"  // the same checks on their own: parse_whole(), parse_real()

namespace futexsim::cli {

// Whole numbers: digits only (no sign, no exponent), in [lo, hi].
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi);
// Real numbers: decimal, optional sign and exponent, finite, in [lo, hi].
CLI::Validator real_number(double lo, double hi);

}  // namespace futexsim::cli
