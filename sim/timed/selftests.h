// The kernel's futex selftests (tools/testing/selftests/futex/functional)
// that a pivot can disturb, as scenarios on the simulator: each issues its
// futex calls as the real test does (FUTEX_PRIVATE_FLAG or not), with the
// real test's timing, so that each pivot policy can be run against them on
// any machine. `futexsim selftests` runs them (cli/selftests_command.cpp).
//
// Like the kernel's harness, which forks a child per TEST(), every scenario
// is a fresh process. What each compares is the test's inner results (what
// the calls returned), not an exit status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "model/kernel_version.h"

namespace futexsim::sim {

struct selftest_options {
    std::string policy = "stock";  // a name of model::pivot_policy_id()
    model::kernel_version kernel = model::default_kernel_version;
    std::uint64_t seed = 1;
};

// futex_requeue's requeue_single (waiters = 1: cmp_requeue(f1, f2, 0, 1)
// must return 1, then a wake of f2 must return 1) and requeue_multiple
// (waiters = 10: cmp_requeue(f1, f2, 3, 7) must return 10, then
// futex_wake(f2, INT_MAX) must return 7). Each waiter FUTEX_WAITs on f1
// with a 30 ms timeout; the main thread sleeps 10 ms (WAKE_WAIT_US) first.
// Every call is made without FUTEX_PRIVATE_FLAG, as the selftest does, so
// on this anonymous memory they are shared keys on the global hash.
struct requeue_result {
    int requeued = 0;  // what futex_cmp_requeue() returned
    int woken = 0;     // what the following futex_wake() returned
    int expected_requeued = 0;
    int expected_woken = 0;
    bool passed() const { return requeued == expected_requeued && woken == expected_woken; }
};
requeue_result run_futex_requeue(const machine& m, const selftest_options& opt, unsigned waiters);

// What one FUTEX_WAIT of a single-call selftest returned, and how long it
// took in virtual time.
struct wait_call_result {
    int ret = 0;
    std::int64_t elapsed_ns = 0;
};

// futex_wait_timeout's first call ("futex_wait relative"): FUTEX_WAIT
// without FUTEX_PRIVATE_FLAG (shared) on a word that holds the expected
// value, 100 us relative timeout, nobody wakes it: must return -ETIMEDOUT.
// futex_wait_wouldblock's futex_wait: FUTEX_WAIT with FUTEX_PRIVATE_FLAG,
// expecting a value the word does not hold: must return -EWOULDBLOCK.
// The real tests make the call from a single-threaded process; here it is
// made right after the process has grown to `pool` threads (idle workers
// parked on another word, FUTEX_WAIT_PRIVATE), so that with pool >= 5 on a
// machine of 5 or more CPUs a pivot is pending, and a policy that gates
// waits shows what its gate does to the call. pool = 0 is the real test.
wait_call_result run_futex_wait_timeout(const machine& m, const selftest_options& opt,
                                        unsigned pool);
wait_call_result run_futex_wait_wouldblock(const machine& m, const selftest_options& opt,
                                           unsigned pool);

// futex_requeue_pi's `owner` variants without the PI calls: the wake-up
// handshake between the third-party blocker and the waker, which the real
// test makes around its requeue. The blocker (created first) FUTEX_WAITs
// on wake_complete; ten waiters each sleep i ms, count themselves blocked
// and park on f1 (where the real ones call futex_wait_requeue_pi); the
// waker polls that count every 1 ms, sleeps 1 ms more, then wakes
// wake_complete once without changing the word (futex_wake(&wake_complete,
// 1), the real test's line). Every call is FUTEX_PRIVATE_FLAG, as in the
// test. It passes when the wake finds the blocker queued (blocker returns
// 0, the wake 1). A policy that gates both calls while a pivot is pending
// can let the wake through first: nobody is queued, the word never
// changes, and the blocker sleeps until its timeout (here 1 s; in the real
// test for ever, holding the PI futex every waiter then blocks on:
// docs/vm.md). Left out: the PI lock the blocker holds, the waiters'
// requeue-PI and its timeouts.
struct handshake_result {
    int blocker = 0;  // what the blocker's FUTEX_WAIT returned
    int woken = 0;    // what the waker's FUTEX_WAKE returned
    bool passed() const { return blocker == 0 && woken == 1; }
};
handshake_result run_futex_requeue_pi_handshake(const machine& m, const selftest_options& opt);

// futex_requeue_pi with its PI calls, one variant without a timeout (the
// harness's t_0, t_0_broadcast, t_0_broadcast_locked, t_0_broadcast_owner,
// t_0_locked, t_0_owner), made as the test makes them: the blocker (owner
// variants, created first) takes f2 with FUTEX_LOCK_PI and FUTEX_WAITs on
// wake_complete; ten waiters each sleep i ms, count themselves blocked,
// FUTEX_WAIT_REQUEUE_PI from f1 to f2, count themselves woken and
// FUTEX_UNLOCK_PI f2; the waker polls the blocked count every 1 ms, sleeps
// 1 ms more, then (locked: holding f2) either requeues everyone at once
// (broadcast: FUTEX_CMP_REQUEUE_PI with nr_requeue INT_MAX until the
// requeued count reaches the waiters not yet woken, at most 1000 calls) or
// one at a time (signal: nr_requeue 0, 100 us apart, taking and releasing
// f2 around each call when locked), then wakes wake_complete. It passes
// when every call succeeds and every thread ends. Left out: the 18 timed
// variants (the model's PI sleeps take no timeout: docs/kernel-map.md) and
// SCHED_FIFO (one priority: the rt_mutex is FIFO).
struct requeue_pi_variant {
    bool broadcast = false;
    bool locked = false;
    bool owner = false;
    // The waiters' FUTEX_WAIT_REQUEUE_PI timeout: main's clock at its start
    // plus this, one absolute time for all of them; 0 for none.
    long timeout_ns = 0;
    std::string name() const;  // "t_5000_broadcast_locked", as the harness names it
};
struct requeue_pi_result {
    bool finished = false;  // the main thread joined everyone
    std::string failure;    // the test's first failure message, if any
    int task_count = 0;     // the waker's count of requeued or woken waiters
    int timed_out = 0;      // waiters whose FUTEX_WAIT_REQUEUE_PI returned -ETIMEDOUT
    int acquired = 0;       // waiters whose FUTEX_WAIT_REQUEUE_PI returned 0 (owning f2)
    std::string hung_in;    // a run that never ended: which thread sleeps in which call
    bool passed() const { return finished && failure.empty(); }
};
requeue_pi_result run_futex_requeue_pi(const machine& m, const selftest_options& opt,
                                       requeue_pi_variant v);
// The 24 variants: FIXTURE_VARIANT_ADD_TIMEOUT(0, 5000, 500000,
// 2000000000), six each, in the order the file adds them.
std::vector<requeue_pi_variant> requeue_pi_variants();

// One selftest case run over seeds opt.seed, opt.seed + 1, ...: how many
// runs passed, and what each run's calls returned.
struct selftest_case_summary {
    std::string test;  // the selftest binary: futex_requeue, ...
    std::string name;  // the case within it: requeue_multiple, ...
    std::string keys;  // "shared" or "private": how the case's calls are keyed
    unsigned runs = 0;
    unsigned passed = 0;
    std::vector<std::string> returned;  // per run: "10/7", "-ETIMEDOUT", ...
    std::int64_t longest_ns = 0;        // the longest timed call (wait cases)
};

// The eleven cases (requeue_single, requeue_multiple, the relative timed
// wait with a pending pivot, the mismatched wait with a pending pivot,
// futex_requeue_pi's owner handshake without PI, then its six variants
// without a timeout, with PI), each run `runs` times. Stops early, returning what it has, when
// `stop()` says so (SIGINT).
std::vector<selftest_case_summary> run_selftests(const machine& m, const selftest_options& opt,
                                                 unsigned runs, bool (*stop)() = nullptr);

// The pool the two wait cases grow the process to before their call.
inline constexpr unsigned selftest_wait_pool = 10;

}  // namespace futexsim::sim
