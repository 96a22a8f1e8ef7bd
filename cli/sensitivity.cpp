#include "cli/sensitivity.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "cli/report_stats.h"
#include "machine/machine.h"

namespace futexsim::cli {

const std::vector<sensitivity_param>& sensitivity_params()
{
    // Ranges: what the project's own history and measurements bracket where
    // there is one (docs/simulator.md, "kind"; docs/calibration.md), else
    // half and twice the preset's value, said so.
    static const std::vector<sensitivity_param> params = {
        {"kernel_cpi", 0.5, 2.0,
         "measured 1.48 on a Zen 5 host (docs/probe.md), assumed for the other cores; 0.5, an IPC of 2, which "
         "is about what the Xeon's presized reproducer 1 (91 ns a call over 470 counted instructions at "
         "3.9 GHz) allows at most; 2.0, the upper end of an Intel VM's measurement; the range also stands for "
         "the core clock under load (an instruction costs kernel_cpi / core_ghz)"},
        {"syscall_insn_cycles", 50, 200,
         "assumed: the mode-switch instructions themselves (syscall + sysretq, svc + eret), half and twice "
         "the preset's 100 cycles"},
        {"lock_hold_ns", 1, 5, "assumed: 5 before a77271b (no reason recorded); 1, a single cycle's worth"},
        {"snoop_leg_fraction", 0.25, 0.75, "assumed: half of the one-way latency, +/- half of that"},
        {"timing_jitter", 0.15, 0.6, "assumed: half and twice the preset's"},
        {"context_switch_ns", 750, 3000, "assumed: half and twice the preset's"},
        {"tick_irq_ns", 500, 5000, "assumed: a quarter and two and a half times the preset's 2 us"},
        {"hz", 250, 1000, "assumed: the two HZ values distributions ship"},
        {"modified_read", 0, 1,
         "measured migrate by `futexsim probe` on AMD (Zen 5) and two Intel cores (docs/probe.md); varied to "
         "its other rule: 0 = share (MESI as textbooks give it: a load then a cmpxchg moves the line twice), "
         "1 = migrate (one transfer)",
         words_of(modified_read_words)},
    };
    return params;
}

const sensitivity_param* find_sensitivity_param(const std::string& name)
{
    for (const auto& p : sensitivity_params())
        if (p.name == name)
            return &p;
    return nullptr;
}

namespace {

std::vector<std::string> fields_of(const sensitivity_param& p)
{
    return {p.name};
}

}  // namespace

double machine_value(const std::string& base, const sensitivity_param& p)
{
    const auto j = nlohmann::json::parse(base);
    const std::string f = fields_of(p).front();
    if (!p.levels.empty()) {
        // A machine file may leave the field out: the parser's default is the first level.
        const std::string word = j.contains(f) && j.at(f).is_string() ? j.at(f).get<std::string>() : p.levels.front();
        for (std::size_t i = 0; i < p.levels.size(); i++)
            if (p.levels[i] == word)
                return static_cast<double>(i);
        throw std::invalid_argument(fmt::format("the machine file's '{}' is '{}', which is no level of it", f, word));
    }
    if (!j.contains(f) || !j.at(f).is_number())
        throw std::invalid_argument(fmt::format("the machine file has no number '{}'", f));
    return j.at(f).get<double>();
}

std::string machine_variant(const std::string& base, const sensitivity_param& p, double value,
                            const std::string& name)
{
    auto j = nlohmann::ordered_json::parse(base);
    for (const auto& f : fields_of(p)) {
        if (!j.contains(f) && p.levels.empty())
            throw std::invalid_argument(fmt::format("the machine file has no '{}'", f));
        if (!p.levels.empty())
            j[f] = p.levels.at(static_cast<std::size_t>(value));
        else if (f == "hz")
            j[f] = static_cast<unsigned>(value);
        else
            j[f] = value;
        if (j.contains("sources"))
            j["sources"][f] = fmt::format("assumed: futexsim sensitivity's variant {} = {} ({})", p.name, value, p.why);
    }
    j["name"] = name;
    return j.dump(2) + "\n";
}

std::string threshold_band::text() const
{
    if (above && below)
        return fmt::format("{}-{}", *below, *above);
    if (above)
        return fmt::format("<={}", *above);
    if (below)
        return fmt::format(">{}", *below);
    return "undecided";  // no count's interval clears 1/2 either way (too few runs)
}

threshold_band stall_band(const latched_counts& c)
{
    threshold_band b;
    for (const auto& [threads, kn] : c) {
        const interval ci = wilson_interval(kn.first, kn.second);
        if (ci.lo > 0.5) {
            b.above = threads;
            break;
        }
        if (ci.hi < 0.5)
            b.below = threads;
    }
    return b;
}

}  // namespace futexsim::cli
