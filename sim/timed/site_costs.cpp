// The per-site cost of the kernel's instructions (sim/timed/site_costs.h).
#include "sim/timed/site_costs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

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
    intern("entry");
    intern("exit");
    // Each path's segments in order, from its system call's entry.
    std::string path, so_far;
    for (const auto& s : b.segments) {
        const std::string syscall = kernel_path_syscall(s.path);
        if (s.path.rfind("lock-", 0) == 0) {
            add_lock_segment(s);
            continue;
        }
        if (s.path.rfind("loop-", 0) == 0) {
            // A loop path's turn: the one segment from a site back to itself.
            if (s.from == s.to && !add_same(loop_turn_, table_key(s.to), s.instructions))
                throw std::logic_error(fmt::format("site table: {} counts a turn at {} unlike another", s.path, s.to));
            continue;
        }
        if (syscall.empty())
            continue;  // the entry and exit: syscall_entry_cost_ns()
        if (s.path != path) {
            path = s.path;
            so_far = syscall + ">entry";
            syscalls_.insert(syscall);
        }
        const std::string to = table_key(s.to);
        const auto [at, added] = on_path_.emplace(std::pair{so_far, to}, s.instructions);
        if (!added && at->second != s.instructions)
            throw std::logic_error(fmt::format("site table: {} counts {} instructions to {} after {}, another path {}",
                                               s.path, s.instructions, to, so_far, at->second));
        so_far += ">" + to;
        // Off the paths, a pair costs what the FUTEX_WAKE and FUTEX_WAIT
        // paths count alike (as the mean, kernel_path_in_mean()): the
        // requeue and wake-op paths share names with them at other lengths
        // (the waiter count's increment after futex_ref_get(): 23
        // instructions on amd64's requeue), and counting them here would
        // move what every other operation's uncounted segments cost.
        if (!kernel_path_in_mean(s.path))
            continue;
        const auto [p, new_pair] = pair_.emplace(std::pair{table_key(s.from), to}, s.instructions);
        if (!new_pair && p->second != s.instructions)
            p->second.reset();
    }
}

template <class Map, class Key>
bool site_costs::add_same(Map& m, const Key& k, unsigned instructions)
{
    const auto [it, added] = m.emplace(k, instructions);
    return added || it->second == instructions;
}

void site_costs::add_lock_segment(const kernel_site_segment& s)
{
    if (s.from == "entry")
        return;  // the lock's caller up to the fast path's cmpxchg: the caller's path counts it
    const std::string from = table_key(s.from);
    const std::string to = table_key(s.to);
    bool same = true;
    if (s.path.rfind("lock-fast", 0) == 0) {
        // the fast path: only its tail after the cmpxchg is used
        if (to == "exit") {
            same = !fast_tail_ || *fast_tail_ == s.instructions;
            fast_tail_ = s.instructions;
        }
    } else if (to == "exit") {
        same = add_same(lock_exit_, from, s.instructions);
    } else {
        same = add_same(lock_, std::pair{from, to}, s.instructions);
    }
    if (!same)
        throw std::logic_error(fmt::format("site table: {} counts {} instructions from {} to {}, another lock path differs",
                                           s.path, s.instructions, from, to));
}

std::uint64_t site_costs::lock_return_ps(site_id& at, site_id resume)
{
    const std::string& last = names_[site_of_[at]];
    const auto it = lock_exit_.find(last);
    const bool counted = it != lock_exit_.end() && fast_tail_;
    const auto [c, added] = charged_.emplace(std::pair{last, std::string("exit")}, counted);
    if (!added)
        c->second = c->second && counted;
    at = resume;
    if (!counted)
        return uncounted_ps_;
    // Both tails end at the lock's return, neither at an access.
    const int between = static_cast<int>(it->second) - static_cast<int>(*fast_tail_);
    return static_cast<std::uint64_t>(std::llround(std::max(0, between) * ps_per_instruction_));
}

site_costs::site_id site_costs::intern(const std::string& name)
{
    auto [it, added] = ids_.emplace(name, static_cast<site_id>(names_.size()));
    if (added) {
        names_.push_back(name);
        site_of_.push_back(it->second);
    }
    return it->second;
}

site_costs::site_id site_costs::intern_on_path(const std::string& path_so_far, site_id site)
{
    const site_id id = intern(path_so_far);
    site_of_[id] = site;
    return id;
}

site_costs::site_id site_costs::syscall_entry(const std::string& syscall)
{
    if (!syscalls_.count(syscall))
        return entry;
    return intern_on_path(syscall + ">entry", entry);
}

site_costs::site_id site_costs::lookup_call_site(const char* function_name, unsigned line, const char* op)
{
    const auto [it, added] = call_sites_.try_emplace(call_site{function_name, line, op}, site_id{0});
    if (added)
        it->second = lookup(function_name, op);
    return it->second;
}

site_costs::site_id site_costs::lookup(const char* function_name, const char* op)
{
    std::string fn = unqualified(function_name);
    if (auto it = kernel_inlined_into().find(fn); it != kernel_inlined_into().end())
        fn = it->second;
    return intern(fn + ":" + op);
}

std::uint64_t site_costs::ps_of(site_id to, unsigned instructions) const
{
    // The final access instruction is the access's own cost.
    const unsigned between = to == exit ? instructions : (instructions > 0 ? instructions - 1 : 0);
    return static_cast<std::uint64_t>(std::llround(between * ps_per_instruction_));
}

std::uint64_t site_costs::resolve(site_id& at, site_id to)
{
    const site_id from = at;
    const std::string to_name = names_[to];
    std::uint64_t ps = uncounted_ps_;
    site_id next = to;
    bool on_path = false;
    if (site_of_[from] != from) {  // on a path so far
        if (const auto it = on_path_.find({names_[from], to_name}); it != on_path_.end()) {
            ps = ps_of(to, it->second);
            next = intern_on_path(names_[from] + ">" + to_name, to);
            on_path = true;
        }
    }
    const auto key = std::pair{names_[site_of_[from]], to_name};
    if (!on_path && key.first == key.second) {
        // one more turn of a loop: counted, and the task stays where it is
        // (on its path, if it is on one)
        if (const auto it = loop_turn_.find(to_name); it != loop_turn_.end()) {
            ps = ps_of(to, it->second);
            next = from;
            on_path = true;
        }
    }
    if (!on_path)
        if (const auto it = lock_.find(key); it != lock_.end()) {
            ps = ps_of(to, it->second);
            on_path = true;
        }
    if (!on_path)
        if (const auto it = pair_.find(key); it != pair_.end() && it->second)
            ps = ps_of(to, *it->second);
    const auto [c, added] = charged_.emplace(key, on_path);
    if (!added)
        c->second = c->second && on_path;
    if (segments_.size() <= from)
        segments_.resize(from + 1u);
    if (segments_[from].size() <= to)
        segments_[from].resize(to + 1u);
    segments_[from][to] = {ps, next};
    at = next;
    return ps;
}

}  // namespace futexsim::sim
