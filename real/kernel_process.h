// The kernel backend: the workloads' futex operations are real system calls
// (FUTEX_*_PRIVATE) and prctl(PR_FUTEX_HASH) on the host kernel, so the
// host's own futex hash is what gets measured.
#pragma once

#include "real/real_process.h"

namespace futexsim::real {

// Whether this kernel has prctl(PR_FUTEX_HASH) (Linux 6.17+).
bool kernel_has_futex_hash_prctl();

class kernel_process final : public real_process {
public:
    int sys_futex_wake(std::uint64_t uaddr, int nr_wake) override;
    int sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1) override;
    int sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                          int op) override;
    int sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue,
                              std::uint32_t cmpval) override;
    // -EINVAL on a kernel before 6.17 (no PR_FUTEX_HASH).
    int sys_prctl_futex_hash(unsigned long op, unsigned long arg) override;
    // The kernel itself clears and wakes the thread's tid word when the
    // std::thread returns: nothing to add.
    void thread_exit() override {}
};

}  // namespace futexsim::real
