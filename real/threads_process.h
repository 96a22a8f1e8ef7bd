// The threads backend: the model's futex code (model/) runs on real threads
// through threads_env, each workload thread calling it as a system call
// would. What is measured is the model's own cost and behaviour with real
// atomics, real CPUs and a real RCU, not the host kernel's.
#pragma once

#include <cstdint>
#include <vector>

#include "model/core.h"
#include "real/real_process.h"
#include "real/threads_env.h"
#include "run/model_process.h"

namespace futexsim::real {

class threads_process final : public real_process {
public:
    explicit threads_process(unsigned max_threads);
    ~threads_process() override;

    threads_env& env() { return env_; }
    model::mm_struct<threads_env>& mm() { return futex_.mm; }
    int current_slots();  // hash_mask + 1 of the installed hash, 0 for the global one

    int sys_futex_wake(std::uint64_t uaddr, int nr_wake) override;
    int sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1) override;
    int sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                          int op) override;
    int sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue,
                              std::uint32_t cmpval) override;
    int sys_prctl_futex_hash(unsigned long op, unsigned long arg) override;
    // pthread_create(): copy_process()'s futex step on the calling thread,
    // then the real thread.
    void spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body) override;
    // The kernel's exit path: clear the thread's tid word and FUTEX_WAKE it
    // through the model (mm_release()), one more futex operation.
    void thread_exit() override;

private:
    threads_env env_;
    model_process<threads_env> futex_;  // after env_: freed before it
};

}  // namespace futexsim::real
