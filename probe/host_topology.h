// The topology of the machine this runs on, read from sysfs for `futexsim
// probe`: which logical CPUs share a core, a last-level cache, a NUMA node
// and a package, and the uniform shape a machine file can describe.
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"

namespace futexsim::probe {

struct host_cpu {
    unsigned id = 0;      // the kernel's CPU number
    unsigned socket = 0;  // packages, numbered 0.. in order of first appearance
    unsigned node = 0;    // NUMA node, numbered the same way
    unsigned llc = 0;     // last-level-cache domain, numbered machine-wide
    unsigned core = 0;    // physical core, numbered machine-wide
};

struct host_topology {
    std::vector<host_cpu> cpus;  // the online CPUs, in the kernel's order
    std::string llc_source;      // where the LLC domains came from ("cache/index3", or the fallback)
    topology_shape shape;        // the machine file's counts
    // Where the host is not the uniform machine `shape` describes (CPUs
    // per core, LLC or socket differ; or its CPU numbering differs from the
    // one build_topology() gives): one line each, said in the file.
    std::vector<std::string> approximations;
};

// Pair classes, nearest first: the ping-pong rows of `futexsim probe`.
enum class pair_class : unsigned { smt_sibling, same_llc, other_llc, other_node, other_socket };
inline constexpr unsigned num_pair_classes = 5;
const char* pair_class_name(pair_class c);
pair_class classify(const host_cpu& a, const host_cpu& b);

// Reads /sys/devices/system/cpu (online, topology/physical_package_id,
// topology/thread_siblings_list, cache/index*/level and shared_cpu_list)
// and /sys/devices/system/node/node*/cpulist under `sysfs_root` ("/sys" on
// a real machine; tests give a fake tree). Throws std::runtime_error if
// no CPU can be read.
host_topology read_host_topology(const std::string& sysfs_root = "/sys");

// Up to `per_class` pairs of each class, spread evenly over the class's
// pairs in the order (a, b) with a < b, so that they cover the machine
// rather than its first CPUs. Index: pair_class.
std::vector<std::vector<std::pair<unsigned, unsigned>>> sample_pairs(const host_topology& t, unsigned per_class);
// How many pairs each class has in all.
std::vector<std::size_t> count_pairs(const host_topology& t);

}  // namespace futexsim::probe
