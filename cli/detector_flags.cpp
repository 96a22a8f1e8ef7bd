#include "cli/detector_flags.h"

#include <fmt/format.h>

#include "cli/numbers.h"

namespace futexsim::cli {

void detector_flags::add_to(CLI::App& sub)
{
    options_ = {
        sub.add_option("--rcu-stall-timeout-ms", limits_.rcu_stall_timeout_ms,
                       "RCU CPU stall warning: a grace period older than this, in virtual ms (the kernel's "
                       "rcu_cpu_stall_timeout, 21 s, / 100 for runs of seconds)")
            ->transform(real_number(0.001, 3.6e6))
            ->capture_default_str(),
        sub.add_option("--watchdog-thresh-ms", limits_.watchdog_thresh_ms,
                       "Soft-lockup warning: a busy CPU that has not scheduled for twice this, in virtual ms "
                       "(the kernel's watchdog_thresh, 10 s, / 100)")
            ->transform(real_number(0.001, 3.6e6))
            ->capture_default_str(),
        sub.add_option("--spin-limit-ms", limits_.spin_limit_ms,
                       "Spinning-lock warning: a task spinning on one spinlock longer than this, in virtual ms")
            ->transform(real_number(0.001, 3.6e6))
            ->capture_default_str(),
        sub.add_option("--max-events-per-ms", limits_.max_events_per_ms,
                       "Event-storm alarm: more simulator events than this per virtual ms over a tick")
            ->transform(real_number(1, 1e12))
            ->capture_default_str(),
    };
}

std::vector<std::string> detector_flags::given_arguments() const
{
    std::vector<std::string> args;
    for (const CLI::Option* o : options_)
        if (o->count()) {
            args.push_back(o->get_name());
            args.push_back(o->as<std::string>());
        }
    return args;
}

}  // namespace futexsim::cli
