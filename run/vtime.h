// Time as every layer above the model counts it: nanoseconds of the
// process's clock, virtual on the simulator (sim/timed/engine.h), wall-clock on a
// real backend.
#pragma once

#include <cstdint>

namespace futexsim {

using vtime = std::int64_t;

}  // namespace futexsim
