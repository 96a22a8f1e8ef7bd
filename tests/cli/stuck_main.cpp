// futexsim-stuck: the command line with the test-only workloads of
// tests/sim/stuck_workloads.h registered before main() runs, so that `run`,
// `sweep` (whose children are this same program) and `report` can be shown
// a run that stops making progress (tests/cli/detectors.sh).
#include "tests/sim/stuck_workloads.h"

namespace {
[[maybe_unused]] const bool registered = (futexsim::testing::register_stuck_workloads(), true);
}  // namespace
