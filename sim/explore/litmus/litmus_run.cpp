// The litmus runner (litmus_run.h): a depth-first search over every
// schedule of the test's threads, each run on a fresh explorer whose
// strategy the search tree drives, as `futexsim replay --strategy dfs`
// does for a futex case.
#include "sim/explore/litmus/litmus_run.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/explore/dfs_strategy.h"
#include "sim/explore/explore_env.h"

namespace futexsim::sim::explore {

namespace {

// The test's memory and registers, kept at one address across runs so that
// the search's footprints name the same variable alike in every run.
struct litmus_memory {
    std::vector<explore_env::word<long>> vars;
    std::vector<explore_env::spinlock_t> locks;
    std::vector<std::vector<long>> regs;
};

void run_thread(explore_env& env, const litmus_thread& th, std::vector<long>& regs,
                litmus_memory& mem)
{
    for (const litmus_stmt& st : th.body) {
        explore_env::word<long>* w =
            st.var >= 0 ? &mem.vars[static_cast<std::size_t>(st.var)] : nullptr;
        const long v = st.src_reg >= 0 && st.kind != litmus_kind::read_deref
                           ? regs[static_cast<std::size_t>(st.src_reg)]
                           : st.value;
        long* out = st.reg >= 0 ? &regs[static_cast<std::size_t>(st.reg)] : nullptr;
        switch (st.kind) {
        case litmus_kind::read:
            *out = env.atomic_read(*w);
            break;
        case litmus_kind::read_acquire:
            *out = env.smp_load_acquire(*w);
            break;
        case litmus_kind::rcu_dereference:
            *out = env.rcu_dereference(*w);
            break;
        case litmus_kind::read_deref: {
            const long p = regs[static_cast<std::size_t>(st.src_reg)];
            if (p < 1 || static_cast<std::size_t>(p) > mem.vars.size()) {
                env.fail(fmt::format("a dereference of {}, which is no variable's address", p));
                return;
            }
            *out = env.atomic_read(mem.vars[static_cast<std::size_t>(p - 1)]);
            break;
        }
        case litmus_kind::atomic_add_return:
            *out = env.atomic_add_return(*w, v);
            break;
        case litmus_kind::xchg: {  // a fully ordered exchange: the cmpxchg that succeeds
            long old = env.atomic_read(*w);
            while (!env.atomic_try_cmpxchg(*w, old, v)) {
            }
            *out = old;
            break;
        }
        case litmus_kind::cmpxchg: {  // returns the value it found
            long old = st.value;
            env.atomic_try_cmpxchg(*w, old, st.value2);
            *out = old;
            break;
        }
        case litmus_kind::write:
            env.atomic_set(*w, v);
            break;
        case litmus_kind::write_release:
        case litmus_kind::assign_pointer:  // rcu_assign_pointer() is a release
            env.smp_store_release(*w, v);
            break;
        case litmus_kind::atomic_inc:
            env.atomic_inc(*w);
            break;
        case litmus_kind::atomic_dec:
            env.atomic_dec(*w);
            break;
        case litmus_kind::mb:
            env.smp_mb();
            break;
        case litmus_kind::wmb:
            env.smp_wmb();
            break;
        case litmus_kind::rmb:
            env.smp_rmb();
            break;
        case litmus_kind::mb_after_atomic:
        case litmus_kind::mb_before_atomic:
            env.smp_mb__after_atomic();  // the same barrier on both architectures
            break;
        case litmus_kind::mb_after_spinlock:
            env.smp_mb__after_spinlock();
            break;
        case litmus_kind::lock:
            env.spin_lock(mem.locks[static_cast<std::size_t>(st.var)]);
            break;
        case litmus_kind::unlock:
            env.spin_unlock(mem.locks[static_cast<std::size_t>(st.var)]);
            break;
        case litmus_kind::rcu_lock:
            env.rcu_read_lock();
            break;
        case litmus_kind::rcu_unlock:
            env.rcu_read_unlock();
            break;
        case litmus_kind::sync_rcu:
            env.synchronize_rcu();
            break;
        }
    }
}

std::string outcome_text(const litmus_test& t, const litmus_memory& mem)
{
    std::string s;
    for (std::size_t i = 0; i < t.threads.size(); i++)
        for (std::size_t r = 0; r < t.threads[i].regs.size(); r++)
            s += fmt::format("{}:{}={} ", i, t.threads[i].regs[r], mem.regs[i][r]);
    for (std::size_t v = 0; v < t.vars.size(); v++)
        if (!t.is_lock[v])
            s += fmt::format("{}={} ", t.vars[v], mem.vars[v].v);
    if (!s.empty())
        s.pop_back();
    return s;
}

bool clause_holds(const litmus_test& t, const litmus_memory& mem)
{
    for (const litmus_atom& a : t.exists) {
        const long have =
            a.thread >= 0
                ? mem.regs[static_cast<std::size_t>(a.thread)][static_cast<std::size_t>(a.index)]
                : mem.vars[static_cast<std::size_t>(a.index)].v;
        if (have != a.value)
            return false;
    }
    return true;
}

}  // namespace

litmus_verdict run_litmus(const litmus_test& t, memory_model m, std::uint64_t max_executions, bool reduction)
{
    litmus_verdict out;
    litmus_memory mem;
    mem.vars.resize(t.vars.size());
    mem.locks.resize(t.vars.size());
    mem.regs.resize(t.threads.size());
    dfs_tree tree(unbounded_preemptions, reduction);
    bool uses_rcu = false;
    for (const litmus_thread& th : t.threads)
        for (const litmus_stmt& st : th.body)
            uses_rcu = uses_rcu || st.kind == litmus_kind::rcu_lock || st.kind == litmus_kind::sync_rcu;
    do {
        for (std::size_t v = 0; v < t.vars.size(); v++) {
            mem.vars[v].v = t.init[v];
            mem.locks[v].owner = -1;
        }
        for (std::size_t i = 0; i < t.threads.size(); i++)
            mem.regs[i].assign(t.threads[i].regs.size(), 0);
        explore_env::config c;
        c.cpus = static_cast<unsigned>(t.threads.size());
        c.max_steps = 100'000;
        c.timing_choices = true;  // grace periods end as choices (synchronize_rcu())
        c.max_gp_ends = uses_rcu ? 2 : 0;  // a grace period's end is a choice only where it matters
        c.record_footprints = true;
        c.memory = m;
        explore_env env(c);
        env.use_strategy(tree.strategy_for(env));
        for (std::size_t i = 0; i < t.threads.size(); i++)
            env.spawn(fmt::format("P{}", i), static_cast<unsigned>(i),
                      [&env, &t, &mem, i] { run_thread(env, t.threads[i], mem.regs[i], mem); });
        env.run();
        tree.run_ended(env.footprints());
        if (!env.stopped_by_strategy()) {
            ++out.executions;
            if (env.violation())
                throw std::runtime_error(fmt::format("litmus {}: {}", t.name, *env.violation()));
            out.outcomes.insert(outcome_text(t, mem));
            if (clause_holds(t, mem))
                out.result = litmus_result::sometimes;
        }
        env.shutdown();
        if (out.executions >= max_executions) {
            out.complete = false;
            break;
        }
    } while (tree.backtrack());
    return out;
}

}  // namespace futexsim::sim::explore
