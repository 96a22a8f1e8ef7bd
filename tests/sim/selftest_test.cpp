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
