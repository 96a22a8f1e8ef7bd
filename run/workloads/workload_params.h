// A workload's own flags: each workload declares them (name, default,
// range, help) in its workload_def, the command line (cli/) is built from
// those declarations, and a run carries the values given for them in
// run_options::params.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace futexsim {

// One flag, --NAME VALUE, that only its workload takes.
struct workload_flag {
    enum class kind : unsigned char {
        whole,   // a whole number in [lo, hi]
        choice,  // one of `choices`
        text,    // anything `check` accepts
    };
    std::string name;  // without the dashes: "locks" is --locks
    kind type = kind::text;
    std::string fallback;       // the value when the flag is not given
    bool show_default = true;   // false: --help shows no default (the fallback means "not asked")
    std::uint64_t lo = 0, hi = 0;
    std::vector<std::string> choices;
    // kind::text: throws std::invalid_argument, one line naming the flag,
    // for a value the workload cannot take.
    std::function<void(const std::string&)> check;
    std::string help;
};

workload_flag whole_flag(std::string name, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi,
                         std::string help);
workload_flag choice_flag(std::string name, std::string fallback, std::vector<std::string> choices,
                          std::string help);
workload_flag text_flag(std::string name, std::string fallback, std::function<void(const std::string&)> check,
                        std::string help);

// The values given for a run's workload flags, by name (without the
// dashes), as text: what the command line passed on, or what a test set.
// A flag not given takes its workload_flag::fallback (workload_context).
class workload_params {
public:
    void set(const std::string& name, std::string value) { given_[name] = std::move(value); }
    bool given(const std::string& name) const { return given_.count(name) > 0; }
    const std::string* find(const std::string& name) const
    {
        const auto it = given_.find(name);
        return it == given_.end() ? nullptr : &it->second;
    }

private:
    std::map<std::string, std::string> given_;
};

}  // namespace futexsim
