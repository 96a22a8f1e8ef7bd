// The machine presets' JSON, compiled in (CMake writes
// embedded_presets.cpp from machine/presets/*.json at configure time), so
// that the installed binary needs no data path.
#pragma once

#include <string_view>
#include <vector>

namespace futexsim {

struct embedded_preset {
    std::string_view name;  // the file's name without .json: what --machine takes
    std::string_view json;
};

// In machine/CMakeLists.txt's order.
const std::vector<embedded_preset>& embedded_machine_presets();

}  // namespace futexsim
