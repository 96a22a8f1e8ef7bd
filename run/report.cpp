#include "run/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace futexsim {

namespace {

// A run's length: two decimals ("1.00s"), and for a run shorter than 0.1 s
// as many as give two significant digits ("0.015s", "0.0010s"), not "0.00s".
std::string seconds_text(double s)
{
    const int digits =
        s > 0 && s < 0.1 ? std::min(9, 1 - static_cast<int>(std::floor(std::log10(s)))) : 2;
    return fmt::format("{:.{}f}s", s, digits);
}

// What ends every backend's line: the work time, the phases, the warnings.
std::string line_tail(const run_result& r)
{
    std::string tail;
    if (r.work_ms >= 0)
        tail += fmt::format(" work={:.3f}ms", r.work_ms);
    if (r.extrapolated_from_ms >= 0)
        tail += fmt::format(" extrapolated-from={:.0f}ms(+/-{:.2f} Mops/s)", r.extrapolated_from_ms, r.mops_ci95);
    for (const auto& ph : r.phases)
        tail += fmt::format(" [{} {:.0f}-{:.0f}ms {:.1f} Mops/s slots {}->{}]", ph.name, ph.start_ms,
                            ph.end_ms, ph.mops, ph.slots_start, ph.slots_end);
    for (const auto& w : r.warnings)
        tail += fmt::format(" WARNING({})", w);
    return tail;
}

}  // namespace

std::string human_line(const run_result& r)
{
    if (r.backend == "kernel") {
        std::string line = fmt::format(
            "backend=kernel threads={} slots(start={} set={} end={}) {} {:.1f} Mops/s", r.threads,
            r.slots_start, r.slots_set, r.slots_end, seconds_text(r.seconds), r.mops);
        return line + line_tail(r);
    }
    std::string line =
        fmt::format("threads={} slots(start={} set={} end={}) {} {:.1f} Mops/s "
                    "outcome={} atomic={:.1f}%",
                    r.threads, r.slots_start, r.slots_set, r.slots_end, seconds_text(r.seconds),
                    r.mops, r.outcome, 100.0 * r.atomic_fraction());
    if (r.pivot_pending_at_end)
        line += fmt::format(" pending={:.0f}ms", r.pending_ms_at_end);
    if (r.backend == "sim")
        line += fmt::format(" gp={:.1f}ms seed={}", r.mean_gp_ms, r.seed);
    else
        line = "backend=" + r.backend + " " + line;
    if (r.policy != "stock" || r.precheck)
        line += fmt::format(" policy={}{}", r.policy, r.precheck ? "+precheck" : "");
    if (r.kernel != model::kernel_version_name(model::default_kernel_version))
        line += fmt::format(" kernel={}", r.kernel);
    return line + line_tail(r);
}

namespace {

// The fields every backend fills the same way, in the order both JSON
// forms print them: the slots and throughput, and the model's pivot counts.
void throughput_json(const run_result& r, nlohmann::ordered_json& j)
{
    j["slots_start"] = r.slots_start;
    j["slots_set"] = r.slots_set;
    j["slots_end"] = r.slots_end;
    j["ops"] = r.ops;
    j["mops"] = r.mops;
    j["interval_ms"] = r.interval_ms;
    j["per_interval_mops"] = r.per_interval_mops;
}

void pivots_json(const run_result& r, nlohmann::ordered_json& j)
{
    j["ref_get_percpu"] = r.ref_get_percpu;
    j["ref_get_atomic"] = r.ref_get_atomic;
    j["pivots_requested"] = r.pivots_requested;
    j["pivots_completed"] = r.pivots_completed;
    j["pivot_pending_at_end"] = r.pivot_pending_at_end;
    j["pending_ms_at_end"] = r.pending_ms_at_end;
    j["longest_pivot_ms"] = r.longest_pivot_ms;
}

// The real backends fill only what they can observe: the kernel backend
// sees slots and throughput, the threads backend the model's counts too,
// neither has virtual time, events or a trace hash.
void real_json(const run_result& r, nlohmann::ordered_json& j)
{
    j["backend"] = r.backend;
    j["machine"] = r.machine;
    j["policy"] = r.policy;
    j["workload"] = r.workload;
    j["threads"] = r.threads;
    j["seconds"] = r.seconds;
    throughput_json(r, j);
    if (r.backend == "threads") {
        j["precheck"] = r.precheck;
        j["kernel"] = r.kernel;
        pivots_json(r, j);
        j["outcome"] = r.outcome;
        j["grace_periods"] = r.grace_periods;
        j["mean_grace_period_ms"] = r.mean_gp_ms;
    }
    j["interrupted"] = r.interrupted;
    j["warnings"] = r.warnings;
}

}  // namespace

namespace {
// What every backend's JSON ends with: the fixed-work time, the phases, the
// wall time.
std::string with_tail(const run_result& r, nlohmann::ordered_json& j)
{
    if (r.work_ms >= 0)
        j["work_ms"] = r.work_ms;
    if (r.extrapolated_from_ms >= 0) {
        j["extrapolated_from_ms"] = r.extrapolated_from_ms;
        j["mops_stationary"] = r.mops_stationary;
        j["mops_ci95"] = r.mops_ci95;
    }
    if (!r.phases.empty()) {
        nlohmann::ordered_json phases = nlohmann::ordered_json::array();
        for (const auto& ph : r.phases)
            phases.push_back({{"name", ph.name}, {"start_ms", ph.start_ms}, {"end_ms", ph.end_ms},
                              {"mops", ph.mops}, {"slots_start", ph.slots_start}, {"slots_end", ph.slots_end}});
        j["phases"] = phases;
    }
    j["wall_seconds"] = r.wall_seconds;
    return j.dump();
}
}  // namespace

std::string json_line(const run_result& r)
{
    nlohmann::ordered_json j;
    if (r.backend != "sim") {
        real_json(r, j);
        return with_tail(r, j);
    }
    j["machine"] = r.machine;
    j["policy"] = r.policy;
    j["precheck"] = r.precheck;
    j["kernel"] = r.kernel;
    j["workload"] = r.workload;
    j["threads"] = r.threads;
    j["seconds"] = r.seconds;
    j["seed"] = r.seed;
    throughput_json(r, j);
    j["per_interval_atomic_share"] = r.per_interval_atomic_share;
    const auto or_null = [](const std::optional<long>& v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json mins = nlohmann::ordered_json::array();
    for (const auto& m : r.per_interval_atomic_refs_min)
        mins.push_back(or_null(m));
    j["per_interval_atomic_refs_min"] = mins;
    const auto& refs = r.atomic_refs;
    nlohmann::ordered_json at_get;
    at_get["gets"] = refs.gets;
    at_get["min"] = or_null(refs.min);
    at_get["p0.1"] = or_null(refs.p0_1);
    at_get["p1"] = or_null(refs.p1);
    at_get["p50"] = or_null(refs.p50);
    at_get["p99"] = or_null(refs.p99);
    j["atomic_refs_at_get"] = at_get;
    pivots_json(r, j);
    j["longest_pivot_grace_periods"] = r.longest_pivot_gps;
    j["outcome"] = r.outcome;
    j["grace_periods"] = r.grace_periods;
    j["mean_grace_period_ms"] = r.mean_gp_ms;
    j["events"] = r.events;
    j["trace_hash"] = fmt::format("{:016x}", r.trace_hash);
    if (r.interrupted)  // only then, so that every other run prints the bytes it always did
        j["interrupted"] = true;
    j["warnings"] = r.warnings;
    return with_tail(r, j);
}

}  // namespace futexsim
