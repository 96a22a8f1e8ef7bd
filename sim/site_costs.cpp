// The per-site cost of the kernel's instructions (sim/site_costs.h).
#include "sim/site_costs.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "machine/kernel_sites.h"

namespace futexsim::sim {
namespace {

// "bool futexsim::model::futex_ref_get(private_hash<Env>*) [with Env = ...]"
// gives "futex_ref_get".
std::string unqualified(std::string_view f)
{
    if (const auto with = f.find(" [with"); with != std::string_view::npos)
        f = f.substr(0, with);
    // The parameter list is the first '(' outside template brackets.
    int depth = 0;
    std::size_t paren = f.size();
    for (std::size_t i = 0; i < f.size(); i++) {
        if (f[i] == '<')
            ++depth;
        else if (f[i] == '>')
            --depth;
        else if (f[i] == '(' && depth == 0) {
            paren = i;
            break;
        }
    }
    f = f.substr(0, paren);
    if (const auto colon = f.rfind("::"); colon != std::string_view::npos)
        f = f.substr(colon + 2);
    if (const auto space = f.rfind(' '); space != std::string_view::npos)
        f = f.substr(space + 1);
    return std::string(f);
}

}  // namespace

const std::map<std::string, std::string>& site_costs::kernel_inlined_into()
{
    // Model helpers whose kernel counterparts are inlined: the table names
    // the function the compiled code has them in.
    static const std::map<std::string, std::string> m = {
        // raw_atomic_long_fetch_add_unless() under atomic_long_inc_not_zero()
        {"atomic_long_fetch_add_unless", "futex_ref_get"},
        {"__futex_hash_private", "__futex_hash"},       // core.c:385, inlined
    };
    return m;
}

std::string site_costs::table_key(const std::string& site)
{
    std::string s = site.substr(0, site.find('('));
    if (const auto at = s.find("atomic_long_"); at != std::string::npos)
        s.erase(at + 6, 5);  // atomic_long_read -> atomic_read
    return s;
}

site_costs::site_costs(const machine& m)
    : ps_per_instruction_(1000.0 * m.ns_per_instruction())
{
    const kernel_sites_build& b = kernel_sites_for(m.arch);
    // As a counted segment, less its final access instruction.
    uncounted_ps_ = static_cast<std::uint64_t>(
        std::llround(std::max(0.0, b.uncounted_segment_instructions - 1) * ps_per_instruction_));
    for (const auto& s : b.segments) {
        if (s.path.rfind("syscall-", 0) == 0)
            continue;  // the entry and exit: syscall_entry_cost_ns()
        counted_[{table_key(s.from), table_key(s.to)}] = s.instructions;
    }
    intern("entry");
    intern("exit");
}

site_costs::site_id site_costs::intern(const std::string& name)
{
    auto [it, added] = ids_.emplace(name, static_cast<site_id>(names_.size()));
    if (added)
        names_.push_back(name);
    return it->second;
}

site_costs::site_id site_costs::lookup(const char* function_name, const char* op)
{
    std::string fn = unqualified(function_name);
    if (auto it = kernel_inlined_into().find(fn); it != kernel_inlined_into().end())
        fn = it->second;
    return intern(fn + ":" + op);
}

std::uint64_t site_costs::resolve(site_id from, site_id to)
{
    const auto key = std::pair{names_[from], names_[to]};
    const auto it = counted_.find(key);
    std::uint64_t ps = uncounted_ps_;
    if (it != counted_.end()) {
        // The final access instruction is the access's own cost.
        const unsigned between = to == exit ? it->second : (it->second > 0 ? it->second - 1 : 0);
        ps = static_cast<std::uint64_t>(std::llround(between * ps_per_instruction_));
    }
    charged_[key] = it != counted_.end();
    if (cost_ps_.size() <= from)
        cost_ps_.resize(from + 1u);
    if (cost_ps_[from].size() <= to)
        cost_ps_[from].resize(to + 1u, unset);
    cost_ps_[from][to] = ps;
    return ps;
}

}  // namespace futexsim::sim
