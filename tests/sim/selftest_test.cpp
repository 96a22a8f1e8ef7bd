// The kernel's futex selftests (sim/timed/selftests.h, `futexsim selftests`)
// under every pivot policy, on a machine where ten waiter threads trigger an
// auto-scale pivot. Every test name says "selftest", so that
// `ctest -R selftest` finds them all.
#include <catch2/catch.hpp>

#include "model/core.h"
#include "sim/timed/selftests.h"

using namespace futexsim;
using namespace futexsim::sim;
namespace model = futexsim::model;

namespace {
// The Xeon preset at `hz`, with the kernel's default force-quiescent-state
// delay for it.
machine xeon_at(unsigned hz)
{
    machine m = load_machine_preset("xeon-6975p-snc3");
    m.hz = hz;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(hz, m.num_cpus());
    return m;
}
}  // namespace

TEST_CASE("futex_requeue selftest (shared keys, as the real test) under each policy", "[selftest]")
{
    // Whether the draft fails depends on the pivot still being pending when
    // the main thread wakes from its 10 ms sleep, so on how long grace
    // periods are: at HZ=1000 the pivot the ten waiters trigger completes in
    // about 8 ms and every policy passes; at HZ=250 it does not, and the
    // draft fails as it did on the real machine.
    for (const unsigned hz : {1000u, 250u}) {
        const machine m = xeon_at(hz);
        for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
            int single_failed = 0, multiple_failed = 0;
            std::string returned;  // requeue_multiple's two counts, per seed
            for (std::uint64_t seed = 1; seed <= 8; seed++) {
                const selftest_options opt{policy, model::default_kernel_version, seed};
                const requeue_result single = run_futex_requeue(m, opt, 1);
                const requeue_result multiple = run_futex_requeue(m, opt, 10);
                single_failed += !single.passed();
                multiple_failed += !multiple.passed();
                returned +=
                    " " + std::to_string(multiple.requeued) + "/" + std::to_string(multiple.woken);
                INFO("HZ=" << hz << " " << policy << " seed " << seed
                           << ": requeue_multiple returned " << multiple.requeued << " then "
                           << multiple.woken);
                if (std::string(policy) != "wait-for-new") {
                    CHECK(single.passed());
                    CHECK(multiple.passed());
                } else {
                    CHECK(single.passed());
                    // The draft's failure as on the real machine: every
                    // waiter sleeps in the draft's gate, so the ungated
                    // requeue finds none (0 instead of 10, then 0 woken).
                    if (!multiple.passed()) {
                        CHECK(multiple.requeued == 0);
                        CHECK(multiple.woken == 0);
                    }
                }
            }
            if (std::string(policy) == "wait-for-new") {
                if (hz == 1000)
                    CHECK(multiple_failed == 0);
                else
                    CHECK(multiple_failed > 0);
            }
            WARN("HZ=" << hz << " " << policy << ": requeue_single failed " << single_failed
                       << "/8, requeue_multiple failed " << multiple_failed
                       << "/8; requeue_multiple returned (requeued/woken):" << returned);
        }
    }
}

TEST_CASE(
    "futex_wait_timeout and futex_wait_wouldblock selftests under each policy, a pivot pending",
    "[selftest]")
{
    const machine m = load_machine_preset("xeon-6975p-snc3");
    for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
        std::int64_t longest_timeout = 0, longest_wouldblock = 0;
        for (std::uint64_t seed = 1; seed <= 8; seed++) {
            const selftest_options opt{policy, model::default_kernel_version, seed};
            const wait_call_result t = run_futex_wait_timeout(m, opt, selftest_wait_pool);
            const wait_call_result w = run_futex_wait_wouldblock(m, opt, selftest_wait_pool);
            INFO(policy << " seed " << seed);
            // Both selftests pass under every policy, as on real machines: a
            // gate may delay the call, never change what it returns.
            CHECK(t.ret == -futexsim::model::ETIMEDOUT_);
            CHECK(t.elapsed_ns >= 100'000);
            CHECK(w.ret == -futexsim::model::EWOULDBLOCK_);
            longest_timeout = std::max(longest_timeout, t.elapsed_ns);
            longest_wouldblock = std::max(longest_wouldblock, w.elapsed_ns);
        }
        WARN(policy << ": longest 100 us timed wait took " << longest_timeout / 1000
                    << " us, longest mismatched wait " << longest_wouldblock / 1000 << " us");
    }
}

TEST_CASE("selftests on a 2-CPU host-like machine: every case passes under every policy",
          "[selftest]")
{
    // On 2 CPUs auto-scaling asks for 16 slots, which the process already
    // has: no pivot, so no gate has anything to do (a 2-CPU kernel ran every
    // real selftest and passed).
    machine m = load_machine_preset("xeon-6975p-snc3");
    m.cpus.resize(2);
    m.hz = 250;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(250, 2);
    for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
        const auto cases = run_selftests(m, {policy, model::default_kernel_version, 1}, 2);
        REQUIRE(cases.size() == 29);  // five, then futex_requeue_pi's 24 harness variants
        for (const auto& c : cases) {
            INFO(policy << " " << c.test << " " << c.name);
            CHECK(c.runs == 2);
            CHECK(c.passed == 2);
        }
    }
}

TEST_CASE("selftest scenarios key their calls as the real selftests do", "[selftest]")
{
    const auto cases = run_selftests(load_machine_preset("xeon-6975p-snc3"), {}, 1);
    REQUIRE(cases.size() == 29);  // five, then futex_requeue_pi's 24 harness variants
    CHECK(cases[0].keys == "shared");  // futex_requeue: opflags 0
    CHECK(cases[1].keys == "shared");
    CHECK(cases[2].keys == "shared");   // futex_wait_timeout: futex_wait(&f1, f1, &to, 0)
    CHECK(cases[3].keys == "private");  // futex_wait_wouldblock: FUTEX_PRIVATE_FLAG
    CHECK(cases[4].keys == "private");  // futex_requeue_pi: every call FUTEX_PRIVATE_FLAG
    for (std::size_t i = 5; i < cases.size(); i++) {
        CHECK(cases[i].test == "futex_requeue_pi");
        CHECK(cases[i].keys == "private");
    }
    CHECK(cases[5].name == "t_0");
    CHECK(cases[10].name == "t_0_owner");
    CHECK(cases[11].name == "t_5000");
    CHECK(cases[28].name == "t_2000000000_owner");
}

TEST_CASE("futex_requeue_pi with PI, its six untimed variants: stock and the fixed rwsem-gate "
          "pass, with a pivot "
          "pending",
          "[selftest]")
{
    // The Xeon preset at HZ=250: the eleven threads auto-scale the hash, and
    // the pivot is still pending while the waiters queue and the waker
    // requeues them onto f2's rt_mutex. Every waiter must come back owning
    // f2 (the chain of FUTEX_UNLOCK_PI hand-offs), every thread must end,
    // and the waker must count all ten requeued or woken.
    const machine m = xeon_at(250);
    for (const char* policy : {"stock", "rwsem-gate"}) {
        for (const requeue_pi_variant& v : requeue_pi_variants()) {
            if (v.timeout_ns)
                continue;  // the timed ones: the next case
            for (std::uint64_t seed : {1u, 2u}) {
                INFO(policy << " " << v.name() << " seed " << seed);
                const requeue_pi_result r =
                    run_futex_requeue_pi(m, {policy, model::default_kernel_version, seed}, v);
                CHECK(r.failure == "");
                CHECK(r.finished);
                CHECK(r.task_count == 10);
            }
        }
    }
}

TEST_CASE("futex_requeue_pi with PI, its 18 timed variants: a timeout is taken as the test takes "
          "it, and a 2 s one never fires",
          "[selftest]")
{
    // One absolute time for all ten waiters, main's clock plus the
    // variant's timeout. At 5 us and 500 us it has passed before the waker
    // (which waits for all ten, over 9 ms) requeues anyone: under stock
    // every waiter returns -ETIMEDOUT from the early-wake path, then takes
    // and releases f2 itself. Under rwsem-gate one waiter can be held up
    // after it has queued itself and before it sleeps (futex_wait_setup()'s
    // read section ends there, and may pivot); the waiter requeued with f2
    // before its futex_do_wait() arms the timer returns 0 owning f2, as in
    // the kernel. Every waiter either times out or gets f2. At 2 s every
    // waiter is requeued and handed f2 in turn, as untimed. A timer that
    // fires wakes its task (hrtimer_wakeup()); one cancelled on the way out
    // fires nothing.
    const machine m = xeon_at(250);
    for (const char* policy : {"stock", "rwsem-gate"}) {
        for (const requeue_pi_variant& v : requeue_pi_variants()) {
            if (!v.timeout_ns)
                continue;
            INFO(policy << " " << v.name());
            const requeue_pi_result r =
                run_futex_requeue_pi(m, {policy, model::default_kernel_version, 1}, v);
            CHECK(r.failure == "");
            CHECK(r.finished);
            CHECK(r.timed_out + r.acquired == 10);
            if (v.timeout_ns == 2'000'000'000) {
                CHECK(r.timed_out == 0);
                CHECK(r.task_count == 10);
            } else if (std::string(policy) == "stock") {
                CHECK(r.timed_out == 10);
                CHECK(r.task_count == 0);
            }
        }
    }
}

TEST_CASE("futex_requeue_pi with PI: the draft hangs the owner variants and the booted rwsem-gate "
          "the others, as in "
          "the guest",
          "[selftest]")
{
    // The Xeon at HZ=250, where the pivot outlasts the waker's start. The
    // draft: the blocker's FUTEX_WAIT misses the waker's word-less wake (the
    // owner handshake) and holds f2 for ever, so no waiter gets it. The
    // reconstruction as first booted: a requeue-PI waiter that became the
    // writer waits for a count its own reference holds up; everyone else
    // waits behind it.
    const machine m = xeon_at(250);
    const requeue_pi_result owner = run_futex_requeue_pi(
        m, {"wait-for-new", model::default_kernel_version, 1}, {false, false, true});
    CHECK_FALSE(owner.finished);
    CHECK(owner.failure == "");
    CHECK(owner.hung_in.find("blocker in FUTEX_WAIT,") != std::string::npos);
    CHECK(owner.hung_in.find("waiters 0-9 in FUTEX_WAIT_REQUEUE_PI") != std::string::npos);
    const requeue_pi_result v1 = run_futex_requeue_pi(
        m, {"rwsem-gate-v1", model::default_kernel_version, 1}, {true, false, false});
    CHECK_FALSE(v1.finished);
    CHECK(v1.hung_in.find("waiters 0-9 in FUTEX_WAIT_REQUEUE_PI") != std::string::npos);
}

TEST_CASE("futex_requeue_pi with PI: the same seed gives the same result", "[selftest]")
{
    const machine m = xeon_at(250);
    const requeue_pi_variant v{true, true, true};  // not a harness variant: every part at once
    const requeue_pi_result a =
        run_futex_requeue_pi(m, {"rwsem-gate", model::default_kernel_version, 3}, v);
    const requeue_pi_result b =
        run_futex_requeue_pi(m, {"rwsem-gate", model::default_kernel_version, 3}, v);
    CHECK(a.finished == b.finished);
    CHECK(a.failure == b.failure);
    CHECK(a.task_count == b.task_count);
}

TEST_CASE("futex_requeue_pi's owner handshake: the draft's gate lets the waker's wake pass the "
          "blocker's wait",
          "[selftest]")
{
    // The Xeon preset at HZ=250, where the pivot outlasts the waker's ~11 ms:
    // the blocker (started late, its CPU leaving C6) and the waker both sleep
    // in the draft's gate; wake_up_var() wakes the last to wait first (the
    // kernel's __add_wait_queue() adds at the head), so the word-less wake
    // finds nobody queued and the blocker waits out its timeout. Stock and
    // rwsem-gate keep the order; so does the draft where the pivot is over
    // before the wake (HZ=1000).
    machine m = load_machine_preset("xeon-6975p-snc3");
    m.hz = 250;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(250, m.num_cpus());
    for (std::uint64_t seed : {1u, 2u}) {
        INFO("seed " << seed);
        const handshake_result wfn = run_futex_requeue_pi_handshake(
            m, {"wait-for-new", model::default_kernel_version, seed});
        CHECK(wfn.blocker == -model::ETIMEDOUT_);
        CHECK(wfn.woken == 0);
        for (const char* policy : {"stock", "rwsem-gate"}) {
            const handshake_result r =
                run_futex_requeue_pi_handshake(m, {policy, model::default_kernel_version, seed});
            CHECK(r.blocker == 0);
            CHECK(r.woken == 1);
        }
    }
    const handshake_result at_1000 = run_futex_requeue_pi_handshake(
        load_machine_preset("xeon-6975p-snc3"), {"wait-for-new", model::default_kernel_version, 1});
    CHECK(at_1000.passed());
}
