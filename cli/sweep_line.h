// One line of a sweep's --out, checked before anyone believes it: `report`
// and a resuming `sweep` both read files a user may have edited by hand.
// A line that does not hold together (wrong types, a cell that is not one,
// an outcome no run prints, a negative throughput, nesting deep enough to
// exhaust the stack) is refused with the reason; the caller adds the file
// and line number.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace futexsim::cli {

// The deepest a result line nests: a cell and a run's bins are 3 levels.
inline constexpr std::size_t max_sweep_line_depth = 16;

// The parsed line, or std::invalid_argument naming what is wrong.
nlohmann::ordered_json parse_sweep_line(const std::string& line);

// The outcomes `run --json` prints.
bool is_run_outcome(const std::string& s);

// f(line_no, line) for each non-empty line of text[0, end), numbered from 1
// as an editor numbers them (a file of result lines, read whole).
template <class F>
void for_each_line(const std::string& text, std::size_t end, F f)
{
    std::size_t pos = 0, line_no = 0;
    while (pos < end) {
        const std::size_t stop = text.find('\n', pos);
        const std::string line = text.substr(pos, stop - pos);
        pos = stop + 1;
        line_no++;
        if (!line.empty())
            f(line_no, line);
    }
}

}  // namespace futexsim::cli
