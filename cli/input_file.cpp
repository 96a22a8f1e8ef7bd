#include "cli/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "cli/commands.h"
#include "cli/sweep_grid.h"

namespace futexsim::cli {

namespace {

// The name as it can be printed: bytes that are not UTF-8 as \xNN, so that
// the error line itself stays valid text.
std::string printable(const std::string& path)
{
    if (is_utf8(path))
        return path;
    std::string out;
    for (unsigned char c : path)
        out += c < 0x80 ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
    return out;
}

std::string kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

[[noreturn]] void refuse(const std::string& what, const std::string& path, const std::string& why)
{
    throw usage_error(fmt::format("{} '{}': {}", what, printable(path), why));
}

}  // namespace

bool is_utf8(const std::string& s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= s.size())  // cut short
            return false;
        for (std::size_t k = 1; k <= n; k++) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        // Overlong forms, surrogates and values past U+10FFFF, as nlohmann refuses them.
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

std::string read_input_file(const std::string& what, const std::string& path, std::size_t max_bytes)
{
    if (path.empty())
        throw usage_error(fmt::format("{}: an empty file name", what));
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the file is
    // refused just after, before anything is read.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        refuse(what, path, fmt::format("cannot read: {}", std::strerror(errno)));
    struct stat st = {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const std::string kind = fstat(fd, &st) == 0 ? kind_of(st.st_mode) : "cannot be examined";
        close(fd);
        refuse(what, path, fmt::format("is {}, not a regular file", kind));
    }
    if (static_cast<std::size_t>(st.st_size) > max_bytes) {
        close(fd);
        refuse(what, path, fmt::format("holds {} bytes, more than the {} read", st.st_size, max_bytes));
    }
    std::string text;
    text.reserve(static_cast<std::size_t>(st.st_size));
    char buf[65536];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            close(fd);
            refuse(what, path, fmt::format("cannot read: {}", std::strerror(err)));
        }
        if (n == 0)
            break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > max_bytes) {  // it grew while read
            close(fd);
            refuse(what, path, fmt::format("holds more than the {} bytes read", max_bytes));
        }
    }
    close(fd);
    return text;
}

CLI::Validator readable_file()
{
    return CLI::Validator(
        [](std::string& path) -> std::string {
            const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0)
                return fmt::format("'{}': cannot read: {}", printable(path), std::strerror(errno));
            struct stat st = {};
            const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
            close(fd);
            return regular ? ""
                           : fmt::format("'{}' is {}, not a regular file", printable(path),
                                         kind_of(st.st_mode));
        },
        "FILE");
}

machine read_machine_file(const std::string& what, const std::string& path,
                          const std::string& expected_hash)
{
    const std::string text = read_input_file(what, path, max_machine_file_bytes);
    if (!expected_hash.empty() && content_hash(text) != expected_hash)
        throw usage_error(
            fmt::format("{} {}: changed since the sweep read it (its content hash was {}, now {}): "
                        "restore it, then the same sweep resumes",
                        what, path, expected_hash, content_hash(text)));
    try {
        return parse_machine_json(text, path);
    } catch (const std::invalid_argument& e) {
        // The parser's "machine file: ..." names no file: name it, and the
        // flag, once ("machine file 'F' is not JSON" names it already).
        std::string why = e.what();
        for (const std::string& head :
             {std::string("machine file: "), "machine file '" + path + "' "})
            if (why.rfind(head, 0) == 0)
                why.erase(0, head.size());
        throw std::invalid_argument(fmt::format("{} {}: {}", what, path, why));
    }
}

bool path_exists(const std::string& path)
{
    struct stat st = {};
    return lstat(path.c_str(), &st) == 0;
}

void check_output_path(const std::string& what, const std::string& path)
{
    if (path.empty())
        throw usage_error(fmt::format("{}: an empty file name", what));
    struct stat st = {};
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        refuse(what, path, fmt::format("is {}, not a regular file", kind_of(st.st_mode)));
}

void check_utf8_name(const std::string& what, const std::string& path)
{
    if (!is_utf8(path))
        refuse(what, path, "the name is not UTF-8 (results name their files in JSON)");
}

std::size_t json_nesting_depth(const std::string& text)
{
    std::size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return deepest;
}

}  // namespace futexsim::cli
