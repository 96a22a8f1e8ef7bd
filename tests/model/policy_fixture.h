// The step-environment fixture of the policy tests: a process under a
// policy with a 16-slot hash published a grace period ago, two futex words,
// and a count of the hash references the test holds. Shared by
// tests/model/policy_test.cpp and the test of docs/extending.md's policy
// example (tests/docs/), whose build registers one more policy.
#pragma once

#include <catch2/catch.hpp>

#include <climits>
#include <string>

#include "sim/step/step_process.h"

namespace futexsim::test {

namespace model = futexsim::model;
using futexsim::sim::step_deadlock;
using futexsim::sim::step_env;
using futexsim::sim::step_process;

constexpr std::uint64_t F1 = 0x7f0000001000ull;
constexpr std::uint64_t F2 = 0x7f0000002040ull;

inline bool traced(const step_env& env, model::trace_kind kind)
{
    for (const auto& tp : env.trace_log())
        if (tp.kind == kind)
            return true;
    return false;
}

// A process under `policy` with 16 slots published a grace period ago
// (4 threads on 8 CPUs, or `cpus`) and two futex words (0).
struct fixture {
    step_process p;
    long initial = 0;
    long held = 0;  // references the test holds itself

    explicit fixture(const char* policy, unsigned cpus = 8) : p(cpus)
    {
        REQUIRE(p.set_policy(policy) == 0);
        for (int i = 0; i < 4; i++)
            p.clone_thread();
        REQUIRE(p.get_slots() == 16);
        p.env.end_grace_period();
        p.env.user_memory[F1] = 0;
        p.env.user_memory[F2] = 0;
        initial = p.references();
        REQUIRE(initial == 1);
    }

    // Per-CPU sum plus futex_atomic: the initial reference plus what the
    // test holds. Not meaningful inside the biased window of FR_ATOMIC.
    void check_refs()
    {
        const bool biased = p.env.atomic_read(p.mm.futex_atomic) > LONG_MAX / 2 ||
                            p.env.atomic_read(p.mm.futex_atomic) < LONG_MIN / 2;
        if (!biased)
            CHECK(p.references() == initial + held);
    }

    model::private_hash<step_env>* take_ref()
    {
        auto* fph = model::futex_private_hash(&p.mm);
        REQUIRE(fph != nullptr);
        held++;
        return fph;
    }
    void drop_ref(model::private_hash<step_env>* fph)
    {
        model::futex_private_hash_put(fph);
        held--;
    }

    // Thread 5: asks for 32 slots; the current hash is not dead, so the new
    // one is parked and the current one goes FR_ATOMIC at once (its
    // publication is a grace period old).
    void park_pivot()
    {
        p.clone_thread();
        REQUIRE(p.mm.futex_phash_new != nullptr);
        REQUIRE(p.get_slots() == 16);
        REQUIRE(p.env.atomic_read(p.current()->state) == model::FR_ATOMIC);
    }

    // rwsem-gate's per-mm state: the gate and the writer's role.
    auto& gate() { return model::policy_state<model::rwsem_gate_policy>(&p.mm); }
    unsigned gate_readers()
    {
        unsigned sum = 0;
        for (unsigned v : gate().sem.read_count->v)
            sum += v;
        return sum;
    }
    int gate_state() { return gate().sem.rss.gp_state; }
};

}  // namespace futexsim::test
