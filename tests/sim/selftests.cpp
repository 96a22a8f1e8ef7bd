#include "tests/sim/selftests.h"

#include <climits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "model/core.h"
#include "sim/process.h"

namespace futexsim::sim {

namespace {
constexpr long waiter_timeout_ns = 30'000'000;  // the selftest's 30 ms
constexpr vtime wake_wait_ns = 10'000'000;      // WAKE_WAIT_US: 10 ms
constexpr long single_call_timeout_ns = 100'000; // futex_wait_timeout's and _wouldblock's 100 us

int policy_id(const std::string& policy)
{
    const auto id = model::pivot_policy_id(policy);
    if (!id)
        throw std::invalid_argument("unknown policy '" + policy + "'");
    return *id;
}

// The main thread grows the process to `pool` parked workers (an auto-scale
// pivot is then pending), makes one FUTEX_WAIT on a word holding 0,
// expecting `expected`, and finally wakes and joins the workers.
wait_call_result run_single_wait(const machine& m, const std::string& policy, unsigned pool,
                                 std::uint32_t expected, std::uint64_t seed)
{
    sim_process proc(m, seed);
    model::futex_set_pivot_policy(&proc.mm(), policy_id(policy));
    engine& eng = proc.eng();
    std::vector<unsigned> cpus(m.num_cpus());
    std::iota(cpus.begin(), cpus.end(), 0u);
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t idle = proc.alloc_futex_word(0);

    wait_call_result r;
    eng.spawn("main", cpus, [&] {
        for (unsigned i = 0; i < pool; i++)
            proc.sys_clone("worker", cpus, [&] {
                proc.sys_futex_wait(idle, 0);
                proc.thread_exit();
            });
        const vtime start = eng.now();
        r.ret = proc.sys_futex_wait(f1, expected, single_call_timeout_ns);
        r.elapsed_ns = eng.now() - start;
        proc.user_store(idle, 1);
        proc.sys_futex_wake(idle, INT_MAX);
        proc.join_all();
    }, 0);
    eng.run_until(2'000'000'000);
    return r;
}
}  // namespace

selftest_result run_futex_requeue(const machine& m, const std::string& policy, unsigned waiters,
                                  std::uint64_t seed)
{
    sim_process proc(m, seed);
    model::futex_set_pivot_policy(&proc.mm(), policy_id(policy));
    engine& eng = proc.eng();
    std::vector<unsigned> cpus(m.num_cpus());
    std::iota(cpus.begin(), cpus.end(), 0u);

    selftest_result r;
    r.expected_requeued = static_cast<int>(waiters);
    r.expected_woken = waiters == 1 ? 1 : static_cast<int>(waiters) - 3;
    const std::uint64_t f1 = proc.alloc_futex_word(0);
    const std::uint64_t f2 = proc.alloc_futex_word(0);

    eng.spawn("main", cpus, [&] {
        for (unsigned i = 0; i < waiters; i++)
            proc.sys_clone("waiter", cpus, [&] {
                proc.sys_futex_wait(f1, 0, waiter_timeout_ns);
                proc.thread_exit();
            });
        proc.sys_nanosleep(wake_wait_ns);
        if (waiters == 1) {
            r.requeued = proc.sys_futex_cmp_requeue(f1, f2, 0, 1, 0);
            r.woken = proc.sys_futex_wake(f2, 1);
        } else {
            r.requeued = proc.sys_futex_cmp_requeue(f1, f2, 3, 7, 0);
            r.woken = proc.sys_futex_wake(f2, INT_MAX);
        }
        proc.join_all();
    }, 0);
    eng.run_until(2'000'000'000);
    return r;
}

wait_call_result run_futex_wait_timeout(const machine& m, const std::string& policy, unsigned pool,
                                        std::uint64_t seed)
{
    return run_single_wait(m, policy, pool, 0, seed);
}

wait_call_result run_futex_wait_wouldblock(const machine& m, const std::string& policy, unsigned pool,
                                           std::uint64_t seed)
{
    return run_single_wait(m, policy, pool, 1, seed);
}

}  // namespace futexsim::sim
