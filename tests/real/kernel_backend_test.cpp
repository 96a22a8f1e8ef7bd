// The kernel backend: the workloads' futex calls are real system calls.
// Tests that need prctl(PR_FUTEX_HASH) skip on kernels before 6.17.
#include <catch2/catch.hpp>

#include "tests/real/real_fixtures.h"

using namespace futexsim;
using futexsim::test::real_options;

TEST_CASE("kernel backend: FUTEX_WAKE loops run and every thread is joined")
{
    const run_result r = real::run_real(real_options(), real::backend::kernel);
    CHECK(r.ops > 0);
    CHECK_FALSE(r.interrupted);
}

TEST_CASE("kernel backend: a mutex with --ops does exactly that much work on real futexes")
{
    auto o = real_options("mutex", 6);
    o.params.set("ops", "20000");
    o.seconds = 30;  // an upper bound: the run ends when the work is done
    o.params.set("unlock", GENERATE(std::string("store_wake"), std::string("xchg")));
    const run_result r = real::run_real(o, real::backend::kernel);
    CHECK(r.ops == 20000);
    CHECK(r.work_ms >= 0);
}

TEST_CASE("kernel backend: waits that are woken, time out or mismatch all return")
{
    for (const char* w : {"producer-consumer", "mixed-wait", "hash-bench"}) {
        INFO(w);
        CHECK(real::run_real(real_options(w, 6), real::backend::kernel).ops > 0);
    }
}

TEST_CASE("kernel backend: --presize sets the host's slots (needs PR_FUTEX_HASH)")
{
    test::skip_unless_futex_hash_prctl();
    auto o = real_options();
    o.presize = 64;
    const run_result r = real::run_real(o, real::backend::kernel);
    CHECK(r.slots_start == 0);
    CHECK(r.slots_set == 64);
    CHECK(r.slots_end == 64);
}

TEST_CASE("kernel backend: --global-hash leaves the process on the global hash (needs PR_FUTEX_HASH)")
{
    test::skip_unless_futex_hash_prctl();
    auto o = real_options();
    o.global_hash = true;
    const run_result r = real::run_real(o, real::backend::kernel);
    CHECK(r.slots_set == 0);
    CHECK(r.slots_end == 0);
}

TEST_CASE("kernel backend: the auto-scaled hash has a power-of-two size of at least 16 (needs PR_FUTEX_HASH)")
{
    test::skip_unless_futex_hash_prctl();
    const run_result r = real::run_real(real_options(), real::backend::kernel);
    CHECK(r.slots_end >= 16);
    CHECK((r.slots_end & (r.slots_end - 1)) == 0);
}

TEST_CASE("kernel backend: a short run counts only the operations inside its window")
{
    const run_result r = test::short_crowded_run(real::backend::kernel);
    CHECK(r.per_interval_mops.size() == 3);
    CHECK(r.ops == test::ops_in_bins(r));
}
