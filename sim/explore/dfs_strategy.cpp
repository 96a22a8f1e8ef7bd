#include "sim/explore/dfs_strategy.h"

#include <algorithm>
#include <stdexcept>

#include "sim/explore/explore_env.h"

namespace futexsim::sim::explore {

namespace {

// One run's strategy: every point is the tree's to decide, one candidate
// or many, since a point where every candidate sleeps ends the run.
class dfs_strategy final : public schedule_strategy {
public:
    dfs_strategy(dfs_tree& tree, const explore_env& env)
        : schedule_strategy({}), tree_(tree), env_(env)
    {
    }

    std::optional<std::size_t> pick_or_stop(const std::vector<std::uint32_t>& candidates) override
    {
        std::vector<bool> timer(candidates.size(), false);
        for (std::size_t i = 0; i < candidates.size(); i++)
            timer[i] = is_task_candidate(candidates[i]) &&
                       env_.tasks()[candidate_task(candidates[i])]->state == task_state::blocked;
        const std::optional<std::size_t> pick = tree_.choose(candidates, timer, env_.footprints());
        if (pick && candidates.size() >= 2)
            record(*pick);
        return pick;
    }

protected:
    // Never asked: pick_or_stop() decides every point.
    std::size_t choose(const std::vector<std::uint32_t>&, std::uint64_t) override { return 0; }

private:
    dfs_tree& tree_;
    const explore_env& env_;
};

}  // namespace

std::unique_ptr<schedule_strategy> dfs_tree::strategy_for(const explore_env& env)
{
    begin_run();
    return std::make_unique<dfs_strategy>(*this, env);
}

void dfs_tree::run_ended(const std::vector<step_footprint>& footprints)
{
    for (node& n : stack_)
        n.chosen_fp =
            n.fp_index < footprints.size() ? footprints[n.fp_index] : step_footprint{-2, true, {}};
}

bool dfs_tree::asleep(const std::vector<sleeper>& s, std::uint32_t id)
{
    return std::any_of(s.begin(), s.end(), [id](const sleeper& z) { return z.id == id; });
}

unsigned dfs_tree::cost(const node& n, std::size_t i) const
{
    const std::uint32_t c = n.cands[i];
    if (!is_task_candidate(c) || n.last < 0 || candidate_task(c) == static_cast<std::uint32_t>(n.last))
        return 0;
    // A switch away from the last task while it could go on.
    for (std::size_t j = 0; j < n.cands.size(); j++)
        if (n.cands[j] == static_cast<std::uint32_t>(n.last) && !n.timer[j])
            return 1;
    return 0;
}

bool dfs_tree::within_bound(const node& n, std::size_t i) const
{
    return max_preemptions_ == unbounded_preemptions ||
           n.preemptions + cost(n, i) <= max_preemptions_;
}

// The next candidate to take at `n`: not taken yet, not asleep, within the
// bound; the last task first (no preemption), then in order. Trying the
// task that goes on first keeps a sibling that preempts it from putting it
// to sleep in its subtree, where taking it back would cost a second
// preemption (the pitfall of sleep sets under a preemption bound,
// Musuvathi and Qadeer 2007).
std::optional<std::size_t> dfs_tree::next(node& n, bool count_cuts)
{
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < n.cands.size(); i++) {
        if (n.done[i] || asleep(n.sleep, n.cands[i]))
            continue;
        if (!within_bound(n, i)) {
            if (count_cuts)
                ++preemption_cuts_;
            continue;
        }
        if (!pick ||
            (n.last >= 0 && n.cands[i] == static_cast<std::uint32_t>(n.last) && !n.timer[i]))
            pick = i;
    }
    return pick;
}

std::optional<std::size_t> dfs_tree::choose(const std::vector<std::uint32_t>& candidates,
                                            const std::vector<bool>& timer,
                                            const std::vector<step_footprint>& so_far)
{
    const std::size_t k = depth_++;
    if (k < stack_.size()) {
        const node& n = stack_[k];
        if (n.cands != candidates)
            throw std::logic_error(
                "explore_dfs: a replayed prefix offered other candidates (the run is not "
                "deterministic)");
        return n.chosen;
    }
    node n;
    n.cands = candidates;
    n.timer = timer;
    n.done.assign(n.cands.size(), false);
    n.fp_index = so_far.size();
    if (k > 0) {
        const node& parent = stack_[k - 1];
        const std::uint32_t took = parent.cands[parent.chosen];
        n.preemptions = parent.preemptions + cost(parent, parent.chosen);
        n.last = !is_task_candidate(took) ? parent.last : static_cast<std::int64_t>(candidate_task(took));
        if (reduction_) {
            // Asleep here: what slept at the parent or was taken there
            // before, and commutes with every step since.
            auto keep = [&](const sleeper& z) {
                if (z.id == took)
                    return false;
                for (std::size_t s = parent.fp_index; s < so_far.size(); s++)
                    if (dependent(z.fp, so_far[s]))
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
    return *pick;
}

bool dfs_tree::backtrack()
{
    while (!stack_.empty()) {
        node& n = stack_.back();
        n.done[n.chosen] = true;
        if (reduction_)
            n.explored.push_back(sleeper{n.cands[n.chosen], n.chosen_fp});
        if (const auto i = next(n, false)) {
            n.chosen = *i;
            return true;
        }
        stack_.pop_back();
    }
    return false;
}

}  // namespace futexsim::sim::explore
