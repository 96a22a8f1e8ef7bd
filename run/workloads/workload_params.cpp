#include "run/workloads/workload_params.h"

namespace futexsim {

workload_flag whole_flag(std::string name, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi,
                         std::string help)
{
    workload_flag f;
    f.name = std::move(name);
    f.type = workload_flag::kind::whole;
    f.fallback = std::to_string(fallback);
    f.lo = lo;
    f.hi = hi;
    f.help = std::move(help);
    return f;
}

workload_flag choice_flag(std::string name, std::string fallback, std::vector<std::string> choices,
                          std::string help)
{
    workload_flag f;
    f.name = std::move(name);
    f.type = workload_flag::kind::choice;
    f.fallback = std::move(fallback);
    f.choices = std::move(choices);
    f.help = std::move(help);
    return f;
}

workload_flag text_flag(std::string name, std::string fallback, std::function<void(const std::string&)> check,
                        std::string help)
{
    workload_flag f;
    f.name = std::move(name);
    f.type = workload_flag::kind::text;
    f.fallback = std::move(fallback);
    f.check = std::move(check);
    f.help = std::move(help);
    return f;
}

}  // namespace futexsim
