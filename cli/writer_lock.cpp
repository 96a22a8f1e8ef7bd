#include "cli/writer_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli/commands.h"

namespace futexsim::cli {

writer_lock::writer_lock(const std::string& what, const std::string& path, const std::string& shown)
{
    const std::string& name = shown.empty() ? path : shown;
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw usage_error(
            fmt::format("{} {}: cannot open for writing: {}", what, name, std::strerror(errno)));
    struct flock lk = {};
    lk.l_type = F_WRLCK;
    lk.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long it grows
    if (fcntl(fd_, F_OFD_SETLK, &lk) == 0)
        return;
    const int err = errno;
    close(fd_);
    fd_ = -1;
    if (err == EAGAIN || err == EACCES)
        throw usage_error(fmt::format("{} {}: another futexsim is writing it (the same command "
                                      "started twice?); wait for it or use another "
                                      "path",
                                      what, name));
    throw usage_error(fmt::format("{} {}: cannot lock: {}", what, name, std::strerror(err)));
}

writer_lock::~writer_lock()
{
    if (fd_ >= 0)
        close(fd_);
}

}  // namespace futexsim::cli
