// The kernel selftest futex_requeue under every pivot policy, on a machine
// where ten waiter threads trigger an auto-scale pivot.
#include <catch2/catch.hpp>

#include "model/core.h"
#include "sim/scenarios/selftests.h"

using namespace futexsim::sim;

TEST_CASE("futex_requeue selftest under each policy", "[selftest]")
{
    const machine m = load_machine_preset("xeon-6975p-snc3");
    for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
        int single_failed = 0, multiple_failed = 0;
        for (std::uint64_t seed = 1; seed <= 8; seed++) {
            const selftest_result single = run_futex_requeue(m, policy, 1, seed);
            const selftest_result multiple = run_futex_requeue(m, policy, 10, seed);
            single_failed += !single.passed();
            multiple_failed += !multiple.passed();
            INFO(policy << " seed " << seed << ": requeue_multiple returned " << multiple.requeued
                        << " then " << multiple.woken);
            if (std::string(policy) != "wait-for-new") {
                CHECK(single.passed());
                CHECK(multiple.passed());
            } else if (!multiple.passed()) {
                // The draft's failure as on real machines: 0 instead of 10.
                CHECK(multiple.requeued == 0);
            }
        }
        WARN(policy << ": requeue_single failed " << single_failed << "/8, requeue_multiple failed "
                    << multiple_failed << "/8");
    }
}

TEST_CASE("futex_wait_timeout and futex_wait_wouldblock under each policy, a pivot pending",
          "[selftest]")
{
    const machine m = load_machine_preset("xeon-6975p-snc3");
    for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
        std::int64_t longest_timeout = 0, longest_wouldblock = 0;
        for (std::uint64_t seed = 1; seed <= 8; seed++) {
            const wait_call_result t = run_futex_wait_timeout(m, policy, 10, seed);
            const wait_call_result w = run_futex_wait_wouldblock(m, policy, 10, seed);
            INFO(policy << " seed " << seed);
            // Both selftests pass under every policy, as on real machines: a
            // gate may delay the call, never change what it returns.
            CHECK(t.ret == -futexsim::model::ETIMEDOUT_);
            CHECK(t.elapsed_ns >= 100'000);
            CHECK(w.ret == -futexsim::model::EWOULDBLOCK_);
            longest_timeout = std::max(longest_timeout, t.elapsed_ns);
            longest_wouldblock = std::max(longest_wouldblock, w.elapsed_ns);
        }
        WARN(policy << ": longest 100 us timed wait took " << longest_timeout / 1000
                    << " us, longest mismatched wait " << longest_wouldblock / 1000 << " us");
    }
}
