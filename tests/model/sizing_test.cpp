// futex_hash_allocate_default() sizing, against the sizes real machines end at.
#include <catch2/catch.hpp>

#include "sim/step/step_process.h"

using futexsim::sim::step_process;

namespace {

// A process that already has `threads` threads asks for its default hash.
int default_slots(unsigned threads, unsigned cpus, unsigned nodes = 1)
{
    step_process p(cpus, nodes);
    p.env.set_nr_threads(threads);
    REQUIRE(futexsim::model::futex_hash_allocate_default(&p.mm) == 0);
    return p.get_slots();
}

// A pool grown one pthread_create() at a time, then one futex operation after
// two grace periods lets the last parked hash in.
int slots_after_pool(unsigned workers, unsigned cpus)
{
    step_process p(cpus);
    for (unsigned i = 0; i < workers; i++)
        p.clone_thread();
    p.env.end_grace_period();
    p.env.end_grace_period();
    if (auto* fph = futexsim::model::futex_private_hash(&p.mm))
        futexsim::model::futex_private_hash_put(fph);
    return p.get_slots();
}

}  // namespace

TEST_CASE("default size is 4 slots per thread, rounded up to a power of two", "[sizing]")
{
    CHECK(default_slots(96, 96) == 512);
    CHECK(default_slots(96, 192) == 512);
    CHECK(default_slots(140, 144) == 1024);
    CHECK(default_slots(8, 64) == 32);
    CHECK(default_slots(32, 64) == 128);
    CHECK(default_slots(64, 64) == 256);
    CHECK(default_slots(33, 64) == 256);
}

TEST_CASE("threads are capped at the online CPUs", "[sizing]")
{
    CHECK(default_slots(200, 96) == 512);
    CHECK(default_slots(1000, 8) == 32);
}

TEST_CASE("a 2-CPU machine stays at 16 slots for any thread count", "[sizing]")
{
    for (unsigned threads : {1u, 2u, 3u, 16u, 96u, 1000u})
        CHECK(default_slots(threads, 2) == 16);
}

TEST_CASE("never below 16 slots", "[sizing]")
{
    CHECK(default_slots(1, 64) == 16);
    CHECK(default_slots(4, 64) == 16);
    CHECK(default_slots(5, 64) == 32);
}

TEST_CASE("never above the global hash size per node", "[sizing]")
{
    // 128 CPUs on 128 nodes: the global hash has 256 slots per node.
    CHECK(default_slots(128, 128, 128) == 256);
}

TEST_CASE("clone sees the thread count before the child joins", "[sizing][fork]")
{
    // The last of 96 workers is created by a process of 96 threads (main
    // plus 95 workers): 384 rounds up to 512.
    CHECK(slots_after_pool(96, 96) == 512);
    CHECK(slots_after_pool(140, 144) == 1024);
    CHECK(slots_after_pool(64, 96) == 256);
    CHECK(slots_after_pool(65, 96) == 512);
    CHECK(slots_after_pool(8, 96) == 32);
    CHECK(slots_after_pool(32, 96) == 128);
    CHECK(slots_after_pool(96, 2) == 16);
}

TEST_CASE("no private hash before the first thread", "[sizing][fork]")
{
    step_process p(8);
    CHECK(p.get_slots() == 0);
    CHECK(p.current() == nullptr);
    p.clone_thread();
    CHECK(p.get_slots() == 16);
}
