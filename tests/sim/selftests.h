// The kernel's futex selftests (tools/testing/selftests/futex/functional)
// as scenarios on the simulator, with their real timing, so each pivot
// policy can be run against them. Test-only: built into sim_tests
// (selftest_test.cpp), not into the simulator's library; no command runs them.
#pragma once

#include <cstdint>
#include <string>

#include "machine/machine.h"

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

// What one FUTEX_WAIT of a single-call selftest returned, and how long it
// took in virtual time.
struct wait_call_result {
    int ret = 0;
    std::int64_t elapsed_ns = 0;
};

// futex_wait_timeout: FUTEX_WAIT_PRIVATE on a word that holds the expected
// value, 100 us relative timeout, nobody wakes it: must return -ETIMEDOUT.
// futex_wait_wouldblock: the same call expecting a value the word does not
// hold: must return -EWOULDBLOCK. The real selftests run single-threaded;
// here the call is made while a pivot is pending, right after the process
// has grown to `pool` threads (idle workers parked on another word), so that
// a policy that gates waits shows what the gate does to them.
wait_call_result run_futex_wait_timeout(const machine& m, const std::string& policy, unsigned pool,
                                        std::uint64_t seed);
wait_call_result run_futex_wait_wouldblock(const machine& m, const std::string& policy, unsigned pool,
                                           std::uint64_t seed);

}  // namespace futexsim::sim
