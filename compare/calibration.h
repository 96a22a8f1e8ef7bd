// `futexsim calibrate`: the host kernel measured (kernel backend) next to the
// simulator's prediction on the `host` preset, row by row.
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"

namespace futexsim::compare {

struct calibration_options {
    std::vector<unsigned> slot_threads{1, 2, 4, 8, 16};  // slots after N threads
    std::vector<unsigned> wake_threads{1, 2, 4, 8};      // wake-nowaiters throughput
    std::vector<unsigned> stall_threads{1, 2, 4};        // SET_SLOTS under N wakers
    unsigned samples = 21;
    double seconds = 0.3;  // per throughput run
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
    bool have_prctl = false;
    // SIGINT came: `rows` are those measured before it (the row it cut
    // short is left out).
    bool interrupted = false;
};

// Rows that need PR_FUTEX_HASH are left out on a kernel without it (with a
// note). SIGINT ends it after the rows measured so far (`interrupted`).
calibration_report calibrate(const calibration_options& opt, const machine& host);

std::string calibration_table(const calibration_report& r);

}  // namespace futexsim::compare
