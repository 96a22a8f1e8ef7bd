#include "sim/explore/dfs.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace futexsim::sim::explore {

namespace {

// The search: runs one after another, each with the tree's strategy, until
// the tree has no point with a candidate left.
class dfs {
public:
    dfs(const run_config& cfg, const case_spec& c, const dfs_options& opt)
        : cfg_(cfg), case_(c), opt_(opt), tree_(opt.max_preemptions, opt.reduction)
    {
        cfg_.timing_choices = true;
        cfg_.strategy.kind = strategy_kind::replay;
        cfg_.strategy.schedule.clear();
        hooks_.search = &tree_;
        hooks_.final_state = opt.collect_final_states;
    }

    dfs_result run()
    {
        for (;;) {
            if ((opt_.max_executions && result_.executions + result_.pruned >= opt_.max_executions) ||
                (opt_.interrupted && opt_.interrupted())) {
                result_.complete = false;
                return finished();
            }
            run_outcome out = explore_case(cfg_, case_, {}, &hooks_);
            result_.longest = std::max(result_.longest, out.steps);
            tree_.run_ended(out.footprints);
            if (out.stopped) {
                ++result_.pruned;
            } else {
                ++result_.executions;
                if (!out.violation && out.steps >= cfg_.max_steps)
                    ++result_.at_step_bound;
                if (opt_.collect_final_states)
                    result_.final_states.insert(out.final_state);
                if (out.violation) {
                    run_config failing = cfg_;
                    failing.strategy.schedule = out.schedule;
                    // Replay takes the first candidate past its prefix.
                    while (!failing.strategy.schedule.empty() && failing.strategy.schedule.back() == 0)
                        failing.strategy.schedule.pop_back();
                    result_.failing = failing;
                    result_.failure = std::move(out);
                    return finished();
                }
            }
            if (!tree_.backtrack())
                return finished();
        }
    }

private:
    dfs_result finished()
    {
        result_.preemption_cuts = tree_.preemption_cuts();
        return result_;
    }

    run_config cfg_;
    const case_spec& case_;
    const dfs_options& opt_;
    dfs_tree tree_;
    run_hooks hooks_;
    dfs_result result_;
};

// Every case with one operation fewer that is still a case replay accepts:
// every thread keeps an operation, and one C per thread but the main one.
std::vector<case_spec> smaller_cases(const case_spec& c)
{
    std::vector<case_spec> out;
    for (std::size_t t = 0; t < c.threads.size(); t++)
        for (std::size_t i = 0; i < c.threads[t].ops.size(); i++) {
            case_spec d = c;
            const bool create = d.threads[t].ops[i].kind == 'C';
            d.threads[t].ops.erase(d.threads[t].ops.begin() + static_cast<std::ptrdiff_t>(i));
            if (create) {  // the last thread goes with its C
                if (d.threads.size() < 2 || d.threads.back().ops.size() > 1 || t + 1 == d.threads.size())
                    continue;
                d.threads.pop_back();
            }
            if (d.threads[t].ops.empty())
                continue;
            out.push_back(std::move(d));
        }
    return out;
}

}  // namespace

dfs_result explore_dfs(const run_config& cfg, const case_spec& c, const dfs_options& opt)
{
    return dfs(cfg, c, opt).run();
}

dfs_shrunk shrink_dfs_failure(const run_config& cfg, const case_spec& c, const dfs_options& opt, std::uint64_t budget)
{
    dfs_options o = opt;
    o.max_executions = budget;
    o.collect_final_states = false;
    dfs_shrunk best;
    best.c = c;
    // The fewest preemptions that find it.
    const unsigned most = opt.max_preemptions == unbounded_preemptions ? 8 : opt.max_preemptions;
    for (unsigned p = 0; p <= most; p++) {
        o.max_preemptions = p;
        ++best.attempts;
        dfs_result r = explore_dfs(cfg, c, o);
        if (r.failure) {
            best.preemptions = p;
            best.result = std::move(r);
            break;
        }
        if (p == most) {  // not within the budget: keep what the caller found
            o.max_preemptions = opt.max_preemptions;
            best.preemptions = opt.max_preemptions;
            best.result = explore_dfs(cfg, c, opt);
            return best;
        }
    }
    // Then fewer operations, while the search still finds one.
    for (bool smaller = true; smaller;) {
        smaller = false;
        for (const case_spec& d : smaller_cases(best.c)) {
            if (opt.interrupted && opt.interrupted())
                return best;
            ++best.attempts;
            dfs_result r = explore_dfs(cfg, d, o);
            if (r.failure) {
                best.c = d;
                best.result = std::move(r);
                smaller = true;
                break;
            }
        }
    }
    return best;
}

std::string dfs_bounds_text(const run_config& cfg, const dfs_options& opt)
{
    return fmt::format("preemptions <= {}, grace periods ended by choice <= {}, steps <= {}, reduction {}",
                       opt.max_preemptions == unbounded_preemptions ? std::string("any")
                                                                    : std::to_string(opt.max_preemptions),
                       cfg.max_gp_ends, cfg.max_steps, opt.reduction ? "on (sleep sets)" : "off");
}

}  // namespace futexsim::sim::explore
