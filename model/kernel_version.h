// Which kernel's futex code the model follows, where versions differ in a
// function the model mirrors (docs/kernel-map.md, "Kernel versions").
//
// The choice is made per process (mm->futex_kernel), at run time, like the
// pivot policy: `futexsim run --kernel` and `futexsim replay --kernel`. Each
// function that differs tests it and carries both bodies, each commented
// with the commit it follows, so a diff can be carried across either way.
#pragma once

#include <optional>
#include <string_view>

namespace futexsim::model {

enum class kernel_version : unsigned char {
    // Linux v6.17: the private hash as first released (the default).
    v6_17,
    // Linux v7.2, as its 7.2.13 source reads (docs/kernel-map.md, "Linux
    // 7.2.13, read"), less d8aa5dd97944: 8e7ff730dd96 ("futex: Fix race in
    // futex_pivot_pending() during private hash resize", v7.2-rc7; 7.1.11,
    // 6.18.46), so futex_pivot_pending() reads under futex_hash_lock; and
    // __futex_pivot_hash() takes `batches` after publishing the new hash.
    v7_2,
    // Linux v7.2.1: v7.2 plus d8aa5dd97944 ("futex: Fix might_sleep()
    // warning in futex_pivot_pending()", v7.3-rc1; 7.2.1, 7.1.11): the wait
    // for it is an open-coded wait_woken() loop.
    v7_2_1,
};
// Other changes between v6.17 and these versions are not modelled
// (docs/kernel-map.md, "Kernel versions", lists them). Versions are ordered:
// `mm->futex_kernel >= kernel_version::v7_2` means "has v7.2's code".

inline constexpr kernel_version default_kernel_version = kernel_version::v6_17;

inline constexpr std::string_view kernel_version_names = "v6.17, v7.2, v7.2.1";

inline std::string_view kernel_version_name(kernel_version v)
{
    switch (v) {
    case kernel_version::v6_17:
        return "v6.17";
    case kernel_version::v7_2:
        return "v7.2";
    case kernel_version::v7_2_1:
        return "v7.2.1";
    }
    return "?";
}

inline std::optional<kernel_version> parse_kernel_version(std::string_view name)
{
    if (name == "v6.17")
        return kernel_version::v6_17;
    if (name == "v7.2")
        return kernel_version::v7_2;
    if (name == "v7.2.1")
        return kernel_version::v7_2_1;
    return std::nullopt;
}

}  // namespace futexsim::model
