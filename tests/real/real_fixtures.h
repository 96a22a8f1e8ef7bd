// Shared by the real-backend tests: short runs with options each test adjusts.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "real/kernel_process.h"
#include "real/run_real.h"

namespace futexsim::test {

// A real run short enough for a 2-core CI machine.
inline sim::run_options real_options(const char* workload = "wake-nowaiters", unsigned threads = 4)
{
    sim::run_options o;
    o.workload = workload;
    o.threads = threads;
    o.seconds = 0.1;
    return o;
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
