#include "cli/workload_flags.h"

#include <fmt/format.h>

#include <stdexcept>

#include "cli/commands.h"
#include "cli/numbers.h"
#include "run/workloads/registry.h"

namespace futexsim::cli {

namespace {

CLI::Option* add_flag_option(CLI::App& sub, const workload_flag& f, std::string& value)
{
    value = f.fallback;
    CLI::Option* o = sub.add_option("--" + f.name, value, f.help);
    switch (f.type) {
    case workload_flag::kind::whole:
        o->transform(whole_number(f.lo, f.hi))->type_name("UINT");
        break;
    case workload_flag::kind::choice:
        o->check(CLI::IsMember(f.choices));
        break;
    case workload_flag::kind::text:
        break;  // checked once the workload is known (apply())
    }
    if (f.show_default)
        o->capture_default_str();
    return o;
}

}  // namespace

void workload_flags::add_to(CLI::App& sub)
{
    for (const auto& wl : workloads())
        for (const auto& f : wl.flags)
            if (!flags_.count(f.name)) {
                entry& e = flags_[f.name];
                e.option = add_flag_option(sub, f, e.value);
                order_.push_back(f.name);
            }
}

void workload_flags::refuse_others(const workload_def& wl) const
{
    for (const auto& name : order_)
        if (flags_.at(name).option->count() && !wl.find_flag(name))
            throw usage_error(fmt::format("--{} does not apply to workload '{}'", name, wl.name));
}

void workload_flags::apply(const workload_def& wl, run_options& opt) const
{
    try {
        for (const auto& f : wl.flags) {
            const auto it = flags_.find(f.name);
            const bool given = it != flags_.end() && it->second.option->count();
            const std::string& value = given ? it->second.value : f.fallback;
            if (f.check)
                f.check(value);
            if (given)
                opt.params.set(f.name, value);
        }
        if (wl.check)
            wl.check(opt);
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
}

}  // namespace futexsim::cli
