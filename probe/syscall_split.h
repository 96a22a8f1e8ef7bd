// The system-call split of `futexsim probe` and `futexsim calibrate`: one
// FUTEX_WAKE with nobody waiting against a minimal system call and an
// invalid futex op, measured in child processes so that the prctl that sets
// a private hash leaves the caller's own hash alone.
#pragma once

#include <string>

#include "probe/measure.h"

namespace futexsim::probe {

// One FUTEX_WAKE with nobody waiting, split into what any system call
// costs and what the futex path adds. Each row is ns per call, the median
// over rounds of batches of `calls` calls; the rows of one process are
// interleaved batch by batch, so that a change in load hits them alike.
struct syscall_split {
    summary getppid;       // syscall(SYS_getppid): a minimal system call
    summary invalid_op;    // futex() with an invalid op: entry, argument decoding, -ENOSYS, exit
    summary wake_private;  // FUTEX_WAKE_PRIVATE on a private hash of 16 slots (prctl SET_SLOTS)
    summary wake_global;   // FUTEX_WAKE_PRIVATE, no private hash: the global hash
    summary wake_shared;   // FUTEX_WAKE (shared key: page lookup, then the global hash)
    summary path_private;  // wake_private - invalid_op, paired per round
    summary path_global;   // wake_global - invalid_op, paired per round
    bool have_private_hash = false;  // prctl(PR_FUTEX_HASH) is there (Linux 6.17+)
    unsigned rounds = 0, calls = 0;
    std::string kernel;  // uname -r
};
// In two child processes (fork), so that the prctl leaves the caller's
// hash alone: one sets a private hash of 16 slots, the other has none
// (a fresh single-threaded process uses the global hash). Each pins itself
// to the CPU the caller runs on. Throws std::runtime_error if a child fails.
syscall_split measure_syscall_split(unsigned rounds = 301, unsigned calls = 100);

}  // namespace futexsim::probe
