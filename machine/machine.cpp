// The machine description's own queries, the presets and CPU lists.
#include "machine/machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "machine/embedded_presets.h"

namespace futexsim {

double machine::idle_exit_ns(double idle_ns) const
{
    double exit = 0;
    for (const idle_state& st : idle_states)
        if (st.target_residency_ns <= idle_ns)
            exit = st.exit_latency_ns;
    return exit;
}

unsigned kernel_default_fqs_jiffies(unsigned hz, unsigned num_cpus)
{
    return 1 + (hz > 250 ? 1 : 0) + (hz > 500 ? 1 : 0) + num_cpus / 256;
}

unsigned machine::num_nodes() const
{
    unsigned n = 0;
    for (const auto& c : cpus)
        n = std::max(n, c.node + 1);
    return n;
}


std::vector<std::string> machine_preset_names()
{
    std::vector<std::string> names = {"host"};
    for (const auto& p : embedded_machine_presets())
        names.emplace_back(p.name);
    return names;
}

machine load_machine_preset(const std::string& name)
{
    if (name == "host")
        return read_host_machine();
    for (const auto& p : embedded_machine_presets())
        if (p.name == name)
            return parse_machine_json(std::string(p.json), "preset " + name);
    std::string valid;
    for (const auto& n : machine_preset_names())
        valid += (valid.empty() ? "" : ", ") + n;
    throw std::invalid_argument(fmt::format("unknown machine '{}' (valid: {})", name, valid));
}

std::vector<unsigned> parse_cpu_list(const std::string& list, unsigned num_cpus)
{
    // Every element must be there and name CPUs once: "0-1," and "0,0-3"
    // are more likely typos than requests.
    if (list.empty())
        throw std::invalid_argument("empty CPU list (give CPUs, e.g. 0-3,8)");
    std::vector<unsigned> out;
    auto parse_num = [&](const std::string& s) {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument(fmt::format("bad CPU list '{}': '{}' is not a CPU number (0-{})", list, s,
                                                    num_cpus - 1));
        const unsigned long v = std::stoul(s);
        if (v >= num_cpus)
            throw std::invalid_argument(
                fmt::format("CPU {} in '{}' does not exist (this machine has CPUs 0-{})", v, list, num_cpus - 1));
        return static_cast<unsigned>(v);
    };
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = list.find(',', from);
        const std::string part = list.substr(from, comma == std::string::npos ? comma : comma - from);
        if (part.empty())
            throw std::invalid_argument(fmt::format("bad CPU list '{}': empty element", list));
        const auto dash = part.find('-');
        const unsigned lo = parse_num(part.substr(0, dash));
        const unsigned hi = dash == std::string::npos ? lo : parse_num(part.substr(dash + 1));
        if (lo > hi)
            throw std::invalid_argument(fmt::format("bad CPU list '{}': range {} is backwards", list, part));
        for (unsigned c = lo; c <= hi; c++)
            out.push_back(c);
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    std::sort(out.begin(), out.end());
    if (const auto dup = std::adjacent_find(out.begin(), out.end()); dup != out.end())
        throw std::invalid_argument(fmt::format("bad CPU list '{}': CPU {} is listed twice", list, *dup));
    return out;
}

}  // namespace futexsim
