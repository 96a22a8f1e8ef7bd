// PI futexes on the explorer (model/pi.h, model/rtmutex.h, the requeue-PI
// parts of model/requeue.h): what a PI lock, unlock and requeue-PI leave
// behind, run by run, and the two requeue-PI hangs of rwsem-gate as booted
// (docs/findings.md) beside the fixed policy. Runs use --kernel v7.2.1,
// the pivot code 7.2.13 has.
#include <catch2/catch.hpp>

#include <string>

#include "sim/explore/explore_case.h"
#include "sim/explore/explore_run.h"

using namespace futexsim;
using namespace futexsim::sim::explore;

namespace {

run_config pi_config(const std::string& policy, std::uint64_t seed, sim::strategy_kind kind)
{
    run_config cfg;
    cfg.policy = policy;
    cfg.kernel = model::kernel_version::v7_2_1;
    cfg.cpus = 4;
    cfg.strategy.kind = kind;
    cfg.strategy.seed = seed;
    return cfg;
}

run_outcome run(const std::string& policy, const std::string& text, std::uint64_t seed = 1,
                sim::strategy_kind kind = sim::strategy_kind::random)
{
    const auto c = parse_case(text);
    REQUIRE(c.has_value());
    run_hooks hooks;
    hooks.final_state = true;
    return explore_case(pi_config(policy, seed, kind), *c, {}, &hooks);
}

// The first execution of a depth-first search: always the first candidate.
run_outcome first_schedule(const std::string& policy, const std::string& text)
{
    const auto c = parse_case(text);
    REQUIRE(c.has_value());
    run_config cfg = pi_config(policy, 1, sim::strategy_kind::fifo);
    cfg.timing_choices = true;  // as --strategy dfs runs it
    cfg.max_gp_ends = 2;
    return explore_case(cfg, *c);
}

}  // namespace

TEST_CASE("a contended PI lock is handed over: each lock returns 0 and the word ends 0", "[explore][pi]")
{
    for (std::uint64_t seed = 1; seed <= 20; seed++) {
        const auto out = run("stock", "C.C/L0.U0/L0.U0", seed);
        INFO("seed " << seed << ": " << out.final_state);
        REQUIRE_FALSE(out.violation);
        CHECK(out.final_state.find("T1[0,0:exited]") != std::string::npos);
        CHECK(out.final_state.find("T2[0,0:exited]") != std::string::npos);
        CHECK(out.final_state.find("word0=0 ") != std::string::npos);
    }
}

TEST_CASE("FUTEX_UNLOCK_PI by a task that does not own the word is -EPERM", "[explore][pi]")
{
    const auto out = run("stock", "C/U0");
    REQUIRE_FALSE(out.violation);
    CHECK(out.final_state.find("T1[-1:exited]") != std::string::npos);
}

TEST_CASE("requeue-PI: the waiter returns 0 owning the PI word, whoever held it", "[explore][pi]")
{
    for (const char* text : {"C.C/Q0:1.U1/X0:1:1", "C.C/Q0:1.U1/L1.X0:1:1.U1"}) {
        for (std::uint64_t seed = 1; seed <= 20; seed++) {
            const auto out = run("stock", text, seed);
            INFO(text << " seed " << seed << ": " << out.final_state);
            REQUIRE_FALSE(out.violation);
            // Either requeued and returned 0 holding word 1, or woken early
            // (the requeue came before it was queued: -EAGAIN from the wait,
            // then its unlock is -EPERM).
            const bool took = out.final_state.find("T1[0,0:exited]") != std::string::npos;
            const bool early = out.final_state.find("T1[-11,-1:exited]") != std::string::npos;
            CHECK((took || early));
            CHECK(out.final_state.find("word1=0 ") != std::string::npos);
        }
    }
}

TEST_CASE("rwsem-gate as booted: a requeue-PI waiter that pivots deadlocks on its own reference", "[explore][pi]")
{
    const auto v1 = first_schedule("rwsem-gate-v1", "C.C.P32/Q0:1/X0:1:1");
    REQUIRE(v1.violation);
    CHECK(v1.violation->find("deadlock") != std::string::npos);
    const auto fixed = first_schedule("rwsem-gate", "C.C.P32/Q0:1/X0:1:1");
    INFO(fixed.final_state);
    CHECK_FALSE(fixed.violation);
    CHECK(fixed.pivots_installed == 2);
}

TEST_CASE("rwsem-gate as booted: the PI lock handed to a waiter that pivots is lost", "[explore][pi]")
{
    const auto v1 = first_schedule("rwsem-gate-v1", "C.C.P32/Q0:1/L1.X0:1:1.U1");
    REQUIRE(v1.violation);
    CHECK(v1.violation->find("lost PI hand-off: T1") != std::string::npos);
    const auto fixed = first_schedule("rwsem-gate", "C.C.P32/Q0:1/L1.X0:1:1.U1");
    INFO(fixed.final_state);
    CHECK_FALSE(fixed.violation);
}

TEST_CASE("requeue-PI with a timeout: the waiter gives up, early or on the rt_mutex, and the lock stays "
          "its owner's",
          "[explore][pi]")
{
    // T2 holds word 1, requeues T1 onto its rt_mutex and keeps word 1 for
    // 200 steps; T1's timeout is 40 steps after its call. T1 comes back with
    // -ETIMEDOUT (from the early path if the timer fired before the requeue,
    // else from rt_mutex_wait_proxy_lock(), its waiter then removed by
    // rt_mutex_cleanup_proxy_lock()) or -EAGAIN (the requeue came first);
    // never 0, and its unlock is then -EPERM. T2's unlock finds no waiter
    // left and the word ends 0. Without the timeout T1 gets word 1 after
    // the 200 steps. (Seeds 2, 5 and 6 time out on the rt_mutex: `futexsim
    // replay` of them shows rt_mutex_cleanup_proxy_lock()'s steps.)
    int rt_mutex_timeouts = 0;
    for (std::uint64_t seed = 1; seed <= 40; seed++) {
        const auto out = run("stock", "C.C/Q0:1:40.U1/L1.X0:1:1.S200.U1", seed);
        INFO("seed " << seed << ": " << out.final_state);
        REQUIRE_FALSE(out.violation);
        const bool timed_out = out.final_state.find("T1[-110,-1:exited]") != std::string::npos;
        const bool early = out.final_state.find("T1[-11,-1:exited]") != std::string::npos;
        CHECK((timed_out || early));
        CHECK(out.final_state.find("word1=0 ") != std::string::npos);
        rt_mutex_timeouts += timed_out;
    }
    CHECK(rt_mutex_timeouts > 0);
    for (std::uint64_t seed = 1; seed <= 10; seed++) {
        const auto out = run("stock", "C.C/Q0:1.U1/L1.X0:1:1.S200.U1", seed);
        INFO("seed " << seed << ": " << out.final_state);
        REQUIRE_FALSE(out.violation);
        CHECK((out.final_state.find("T1[0,0:exited]") != std::string::npos ||
               out.final_state.find("T1[-11,-1:exited]") != std::string::npos));
    }
}

TEST_CASE("Q's timeout is written back as it was read, and left out when there is none", "[explore][pi]")
{
    CHECK(format_case(*parse_case("C/Q0:1:5")) == "C/Q0:1:5");
    CHECK(format_case(*parse_case("C/Q0:1")) == "C/Q0:1");
}
