// The model's shared words on the simulator's cache lines: each access
// charges the kernel's instructions since the task's previous one (the
// site table, sim/timed/site_costs.h) and then costs a local hit or a
// queued transfer (cache_model), and a spin re-reads a word after each
// write to its line. sim_env (sim/timed/sim_env.h) stands on it and maps
// the model's environment (model/env.h) onto these accesses.
#pragma once

#include <cstdint>
#include <source_location>
#include <vector>

#include "model/atomic.h"
#include "sim/timed/cache.h"
#include "sim/timed/engine.h"
#include "sim/timed/site_costs.h"

namespace futexsim::sim {

class line_memory {
public:
    template <class T>
    struct word {
        T v{};
        cache_line* line = nullptr;
    };
    struct percpu_uint {
        std::vector<unsigned> v;
    };
    using where = std::source_location;

protected:
    line_memory(engine& e, cache_model& c)
        : eng_(e), cache_(c), sites_(e.mach()), hit_ns_(static_cast<vtime>(e.mach().local_hit_ns)),
          rmw_ns_(static_cast<vtime>(e.mach().local_rmw_ns))
    {
    }
    line_memory(const line_memory&) = delete;
    line_memory& operator=(const line_memory&) = delete;

    // A spin's reads as the site table names them (sim/timed/site_costs.h,
    // "function:op" string literals): the loop's first load, the re-read
    // before each wait (arm64's __cmpwait_relaxed(), whose ldxr arms the
    // monitor that WFE waits on; x86's next turn's load, after cpu_relax())
    // and the load after the wait (its own site: the compilers peel the
    // first load off the loop, so the first turn's way differs from the
    // later ones').
    struct spin_sites {
        const char* load;
        const char* cmpwait;
        const char* again;
    };
    // smp_cond_load_acquire() and its relaxed and atomic_cond_read_*()
    // forms: spin until `done(value)` holds, re-reading the word after each
    // write to its line (arm64 waits in WFE for that same event). A spin
    // bounded by the kernel (`max_waits`: the hand-over wait's
    // _Q_PENDING_LOOPS) gives up after that many waits with the last value.
    template <class T, class Done>
    T smp_cond_load_acquire(word<T>& w, Done done, spin_sites at, long max_waits = -1)
    {
        const auto read = [this, &w](const char* name) {
            return access(w, false, named_site(name), [](word<T>& x) { return x.v; });
        };
        T v = read(at.load);
        while (!done(v)) {
            cache_.spin_prepare(*w.line);
            v = read(at.cmpwait);
            if (done(v)) {
                cache_.spin_cancel(*w.line);
                break;
            }
            eng_.spin_wait();
            v = read(at.again);
            if (max_waits >= 0 && --max_waits == 0)
                break;
        }
        return v;
    }

    // The site of an access: outside a task (set-up, teardown) none is needed.
    site_costs::site_id site(const where& loc, const char* op)
    {
        return eng_.in_task() ? sites_.id(loc, op) : site_costs::exit;
    }
    site_costs::site_id named_site(const char* name)
    {
        return eng_.in_task() ? sites_.named(name) : site_costs::exit;
    }
    // The instructions since the task's previous access, in whole
    // nanoseconds; the picoseconds left over are carried to its next one.
    vtime site_charge(site_costs::site_id s)
    {
        task& t = eng_.current();
        const std::uint64_t ps =
            sites_.segment_ps(t.last_site, s) + t.site_carry_ps;  // moves last_site on
        t.site_carry_ps = static_cast<std::uint32_t>(ps % 1000);
        return static_cast<vtime>(ps / 1000);
    }
    // A per-CPU counter's add: always its own CPU's line.
    void percpu_charge(site_costs::site_id s)
    {
        if (eng_.in_task() && !eng_.tearing_down())
            eng_.charge(site_charge(s) + hit_ns_);
    }
    template <class T>
    T add_return(word<T>& w, T delta, site_costs::site_id s)
    {
        return access(w, true, s, [delta](word<T>& x) {
            x.v = static_cast<T>(
                model::wrapping_add(static_cast<long>(x.v), static_cast<long>(delta)));
            return x.v;
        });
    }

    // The model's every shared-word access. The instructions since the last
    // memory operation are charged first; that charge may yield (the tick,
    // the end of the run-ahead), so the line is looked at only after it. A
    // hit on a quiet line is the common case and is inlined into the
    // model's code; the rest is access_charged().
    template <class T, class Op>
    [[gnu::always_inline]] auto access(word<T>& w, bool is_write, site_costs::site_id s, Op op)
        -> decltype(op(w))
    {
        // Set-up, teardown and unwinding touch memory outside simulated time.
        if (!eng_.in_task() || eng_.tearing_down()) [[unlikely]]
            return op(w);
        eng_.charge(site_charge(s));
        cache_line* l = w.line;
        if (l && quiet(*l) && cache_model::quiet_hit(*l, eng_.cpu(), is_write))
            return take_hit(w, *l, is_write, is_write ? rmw_ns_ : hit_ns_, op);
        return access_charged(w, is_write, op);
    }

    // An access whose instructions are charged: a first touch, a line that
    // is contended or in flight, or a miss.
    template <class T, class Op>
    [[gnu::noinline]] auto access_charged(word<T>& w, bool is_write, Op& op) -> decltype(op(w))
    {
        if (eng_.tearing_down())  // the charge above may have begun the teardown
            return op(w);
        if (!w.line)
            w.line = &cache_.line_for(&w);
        cache_line& l = *w.line;
        // A contended line, or one in flight within the lookahead, changes
        // under pending events: catch up first.
        if (!quiet(l))
            eng_.sync();
        if (cache_.hit(l, eng_.cpu(), is_write))
            return take_hit(w, l, is_write, is_write ? rmw_ns_ : hit_ns_, op);
        using R = decltype(op(w));
        struct ctx {
            word<T>* w;
            Op* op;
            R out;
        } c{&w, &op, R{}};
        cache_.access(
            l, is_write,
            [](void* p) {
                auto* cc = static_cast<ctx*>(p);
                cc->out = (*cc->op)(*cc->w);
            },
            &c);
        return c.out;
    }

    // No waiters, no service due, nothing in flight within the lookahead:
    // pending events cannot change the line before the task's clock.
    [[gnu::always_inline]] bool quiet(const cache_line& l) const
    {
        return l.waiters.empty() && !l.service_scheduled &&
               l.busy_until <= eng_.now() - eng_.lookahead();
    }

    // A hit: counted; a write takes the line and the access takes effect
    // at once, together (a spinner the write releases must find the new
    // value), then `cost` is charged. Charged before taking effect, a
    // charge that yields would let a released spinner read the old value
    // and go back to spinning on a write that has already happened.
    template <class T, class Op>
    [[gnu::always_inline]] auto take_hit(word<T>& w, cache_line& l, bool is_write, vtime cost,
                                         Op& op) -> decltype(op(w))
    {
        ++cache_.stats().hits;
        if (is_write)
            cache_.local_write(l, eng_.cpu());
        auto out = op(w);
        eng_.charge(cost);
        return out;
    }

    engine& eng_;
    cache_model& cache_;
    site_costs sites_;
    // A hit's cost, and a per-CPU counter's add (always its own CPU's line).
    const vtime hit_ns_;
    const vtime rmw_ns_;
};

}  // namespace futexsim::sim
