// pct: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010).
// Each task gets a random priority above every change point's; the highest
// runs; at each of d - 1 change points, drawn uniformly over the expected
// number of steps, the task about to run drops below every other.
#include <algorithm>
#include <map>

#include "sim/rng.h"
#include "sim/strategies/strategies.h"

namespace futexsim::sim {

namespace {

class pct_strategy final : public schedule_strategy {
public:
    explicit pct_strategy(const strategy_options& opt)
        : schedule_strategy(opt.schedule), depth_(opt.pct_depth), rng_(opt.seed), next_low_(opt.pct_depth)
    {
        const std::uint64_t range = std::max<std::uint64_t>(1, opt.pct_steps);
        for (unsigned i = 1; i < depth_; i++)
            change_points_.push_back(1 + rng_.below(range));
        std::sort(change_points_.begin(), change_points_.end());
    }

private:
    std::size_t choose(const std::vector<std::uint32_t>& candidates, std::uint64_t point) override
    {
        for (std::uint32_t id : candidates)
            if (!priority_.count(id))  // a new task
                priority_[id] = static_cast<long>(depth_) + 1 + static_cast<long>(rng_.below(1u << 20));
        std::size_t b = highest(candidates);
        // Change points count points from 1.
        while (!change_points_.empty() && change_points_.front() <= point + 1) {
            change_points_.erase(change_points_.begin());
            priority_[candidates[b]] = --next_low_;  // below every other priority
            b = highest(candidates);
        }
        return b;
    }

    std::size_t highest(const std::vector<std::uint32_t>& candidates)
    {
        std::size_t b = 0;
        for (std::size_t i = 1; i < candidates.size(); i++)
            if (priority_[candidates[i]] > priority_[candidates[b]])
                b = i;
        return b;
    }

    unsigned depth_;
    rng64 rng_;
    long next_low_;                              // the next demoted priority
    std::map<std::uint32_t, long> priority_;     // by task id
    std::vector<std::uint64_t> change_points_;  // sorted
};

}  // namespace

std::unique_ptr<schedule_strategy> make_pct_strategy(const strategy_options& opt)
{
    return std::make_unique<pct_strategy>(opt);
}

}  // namespace futexsim::sim
