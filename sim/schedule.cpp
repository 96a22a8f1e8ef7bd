#include "sim/schedule.h"

#include <algorithm>
#include <charconv>

namespace futexsim::sim {

schedule_strategy::schedule_strategy(const strategy_options& opt) : opt_(opt), rng_(opt.seed)
{
    if (opt_.kind == strategy_kind::pct) {
        // d - 1 change points, uniform over the expected number of steps.
        const std::uint64_t range = std::max<std::uint64_t>(1, opt_.pct_steps);
        for (unsigned i = 1; i < opt_.pct_depth; i++)
            change_points_.push_back(1 + rng_.below(range));
        std::sort(change_points_.begin(), change_points_.end());
        next_low_ = static_cast<long>(opt_.pct_depth);
    }
}

std::size_t schedule_strategy::pick(const std::vector<std::uint32_t>& candidates)
{
    if (candidates.size() < 2)
        return 0;
    const std::uint64_t point = points_++;
    std::size_t choice = 0;
    if (point < opt_.schedule.size()) {
        choice = opt_.schedule[point] % candidates.size();
    } else {
        switch (opt_.kind) {
        case strategy_kind::fifo:
        case strategy_kind::replay:
            choice = 0;
            break;
        case strategy_kind::random:
            choice = rng_.below(candidates.size());
            break;
        case strategy_kind::pct:
            choice = pick_pct(candidates);
            break;
        }
    }
    recorded_.push_back(static_cast<unsigned>(choice));
    return choice;
}

// The highest priority runs; at a change point it drops below everyone.
std::size_t schedule_strategy::pick_pct(const std::vector<std::uint32_t>& candidates)
{
    for (std::uint32_t id : candidates)
        if (!priority_.count(id))  // a new task: a random priority above every change point's
            priority_[id] = static_cast<long>(opt_.pct_depth) + 1 +
                            static_cast<long>(rng_.below(1u << 20));
    auto best = [&] {
        std::size_t b = 0;
        for (std::size_t i = 1; i < candidates.size(); i++)
            if (priority_[candidates[i]] > priority_[candidates[b]])
                b = i;
        return b;
    };
    std::size_t b = best();
    while (!change_points_.empty() && change_points_.front() <= points_) {
        change_points_.erase(change_points_.begin());
        priority_[candidates[b]] = --next_low_;  // below every other priority
        b = best();
    }
    return b;
}

std::optional<strategy_kind> parse_strategy(std::string_view name)
{
    for (strategy_kind k : {strategy_kind::fifo, strategy_kind::random, strategy_kind::pct,
                            strategy_kind::replay})
        if (strategy_name(k) == name)
            return k;
    return std::nullopt;
}

std::string_view strategy_name(strategy_kind k)
{
    switch (k) {
    case strategy_kind::fifo: return "fifo";
    case strategy_kind::random: return "random";
    case strategy_kind::pct: return "pct";
    case strategy_kind::replay: return "replay";
    }
    return "?";
}

std::optional<std::vector<unsigned>> parse_schedule(std::string_view text)
{
    std::vector<unsigned> out;
    if (text.empty())
        return out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t comma = text.find(',', pos);
        const std::string_view item = text.substr(pos, comma == std::string_view::npos ? text.size() - pos : comma - pos);
        unsigned v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size())
            return std::nullopt;
        out.push_back(v);
        if (comma == std::string_view::npos)
            return out;
        pos = comma + 1;
    }
}

std::string format_schedule(const std::vector<unsigned>& choices)
{
    std::string s;
    for (unsigned c : choices) {
        if (!s.empty())
            s += ',';
        s += std::to_string(c);
    }
    return s;
}

}  // namespace futexsim::sim
