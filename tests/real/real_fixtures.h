// Shared by the real-backend tests: short runs with options each test adjusts.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "real/kernel_process.h"
#include "real/run_real.h"

namespace futexsim::test {

// A real run short enough for a 2-core CI machine.
inline run_options real_options(const char* workload = "wake-nowaiters", unsigned threads = 4)
{
    run_options o;
    o.workload = workload;
    o.threads = threads;
    o.seconds = 0.1;
    return o;
}

// Operations in the per-interval bins of `r` (they are reported as Mops/s).
inline std::uint64_t ops_in_bins(const run_result& r)
{
    std::uint64_t sum = 0;
    for (double mops : r.per_interval_mops)
        sum += static_cast<std::uint64_t>(std::llround(mops * r.interval_ms * 1e3));
    return sum;
}

// A run far shorter than creating its threads takes: the threads keep
// counting until the watchdog has read the figures, but only operations
// inside the window count, so the total is the sum of the bins.
inline run_result short_crowded_run(real::backend b)
{
    run_options o = real_options("wake-nowaiters", 256);
    o.seconds = 0.003;
    o.interval_ms = 1;
    return real::run_real(o, b);
}

// Catch2 v2 has no SKIP: leave with the exit status ctest reads as skipped
// (SKIP_RETURN_CODE 77 in tests/CMakeLists.txt).
inline void skip_unless_futex_hash_prctl()
{
    if (!real::kernel_has_futex_hash_prctl()) {
        std::puts("SKIPPED: this kernel has no prctl(PR_FUTEX_HASH) (Linux 6.17 or later)");
        std::fflush(stdout);
        std::_Exit(77);
    }
}

}  // namespace futexsim::test
