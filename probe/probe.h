// `futexsim probe`: this machine measured into a machine file. The topology
// from sysfs, one-way transfer latencies per pair class by ping-pong, the
// locked RMW, the core clock (probe/measure.h) and the system-call split
// (probe/syscall_split.h), and the rules that turn them into the file's
// fields (docs/probe.md).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "probe/host_topology.h"
#include "probe/measure.h"
#include "probe/syscall_split.h"

namespace futexsim::probe {

struct probe_options {
    unsigned pairs_per_class = 4;
    pingpong_options pingpong;
    unsigned syscall_rounds = 301;
    unsigned syscall_calls = 100;
    std::string sysfs_root = "/sys";
};

struct pair_result {
    unsigned a = 0, b = 0;
    summary one_way_ns;
};

struct class_result {
    pair_class cls{};
    std::size_t pairs_total = 0;     // pairs of this class on the machine
    std::vector<pair_result> pairs;  // those measured
    summary of_pairs;                // over the measured pairs' medians
};

struct probe_result {
    host_topology topo;
    std::vector<class_result> classes;  // index: pair_class
    summary locked_rmw;
    // A load then a cmpxchg on a line another core wrote, on the first
    // measured pair of distinct cores (none on a machine of one core).
    std::optional<read_then_rmw> read_rmw;
    unsigned read_rmw_a = 0, read_rmw_b = 0;
    // How long the holder keeps a line asked for, on the same pair; with
    // that pair's one-way transfer (pair_one_way_ns()) it gives
    // snoop_leg_fraction.
    std::optional<hold_window> hold;
    summary ghz;
    syscall_split split;
    bool interrupted = false;           // SIGINT: what was measured before it
    std::string stopped_by = "SIGINT";  // which stop signal, as the caller knows it
};

// Measures; `progress` (if given) hears one line per step. Checks
// `stop` between measurements and returns what it has when it says so.
probe_result run_probe(const probe_options& opt, const std::function<void(const std::string&)>& progress,
                       const std::function<bool()>& stop);

// The machine file's contents: `base` (the host's kernel configuration,
// read_host_machine()) with the probe's measurements, the shape, and a
// source for every field. The system-call entry + exit and kernel_cpi
// are left for the caller to derive from r.split with the simulator
// (compare::values_from_split()).
struct probed_machine {
    machine m;
    topology_shape shape;
    std::map<std::string, std::string> sources;
};
probed_machine machine_from_probe(const probe_result& r, const machine& base);

// The measured one-way transfer of the pair (a, b), either order; 0 if
// that pair was not measured.
double pair_one_way_ns(const probe_result& r, unsigned a, unsigned b);

// The futex path of the split (FUTEX_WAKE_PRIVATE minus the invalid op):
// on the private hash where the kernel has one, else on the global hash.
const summary& futex_path(const syscall_split& s);

// The human report: topology, one row per pair class, RMW, clock, split.
std::string probe_table(const probe_result& r);
// The split's rows, which `futexsim calibrate` prints too.
std::string split_table(const syscall_split& s, double ghz);

}  // namespace futexsim::probe
