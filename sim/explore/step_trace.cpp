#include "sim/explore/step_trace.h"

#include <fmt/format.h>

#include "sim/trace_format.h"

namespace futexsim::sim::explore {

void step_trace::header() const
{
    const run_config& cfg = ctx_.cfg;
    sink_(fmt::format("# policy={} kernel={} cpus={} strategy={} seed={} case={}", cfg.policy,
                      model::kernel_version_name(cfg.kernel), cfg.cpus,
                      strategy_name(cfg.strategy.kind), cfg.strategy.seed, format_case(case_)));
}

void step_trace::on_trace(const model::trace_point& tp) { ctx_.env.note(describe(tp)); }

std::string step_trace::word_name(const void* addr) const
{
    const explored_mm& mm = ctx_.mm;
    if (!addr)
        return "";
    if (addr == &mm.futex_atomic)
        return "futex_atomic";
    if (addr == &mm.futex_phash)
        return "futex_phash";
    if (addr == mm.futex_ref.get())
        return "futex_ref";
    if (addr == &mm.futex_hash_lock)
        return "futex_hash_lock";
    if (const std::string_view policy_word = model::policy_word_name(&mm, addr);
        !policy_word.empty())
        return std::string(policy_word);
    if (addr == &mm)
        return "mm";
    for (unsigned w = 0; w < num_words; w++)
        if (addr == &ctx_.env.user_word_at(word_address(w)))
            return fmt::format("word{}", w);
    const explored_hash* cur = mm.futex_phash.v;
    if (cur && addr == &cur->state)
        return fmt::format("fph[{}].state", model::fph_slots(cur));
    if (cur && !cur->queues.empty()) {
        const auto* lo = reinterpret_cast<const char*>(cur->queues.data());
        const auto* p = static_cast<const char*>(addr);
        if (p >= lo && p < lo + cur->queues.size() * sizeof(cur->queues[0]))
            return fmt::format("fph[{}].bucket{}", model::fph_slots(cur),
                               static_cast<std::size_t>(p - lo) / sizeof(cur->queues[0]));
    }
    if (ctx_.env.is_freed(addr))
        return "FREED";
    return "other";
}

void step_trace::on_step(const explore_task& t, const op_event& ev)
{
    const explore_env& env = ctx_.env;
    const invariants& inv = ctx_.inv;
    std::string what;
    if (ev.kind == op_kind::user)
        what = ev.note;
    else
        what = fmt::format("{}: {} {}{}", bare_function(ev.function), op_name(ev.kind),
                           word_name(ev.addr), ev.note.empty() ? "" : " " + ev.note);
    std::string atomic = inv.biased() ? fmt::format("BIAS{:+}", inv.atomic_count())
                                      : std::to_string(ctx_.mm.futex_atomic.v);
    const explored_hash* cur = ctx_.mm.futex_phash.v;
    std::string line = fmt::format(
        "{:5} {:4} cpu{} {:<56} | {} atomic={} percpu_sum={} held={} slots={}{}", env.step(),
        t.name, ev.cpu, what, inv.state_text(), atomic, inv.percpu_sum(), inv.held(),
        cur ? model::fph_slots(cur) : 0, ctx_.pivots.pending ? " pivot-pending" : "");
    if (env.gp_in_progress() || env.completed_gps())
        line += fmt::format(" gp={}", env.completed_gps());
    for (const std::string& n : t.notes)
        line += "\n        . " + n;
    sink_(line);
}

void step_trace::at_end()
{
    const explore_env& env = ctx_.env;
    for (const auto& w : env.warnings())
        sink_("WARNING: " + w);
    sink_(env.violation()
              ? "VIOLATION: " + *env.violation()
              : fmt::format("ok: {} steps, {} grace periods, {} pivot(s) installed", env.step(),
                            env.completed_gps(), ctx_.pivots.pivots_completed));
}

}  // namespace futexsim::sim::explore
