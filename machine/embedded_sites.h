// experiments/kernel/sites-7.2.13.json, compiled in (machine/CMakeLists.txt),
// so that the binary needs no data path.
#pragma once

#include <string_view>

namespace futexsim {

std::string_view embedded_kernel_sites_json();

}  // namespace futexsim
