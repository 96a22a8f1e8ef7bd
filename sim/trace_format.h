// Human-readable text for the model's tracepoints.
#pragma once

#include <string>

#include "model/futex.h"

namespace futexsim::sim {

std::string describe(const model::trace_point& tp);

}  // namespace futexsim::sim
