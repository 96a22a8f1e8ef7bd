#include "real/kernel_process.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "model/futex.h"

#include "real/host_futex.h"

namespace futexsim::real {

namespace {

// futex(2) has no glibc wrapper. Returns the result, or minus errno.
long futex(std::uint64_t uaddr, int op, std::uint32_t val, const void* timeout_or_val2, std::uint64_t uaddr2,
           std::uint32_t val3)
{
    const long r = syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(uaddr), op | host_FUTEX_PRIVATE_FLAG, val,
                           timeout_or_val2, reinterpret_cast<std::uint32_t*>(uaddr2), val3);
    return r < 0 ? -errno : r;
}

// FUTEX_WAKE_OP and FUTEX_CMP_REQUEUE pass a count where the timeout goes.
const void* count_arg(int n)
{
    return reinterpret_cast<const void*>(static_cast<unsigned long>(n));
}

}  // namespace

bool kernel_has_futex_hash_prctl()
{
    return prctl(static_cast<int>(model::PR_FUTEX_HASH), model::PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0) >= 0;
}

int kernel_process::sys_futex_wake(std::uint64_t uaddr, int nr_wake)
{
    return static_cast<int>(futex(uaddr, host_FUTEX_WAKE, static_cast<std::uint32_t>(nr_wake), nullptr, 0, 0));
}

int kernel_process::sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns)
{
    timespec ts{timeout_ns / 1'000'000'000L, timeout_ns % 1'000'000'000L};  // relative, as FUTEX_WAIT takes it
    return static_cast<int>(futex(uaddr, host_FUTEX_WAIT, val, timeout_ns >= 0 ? &ts : nullptr, 0, 0));
}

int kernel_process::sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                                      int op)
{
    return static_cast<int>(futex(uaddr1, host_FUTEX_WAKE_OP, static_cast<std::uint32_t>(nr_wake),
                                  count_arg(nr_wake2), uaddr2, static_cast<std::uint32_t>(op)));
}

int kernel_process::sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                          int nr_requeue, std::uint32_t cmpval)
{
    return static_cast<int>(futex(uaddr1, host_FUTEX_CMP_REQUEUE, static_cast<std::uint32_t>(nr_wake),
                                  count_arg(nr_requeue), uaddr2, cmpval));
}

int kernel_process::sys_prctl_futex_hash(unsigned long op, unsigned long arg)
{
    const int r = prctl(static_cast<int>(model::PR_FUTEX_HASH), op, arg, 0, 0);
    return r < 0 ? -errno : r;
}

}  // namespace futexsim::real
