// Which memory model the explorer runs the model under (docs/testing.md,
// "Weak memory"): sequential consistency (every store seen by every CPU at
// once, the default), x86-TSO (a store waits in its CPU's FIFO store
// buffer), or arm64 (stores to different words leave the buffer in any
// order that a barrier, a release or a fully ordered atomic allows).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace futexsim::sim::explore {

enum class memory_model : std::uint8_t { sc, tso, arm64 };

inline std::string_view memory_model_name(memory_model m)
{
    switch (m) {
    case memory_model::tso:
        return "tso";
    case memory_model::arm64:
        return "arm64";
    case memory_model::sc:
        break;
    }
    return "sc";
}

inline std::optional<memory_model> parse_memory_model(std::string_view s)
{
    for (memory_model m : {memory_model::sc, memory_model::tso, memory_model::arm64})
        if (s == memory_model_name(m))
            return m;
    return std::nullopt;
}

}  // namespace futexsim::sim::explore
