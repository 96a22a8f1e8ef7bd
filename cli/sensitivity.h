// `futexsim sensitivity`'s pure parts: the parameters it varies (each fitted
// or assumed, with a plausible range and why), a machine file with one
// parameter changed, and the stall-threshold band from latched counts.
// Nothing here runs a simulation.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace futexsim::cli {

struct sensitivity_param {
    std::string name;  // a machine-file field; "syscall_ns" sets entry and exit
    double low, high;
    std::string why;   // where the range comes from
    // A field that takes words, not numbers: value v stands for levels[v]
    // (low 0, high 1).
    std::vector<std::string> levels = {};
};

// Every parameter docs/simulator.md calls assumed (or measured on one
// machine only) and that a machine file holds, in the order the table lists them.
const std::vector<sensitivity_param>& sensitivity_params();
const sensitivity_param* find_sensitivity_param(const std::string& name);

// `base` (a machine file's JSON text) with `p` set to `value`, named
// `name`, and its source saying it is a sensitivity variant. Throws
// std::invalid_argument if `base` lacks the field.
std::string machine_variant(const std::string& base, const sensitivity_param& p, double value,
                            const std::string& name);
// The value of `p` in `base` (for syscall_ns, the entry cost).
double machine_value(const std::string& base, const sensitivity_param& p);

// Per thread count, latched runs of runs.
using latched_counts = std::map<unsigned, std::pair<std::size_t, std::size_t>>;

// The stall threshold as a band: `above` is the smallest thread count whose
// latched probability's 95% Wilson interval lies above 1/2 (`futexsim
// report`'s threshold), `below` the largest count under it whose interval
// lies below 1/2. The threshold is somewhere in (below, above].
struct threshold_band {
    std::optional<unsigned> below, above;
    std::string text() const;  // "48-56", ">96", "<=32"
};
threshold_band stall_band(const latched_counts& c);

}  // namespace futexsim::cli
