// include/uapi/asm-generic/errno-base.h, errno.h and include/linux/errno.h
// (Linux 7.2.13): the errno values the model returns, negated as the kernel
// returns them. Their own file so that model/rtmutex.h, which futex.h
// includes, can name them too.
#pragma once

namespace futexsim::model {

// errno values as the kernel returns them (negated)
inline constexpr int EINVAL_ = 22;
inline constexpr int EBUSY_ = 16;
inline constexpr int ENOMEM_ = 12;
inline constexpr int EFAULT_ = 14;
inline constexpr int EAGAIN_ = 11;
inline constexpr int EWOULDBLOCK_ = EAGAIN_;
inline constexpr int ENOSYS_ = 38;
inline constexpr int ETIMEDOUT_ = 110;
inline constexpr int EPERM_ = 1;
inline constexpr int ESRCH_ = 3;
inline constexpr int ERESTARTSYS_ = 512;  // kernel-internal, never seen by user space

}  // namespace futexsim::model
