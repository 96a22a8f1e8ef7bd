// JSON as a machine file must be read: nlohmann's parser keeps the last of
// two equal keys in one object and reads a number too small for a double
// (1e-400) as 0, where one too large is refused. In a file of hardware
// parameters either is an edit gone wrong, so both are refused here.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace futexsim {

// `text` parsed; throws std::invalid_argument naming a key that appears
// twice in one object (with its path, "topology" or "transfer_ns.same_die")
// or a number that underflows to 0, and nlohmann::json::parse_error for
// bad syntax.
nlohmann::json parse_strict_json(const std::string& text);

}  // namespace futexsim
