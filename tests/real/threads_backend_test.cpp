// The threads backend: the model on real threads. Behaviour only (counts,
// slots, joins), never how fast.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "real/threads_process.h"
#include "tests/real/real_fixtures.h"

using namespace futexsim;
using futexsim::test::real_options;

TEST_CASE("threads backend: every FUTEX_WAKE takes one hash reference, on the per-CPU path once the hash is stable")
{
    const run_result r = real::run_real(real_options(), real::backend::threads);
    REQUIRE(r.ops > 0);
    // Each wake takes a reference; the run also counts a few after the snapshot.
    CHECK(r.ref_get_percpu + r.ref_get_atomic >= r.ops);
    CHECK(r.pivots_completed >= 1);
    CHECK(r.slots_end >= 16);
    CHECK((r.slots_end & (r.slots_end - 1)) == 0);
    CHECK(r.warnings.empty());
    CHECK_FALSE(r.interrupted);
}

TEST_CASE("threads backend: --presize and --global-hash set the slots before any thread")
{
    auto o = real_options();
    o.presize = 64;
    const run_result a = real::run_real(o, real::backend::threads);
    CHECK(a.slots_set == 64);
    CHECK(a.slots_end == 64);  // custom: the pool's clones do not resize it
    o.presize.reset();
    o.global_hash = true;
    const run_result b = real::run_real(o, real::backend::threads);
    CHECK(b.slots_set == 0);
    CHECK(b.slots_end == 0);
}

TEST_CASE("threads backend: a mutex with --ops does exactly that much work, waits and wakes included")
{
    auto o = real_options("mutex", 6);
    o.params.set("locks", "1");
    o.params.set("ops", "20000");
    o.params.set("unlock", GENERATE(std::string("store_wake"), std::string("xchg")));
    o.seconds = 30;  // an upper bound: the run ends when the work is done
    const run_result r = real::run_real(o, real::backend::threads);
    CHECK(r.ops == 20000);
    CHECK(r.work_ms >= 0);
}

TEST_CASE("threads backend: sleeping waiters are woken and every thread is joined")
{
    for (const char* w : {"producer-consumer", "mixed-wait", "hash-bench", "pool-growth"}) {
        auto o = real_options(w, 6);
        o.params.set("start-threads", "2");
        const run_result r = real::run_real(o, real::backend::threads);
        INFO(w);
        CHECK(r.ops > 0);
        // A window that ends before the slow host (TSan) has created every
        // thread is said, and is no failure of waking or joining.
        for (const std::string& warning : r.warnings)
            CHECK(warning.rfind("the window ended with ", 0) == 0);
    }
}

TEST_CASE("threads backend: prctl(SET_SLOTS) under FUTEX_WAKE load pivots through FR_ATOMIC and completes")
{
    // On every kernel version: since 8e7ff730dd96 the wait's condition takes
    // futex_hash_lock (docs/findings.md); v7.2 warns that it does so in
    // wait_var_event(), v7.2.1 waits with wait_woken() and does not.
    const auto kernel = GENERATE(model::kernel_version::v6_17, model::kernel_version::v7_2,
                                 model::kernel_version::v7_2_1);
    INFO("kernel " << model::kernel_version_name(kernel));
    real::threads_process proc(16);
    proc.mm().futex_kernel = kernel;
    std::atomic<bool> stop{false};
    const std::uint64_t word = proc.alloc_futex_word(0);
    for (int i = 0; i < 3; i++)
        proc.spawn_thread("waker", {}, [&] {
            // Time outside the call between wakes: in userspace a waker can
            // be preempted while it holds a reference (the kernel's
            // preempt-none path cannot), and with wakers that never leave the
            // call, on few CPUs, the count may not reach zero for as long as
            // they run (docs/backends.md).
            while (!stop.load()) {
                proc.sys_futex_wake(word, 1);
                proc.user_work(2000);
            }
            proc.thread_exit();
        });
    // Each resize waits (wait_var_event) until the old hash's references are
    // gone: that needs the RCU callbacks and the atomic fold to work.
    for (unsigned slots : {32u, 64u, 128u, 32u}) {
        REQUIRE(proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, slots) == 0);
        CHECK(proc.current_slots() == static_cast<int>(slots));
    }
    stop = true;
    proc.join_all();
    const auto p = proc.env().pivots();
    CHECK(p.pivots_completed >= 5);  // the pool's own, then one per resize
    CHECK(p.ref_get_atomic > 0);     // some wakes found FR_ATOMIC during a pivot
    CHECK_FALSE(p.pending);
    CHECK(proc.env().warnings().empty() == (kernel != model::kernel_version::v7_2));
}

TEST_CASE("threads backend: the thread cap is enforced and nothing is left running")
{
    auto o = real_options();
    o.threads = 5000;
    CHECK_THROWS_AS(real::run_real(o, real::backend::threads), std::invalid_argument);
}

TEST_CASE("threads backend: a short run counts only the operations inside its window")
{
    const run_result r = test::short_crowded_run(real::backend::threads);
    CHECK(r.per_interval_mops.size() == 3);
    CHECK(r.ops == test::ops_in_bins(r));
}
