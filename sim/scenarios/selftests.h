// The kernel's futex selftests (tools/testing/selftests/futex/functional)
// as scenarios on the simulator, with their real timing, so each pivot
// policy can be run against them.
#pragma once

#include <cstdint>
#include <string>

#include "sim/machine.h"

namespace futexsim::sim {

struct selftest_result {
    int requeued = 0;  // what futex_cmp_requeue() returned
    int woken = 0;     // what the following futex_wake() returned
    int expected_requeued = 0;
    int expected_woken = 0;
    bool passed() const { return requeued == expected_requeued && woken == expected_woken; }
};

// futex_requeue's requeue_single (waiters = 1: requeue 0 woken + 1 moved,
// then wake 1) and requeue_multiple (waiters = 10: cmp_requeue(3, 7) must
// return 10, then a wake of f2 must return 7). Each waiter FUTEX_WAITs on f1
// with a 30 ms timeout; the main thread sleeps 10 ms first.
selftest_result run_futex_requeue(const machine& m, const std::string& policy, unsigned waiters,
                                  std::uint64_t seed);

}  // namespace futexsim::sim
