// A pool that grows under load: --start-threads A threads loop
// FUTEX_WAKE_PRIVATE as in wake-nowaiters; halfway through the run, B - A
// more join (spread over --ramp-ms) while the first keep working. The run
// reports throughput and slots per phase.
#include <fmt/format.h>

#include <stdexcept>

#include "run/strict_numbers.h"
#include "run/workloads/workload.h"

namespace futexsim {

workload_def pool_growth_workload()
{
    workload_def w;
    w.name = "pool-growth";
    w.description = "--start-threads A work, then the pool grows to --threads B halfway through";
    w.flags = {whole_flag("start-threads", 16, 1, 4096,
                          "pool-growth: threads working before the pool grows to --threads (at most --threads)")};
    w.check = [](const run_options& opt) {
        const std::string* start = opt.params.find("start-threads");
        if (start && parse_whole(*start).value_or(0) > opt.threads)
            throw std::invalid_argument(fmt::format(
                "--start-threads {}: the pool starts with at most --threads ({}) threads", *start, opt.threads));
    };
    w.main = [](workload_context& ctx) {
        const auto words = alloc_futex_words(ctx, 32);
        const auto start = static_cast<unsigned>(std::min<std::uint64_t>(ctx.whole_param("start-threads"), ctx.opt.threads));
        ctx.mark_phase("start");
        spawn_wake_loops(ctx, words, 0, start, 0);
        const vtime half = static_cast<vtime>(ctx.opt.seconds * 1e9 / 2);
        if (ctx.proc.now_ns() < half)
            ctx.proc.sys_nanosleep(half - ctx.proc.now_ns());
        ctx.mark_phase("grown");
        spawn_wake_loops(ctx, words, start, ctx.opt.threads, ramp_gap(ctx.opt, ctx.opt.threads - start));
    };
    return w;
}

}  // namespace futexsim
