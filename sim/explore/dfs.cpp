#include "sim/explore/dfs.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace futexsim::sim::explore {

namespace {

// A step that sleeps: a candidate and what its step touched when it ran.
struct sleeper {
    std::uint32_t id;
    step_footprint fp;
};

// One scheduling point on the current path.
struct node {
    std::vector<std::uint32_t> cands;
    std::vector<bool> timer;
    std::vector<bool> done;
    std::size_t chosen = 0;
    std::vector<sleeper> sleep;     // asleep on entry: never taken here
    std::vector<sleeper> explored;  // taken here already, with their steps
    unsigned preemptions = 0;       // spent before this point
    std::int64_t last = -1;         // the task of the last step before it (-1: none)
    std::size_t fp_index = 0;       // the step taken here: footprints[fp_index]
};

bool asleep(const std::vector<sleeper>& s, std::uint32_t id)
{
    return std::any_of(s.begin(), s.end(), [id](const sleeper& z) { return z.id == id; });
}

class dfs {
public:
    dfs(const run_config& cfg, const xcase& c, const dfs_options& opt) : cfg_(cfg), case_(c), opt_(opt)
    {
        cfg_.timing_choices = true;
        cfg_.strategy.kind = strategy_kind::replay;
        cfg_.strategy.schedule.clear();
        hooks_.choose = [this](const choice_point& p) { return choose(p); };
        hooks_.final_state = opt.collect_final_states;
    }

    dfs_result run()
    {
        for (;;) {
            if ((opt_.max_executions && result_.executions + result_.pruned >= opt_.max_executions) ||
                (opt_.interrupted && opt_.interrupted())) {
                result_.complete = false;
                return result_;
            }
            depth_ = 0;
            run_outcome out = explore_case(cfg_, case_, {}, &hooks_);
            result_.longest = std::max(result_.longest, out.steps);
            // What the step taken at each point touched, for its siblings.
            for (node& n : stack_)
                chosen_fp(n) = n.fp_index < out.footprints.size() ? out.footprints[n.fp_index]
                                                                  : step_footprint{-2, true, {}};
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
                    return result_;
                }
            }
            if (!backtrack())
                return result_;
        }
    }

private:
    // The footprint of the step last taken at `n` (kept beside explored).
    step_footprint& chosen_fp(node& n) { return chosen_fps_[static_cast<std::size_t>(&n - stack_.data())]; }

    unsigned cost(const node& n, std::size_t i) const
    {
        const std::uint32_t c = n.cands[i];
        if (c == gp_end_candidate || n.last < 0 || c == static_cast<std::uint32_t>(n.last))
            return 0;
        // A switch away from the last task while it could go on.
        for (std::size_t j = 0; j < n.cands.size(); j++)
            if (n.cands[j] == static_cast<std::uint32_t>(n.last) && !n.timer[j])
                return 1;
        return 0;
    }

    bool within_bound(const node& n, std::size_t i) const
    {
        return opt_.max_preemptions == unbounded_preemptions || n.preemptions + cost(n, i) <= opt_.max_preemptions;
    }

    // The next candidate to take at `n`: not taken yet, not asleep, within
    // the bound; the last task first (no preemption), then in order. Trying
    // the task that goes on first keeps a sibling that preempts it from
    // putting it to sleep in its subtree, where taking it back would cost
    // a second preemption (the pitfall of sleep sets under a preemption
    // bound, Musuvathi and Qadeer 2007).
    std::optional<std::size_t> next(node& n, bool count_cuts)
    {
        std::optional<std::size_t> pick;
        for (std::size_t i = 0; i < n.cands.size(); i++) {
            if (n.done[i] || asleep(n.sleep, n.cands[i]))
                continue;
            if (!within_bound(n, i)) {
                if (count_cuts)
                    ++result_.preemption_cuts;
                continue;
            }
            if (!pick || (n.last >= 0 && n.cands[i] == static_cast<std::uint32_t>(n.last) && !n.timer[i]))
                pick = i;
        }
        return pick;
    }

    std::optional<std::size_t> choose(const choice_point& p)
    {
        const std::size_t k = depth_++;
        if (k < stack_.size()) {
            const node& n = stack_[k];
            if (n.cands != p.candidates)
                throw std::logic_error("explore_dfs: a replayed prefix offered other candidates (the run is not "
                                       "deterministic)");
            return n.chosen;
        }
        node n;
        n.cands = p.candidates;
        n.timer = p.timer;
        n.done.assign(n.cands.size(), false);
        n.fp_index = p.so_far.size();
        if (k > 0) {
            const node& parent = stack_[k - 1];
            const std::uint32_t took = parent.cands[parent.chosen];
            n.preemptions = parent.preemptions + cost(parent, parent.chosen);
            n.last = took == gp_end_candidate ? parent.last : static_cast<std::int64_t>(took);
            if (opt_.reduction) {
                // Asleep here: what slept at the parent or was taken there
                // before, and commutes with every step since.
                auto keep = [&](const sleeper& z) {
                    if (z.id == took)
                        return false;
                    for (std::size_t s = parent.fp_index; s < p.so_far.size(); s++)
                        if (dependent(z.fp, p.so_far[s]))
                            return false;
                    return true;
                };
                for (const sleeper& z : parent.sleep)
                    if (keep(z))
                        n.sleep.push_back(z);
                for (const sleeper& z : parent.explored)
                    if (keep(z))
                        n.sleep.push_back(z);
            }
        }
        // Only the first visit of a point counts the choices the bound cuts.
        const std::optional<std::size_t> pick = next(n, true);
        if (!pick)
            return std::nullopt;  // every candidate within the bound is asleep: explored elsewhere
        n.chosen = *pick;
        stack_.push_back(std::move(n));
        chosen_fps_.emplace_back();
        return *pick;
    }

    // The deepest point with a candidate left; false when there is none.
    bool backtrack()
    {
        while (!stack_.empty()) {
            node& n = stack_.back();
            n.done[n.chosen] = true;
            if (opt_.reduction)
                n.explored.push_back(sleeper{n.cands[n.chosen], chosen_fp(n)});
            if (const auto i = next(n, false)) {
                n.chosen = *i;
                return true;
            }
            stack_.pop_back();
            chosen_fps_.pop_back();
        }
        return false;
    }

    run_config cfg_;
    const xcase& case_;
    const dfs_options& opt_;
    run_hooks hooks_;
    std::vector<node> stack_;
    std::vector<step_footprint> chosen_fps_;  // by depth: the step taken there in the last run
    std::size_t depth_ = 0;
    dfs_result result_;
};

// Every case with one operation fewer that is still a case replay accepts:
// every thread keeps an operation, and one C per thread but the main one.
std::vector<xcase> smaller_cases(const xcase& c)
{
    std::vector<xcase> out;
    for (std::size_t t = 0; t < c.threads.size(); t++)
        for (std::size_t i = 0; i < c.threads[t].ops.size(); i++) {
            xcase d = c;
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

dfs_result explore_dfs(const run_config& cfg, const xcase& c, const dfs_options& opt)
{
    return dfs(cfg, c, opt).run();
}

dfs_shrunk shrink_dfs_failure(const run_config& cfg, const xcase& c, const dfs_options& opt, std::uint64_t budget)
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
        for (const xcase& d : smaller_cases(best.c)) {
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
