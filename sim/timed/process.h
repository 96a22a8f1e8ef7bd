// One simulated process on one simulated machine: the engine, its caches
// and RCU, the model's mm, user memory for futex words, and the system
// calls a workload's threads make.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "model/core.h"
#include "run/model_process.h"
#include "run/pivot_stats.h"
#include "run/workloads/workload_process.h"
#include "sim/timed/cache.h"
#include "sim/timed/engine.h"
#include "sim/timed/rcu.h"
#include "sim/timed/sim_env.h"

namespace futexsim::sim {

class sim_process final : public workload_process {
public:
    sim_process(const machine& m, std::uint64_t seed, engine_config cfg = {});
    ~sim_process() override;
    sim_process(const sim_process&) = delete;
    sim_process& operator=(const sim_process&) = delete;

    engine& eng() { return eng_; }
    rcu_sim& rcu() { return rcu_; }
    cache_model& cache() { return cache_; }
    sim_env& env() { return env_; }
    model::mm_struct<sim_env>& mm() { return futex_.mm; }
    const pivot_stats& pivots() const { return stats_; }

    // A futex word in user memory, on its own cache line. Returns its address.
    std::uint64_t alloc_futex_word(std::uint32_t initial = 0) override;
    // User-space loads and stores of a futex word (no system call).
    std::uint32_t user_load(std::uint64_t uaddr) override;
    void user_store(std::uint64_t uaddr, std::uint32_t v) override;
    void user_add(std::uint64_t uaddr, std::uint32_t delta) override;  // lock xadd
    bool user_cmpxchg(std::uint64_t uaddr, std::uint32_t old, std::uint32_t new_) override;
    std::uint32_t user_xchg(std::uint64_t uaddr, std::uint32_t v) override;

    // --- system calls, run on the calling task ------------------------------
    // `name` labels the call for an observer (sim/timed/observer.h): FUTEX_WAKE, ...
    void sys_enter(const char* name);
    void sys_exit();
    int sys_futex_wake(std::uint64_t uaddr, int nr_wake) override;
    // FUTEX_WAIT_PRIVATE; timeout_ns < 0 waits for ever.
    int sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1) override;
    int sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                          int op) override;
    int sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                              int nr_requeue, std::uint32_t cmpval) override;
    // The same calls with the op's FUTEX_PRIVATE_FLAG as the caller passes it
    // (`opflags`: FUTEX_PRIVATE_FLAG or 0), as the kernel's selftests do; the
    // overrides above are FUTEX_PRIVATE_FLAG. Without it the key is shared
    // (FUT_OFF_MMSHARED) and the call uses the global hash.
    int sys_futex_wake(std::uint64_t uaddr, int nr_wake, int opflags);
    int sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns, int opflags);
    int sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                              int nr_requeue, std::uint32_t cmpval, int opflags);
    // The PI calls, private, as the futex_requeue_pi selftest makes them
    // (the system call itself, no user-space fast path): FUTEX_LOCK_PI (no
    // timeout), FUTEX_UNLOCK_PI, FUTEX_WAIT_REQUEUE_PI (a timeout at
    // virtual time abs_timeout, as the selftest's CLOCK_MONOTONIC abs_time;
    // none if empty) and
    // FUTEX_CMP_REQUEUE_PI (wakes one, requeues up to nr_requeue).
    int sys_futex_lock_pi(std::uint64_t uaddr);
    int sys_futex_unlock_pi(std::uint64_t uaddr);
    int sys_futex_wait_requeue_pi(std::uint64_t uaddr, std::uint32_t val, std::uint64_t uaddr2,
                                  std::optional<vtime> abs_timeout = std::nullopt);
    int sys_futex_cmp_requeue_pi(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_requeue,
                                 std::uint32_t cmpval);
    int sys_prctl_futex_hash(unsigned long op, unsigned long arg) override;
    // pthread_create(): clone() runs copy_process() in the parent, then the
    // child starts on one of `allowed`.
    task& sys_clone(std::string name, std::vector<unsigned> allowed, std::function<void()> body);
    // The end of a thread: the kernel clears its CLONE_CHILD_CLEARTID word
    // and wakes it (mm_release()), one more futex operation.
    void thread_exit() override;
    // pthread_join() of every thread created so far, in creation order:
    // glibc waits on each thread's tid word until the kernel clears it.
    void join_all() override;
    // nanosleep(): the task sleeps for `ns`.
    void sys_nanosleep(vtime ns) override;
    // Charge user-mode work to the calling task.
    void user_work(vtime ns) override;
    // workload_process: sys_clone() without the task; the engine's clock; the seed's generator.
    void spawn_thread(std::string name, std::vector<unsigned> cpus,
                      std::function<void()> body) override
    {
        sys_clone(std::move(name), std::move(cpus), std::move(body));
    }
    std::int64_t now_ns() override { return eng_.now(); }
    double random_uniform() override { return workload_rng_.uniform(); }

private:
    void on_trace(const model::trace_point& tp);
    // One mmap()/mprotect() of the process: mmap_write_lock() and
    // mmap_write_unlock() each increment mm->mm_lock_seq, which shares its
    // cache line with mm->futex_phash.
    void mmap_write_lock_unlock();
    vtime jittered(double ns);

    engine eng_;
    cache_model cache_;
    rcu_sim rcu_;
    sim_env env_;
    model_process<sim_env> futex_;         // after env_: freed before it
    std::vector<std::uint64_t> tid_word_;  // by task id; 0: none
    std::vector<std::uint32_t> children_;  // task ids, in creation order
    pivot_stats stats_;
    rng64 workload_rng_;  // the run's "workload" stream (sim/rng.h)
};

}  // namespace futexsim::sim
