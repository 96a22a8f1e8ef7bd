// The system-call split (probe/syscall_split.h): the rows each child
// process measures, batch by batch, and their medians and paired
// differences.
#include "probe/syscall_split.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <vector>

#include "real/host_futex.h"

namespace futexsim::probe {

namespace {

// PR_FUTEX_HASH (Linux 6.17), without needing the headers that have it.
constexpr int pr_futex_hash = 78;
constexpr unsigned long pr_futex_hash_set_slots = 1;
constexpr unsigned long pr_futex_hash_get_slots = 2;

// The rows one child measures, interleaved batch by batch: ns per call.
enum row : unsigned { r_getppid, r_invalid, r_wake_private, r_wake_shared, num_rows };

alignas(64) int probe_word = 0;

long call(unsigned r)
{
    using namespace real;
    switch (r) {
    case r_getppid:
        return syscall(SYS_getppid);
    case r_invalid:  // op 127 is no futex op: do_futex() returns -ENOSYS
        return syscall(SYS_futex, &probe_word, 127 | host_FUTEX_PRIVATE_FLAG, 1, nullptr, nullptr,
                       0);
    case r_wake_private:
        return syscall(SYS_futex, &probe_word, host_FUTEX_WAKE | host_FUTEX_PRIVATE_FLAG, 1,
                       nullptr, nullptr, 0);
    default:
        return syscall(SYS_futex, &probe_word, host_FUTEX_WAKE, 1, nullptr, nullptr, 0);
    }
}

// Forks; the child sets its hash (slots > 0: a private hash of that many
// slots; 0: none, the global hash), pins itself to `cpu` and fills `out`
// (rounds x num_rows, shared memory). Returns whether the child's hash was
// what was asked.
bool measure_in_child(unsigned slots, unsigned cpu, unsigned rounds, unsigned calls, double* out,
                      std::atomic<int>* status)
{
    status->store(-2);
    const pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
    if (pid == 0) {
        // Only system calls and the clock from here: the parent may have had
        // other threads (their locks are not ours to take).
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
        if (slots > 0)
            prctl(pr_futex_hash, pr_futex_hash_set_slots, slots, 0, 0);
        const int got = prctl(pr_futex_hash, pr_futex_hash_get_slots, 0, 0, 0);
        status->store(got < 0 ? -1 : got);
        for (unsigned k = 0; k < rounds; k++)
            for (unsigned r = 0; r < num_rows; r++) {
                timespec t0, t1;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                for (unsigned i = 0; i < calls; i++)
                    call(r);
                clock_gettime(CLOCK_MONOTONIC, &t1);
                out[std::size_t{k} * num_rows + r] =
                    (static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e9 +
                     static_cast<double>(t1.tv_nsec - t0.tv_nsec)) /
                    calls;
            }
        _exit(0);
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        throw std::runtime_error("the system-call measurement's child process failed");
    const int got = status->load();
    return slots > 0 ? got == static_cast<int>(slots) : got <= 0;
}

}  // namespace

syscall_split measure_syscall_split(unsigned rounds, unsigned calls)
{
    if (rounds == 0 || calls == 0)
        throw std::invalid_argument("the system-call split needs at least one round of one call");
    syscall_split s;
    s.rounds = rounds;
    s.calls = calls;
    utsname u{};
    if (uname(&u) == 0)
        s.kernel = u.release;
    const int cpu = sched_getcpu();
    // Shared with the children: the status word (the slots the child saw),
    // then rounds x rows of ns per call.
    const std::size_t bytes = 64 + std::size_t{rounds} * num_rows * sizeof(double);
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
    auto* status = new (mem) std::atomic<int>(0);
    auto* out = reinterpret_cast<double*>(static_cast<char*>(mem) + 64);
    auto column = [&](unsigned r) {
        std::vector<double> v;
        for (unsigned k = 0; k < rounds; k++)
            v.push_back(out[std::size_t{k} * num_rows + r]);
        return v;
    };
    auto difference = [&](unsigned r) {
        std::vector<double> v;
        for (unsigned k = 0; k < rounds; k++)
            v.push_back(out[std::size_t{k} * num_rows + r] -
                        out[std::size_t{k} * num_rows + r_invalid]);
        return v;
    };
    try {
        const unsigned here = cpu < 0 ? 0 : static_cast<unsigned>(cpu);
        // The global hash first: a process with no private hash.
        measure_in_child(0, here, rounds, calls, out, status);
        s.getppid = summarize(column(r_getppid));
        s.invalid_op = summarize(column(r_invalid));
        s.wake_global = summarize(column(r_wake_private));
        s.wake_shared = summarize(column(r_wake_shared));
        s.path_global = summarize(difference(r_wake_private));
        // Then a private hash of 16 slots, where the kernel has one.
        s.have_private_hash = measure_in_child(16, here, rounds, calls, out, status);
        if (s.have_private_hash) {
            s.wake_private = summarize(column(r_wake_private));
            s.path_private = summarize(difference(r_wake_private));
            // The reference rows as this child measured them, next to its wake row.
            s.getppid = summarize(column(r_getppid));
            s.invalid_op = summarize(column(r_invalid));
        }
    } catch (...) {
        munmap(mem, bytes);
        throw;
    }
    munmap(mem, bytes);
    return s;
}

}  // namespace futexsim::probe
