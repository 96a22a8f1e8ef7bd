// What the kernel's own instructions cost between two of the model's
// accesses to shared words: the segment from the task's previous access to
// this one, counted in the compiled 7.2.13 (machine/kernel_sites.h), at the
// machine's kernel_cpi / core_ghz. An access is named as the site table
// names it, "function:op": the model function the access is in (where the
// compiler inlines a model helper into a kernel function, that function:
// kernel_inlined_into below) and the environment call, `_long` dropped.
// A segment the table has not counted costs the build's mean segment.
//
// The access itself (a hit, a transfer, a barrier) is the cache model's
// and the environment's to charge, not this: a segment's count includes
// its final access instruction, which is taken off here.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "machine/machine.h"

namespace futexsim::sim {

class site_costs {
public:
    using site_id = std::uint16_t;
    static constexpr site_id entry = 0;  // the futex system call's first function begins
    static constexpr site_id exit = 1;   // it returns

    explicit site_costs(const machine& m);

    // The site of an access at `loc` by the environment call `op` (a
    // string literal): looked up once per call site, then from a cache.
    site_id id(const std::source_location& loc, const char* op)
    {
        const auto key = reinterpret_cast<std::uintptr_t>(loc.function_name()) ^ (std::uintptr_t{loc.line()} << 3) ^
                         reinterpret_cast<std::uintptr_t>(op);
        cache_slot& slot = cache_[(key >> 4 ^ key >> 12) & (cache_.size() - 1)];
        if (slot.fn == loc.function_name() && slot.line == loc.line() && slot.op == op)
            return slot.id;
        slot = {loc.function_name(), loc.line(), op, lookup(loc.function_name(), op)};
        return slot.id;
    }
    // The picoseconds of the instructions from `from` up to, not including,
    // the access `to`.
    std::uint64_t segment_ps(site_id from, site_id to)
    {
        if (from < cost_ps_.size() && to < cost_ps_[from].size() && cost_ps_[from][to] != unset)
            return cost_ps_[from][to];
        return resolve(from, to);
    }

    // A site's name, "function:op".
    const std::string& name(site_id s) const { return names_[s]; }
    // Every segment charged so far, by name, and whether the table counts it
    // (the site-coverage test, tests/sim/site_costs_test.cpp).
    const std::map<std::pair<std::string, std::string>, bool>& charged() const { return charged_; }
    // Start that record afresh (the costs are looked up again).
    void forget()
    {
        charged_.clear();
        cost_ps_.clear();
    }
    // The kernel function the compiler puts a model helper's accesses in.
    static const std::map<std::string, std::string>& kernel_inlined_into();
    // "function:op" of a table site ("futex_ref_get:atomic_long_read(mm->futex_atomic)"
    // gives "futex_ref_get:atomic_read").
    static std::string table_key(const std::string& site);
    // A site by name, as lookup() makes one (tests).
    site_id intern_for_test(const std::string& name) { return intern(name); }

private:
    static constexpr std::uint64_t unset = ~std::uint64_t{0};
    struct cache_slot {
        const char* fn = nullptr;
        unsigned line = 0;
        const char* op = nullptr;
        site_id id = 0;
    };
    site_id lookup(const char* function_name, const char* op);
    site_id intern(const std::string& name);
    std::uint64_t resolve(site_id from, site_id to);

    double ps_per_instruction_;
    std::uint64_t uncounted_ps_;
    // (from, to) names to the counted instructions of that segment, with
    // whether `to` is an access (not "exit").
    std::map<std::pair<std::string, std::string>, unsigned> counted_;
    std::vector<std::string> names_;
    std::map<std::string, site_id> ids_;
    std::vector<std::vector<std::uint64_t>> cost_ps_;
    std::map<std::pair<std::string, std::string>, bool> charged_;
    std::array<cache_slot, 1024> cache_{};
};

}  // namespace futexsim::sim
