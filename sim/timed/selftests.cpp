#include "run/run_checks.h"
#include "sim/timed/selftests.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "model/core.h"
#include "sim/timed/process.h"

namespace futexsim::sim {

namespace {
constexpr long waiter_timeout_ns = 30'000'000;  // futex_requeue's timeout_ns: 30 ms
constexpr vtime wake_wait_ns = 10'000'000;      // WAKE_WAIT_US: 10 ms
constexpr long single_call_timeout_ns =
    100'000;                           // futex_wait_timeout's and _wouldblock's timeout_ns: 100 us
constexpr int handshake_waiters = 10;  // futex_requeue_pi's THREAD_MAX
constexpr vtime handshake_poll_ns = 1'000'000;      // the waker's usleep(1000)
constexpr long blocker_timeout_ns = 1'000'000'000;  // ours: the real blocker waits for ever
constexpr int shared = 0;                           // an op without FUTEX_PRIVATE_FLAG
constexpr int private_ = model::FUTEX_PRIVATE_FLAG;

void set_up(sim_process& proc, const selftest_options& opt)
{
    model::futex_set_pivot_policy(&proc.mm(), require_pivot_policy(opt.policy));
    proc.mm().futex_kernel = opt.kernel;
}

std::vector<unsigned> all_cpus(const machine& m)
{
    std::vector<unsigned> cpus(m.num_cpus());
    std::iota(cpus.begin(), cpus.end(), 0u);
    return cpus;
}

// One scenario's fresh process (the harness forks one per TEST()), with
// the policy and kernel under test, its engine, and every CPU to run on.
struct selftest_process {
    sim_process proc;
    engine& eng;
    std::vector<unsigned> cpus;
    selftest_process(const machine& m, const selftest_options& opt)
        : proc(m, opt.seed), eng(proc.eng()), cpus(all_cpus(m))
    {
        set_up(proc, opt);
    }
};

// The main thread grows the process to `pool` parked workers, makes one
// FUTEX_WAIT (with `opflags`) on a word holding 0, expecting `expected`,
// and finally wakes and joins the workers.
wait_call_result run_single_wait(const machine& m, const selftest_options& opt, unsigned pool,
                                 std::uint32_t expected, int opflags)
{
    selftest_process sp(m, opt);
    auto& [proc, eng, cpus] = sp;
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t idle = proc.alloc_futex_word(0);

    wait_call_result r;
    eng.spawn(
        "main", cpus,
        [&] {
            for (unsigned i = 0; i < pool; i++)
                proc.sys_clone("worker", cpus, [&] {
                    proc.sys_futex_wait(idle, 0);
                    proc.thread_exit();
                });
            const vtime start = eng.now();
            r.ret = proc.sys_futex_wait(f1, expected, single_call_timeout_ns, opflags);
            r.elapsed_ns = eng.now() - start;
            proc.user_store(idle, 1);
            proc.sys_futex_wake(idle, INT_MAX);
            proc.join_all();
        },
        0);
    eng.run_until(2'000'000'000);
    return r;
}

std::string errno_name(int ret)
{
    if (ret == -model::ETIMEDOUT_)
        return "-ETIMEDOUT";
    if (ret == -model::EWOULDBLOCK_)
        return "-EWOULDBLOCK";
    return std::to_string(ret);
}
}  // namespace

requeue_result run_futex_requeue(const machine& m, const selftest_options& opt, unsigned waiters)
{
    selftest_process sp(m, opt);
    auto& [proc, eng, cpus] = sp;

    requeue_result r;
    r.expected_requeued = static_cast<int>(waiters);
    r.expected_woken = waiters == 1 ? 1 : static_cast<int>(waiters) - 3;
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t f2 = proc.alloc_futex_word(0);

    eng.spawn(
        "main", cpus,
        [&] {
            for (unsigned i = 0; i < waiters; i++)
                proc.sys_clone("waiter", cpus, [&] {
                    proc.sys_futex_wait(f1, 0, waiter_timeout_ns,
                                        shared);  // futex_wait(f1, *f1, &to, 0)
                    proc.thread_exit();
                });
            proc.sys_nanosleep(wake_wait_ns);  // usleep(WAKE_WAIT_US)
            if (waiters == 1) {
                r.requeued = proc.sys_futex_cmp_requeue(f1, f2, 0, 1, 0, shared);
                r.woken = proc.sys_futex_wake(f2, 1, shared);
            } else {
                r.requeued = proc.sys_futex_cmp_requeue(f1, f2, 3, 7, 0, shared);
                r.woken = proc.sys_futex_wake(f2, INT_MAX, shared);
            }
            proc.join_all();
        },
        0);
    eng.run_until(2'000'000'000);
    return r;
}

handshake_result run_futex_requeue_pi_handshake(const machine& m, const selftest_options& opt)
{
    selftest_process sp(m, opt);
    auto& [proc, eng, cpus] = sp;
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t wake_complete = proc.alloc_futex_word(0);
    int waiters_blocked = 0;  // the test's atomic counter; one OS thread runs every fiber

    handshake_result r;
    eng.spawn(
        "main", cpus,
        [&] {
            proc.sys_clone("blocker", cpus, [&] {
                // futex_wait(&wake_complete, wake_complete, NULL, FUTEX_PRIVATE_FLAG)
                r.blocker = proc.sys_futex_wait(wake_complete, 0, blocker_timeout_ns, private_);
                proc.thread_exit();
            });
            for (int i = 0; i < handshake_waiters; i++)
                proc.sys_clone("waiter", cpus, [&, i] {
                    proc.sys_nanosleep(handshake_poll_ns * i);  // usleep(1000 * id)
                    waiters_blocked++;
                    proc.sys_futex_wait(f1, 0, -1,
                                        private_);  // where futex_wait_requeue_pi(&f1, ...) is
                    proc.thread_exit();
                });
            proc.sys_clone("waker", cpus, [&] {
                while (waiters_blocked < handshake_waiters)
                    proc.sys_nanosleep(handshake_poll_ns);
                proc.sys_nanosleep(handshake_poll_ns);
                r.woken = proc.sys_futex_wake(wake_complete, 1,
                                              private_);  // futex_wake(&wake_complete, 1, ...)
                proc.thread_exit();
            });
            // The waiters' own wake-up (the requeue and the PI unlocks in the
            // real test), after the waker is done: release and join everyone.
            while (waiters_blocked < handshake_waiters)
                proc.sys_nanosleep(handshake_poll_ns);
            proc.sys_nanosleep(4 * handshake_poll_ns);
            proc.user_store(f1, 1);
            proc.sys_futex_wake(f1, INT_MAX, private_);
            proc.join_all();
        },
        0);
    eng.run_until(3'000'000'000);
    return r;
}

std::string requeue_pi_variant::name() const
{
    return "t_" + std::to_string(timeout_ns) + (broadcast ? "_broadcast" : "") +
           (locked ? "_locked" : "") + (owner ? "_owner" : "");
}

std::vector<requeue_pi_variant> requeue_pi_variants()
{
    // FIXTURE_VARIANT_ADD_TIMEOUT(t)'s order: plain, broadcast,
    // broadcast_locked, broadcast_owner, locked, owner; for t = 0 (no
    // timeout), 5000, 500000 and 2000000000 ns.
    std::vector<requeue_pi_variant> out;
    for (const long t : {0L, 5'000L, 500'000L, 2'000'000'000L})
        for (const requeue_pi_variant v : {requeue_pi_variant{false, false, false, t},
                                           requeue_pi_variant{true, false, false, t},
                                           requeue_pi_variant{true, true, false, t},
                                           requeue_pi_variant{true, false, true, t},
                                           requeue_pi_variant{false, true, false, t},
                                           requeue_pi_variant{false, false, true, t}})
            out.push_back(v);
    return out;
}

requeue_pi_result run_futex_requeue_pi(const machine& m, const selftest_options& opt,
                                       requeue_pi_variant v)
{
    constexpr int max_wake_iters = 1000;         // MAX_WAKE_ITERS
    constexpr vtime signal_period_ns = 100'000;  // SIGNAL_PERIOD_US
    selftest_process sp(m, opt);
    auto& [proc, eng, cpus] = sp;
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t f2 = proc.alloc_futex_word(0);
    const std::uint64_t wake_complete = proc.alloc_futex_word(0);
    // The test's atomic_t counters: locked adds and plain reads of user words.
    const std::uint64_t waiters_blocked = proc.alloc_futex_word(0);
    const std::uint64_t waiters_woken = proc.alloc_futex_word(0);

    requeue_pi_result r;
    auto fail = [&r](std::string what) {  // ksft_exit_fail_msg(): the first failure ends the test
        if (r.failure.empty())
            r.failure = std::move(what);
    };
    auto blocked = [&] { return static_cast<int>(proc.user_load(waiters_blocked)); };
    auto woken = [&] { return static_cast<int>(proc.user_load(waiters_woken)); };
    // Which call each thread is in (waiters 0-9, then the waker, the
    // blocker, main): what a hung run reports, as a task dump would.
    std::vector<const char*> in_call(handshake_waiters + 3, "");
    constexpr int waker_slot = handshake_waiters, blocker_slot = handshake_waiters + 1,
                  main_slot = handshake_waiters + 2;
    auto in = [&in_call](int slot, const char* call, auto&& fn) {
        in_call[static_cast<std::size_t>(slot)] = call;
        const int ret = fn();
        in_call[static_cast<std::size_t>(slot)] = "";
        return ret;
    };
    auto wait_for_waiters = [&] {
        while (blocked() < handshake_waiters)
            proc.sys_nanosleep(handshake_poll_ns);  // usleep(1000)
        proc.sys_nanosleep(handshake_poll_ns);
    };

    std::optional<vtime> abs_timeout;  // tsp: NULL without a timeout
    eng.spawn(
        "main", cpus,
        [&] {
            if (v.timeout_ns)  // clock_gettime(CLOCK_MONOTONIC) + timeout_ns, before any thread
                abs_timeout = eng.now() + v.timeout_ns;
            if (v.owner)
                proc.sys_clone("blocker", cpus, [&] {  // third_party_blocker()
                    int ret = in(blocker_slot, "FUTEX_LOCK_PI",
                                 [&] { return proc.sys_futex_lock_pi(f2); });
                    int ret2 = 0;
                    if (!ret) {
                        ret = in(blocker_slot, "FUTEX_WAIT", [&] {
                            return proc.sys_futex_wait(wake_complete, proc.user_load(wake_complete),
                                                       -1, private_);
                        });
                        ret2 = in(blocker_slot, "FUTEX_UNLOCK_PI",
                                  [&] { return proc.sys_futex_unlock_pi(f2); });
                    }
                    if (ret || ret2)
                        fail(fmt::format("third_party_blocker() futex error ({}, {})",
                                         errno_name(ret), errno_name(ret2)));
                    proc.thread_exit();
                });
            for (int i = 0; i < handshake_waiters; i++)
                proc.sys_clone("waiter", cpus, [&, i] {         // waiterfn()
                    proc.sys_nanosleep(handshake_poll_ns * i);  // usleep(1000 * id)
                    const std::uint32_t old_val = proc.user_load(f1);
                    proc.user_add(waiters_blocked, 1);
                    const int ret = in(i, "FUTEX_WAIT_REQUEUE_PI", [&] {
                        return proc.sys_futex_wait_requeue_pi(f1, old_val, f2, abs_timeout);
                    });
                    proc.user_add(waiters_woken, 1);
                    r.acquired += ret == 0;
                    if (ret < 0) {
                        if (abs_timeout && ret == -model::ETIMEDOUT_)  // a timeout is a pass
                            r.timed_out++;
                        else
                            fail(fmt::format("futex_wait_requeue_pi returned {}", errno_name(ret)));
                        in(i, "FUTEX_LOCK_PI", [&] { return proc.sys_futex_lock_pi(f2); });
                    }
                    in(i, "FUTEX_UNLOCK_PI", [&] { return proc.sys_futex_unlock_pi(f2); });
                    proc.thread_exit();
                });
            proc.sys_clone("waker", cpus, [&] {
                wait_for_waiters();
                int ret = 0;
                if (v.broadcast) {  // broadcast_wakerfn()
                    if (v.locked)
                        in(waker_slot, "FUTEX_LOCK_PI", [&] { return proc.sys_futex_lock_pi(f2); });
                    for (int i = 0;;) {
                        ret = in(waker_slot, "FUTEX_CMP_REQUEUE_PI", [&] {
                            return proc.sys_futex_cmp_requeue_pi(f1, f2, INT_MAX,
                                                                 proc.user_load(f1));
                        });
                        if (ret < 0) {
                            fail(fmt::format("FUTEX_CMP_REQUEUE_PI failed: {}", errno_name(ret)));
                            break;
                        }
                        if (++i >= max_wake_iters) {
                            fail(fmt::format("max broadcast iterations ({}) reached with {}/{} "
                                             "tasks woken or requeued",
                                             max_wake_iters, r.task_count, handshake_waiters));
                            break;
                        }
                        r.task_count += ret;
                        if (r.task_count >= handshake_waiters - woken())
                            break;
                    }
                    in(waker_slot, "FUTEX_WAKE",
                       [&] { return proc.sys_futex_wake(wake_complete, 1, private_); });
                    if (v.locked)
                        in(waker_slot, "FUTEX_UNLOCK_PI",
                           [&] { return proc.sys_futex_unlock_pi(f2); });
                } else {  // signal_wakerfn()
                    for (int i = 0;
                         r.task_count < handshake_waiters && woken() < handshake_waiters;) {
                        if (v.locked)
                            in(waker_slot, "FUTEX_LOCK_PI",
                               [&] { return proc.sys_futex_lock_pi(f2); });
                        ret = in(waker_slot, "FUTEX_CMP_REQUEUE_PI", [&] {
                            return proc.sys_futex_cmp_requeue_pi(f1, f2, 0, proc.user_load(f1));
                        });
                        if (v.locked)
                            in(waker_slot, "FUTEX_UNLOCK_PI",
                               [&] { return proc.sys_futex_unlock_pi(f2); });
                        if (ret < 0) {
                            fail(fmt::format("FUTEX_CMP_REQUEUE_PI failed: {}", errno_name(ret)));
                            break;
                        }
                        r.task_count += ret;
                        proc.sys_nanosleep(signal_period_ns);
                        if (++i > max_wake_iters + handshake_waiters) {
                            fail(fmt::format("max signaling iterations ({}) reached, giving up on "
                                             "pending waiters.",
                                             max_wake_iters + handshake_waiters));
                            break;
                        }
                    }
                    in(waker_slot, "FUTEX_WAKE",
                       [&] { return proc.sys_futex_wake(wake_complete, 1, private_); });
                }
                proc.thread_exit();
            });
            in(main_slot, "pthread_join", [&] {
                proc.join_all();  // the waiters, the blocker, the waker
                return 0;
            });
            r.finished = true;
        },
        0);
    eng.run_until(3'000'000'000);
    if (!r.finished) {
        // "waiters 0-9 in FUTEX_WAIT_REQUEUE_PI, main in pthread_join; the
        // waker counted 9": consecutive waiters in one call as a range.
        auto who = [&](std::size_t k) {
            return k == waker_slot     ? std::string("waker")
                   : k == blocker_slot ? std::string("blocker")
                                       : std::string("main");
        };
        for (std::size_t k = 0; k < in_call.size(); k++) {
            if (!*in_call[k])
                continue;
            std::string name = who(k);
            if (k < handshake_waiters) {
                std::size_t last = k;
                while (last + 1 < handshake_waiters && in_call[last + 1] == in_call[k])
                    last++;
                name =
                    last == k ? fmt::format("waiter {}", k) : fmt::format("waiters {}-{}", k, last);
                const char* call = in_call[k];
                k = last;
                r.hung_in += fmt::format("{}{} in {}", r.hung_in.empty() ? "" : ", ", name, call);
                continue;
            }
            r.hung_in += fmt::format("{}{} in {}", r.hung_in.empty() ? "" : ", ", name, in_call[k]);
        }
        r.hung_in += fmt::format("; the waker counted {}", r.task_count);
    }
    return r;
}

wait_call_result run_futex_wait_timeout(const machine& m, const selftest_options& opt,
                                        unsigned pool)
{
    return run_single_wait(m, opt, pool, 0, shared);  // futex_wait(&f1, f1, &to, 0)
}

wait_call_result run_futex_wait_wouldblock(const machine& m, const selftest_options& opt,
                                           unsigned pool)
{
    return run_single_wait(m, opt, pool, 1,
                           private_);  // futex_wait(&f1, f1+1, &to, FUTEX_PRIVATE_FLAG)
}

std::vector<selftest_case_summary> run_selftests(const machine& m, const selftest_options& opt,
                                                 unsigned runs, bool (*stop)())
{
    std::vector<selftest_case_summary> out = {
        {"futex_requeue", "requeue_single", "shared", 0, 0, {}, 0},
        {"futex_requeue", "requeue_multiple", "shared", 0, 0, {}, 0},
        {"futex_wait_timeout", "futex_wait relative, pivot pending", "shared", 0, 0, {}, 0},
        {"futex_wait_wouldblock", "futex_wait, pivot pending", "private", 0, 0, {}, 0},
        {"futex_requeue_pi", "owner handshake, no PI", "private", 0, 0, {}, 0},
    };
    const std::vector<requeue_pi_variant> pi_variants = requeue_pi_variants();
    for (const requeue_pi_variant& v : pi_variants)
        out.push_back({"futex_requeue_pi", v.name(), "private", 0, 0, {}, 0});
    for (unsigned i = 0; i < runs; i++) {
        if (stop && stop())
            break;
        selftest_options o = opt;
        o.seed = opt.seed + i;
        for (unsigned w : {1u, 10u}) {
            const requeue_result r = run_futex_requeue(m, o, w);
            selftest_case_summary& s = out[w == 1 ? 0 : 1];
            s.runs++;
            s.passed += r.passed();
            s.returned.push_back(fmt::format("{}/{}", r.requeued, r.woken));
        }
        const wait_call_result t = run_futex_wait_timeout(m, o, selftest_wait_pool);
        out[2].runs++;
        out[2].passed += t.ret == -model::ETIMEDOUT_ && t.elapsed_ns >= single_call_timeout_ns;
        out[2].returned.push_back(errno_name(t.ret));
        out[2].longest_ns = std::max(out[2].longest_ns, t.elapsed_ns);
        const wait_call_result w = run_futex_wait_wouldblock(m, o, selftest_wait_pool);
        out[3].runs++;
        out[3].passed += w.ret == -model::EWOULDBLOCK_;
        out[3].returned.push_back(errno_name(w.ret));
        out[3].longest_ns = std::max(out[3].longest_ns, w.elapsed_ns);
        const handshake_result h = run_futex_requeue_pi_handshake(m, o);
        out[4].runs++;
        out[4].passed += h.passed();
        out[4].returned.push_back(fmt::format("{}/{}", errno_name(h.blocker), h.woken));
        for (std::size_t k = 0; k < pi_variants.size(); k++) {
            const requeue_pi_result p = run_futex_requeue_pi(m, o, pi_variants[k]);
            selftest_case_summary& s = out[5 + k];
            s.runs++;
            s.passed += p.passed();
            const std::string count = p.timed_out ? fmt::format("{} ({} timed out)", p.task_count,
                                                                p.timed_out)
                                                  : std::to_string(p.task_count);
            s.returned.push_back(p.passed()           ? count
                                 : !p.failure.empty() ? p.failure
                                                      : "hung (" + p.hung_in + ")");
        }
    }
    return out;
}

}  // namespace futexsim::sim
