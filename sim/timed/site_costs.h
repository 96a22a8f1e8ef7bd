// What the kernel's own instructions cost between two of the model's
// accesses to shared words: the segment from the task's previous access to
// this one, counted in the compiled 7.2.13 (machine/kernel_sites.h), at the
// machine's kernel_cpi / core_ghz. An access is named as the site table
// names it, "function:op": the model function the access is in (where the
// compiler inlines a model helper into a kernel function, that function:
// kernel_inlined_into below) and the environment call, `_long` dropped.
//
// One pair of names can end segments of different lengths on different
// paths (the bucket unlock, then the put: 17 instructions after a
// mismatched FUTEX_WAIT, 15 after a queued one, 18 after a FUTEX_WAKE's
// wake_up_q()). So a segment is looked up by its path: the system call
// and every site the task has charged since it began, as the table's paths
// run. Off those paths (an operation not walked), a pair every FUTEX_WAKE
// and FUTEX_WAIT path counts alike costs that count, and any other segment
// the build's mean counted segment over those paths (kernel_path_in_mean():
// the FUTEX_CMP_REQUEUE and FUTEX_WAKE_OP paths price their own operations
// only).
//
// The bucket lock's slow path is a detour inside one path segment: its
// accesses, from the fast path's failed cmpxchg to the last, are the lock-*
// paths' segments, each looked up by its pair of sites (the slow path
// reads one word at several sites, so the spins name theirs: named()); a
// spin's re-read is a segment of its own, one loop turn. When the slow path
// returns, the task is back where the fast path's cmpxchg left it on its
// path, charged the slow path's tail less the fast path's (lock_return()).
// A loop turn the model takes on a path (futex_ref_get()'s cmpxchg retry,
// a loop-* path) costs its counted turn and keeps the task on its path.
//
// The access itself (a hit, a transfer, a barrier) is the cache model's
// and the environment's to charge, not this: a segment's count includes
// its final access instruction, which is taken off here.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "machine/kernel_sites.h"
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
        slot = {loc.function_name(), loc.line(), op, lookup_call_site(loc.function_name(), loc.line(), op)};
        return slot.id;
    }
    // Where a system call named `syscall` ("FUTEX_WAIT") starts: on its
    // paths' first segment if the table has paths for it, else at `entry`.
    site_id syscall_entry(const std::string& syscall);
    // The same for a name with static storage (a string literal: every
    // system call's sim_env::syscall_begins()): looked up once per literal,
    // then from a list, as id() is; the lookup above builds and compares
    // path strings, which was a tenth of a latched run's time.
    site_id syscall_entry(const char* syscall)
    {
        return by_literal(entry_cache_, syscall, [&] { return syscall_entry(std::string(syscall)); });
    }
    // The picoseconds of the instructions from `at` (where the task is: a
    // site, or a site on a path) up to, not including, the access `to`;
    // `at` moves to `to`.
    std::uint64_t segment_ps(site_id& at, site_id to)
    {
        if (at < segments_.size() && to < segments_[at].size()) {
            const segment& s = segments_[at][to];
            if (s.ps != unset) {
                at = s.next;
                return s.ps;
            }
        }
        return resolve(at, to);
    }

    // A site named in full, "function:op" (a string literal): the slow
    // path's spin reads, which one call site of the spin loop makes for
    // every spin. Looked up once per literal.
    site_id named(const char* name)
    {
        return by_literal(named_cache_, name, [&] { return intern(name); });
    }
    // The bucket lock's slow path has returned to the lock's caller: the
    // picoseconds of its tail after its last access `at` (a lock-* path's
    // segment to its exit) less the fast path's tail after its cmpxchg
    // (lock-fast's), which the caller's path segment from `resume` (where
    // the fast path's cmpxchg left the task) already counts; `at` moves
    // back to `resume`.
    std::uint64_t lock_return_ps(site_id& at, site_id resume);

    // A site's name, "function:op" (on a path: the path so far).
    const std::string& name(site_id s) const { return names_[s]; }
    // Every segment charged so far, by name, and whether the table counted
    // it there: on the path the task was on, as a lock-* segment (a slow
    // path's return to its caller as its last site to "exit"), or as a
    // loop-* turn (the site-coverage tests, tests/sim/site_costs_test.cpp).
    const std::map<std::pair<std::string, std::string>, bool>& charged() const { return charged_; }
    // Start that record afresh (the costs are looked up again).
    void forget()
    {
        charged_.clear();
        segments_.clear();
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
    // A site looked up by a string literal's address: a few per table.
    struct literal_slot {
        const char* literal;
        site_id id;
    };
    template <class Lookup>
    static site_id by_literal(std::vector<literal_slot>& cache, const char* literal, Lookup lookup)
    {
        for (const literal_slot& e : cache)
            if (e.literal == literal)
                return e.id;
        const site_id id = lookup();
        cache.push_back({literal, id});
        return id;
    }
    struct call_site {
        const char* fn;
        unsigned line;
        const char* op;
        bool operator==(const call_site&) const = default;
    };
    struct call_site_hash {
        std::size_t operator()(const call_site& c) const
        {
            return std::hash<const void*>{}(c.fn) * 31 + std::hash<const void*>{}(c.op) * 7 + c.line;
        }
    };
    // id() when its cache does not have the call site: from every call site
    // seen so far, or lookup(). Two sites sharing a slot of the cache take
    // turns in it, and lookup() builds and compares strings (reproducer 2's
    // latched run spent 7% of its time there).
    site_id lookup_call_site(const char* function_name, unsigned line, const char* op);
    site_id lookup(const char* function_name, const char* op);
    site_id intern(const std::string& name);
    site_id intern_on_path(const std::string& path_so_far, site_id site);
    std::uint64_t resolve(site_id& at, site_id to);
    void add_lock_segment(const kernel_site_segment& s);
    template <class Map, class Key>
    static bool add_same(Map& m, const Key& k, unsigned instructions);
    std::uint64_t ps_of(site_id to, unsigned instructions) const;

    double ps_per_instruction_;
    std::uint64_t uncounted_ps_;
    // A path so far ("FUTEX_WAIT>entry>__futex_hash:atomic_read>...") and
    // the next site's name to that segment's counted instructions.
    std::map<std::pair<std::string, std::string>, unsigned> on_path_;
    // (from, to) names to the instructions every path counts there alike
    // (nullopt: paths differ).
    std::map<std::pair<std::string, std::string>, std::optional<unsigned>> pair_;
    std::set<std::string> syscalls_;  // those with paths
    // lock-* paths: (from, to) to the instructions, the slow path's tail to
    // the lock's return by its last site, and lock-fast's tail after the
    // fast path's cmpxchg.
    std::map<std::pair<std::string, std::string>, unsigned> lock_;
    std::map<std::string, unsigned> lock_exit_;
    std::optional<unsigned> fast_tail_;
    // loop-* paths: a site to the instructions of one turn back to it.
    std::map<std::string, unsigned> loop_turn_;
    std::vector<std::string> names_;
    std::vector<site_id> site_of_;  // a name's site: itself, or a path's last
    std::map<std::string, site_id> ids_;
    // A segment resolved: its cost, and where the task is after it. By the
    // site it starts at, then the access it ends at; cost and next side by
    // side, one load chain on every access.
    struct segment {
        std::uint64_t ps = unset;
        site_id next = 0;
    };
    std::vector<std::vector<segment>> segments_;
    std::map<std::pair<std::string, std::string>, bool> charged_;
    std::array<cache_slot, 1024> cache_{};
    std::unordered_map<call_site, site_id, call_site_hash> call_sites_;
    std::vector<literal_slot> entry_cache_;  // syscall_entry(const char*)'s, a few system calls
    std::vector<literal_slot> named_cache_;  // named()'s, a few sites
};

}  // namespace futexsim::sim
