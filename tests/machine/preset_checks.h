// What a preset that ships must be, beyond what the parser checks: every
// parameter it sets names its source, and rcu_fqs_jiffies is left to the
// kernel's default and says so. For the shipped presets
// (tests/machine/preset_test.cpp) and docs/extending.md's example
// (tests/docs/).
#pragma once

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace futexsim::test {

inline void check_preset_sources(const nlohmann::json& j)
{
    const auto& sources = j.at("sources");
    for (const auto& [key, value] : j.items()) {
        if (key == "name" || key == "description" || key == "sources")
            continue;
        if (key == "transfer_ns") {
            for (const auto& [sub, _] : value.items())
                CHECK(sources.contains("transfer_ns." + sub));
            continue;
        }
        INFO(key);
        CHECK(sources.contains(key));
    }
    // Left out so that the parser takes the kernel's default, and said so.
    CHECK_FALSE(j.contains("rcu_fqs_jiffies"));
    CHECK(sources.contains("rcu_fqs_jiffies"));
}

}  // namespace futexsim::test
