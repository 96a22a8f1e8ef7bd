#include "sim/timed/progress_watch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace futexsim::sim {

namespace {

vtime ms_to_ns(double ms)
{
    return static_cast<vtime>(std::llround(ms * 1e6));
}

double ms(vtime ns)
{
    return static_cast<double>(ns) / 1e6;
}

// The CPUs a warning names: the first few, then how many more.
constexpr std::size_t max_named = 8;

}  // namespace

progress_watch::progress_watch(engine& e, rcu_sim& r, progress_limits limits)
    : eng_(e), rcu_(r), limits_(limits), stall_ns_(ms_to_ns(limits.rcu_stall_timeout_ms)),
      lockup_ns_(2 * ms_to_ns(limits.watchdog_thresh_ms)), spin_ns_(ms_to_ns(limits.spin_limit_ms)),
      last_sched_(e.mach().num_cpus(), 0), lockup_warned_(e.mach().num_cpus(), false),
      samples_(e.mach().num_cpus())
{
    eng_.add_source(this);
    last_counts_ = eng_.events_by_origin();
}

void progress_watch::context_switch(unsigned cpu, vtime at)
{
    last_sched_[cpu] = std::max(last_sched_[cpu], at);
    lockup_warned_[cpu] = false;
}

// The CPU could have scheduled since the last tick if it is idle, runs
// another task, or its task is in user mode, has returned to user mode
// since, or is outside any preempt-off section (a preemption point is
// then a system call away): the watchdog's stopper task would have run.
void progress_watch::tick_sample(unsigned cpu, vtime at, const task* t)
{
    cpu_sample& last = samples_[cpu];
    const bool scheduled = !t || t->id != last.task || t->user_returns != last.user_returns ||
                           t->mode == task_mode::user || !t->in_section();
    last = t ? cpu_sample{t->id, t->user_returns} : cpu_sample{};
    if (scheduled)
        context_switch(cpu, at);
}

void progress_watch::tick(std::int64_t /*k*/)
{
    if (stopped_)
        return;
    check_rcu();
    check_cpus();
    check_spins();
    check_events();
}

std::vector<std::string> progress_watch::warnings() const
{
    std::vector<std::string> all = warnings_;
    for (std::size_t k = 0; k < std::size(progress_warning_kinds); k++)
        if (more_[k])
            all.push_back(fmt::format("{}: {} more like these", progress_warning_kinds[k], more_[k]));
    return all;
}

std::string progress_watch::task_label(long id) const
{
    if (id < 0 || static_cast<std::size_t>(id) >= eng_.num_tasks())
        return "idle";
    return eng_.task_by_id(static_cast<std::uint32_t>(id)).name;
}

void progress_watch::warn(kind k, std::string text)
{
    if (shown_[k] < max_per_kind) {
        shown_[k]++;
        warnings_.push_back(std::move(text));
    } else {
        more_[k]++;
    }
    if (limits_.stop_at_first && !stopped_) {
        stopped_ = true;
        eng_.request_stop();
    }
}

// print_cpu_stall(): the grace period, its age, and who holds it.
void progress_watch::check_rcu()
{
    if (!rcu_.gp_active() || rcu_.gp_started_at() == warned_gp_)
        return;
    const vtime age = eng_.now() - rcu_.gp_started_at();
    if (age < stall_ns_)
        return;
    warned_gp_ = rcu_.gp_started_at();
    std::vector<std::string> holders;
    std::size_t count = 0;
    for (unsigned cpu = 0; cpu < eng_.mach().num_cpus(); cpu++)
        if (rcu_.cpu_holds_gp(cpu) && count++ < max_named)
            holders.push_back(fmt::format("{} [{}]", cpu, task_label(eng_.cpu_current(cpu))));
    std::string who = fmt::format("{}", fmt::join(holders, ", "));
    if (count > holders.size())
        who += fmt::format(" and {} more", count - holders.size());
    warn(rcu_stall, fmt::format("rcu-stall: grace period {} started at {:.1f} ms is {:.1f} ms old at {:.1f} ms "
                     "(rcu_stall_timeout {:.1f} ms); {} CPUs hold it: {}",
                     rcu_.completed() + 1, ms(rcu_.gp_started_at()), ms(age), ms(eng_.now()),
                     limits_.rcu_stall_timeout_ms, count, who));
}

// watchdog_timer_fn()'s is_softlockup(): a busy CPU whose timestamp has not
// moved for 2 x watchdog_thresh.
void progress_watch::check_cpus()
{
    const vtime now = eng_.now();
    for (unsigned cpu = 0; cpu < last_sched_.size(); cpu++) {
        const int cur = eng_.cpu_current(cpu);
        if (cur < 0) {  // idle, or switching: it schedules
            context_switch(cpu, now);
            continue;
        }
        const vtime stuck = now - last_sched_[cpu];
        if (stuck < lockup_ns_ || lockup_warned_[cpu])
            continue;
        lockup_warned_[cpu] = true;
        warn(soft_lockup, fmt::format("soft-lockup: CPU#{} stuck for {:.1f} ms at {:.1f} ms (2 x watchdog_thresh {:.1f} ms) [{}]",
                         cpu, ms(stuck), ms(now), limits_.watchdog_thresh_ms, task_label(cur)));
    }
}

void progress_watch::check_spins()
{
    const vtime now = eng_.now();
    if (spin_warned_.size() < spins_.tasks_seen())
        spin_warned_.resize(spins_.tasks_seen(), -1);
    for (std::uint32_t id = 0; id < spins_.tasks_seen(); id++) {
        const vtime since = spins_.spinning_since(id);
        if (since < 0 || now - since < spin_ns_ || spin_warned_[id] == since)
            continue;
        spin_warned_[id] = since;
        const task& t = eng_.task_by_id(id);
        const long holder = spins_.holder_of(spins_.lock_wanted(id));
        const std::string held_by =
            holder < 0 ? "no holder known"
                       : fmt::format("held by {} on CPU {}", task_label(holder),
                                     eng_.task_by_id(static_cast<std::uint32_t>(holder)).cpu);
        warn(spin_lockup, fmt::format("spin-lockup: {} on CPU {} has spun on one spinlock for {:.1f} ms at {:.1f} ms "
                         "(spin limit {:.1f} ms), {}",
                         t.name, t.cpu, ms(now - since), ms(now), limits_.spin_limit_ms, held_by));
    }
}

// Events per virtual millisecond since the last tick, and where most came
// from.
void progress_watch::check_events()
{
    const vtime now = eng_.now();
    const std::vector<std::uint64_t>& counts = eng_.events_by_origin();
    const vtime window = now - last_tick_at_;
    if (!storm_warned_ && window > 0) {
        std::uint64_t total = 0, busiest = 0;
        std::size_t which = 0;
        for (std::size_t i = 0; i < counts.size(); i++) {
            const std::uint64_t n = counts[i] - (i < last_counts_.size() ? last_counts_[i] : 0);
            total += n;
            if (n > busiest) {
                busiest = n;
                which = i;
            }
        }
        const double rate = static_cast<double>(total) / ms(window);
        if (rate > limits_.max_events_per_ms) {
            storm_warned_ = true;
            warn(event_storm, fmt::format("event-storm: {:.0f} events per virtual ms from {:.1f} to {:.1f} ms (bound {:.0f}); "
                             "busiest: {} ({:.0f}%)",
                             rate, ms(last_tick_at_), ms(now), limits_.max_events_per_ms, eng_.origin_name(which),
                             100.0 * static_cast<double>(busiest) / static_cast<double>(total)));
        }
    }
    last_tick_at_ = now;
    last_counts_ = counts;
}

}  // namespace futexsim::sim
