// Workloads that stop making progress for good, for the progress detectors'
// tests (sim/timed/progress_watch.h); test builds only: sim_tests, and
// futexsim-stuck, the command line with these registered
// (tests/cli/stuck_main.cpp), for tests/cli/detectors.sh.
//
// test-stuck-spinlock: thread "holder" enters the kernel, takes a
// spinlock and keeps it, running on with preemption off (a soft lockup on
// its CPU); the --threads - 1 others ("spinner", "spinner/2", ...) then
// spin on that lock (a spinning-lock warning each, and a soft lockup on
// each one's CPU too); main queues an RCU callback
// at 1 ms, whose grace period the holder's CPU never lets end (an RCU CPU
// stall). Nothing ever lets go: the run ends at --seconds, its drain
// ends after its bound, and the threads are unwound.
#pragma once

namespace futexsim::testing {

// Registers them once per process; later calls do nothing.
void register_stuck_workloads();

}  // namespace futexsim::testing
