// What `futexsim replay` requires of a case beyond its syntax: a case the
// explorer would run as "ok" without running what it says is refused.
#pragma once

#include <string>

#include "sim/explore/explore_case.h"

namespace futexsim::cli {

// Empty when every thread has operations and is created by some `C`;
// otherwise why not.
std::string case_problem(const sim::explore::case_spec& c);

}  // namespace futexsim::cli
