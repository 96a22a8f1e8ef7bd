#include "run/throughput.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace futexsim {

void fill_throughput(run_result& r, const workload_context& ctx, const op_counter& ops, double seconds,
                     int slots_now)
{
    const double interval_ms = r.interval_ms;
    // The bins of the run (one cut short by SIGINT, or on a real backend by
    // finished work, has fewer); on a real backend the operations are those
    // in them, read once, so that a thread still counting cannot make them
    // differ.
    std::vector<std::uint64_t> bins = ops.bins();
    bins.resize(std::min(bins.size(), run_bins(seconds, interval_ms)));
    if (ctx.work_done_at >= 0)
        r.work_ms = static_cast<double>(ctx.work_done_at) / 1e6;
    for (std::size_t i = 0; i < ctx.phases.size(); i++) {
        run_result::phase ph;
        ph.name = ctx.phases[i].name;
        ph.start_ms = static_cast<double>(ctx.phases[i].start) / 1e6;
        ph.end_ms = i + 1 < ctx.phases.size() ? static_cast<double>(ctx.phases[i + 1].start) / 1e6
                                              : seconds * 1e3;
        ph.slots_start = ctx.phases[i].slots;
        ph.slots_end = i + 1 < ctx.phases.size() ? ctx.phases[i + 1].slots : slots_now;
        double ops_in = 0;
        for (std::size_t b = 0; b < bins.size(); b++) {
            const double t = (static_cast<double>(b) + 0.5) * interval_ms;
            if (t >= ph.start_ms && t < ph.end_ms)
                ops_in += static_cast<double>(bins[b]);
        }
        ph.mops = ph.end_ms > ph.start_ms ? ops_in / ((ph.end_ms - ph.start_ms) * 1e3) : 0;
        r.phases.push_back(ph);
    }
    r.ops = ops.window_only() ? std::accumulate(bins.begin(), bins.end(), std::uint64_t{0}) : ops.total();
    r.mops = seconds > 0 ? static_cast<double>(r.ops) / seconds / 1e6 : 0;  // 0: interrupted at once
    // Each bin's rate over its own width: the last one is shorter when the
    // run ends inside it.
    for (std::size_t i = 0; i < bins.size(); i++) {
        const double width_ms =
            i + 1 == bins.size() ? last_bin_ms(bins.size(), seconds, interval_ms) : interval_ms;
        r.per_interval_mops.push_back(static_cast<double>(bins[i]) / (width_ms * 1e3));
    }
}

void warn_unfinished_work(run_result& r, const workload_context& ctx)
{
    if (ctx.work_ops == 0 || ctx.work_done_at >= 0 || r.interrupted)
        return;
    r.warnings.push_back(
        fmt::format("--ops {}: {} of them done when the --seconds {} window ended: no work_ms, "
                    "and mops covers the whole window (raise --seconds)",
                    ctx.work_ops, r.ops, r.seconds));
}

}  // namespace futexsim
