// The compiled Linux 7.2.13's instructions between the model's accesses to
// shared words, call site by call site (experiments/kernel/sites-7.2.13.json,
// made by experiments/kernel/count_sites from Debian's vmlinux; compiled in,
// as the presets are). The simulator charges each segment its counted
// instructions at the machine's cycles per instruction and clock, and a
// preset's system-call entry and exit are the counted paths of its CPU.
// docs/kernel-sites.md says how the table is made, docs/simulator.md how it
// is charged.
#pragma once

#include <string>
#include <vector>

namespace futexsim {

enum class atomic_arch;

// One segment: the instructions after the access `from` up to and
// including the access `to` ("entry": the function the path starts in,
// e.g. futex_wake(); "exit": its return). A site is "function:op(field)",
// the kernel function the compiler put the access in.
struct kernel_site_segment {
    std::string path;  // paths.json's path, e.g. wake-nowaiters-atomic
    std::string from, to;
    unsigned instructions = 0;
    unsigned locked = 0;  // locked instructions and full fences, the access's own included
    unsigned calls = 0, returns = 0;
};

struct kernel_sites_build {
    std::string name;     // amd64, arm64
    std::string package;  // the Debian package and version it was counted from
    std::vector<kernel_site_segment> segments;
    // The instructions of a segment the table does not count (a path not
    // walked yet): the mean over the FUTEX_WAKE and FUTEX_WAIT paths'
    // counted segments (kernel_path_in_mean()), a path walked for several
    // CPUs once (its first CPU's).
    double uncounted_segment_instructions = 0;
    // The system call's entry (up to do_futex()'s call) and exit (from its
    // return to user mode), boot-patched for `cpu`; throws
    // std::invalid_argument naming the CPUs there are when it has none.
    unsigned syscall_entry_instructions(const std::string& cpu) const;
    unsigned syscall_exit_instructions(const std::string& cpu) const;
    std::vector<std::string> cpus() const;  // those with a counted entry and exit
};

// The system call a table path runs, from its name: "FUTEX_WAKE" for
// wake-*, "FUTEX_WAIT" for wait-*, "FUTEX_WAKE_OP" for wake-op-*,
// "FUTEX_CMP_REQUEUE" for requeue-* (a path walked per CPU, NAME/CPU, as
// NAME); "" for the system-call entry and exit (syscall-*), the bucket
// lock's slow path (lock-*: the segments after a failed fast-path cmpxchg,
// whichever call took the lock) and a loop's turn (loop-*). Throws
// std::invalid_argument for any other name.
std::string kernel_path_syscall(const std::string& path);
// Whether a path's segments make the mean an uncounted segment costs: the
// FUTEX_WAKE and FUTEX_WAIT paths only, the ones walked when that mean was
// first charged. A later walk (FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP) gives its
// own operation its counts and leaves every other operation's costs as they
// were, so the recorded runs stay reproducible byte for byte.
bool kernel_path_in_mean(const std::string& path);
// A path's name without the CPU it was walked for ("wait-queued-percpu/xeon-6975p"
// gives "wait-queued-percpu"); a path walked once is its own name.
std::string kernel_path_base(const std::string& path);

// The build an architecture's machines run: amd64 for x86, arm64 for arm64-lse.
const kernel_sites_build& kernel_sites_for(atomic_arch arch);
// Both builds, amd64 first.
const std::vector<kernel_sites_build>& kernel_sites_builds();

}  // namespace futexsim
