#include "sim/schedule.h"

#include <charconv>

namespace futexsim::sim {

std::size_t schedule_strategy::pick(const std::vector<std::uint32_t>& candidates)
{
    if (candidates.size() < 2)
        return 0;
    const std::uint64_t point = points_++;
    const std::size_t choice =
        point < prefix_.size() ? prefix_[point] % candidates.size() : choose(candidates, point);
    recorded_.push_back(static_cast<unsigned>(choice));
    return choice;
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
