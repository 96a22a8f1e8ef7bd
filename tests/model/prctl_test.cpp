// PR_FUTEX_HASH semantics, following the kernel selftest
// tools/testing/selftests/futex/functional/futex_priv_hash.c step by step.
#include <catch2/catch.hpp>

#include "sim/step/step_process.h"

using futexsim::sim::step_process;
namespace model = futexsim::model;

namespace {

// SET blocks until its hash is installed; here a blocked SET lets grace
// periods pass, which is all a quiet single-threaded process needs.
void let_grace_periods_pass(step_process& p)
{
    p.env.on_block([&p] {
        if (p.env.pending_callbacks() == 0)
            return false;
        p.env.end_grace_period();
        return true;
    });
}

void set_verify(step_process& p, int slots)
{
    INFO("SET_SLOTS " << slots);
    REQUIRE(p.set_slots(static_cast<unsigned long>(slots)) == 0);
    CHECK(p.get_slots() == slots);
}

void grow_pool(step_process& p, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++)
        p.clone_thread();
    p.env.end_grace_period();
    p.env.end_grace_period();
    if (auto* fph = model::futex_private_hash(&p.mm))
        model::futex_private_hash_put(fph);
}

}  // namespace

TEST_CASE("futex_priv_hash selftest sequence", "[prctl]")
{
    step_process p(64);
    let_grace_periods_pass(p);

    // Basic get slots: 0 before the first thread.
    CHECK(p.get_slots() == 0);

    // Automatic hash bucket init on thread creation.
    p.clone_thread();
    const int slots1 = p.get_slots();
    CHECK(slots1 > 0);

    // Automatic increase with more than 16 CPUs.
    grow_pool(p, 64);
    CHECK(p.get_slots() > slots1);

    // Once the user changes it, it has to be what is set.
    for (int slots : {2, 4, 8, 32, 16})
        set_verify(p, slots);
    CHECK(p.set_slots(15) == -model::EINVAL_);
    set_verify(p, 2);

    // No more auto-resize after a manual setting.
    grow_pool(p, 64);
    CHECK(p.get_slots() == 2);

    // An oversized request fails, and a later valid one works.
    CHECK(p.set_slots(1u << 29) < 0);
    set_verify(p, 4);

    // The global hash cannot be undone.
    CHECK(p.set_slots(0) == 0);
    for (unsigned long slots : {4ul, 8ul, 8ul, 0ul, 6ul})
        CHECK(p.set_slots(slots) < 0);
    grow_pool(p, 64);
    CHECK(p.get_slots() == 0);
    CHECK(p.env.warnings().empty());
}

TEST_CASE("SET_SLOTS validates its argument", "[prctl]")
{
    step_process p(8);
    let_grace_periods_pass(p);
    CHECK(p.set_slots(1) == -model::EINVAL_);
    CHECK(p.set_slots(3) == -model::EINVAL_);
    CHECK(p.set_slots(6) == -model::EINVAL_);
    CHECK(model::futex_hash_prctl(&p.mm, model::PR_FUTEX_HASH_SET_SLOTS, 16, 1) ==
          -model::EINVAL_);
    CHECK(model::futex_hash_prctl(&p.mm, 99, 0, 0) == -model::EINVAL_);
    CHECK(p.set_slots(1u << 29) == -model::ENOMEM_);
    CHECK(p.get_slots() == 0);
}

TEST_CASE("SET_SLOTS before any thread installs at once", "[prctl]")
{
    step_process p(96);
    REQUIRE(p.set_slots(512) == 0);  // no wait: there is nothing to replace
    CHECK(p.get_slots() == 512);
    CHECK(p.env.pending_callbacks() == 0);
    // Presized: thread creation never asks again.
    for (int i = 0; i < 96; i++)
        p.clone_thread();
    CHECK(p.current()->custom);
    CHECK(p.env.pending_callbacks() == 0);
}

TEST_CASE("SET_SLOTS blocks until its hash is installed", "[prctl]")
{
    step_process p(8);
    p.clone_thread();
    int grace_periods_waited = 0;
    p.env.on_block([&] {
        if (p.env.pending_callbacks() == 0)
            return false;
        p.env.end_grace_period();
        ++grace_periods_waited;
        return true;
    });
    REQUIRE(p.set_slots(64) == 0);
    CHECK(p.get_slots() == 64);
    // Published in this grace period: a callback to start the transition,
    // then one more to fold.
    CHECK(grace_periods_waited == 2);
}

TEST_CASE("the global hash: SET 0 then GET 0, and further SETs fail with EBUSY", "[prctl]")
{
    step_process p(8);
    let_grace_periods_pass(p);
    p.clone_thread();
    REQUIRE(p.set_slots(0) == 0);
    CHECK(p.get_slots() == 0);
    REQUIRE(p.current() != nullptr);
    CHECK(p.current()->hash_mask == 0);
    CHECK(p.set_slots(0) == -model::EBUSY_);
    CHECK(p.set_slots(16) == -model::EBUSY_);
    // clone() no longer asks.
    p.clone_thread();
    CHECK(p.get_slots() == 0);
}

// The same sequence on each kernel version: the same answers; only v7.2,
// whose futex_pivot_pending() takes futex_hash_lock inside
// wait_var_event()'s condition, warns (might_sleep(), docs/findings.md), and
// only when the call has to wait: wait_var_event()'s first check runs in
// TASK_RUNNING.
TEST_CASE("SET_SLOTS that has to wait: same slots on every kernel, might_sleep() only on v7.2", "[prctl]")
{
    using model::kernel_version;
    for (auto kernel : {kernel_version::v6_17, kernel_version::v7_2, kernel_version::v7_2_1}) {
        INFO("kernel " << model::kernel_version_name(kernel));
        step_process p(8);
        p.mm.futex_kernel = kernel;
        let_grace_periods_pass(p);
        set_verify(p, 8);  // no hash yet: installed at once, no wait
        CHECK(p.env.warnings().empty());
        p.clone_thread();  // the hash is alive (FR_PERCPU): SET_SLOTS parks and waits
        set_verify(p, 64);
        const bool warned = !p.env.warnings().empty();
        CHECK(warned == (kernel == kernel_version::v7_2));
        if (warned)
            CHECK(p.env.warnings().front().find("!TASK_RUNNING") != std::string::npos);
    }
}
