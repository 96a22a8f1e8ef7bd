// How a run is printed: one human line, or one JSON object per line.
#pragma once

#include <string>

#include "run/run_result.h"

namespace futexsim {

// threads=96 slots(start=0 set=0 end=512) 1.00s 11.8 Mops/s outcome=latched atomic=92.5%
std::string human_line(const run_result& r);
// Every field, one line, keys in a fixed order (byte-identical across runs
// of the same command and seed, apart from wall_seconds).
std::string json_line(const run_result& r);

}  // namespace futexsim
