// The FR_PERCPU -> FR_ATOMIC -> dead -> pivot state machine of futex_ref_*.
#include <catch2/catch.hpp>

#include <climits>

#include "sim/step/step_process.h"

using futexsim::sim::step_process;
namespace model = futexsim::model;
using fph_t = model::private_hash<futexsim::sim::step_env>;

namespace {

int state(step_process& p, fph_t* fph) { return p.env.atomic_read(fph->state); }
long atomic(step_process& p) { return p.env.atomic_read(p.mm.futex_atomic); }

// A process with 16 slots installed in grace period 0, `threads` threads.
void start(step_process& p, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++)
        p.clone_thread();
}

// One futex operation: take and drop a reference (FUTEX_WAKE with no waiters).
void futex_op(step_process& p)
{
    auto* fph = model::futex_private_hash(&p.mm);
    REQUIRE(fph != nullptr);
    model::futex_private_hash_put(fph);
}

}  // namespace

TEST_CASE("drop, grace period, FR_ATOMIC with the bias, grace period, fold", "[refcount]")
{
    step_process p(8);
    start(p, 4);  // 16 slots
    auto* old = p.current();
    REQUIRE(state(p, old) == model::FR_PERCPU);
    CHECK(p.percpu_sum() == 1);  // the initial reference

    // Thread 5 asks for 32 slots in the same grace period the 16 were
    // published in: the drop must wait for a grace period first.
    p.clone_thread();
    CHECK(p.get_slots() == 16);
    CHECK(p.mm.futex_phash_new != nullptr);
    CHECK(state(p, old) == model::FR_PERCPU);
    CHECK(p.env.pending_callbacks() == 1);

    p.env.end_grace_period();
    CHECK(state(p, old) == model::FR_ATOMIC);
    CHECK(atomic(p) == LONG_MAX);
    CHECK_FALSE(model::futex_ref_is_dead(old));

    // A reference taken while biased lands on the atomic.
    auto* held = model::futex_private_hash(&p.mm);
    REQUIRE(held == old);
    CHECK(atomic(p) == LONG_MIN);  // LONG_MAX + 1 wraps, as the kernel's does

    p.env.end_grace_period();
    // Folded: per-CPU sum (initial 1) minus bias minus initial, plus the held 1.
    CHECK(atomic(p) == 1);
    CHECK(p.percpu_sum() == 1);  // re-armed for the next fph
    CHECK_FALSE(model::futex_ref_is_dead(old));

    // Dead exactly when the count reaches zero.
    const unsigned wakes = p.env.wake_ups();
    model::futex_private_hash_put(held);
    CHECK(atomic(p) == 0);
    CHECK(model::futex_ref_is_dead(old));
    CHECK(p.env.wake_ups() == wakes + 1);
    CHECK(p.get_slots() == 16);  // nothing pivots until somebody needs the hash

    // The next get fails and pivots; the new hash starts FR_PERCPU.
    auto* fph = model::futex_private_hash(&p.mm);
    CHECK(fph != old);
    CHECK(fph == p.current());
    CHECK(p.get_slots() == 32);
    CHECK(state(p, fph) == model::FR_PERCPU);
    CHECK(p.mm.futex_phash_new == nullptr);
    CHECK(p.percpu_sum() == 2);  // initial + ours
    model::futex_private_hash_put(fph);
    CHECK(p.percpu_sum() == 1);
    CHECK(p.env.warnings().empty());
}

TEST_CASE("the fold alone can kill the hash when nobody holds a reference", "[refcount]")
{
    step_process p(8);
    start(p, 5);  // 16, then 32 parked
    p.env.end_grace_period();
    p.env.end_grace_period();
    CHECK(atomic(p) == 0);
    CHECK(model::futex_pivot_pending(&p.mm));
    futex_op(p);
    CHECK(p.get_slots() == 32);
}

TEST_CASE("poll_state shortcut: a grace period since publication skips the first", "[refcount]")
{
    step_process p(8);
    start(p, 4);
    p.env.end_grace_period();  // the 16-slot hash is now older than a grace period
    auto* old = p.current();
    p.clone_thread();  // asks for 32
    CHECK(state(p, old) == model::FR_ATOMIC);  // no callback needed to begin
    CHECK(atomic(p) == LONG_MAX);
    CHECK(p.env.pending_callbacks() == 1);
    p.env.end_grace_period();  // the fold
    CHECK(model::futex_ref_is_dead(old));
    futex_op(p);
    CHECK(p.get_slots() == 32);
}

TEST_CASE("get and put on different CPUs: counters wrap, the sum stays right", "[refcount]")
{
    step_process p(4);
    start(p, 2);
    std::vector<fph_t*> held;
    p.env.set_cpu(1);
    for (int i = 0; i < 3; i++)
        held.push_back(model::futex_private_hash(&p.mm));
    p.env.set_cpu(2);
    for (auto* fph : held)
        model::futex_private_hash_put(fph);
    CHECK(p.mm.futex_ref->v[1] == 3u);
    CHECK(p.mm.futex_ref->v[2] == static_cast<unsigned>(-3));  // wrapped
    CHECK(p.percpu_sum() == 1);

    // The fold sums the wrapped counters correctly: dead right away.
    p.env.set_cpu(3);
    REQUIRE(model::futex_hash_allocate(&p.mm, 64, 0) == 0);
    p.env.end_grace_period();
    p.env.end_grace_period();
    CHECK(atomic(p) == 0);
    CHECK(model::futex_ref_is_dead(p.current()));
}

TEST_CASE("one reference held forever keeps the pivot pending forever", "[refcount][stall]")
{
    step_process p(8);
    start(p, 4);
    p.env.end_grace_period();
    p.env.set_cpu(5);
    auto* held = model::futex_private_hash(&p.mm);  // never dropped, yet
    p.env.set_cpu(0);
    p.clone_thread();  // 32 parked

    // Any number of grace periods and operations: still pending.
    for (int round = 0; round < 100; round++) {
        p.env.end_grace_period();
        futex_op(p);
        CHECK(p.get_slots() == 16);
        CHECK_FALSE(model::futex_pivot_pending(&p.mm));
    }
    CHECK(atomic(p) == 1);

    // Dropping it lets the next operation pivot.
    p.env.set_cpu(6);
    model::futex_private_hash_put(held);
    CHECK(model::futex_pivot_pending(&p.mm));
    CHECK(p.get_slots() == 16);
    futex_op(p);
    CHECK(p.get_slots() == 32);
    CHECK(p.env.warnings().empty());
}

TEST_CASE("two racing requests keep the better hash", "[refcount][race]")
{
    SECTION("bigger beats smaller, whichever comes first")
    {
        step_process p(64);
        start(p, 1);
        REQUIRE(model::futex_hash_allocate(&p.mm, 128, 0) == 0);
        REQUIRE(model::futex_hash_allocate(&p.mm, 64, 0) == 0);
        REQUIRE(p.mm.futex_phash_new != nullptr);
        CHECK(p.mm.futex_phash_new->hash_mask + 1 == 128);
        REQUIRE(model::futex_hash_allocate(&p.mm, 256, 0) == 0);
        CHECK(p.mm.futex_phash_new->hash_mask + 1 == 256);
    }
    SECTION("custom beats default, the global hash beats any size")
    {
        using model::futex_hash_less;
        fph_t small(16), big(512), custom_small(16), global(0);
        small.hash_mask = 15;
        big.hash_mask = 511;
        custom_small.hash_mask = 15;
        custom_small.custom = true;
        global.custom = true;
        CHECK(futex_hash_less(&small, &big));
        CHECK_FALSE(futex_hash_less(&big, &small));
        CHECK(futex_hash_less(&big, &custom_small));
        CHECK_FALSE(futex_hash_less(&custom_small, &big));
        CHECK(futex_hash_less(&custom_small, &global));
        CHECK_FALSE(futex_hash_less(&global, &custom_small));
        CHECK_FALSE(futex_hash_less(&big, &big));  // equal keeps the parked one
    }
    SECTION("a parked default loses to a later prctl")
    {
        step_process p(64);
        start(p, 1);
        p.env.end_grace_period();
        REQUIRE(model::futex_hash_allocate(&p.mm, 256, 0) == 0);  // parked
        p.env.on_block([&p] {
            if (p.env.pending_callbacks() == 0)
                return false;
            p.env.end_grace_period();
            return true;
        });
        REQUIRE(p.set_slots(32) == 0);
        CHECK(p.get_slots() == 32);
        CHECK(p.current()->custom);
    }
}
