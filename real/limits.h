// What the real backends refuse, so that a typo cannot fork-bomb or hang the
// machine they run on (README, `futexsim run --help`).
#pragma once

namespace futexsim::real {

// Threads a real run may create (workers, not counting main and watchdog).
inline constexpr unsigned max_threads = 1024;
// Seconds a real run may last (--seconds).
inline constexpr double max_seconds = 60.0;
// How long the threads get to stop and be joined after the measured run
// before the run reports them as stuck (they are still joined).
inline constexpr double stop_warning_seconds = 5.0;

}  // namespace futexsim::real
