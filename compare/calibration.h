// `futexsim calibrate`: the host kernel measured (kernel backend) next to the
// simulator's prediction on the `host` preset, row by row.
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"
#include "probe/measure.h"
#include "probe/syscall_split.h"

namespace futexsim::compare {

struct calibration_options {
    std::vector<unsigned> slot_threads{1, 2, 4, 8, 16};  // slots after N threads
    std::vector<unsigned> wake_threads{1, 2, 4, 8};      // wake-nowaiters throughput
    std::vector<unsigned> stall_threads{1, 2, 4};        // SET_SLOTS under N wakers
    unsigned samples = 21;
    double seconds = 0.3;  // per throughput run
    unsigned split_rounds = 301;  // the system-call split: rounds of
    unsigned split_calls = 100;   // this many calls per row
};

struct calibration_row {
    std::string what;  // e.g. "slots after 4 threads"
    std::string unit;
    double sim = 0, real = 0;
    std::string note;  // e.g. "sim: 3 of 21 completed"
};

struct calibration_report {
    std::vector<calibration_row> rows;
    // Mechanism parameters the measurements suggest for the host preset.
    double measured_wake_ns = 0;      // one FUTEX_WAKE with nobody waiting, one thread
    double simulated_wake_ns = 0;     // the same on the host preset
    double suggested_syscall_ns = 0;  // entry + exit that would make them agree
    unsigned hz = 0;                  // CONFIG_HZ the preset read
    // The system-call split (probe/syscall_split.h), measured first, and what it
    // gives the host machine: entry + exit and kernel_cpi.
    probe::syscall_split split;
    double ghz = 0;  // the core clock measured beside it
    double host_ghz = 0;  // the host preset's core_ghz, which the derivation runs at
    double split_syscall_ns = 0;  // entry + exit from the split
    double host_syscall_entry_ns = 0, host_syscall_exit_ns = 0, host_kernel_cpi = 0;  // the preset's
    struct cpi_derivation {
        double fixed_ns = 0;    // the model's one-thread FUTEX_WAKE with no syscall cost and kernel_cpi 0
        double ns_per_cpi = 0;  // what each cycle per instruction adds: the counted instructions / core_ghz
        double kernel_cpi = 0;  // the CPI at which the model's FUTEX_WAKE costs what was measured
    } split_cpi;
    bool have_prctl = false;
    // SIGINT came: `rows` are those measured before it (the row it cut
    // short is left out).
    bool interrupted = false;
};

// Rows that need PR_FUTEX_HASH are left out on a kernel without it (with a
// note). SIGINT ends it after the rows measured so far (`interrupted`).
calibration_report calibrate(const calibration_options& opt, const machine& host);

std::string calibration_table(const calibration_report& r);

// The kernel_cpi at which the simulator's one-thread FUTEX_WAKE with
// nobody waiting (wake-nowaiters) on machine `m` (at its core_ghz), with
// system-call entry + exit `syscall_ns`, costs `wake_ns`: two short
// simulations with the timing jitter off give that cost as fixed_ns +
// syscall_ns + ns_per_cpi x kernel_cpi, the instructions counted in the
// compiled 7.2.13 between the model's accesses (sim/timed/site_costs.h).
// Negative if the path measured is shorter than the model's fixed part.
calibration_report::cpi_derivation derive_kernel_cpi(const machine& m, double syscall_ns, double wake_ns);

// What a split gives a machine: entry + exit, the invalid-op call less
// the time the model's wake loop spends in user mode (wake_loop_user_ns),
// and the kernel_cpi at which the model's one-thread FUTEX_WAKE costs the
// measured one (derive_kernel_cpi(), on `m`). The futex path is the
// private hash's where the kernel has one, else the global hash's.
struct split_values {
    double entry_exit_ns = 0;
    calibration_report::cpi_derivation cpi;
};
split_values values_from_split(const machine& m, const probe::syscall_split& s);

}  // namespace futexsim::compare
