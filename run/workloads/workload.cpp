#include "run/workloads/workload.h"

#include <fmt/format.h>

#include <stdexcept>

#include "run/strict_numbers.h"
#include "run/workloads/registry.h"

namespace futexsim {

workload_context::workload_context(workload_process& p, const run_options& o, op_counter& c,
                                   std::vector<unsigned> allowed)
    : proc(p), opt(o), ops(c), cpus(std::move(allowed)), def_(find_workload(o.workload))
{
}

const std::string& workload_context::param(const std::string& name) const
{
    const workload_flag* f = def_.find_flag(name);
    if (!f)
        throw std::invalid_argument(fmt::format("workload '{}' has no flag --{}", def_.name, name));
    const std::string* given = opt.params.find(name);
    return given ? *given : f->fallback;
}

std::uint64_t workload_context::whole_param(const std::string& name) const
{
    const std::string& text = param(name);
    const auto v = parse_whole(text);
    if (!v)
        throw std::invalid_argument(fmt::format("--{} '{}' is not a whole number", name, text));
    return *v;
}

const workload_flag* workload_def::find_flag(const std::string& flag_name) const
{
    for (const auto& f : flags)
        if (f.name == flag_name)
            return &f;
    return nullptr;
}

void thread_exit(workload_context& ctx)
{
    ctx.proc.thread_exit();
}

std::vector<std::uint64_t> alloc_futex_words(workload_context& ctx, unsigned count)
{
    std::vector<std::uint64_t> words;
    for (unsigned i = 0; i < count; i++)
        words.push_back(ctx.proc.alloc_futex_word());
    return words;
}

void spawn_wake_loops(workload_context& ctx, const std::vector<std::uint64_t>& words, unsigned from,
                      unsigned to, std::int64_t gap)
{
    for (unsigned i = from; i < to; i++) {
        if (gap)
            ctx.proc.user_work(gap);
        const std::uint64_t uaddr = words[i % words.size()];
        ctx.proc.spawn_thread(fmt::format("waker/{}", i), ctx.cpus, [&ctx, uaddr] {
            while (!ctx.stopping) {
                ctx.proc.sys_futex_wake(uaddr, 1);
                ctx.ops.count();
                ctx.proc.user_work(wake_loop_user_ns);
            }
            thread_exit(ctx);
        });
    }
}

std::int64_t ramp_gap(const run_options& opt, unsigned count)
{
    if (opt.ramp_ms <= 0 || count == 0)
        return 0;
    return static_cast<std::int64_t>(opt.ramp_ms * 1e6 / count);
}

}  // namespace futexsim
