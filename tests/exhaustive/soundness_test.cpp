// The reduction loses nothing: on tiny cases (two threads, two operations)
// a brute-force enumeration of every schedule (no reduction) and the
// reduced search (sleep sets, sim/explore/dfs.h) reach the same set of
// distinct final states, under every policy.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <iostream>

#include "model/core.h"
#include "sim/explore/dfs.h"

using namespace futexsim::sim::explore;

namespace {

dfs_result search(const std::string& policy, const std::string& text, unsigned preemptions,
                  bool reduction, unsigned long gp_ends, memory_model memory = memory_model::sc)
{
    run_config cfg;
    cfg.memory = memory;
    cfg.policy = policy;
    cfg.cpus = 2;
    cfg.max_steps = 400;
    cfg.max_gp_ends = gp_ends;
    cfg.check_sleepers = false;
    dfs_options o;
    o.max_preemptions = preemptions;
    o.reduction = reduction;
    o.collect_final_states = true;
    return explore_dfs(cfg, *parse_case(text), o);
}

// Two threads of at most two operations each: waits, wakes, wake_op,
// requeue, a timed wait, SET_SLOTS (a pivot: grace periods, the fold).
const std::vector<std::string> tiny_cases = {
    "C.K0:1/W0", "C.W0/K0:1", "C.O0:1/W1", "C.T0:3/K0:1", "C.R0:1:1/W0", "C.P2/K0:1", "C.G/M0.K0:1",
};

}  // namespace

TEST_CASE("the reduction reaches every final state brute force reaches (2 threads, 2 operations)",
          "[exhaustive][soundness]")
{
    for (const std::string policy : {"stock", "wait-for-new", "rwsem-gate"})
        for (const auto& text : tiny_cases) {
            // Brute force: no reduction; the preemption bound keeps it finite
            // in a test's time (the same bound for both).
            const auto brute = search(policy, text, 2, false, 1);
            const auto reduced = search(policy, text, 2, true, 1);
            INFO(policy << " " << text);
            REQUIRE(brute.complete);
            REQUIRE(reduced.complete);
            CHECK_FALSE(brute.failure);
            std::cout
                << fmt::format(
                       "soundness {} {}: brute force {} executions, reduced {} (+{} pruned), {} "
                       "final states each",
                       policy, text, brute.executions, reduced.executions, reduced.pruned,
                       brute.final_states.size())
                << std::endl;
            CHECK(reduced.final_states == brute.final_states);
            if (reduced.final_states != brute.final_states)
                for (const auto& s : brute.final_states)
                    if (!reduced.final_states.count(s))
                        std::cout << "  missed by the reduction: " << s << std::endl;
            CHECK(reduced.executions < brute.executions);
        }
}

// The same under x86-TSO (docs/testing.md, "Weak memory"), whose
// store-buffer drains are choices of their own: a wake and a post, each
// with its waiter, under stock. Brute force without preemptions (20,770
// and 205,660 executions) against the reduced search with no bound: every
// final state the one reaches, the other does. (With the same finite bound
// on both, the reduction's guarantee is relative, dfs.h; a drain is no
// preemption, but a task that waits for its drains lets another run for
// free.) arm64's choices of value are compared with brute force on the
// litmus tests (tests/explore/litmus_test.cpp).
TEST_CASE("the reduction reaches every final state brute force reaches, under tso",
          "[exhaustive][soundness]")
{
    for (const std::string text : {"C.K0:1/W0", "C.V0:1/W0"}) {
        const auto brute = search("stock", text, 0, false, 0, memory_model::tso);
        const auto reduced =
            search("stock", text, unbounded_preemptions, true, 0, memory_model::tso);
        INFO(text);
        REQUIRE(brute.complete);
        REQUIRE(reduced.complete);
        CHECK_FALSE(brute.failure);
        CHECK_FALSE(reduced.failure);
        std::cout << fmt::format(
                         "soundness tso {}: brute force {} executions, {} final states; reduced, "
                         "unbounded, {} (+{} pruned), {} final states",
                         text, brute.executions, brute.final_states.size(), reduced.executions,
                         reduced.pruned, reduced.final_states.size())
                  << std::endl;
        for (const auto& state : brute.final_states) {
            INFO("missed by the reduction: " << state);
            CHECK(reduced.final_states.count(state) == 1);
        }
    }
}
