// What a workload's threads may do to their process, whatever runs them:
// the simulator (sim_process, virtual time), real threads running the model
// (real/threads_process) or real threads making real system calls
// (real/kernel_process). The same workload files drive all three.
//
// A virtual interface, not a template: a workload's per-operation cost is a
// system call (simulated or real), against which one indirect call is noise,
// and it keeps the workload files compiled once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace futexsim {

class workload_process {
public:
    virtual ~workload_process() = default;

    // A futex word in user memory, on its own cache line. Returns its address.
    virtual std::uint64_t alloc_futex_word(std::uint32_t initial = 0) = 0;
    // User-space accesses to a futex word (no system call).
    virtual std::uint32_t user_load(std::uint64_t uaddr) = 0;
    virtual void user_store(std::uint64_t uaddr, std::uint32_t v) = 0;
    virtual void user_add(std::uint64_t uaddr, std::uint32_t delta) = 0;  // lock xadd
    virtual bool user_cmpxchg(std::uint64_t uaddr, std::uint32_t old, std::uint32_t new_) = 0;
    virtual std::uint32_t user_xchg(std::uint64_t uaddr, std::uint32_t v) = 0;

    // System calls, on the calling thread. Return the kernel's value: >= 0,
    // or minus the errno.
    virtual int sys_futex_wake(std::uint64_t uaddr, int nr_wake) = 0;
    // FUTEX_WAIT_PRIVATE; timeout_ns < 0 waits for ever.
    virtual int sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1) = 0;
    virtual int sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                                  int op) = 0;
    virtual int sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                      int nr_requeue, std::uint32_t cmpval) = 0;
    virtual int sys_prctl_futex_hash(unsigned long op, unsigned long arg) = 0;

    // pthread_create() of a thread allowed on `cpus` that runs `body`.
    virtual void spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body) = 0;
    // The end of a worker thread (the kernel's CLONE_CHILD_CLEARTID wake).
    virtual void thread_exit() = 0;
    // pthread_join() of every thread created so far, in creation order.
    virtual void join_all() = 0;
    virtual void sys_nanosleep(std::int64_t ns) = 0;
    // User-mode work of about `ns` nanoseconds on the calling thread.
    virtual void user_work(std::int64_t ns) = 0;
    // Nanoseconds since the run started: virtual on the simulator, the
    // monotonic clock on the real backends.
    virtual std::int64_t now_ns() = 0;
    // A uniform draw in [0, 1): from the seed on the simulator, so runs stay
    // reproducible; from a per-thread generator on the real backends.
    virtual double random_uniform() = 0;
};

}  // namespace futexsim
