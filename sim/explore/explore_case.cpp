#include "sim/explore/explore_case.h"

#include <charconv>

namespace futexsim::sim::explore {

std::string format_op(const case_op& op)
{
    const std::string a = std::to_string(op.a), b = std::to_string(op.b), n = std::to_string(op.n);
    switch (op.kind) {
    case 'W': return "W" + a;
    case 'M': return "M" + a;
    case 'T': return "T" + a + ":" + n;
    case 'K': return "K" + a + ":" + n;
    case 'V': return "V" + a + ":" + n;
    case 'O': return "O" + a + ":" + b;
    case 'R': return "R" + a + ":" + b + ":" + n;
    case 'L': return "L" + a;
    case 'U': return "U" + a;
    case 'Y': return "Y" + a;
    case 'Q': return "Q" + a + ":" + b + (op.n ? ":" + n : "");  // :n, a timeout
    case 'X': return "X" + a + ":" + b + ":" + n;
    case 'P': return "P" + n;
    case 'S': return "S" + n;
    default: return std::string(1, op.kind);
    }
}

std::string format_case(const case_spec& c)
{
    std::string s;
    for (std::size_t t = 0; t < c.threads.size(); t++) {
        if (t)
            s += '/';
        for (std::size_t i = 0; i < c.threads[t].ops.size(); i++) {
            if (i)
                s += '.';
            s += format_op(c.threads[t].ops[i]);
        }
        if (c.threads[t].loop)
            s += '*';
    }
    return s;
}

std::size_t case_size(const case_spec& c)
{
    std::size_t n = 0;
    for (const auto& t : c.threads)
        n += t.ops.size();
    return n;
}

namespace {

bool parse_numbers(std::string_view text, std::vector<unsigned>& out)
{
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t colon = text.find(':', pos);
        const std::string_view item = text.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos);
        unsigned v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size())
            return false;
        out.push_back(v);
        if (colon == std::string_view::npos)
            return true;
        pos = colon + 1;
    }
    return false;
}

std::optional<case_op> parse_op(std::string_view text, std::string& why)
{
    if (text.empty()) {
        why = "an empty operation";
        return std::nullopt;
    }
    case_op op;
    op.kind = text[0];
    std::vector<unsigned> nums;
    const std::string_view rest = text.substr(1);
    if (!rest.empty() && !parse_numbers(rest, nums)) {
        why = "bad numbers in '" + std::string(text) + "'";
        return std::nullopt;
    }
    auto want = [&](std::size_t n) {
        if (nums.size() != n)
            why = "'" + std::string(text) + "' takes " + std::to_string(n) + " number(s)";
        return nums.size() == n;
    };
    auto word_ok = [&](unsigned w) {
        if (w >= num_words)
            why = "word " + std::to_string(w) + " in '" + std::string(text) + "' (words are 0-" +
                  std::to_string(num_words - 1) + ")";
        return w < num_words;
    };
    switch (op.kind) {
    case 'W': case 'M': case 'L': case 'U': case 'Y':
        if (!want(1) || !word_ok(nums[0])) return std::nullopt;
        op.a = nums[0];
        return op;
    case 'T': case 'K': case 'V':
        if (!want(2) || !word_ok(nums[0])) return std::nullopt;
        op.a = nums[0];
        op.n = nums[1];
        return op;
    case 'O':
        if (!want(2) || !word_ok(nums[0]) || !word_ok(nums[1])) return std::nullopt;
        op.a = nums[0];
        op.b = nums[1];
        return op;
    case 'Q':  // Q<a>:<b>, or Q<a>:<b>:<n> with a timeout of n steps (n >= 1)
        if (nums.size() != 2 && nums.size() != 3) {
            why = "'" + std::string(text) + "' takes 2 or 3 number(s)";
            return std::nullopt;
        }
        if (!word_ok(nums[0]) || !word_ok(nums[1])) return std::nullopt;
        if (nums.size() == 3 && nums[2] == 0) {
            why = "'" + std::string(text) + "': a timeout is at least 1 step (leave it out for none)";
            return std::nullopt;
        }
        op.a = nums[0];
        op.b = nums[1];
        op.n = nums.size() == 3 ? nums[2] : 0;
        return op;
    case 'R': case 'X':
        if (!want(3) || !word_ok(nums[0]) || !word_ok(nums[1])) return std::nullopt;
        op.a = nums[0];
        op.b = nums[1];
        op.n = nums[2];
        return op;
    case 'P': case 'S':
        if (!want(1)) return std::nullopt;
        op.n = nums[0];
        return op;
    case 'G': case 'C':
        if (!want(0)) return std::nullopt;
        return op;
    default:
        why = "unknown operation '" + std::string(1, op.kind) + "'";
        return std::nullopt;
    }
}

}  // namespace

std::optional<case_spec> parse_case(std::string_view text, std::string* error)
{
    std::string why;
    case_spec c;
    std::size_t pos = 0;
    while (true) {
        const std::size_t slash = text.find('/', pos);
        std::string_view t = text.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
        case_thread th;
        if (!t.empty() && t.back() == '*') {
            th.loop = true;
            t.remove_suffix(1);
        }
        std::size_t p = 0;
        while (!t.empty() && p <= t.size()) {
            const std::size_t dot = t.find('.', p);
            const auto op = parse_op(t.substr(p, dot == std::string_view::npos ? std::string_view::npos : dot - p), why);
            if (!op) {
                if (error)
                    *error = why;
                return std::nullopt;
            }
            th.ops.push_back(*op);
            if (dot == std::string_view::npos)
                break;
            p = dot + 1;
        }
        if (th.loop && th.ops.empty()) {
            if (error)
                *error = "a looping thread with no operations";
            return std::nullopt;
        }
        c.threads.push_back(std::move(th));
        if (slash == std::string_view::npos)
            break;
        pos = slash + 1;
    }
    if (c.threads.empty() || c.threads.size() > 16) {
        if (error)
            *error = "a case has 1 to 16 threads";
        return std::nullopt;
    }
    return c;
}

}  // namespace futexsim::sim::explore
