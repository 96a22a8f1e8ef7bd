// futex_rehash_private(): waiters queued in the old hash end up in the right
// buckets of the new one.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/step/step_process.h"

using futexsim::sim::step_env;
using futexsim::sim::step_process;
namespace model = futexsim::model;

namespace {

model::futex_key key_for(step_process& p, std::uint64_t uaddr)
{
    model::futex_key k;
    k.address = uaddr & ~std::uint64_t{4095};
    k.offset = static_cast<std::uint32_t>(uaddr & 4095);
    k.mm_id = p.mm.id;
    return k;
}

// Queue a waiter the way futex_wait_setup()/futex_queue() do, minus the sleep.
void enqueue(step_process& p, model::futex_q<step_env>& q)
{
    auto* hb = model::futex_hash(&p.mm, q.key);
    p.env.spin_lock(hb->lock);
    p.env.atomic_inc(hb->waiters);
    model::plist_add(&q, hb);
    q.lock_ptr = &hb->lock;
    p.env.spin_unlock(hb->lock);
    model::futex_hash_put(hb);  // a sleeping waiter holds no reference
}

}  // namespace

TEST_CASE("rehash moves every waiter to its bucket in the new hash", "[rehash]")
{
    step_process p(64);
    p.clone_thread();  // 16 slots
    p.env.end_grace_period();

    // 40 waiters on 20 words, two per word with different priorities, so
    // chains hold several entries and the 16-slot buckets collide.
    std::vector<model::futex_q<step_env>> qs(40);
    for (std::size_t i = 0; i < qs.size(); i++) {
        qs[i].key = key_for(p, 0x7f0000001000ull + 64 * (i % 20));
        qs[i].prio = static_cast<int>(i / 20);
        enqueue(p, qs[i]);
    }
    auto* old = p.current();
    int old_waiters = 0;
    for (auto& hb : old->queues)
        old_waiters += p.env.atomic_read(hb.waiters);
    REQUIRE(old_waiters == 40);

    REQUIRE(model::futex_hash_allocate(&p.mm, 256, 0) == 0);
    p.env.end_grace_period();
    auto* fph = model::futex_private_hash(&p.mm);  // pivots: nobody holds a reference
    REQUIRE(fph->hash_mask + 1 == 256);
    model::futex_private_hash_put(fph);

    for (auto& q : qs) {
        auto* expected = model::__futex_hash(&p.mm, q.key, fph);
        CHECK(q.hb == expected);
        CHECK(q.lock_ptr == &expected->lock);
        CHECK(std::count(expected->chain.begin(), expected->chain.end(), &q) == 1);
    }
    int total = 0;
    std::size_t chained = 0;
    for (auto& hb : fph->queues) {
        total += p.env.atomic_read(hb.waiters);
        chained += hb.chain.size();
        // plist order survives the move: priorities never decrease along a chain
        int last = -1;
        for (auto* q : hb.chain) {
            CHECK(q->prio >= last);
            last = q->prio;
        }
    }
    CHECK(total == 40);
    CHECK(chained == 40);
    CHECK(p.env.warnings().empty());
}

TEST_CASE("bucket choice follows jhash2 of the address, seeded by the offset", "[rehash]")
{
    // Two words in the same page with different offsets hash independently,
    // and the same word always lands in the same bucket.
    step_process p(8);
    p.clone_thread();
    auto k1 = key_for(p, 0x7f0000001040ull);
    auto* a = model::__futex_hash(&p.mm, k1, static_cast<model::private_hash<step_env>*>(nullptr));
    auto* b = model::__futex_hash(&p.mm, k1, static_cast<model::private_hash<step_env>*>(nullptr));
    CHECK(a == b);
    CHECK(a->priv == p.current());
}

TEST_CASE("jhash2 matches the kernel's lookup3 on known inputs", "[rehash]")
{
    // Zero-length input returns the seeded initial value unmixed.
    CHECK(model::jhash2(nullptr, 0, 0) == model::JHASH_INITVAL);
    // One word: golden value computed from the reference lookup3 hashword().
    const std::uint32_t one[1] = {0};
    CHECK(model::jhash2(one, 1, 0) == 0x049396b8u);
}
