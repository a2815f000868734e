#ifndef MULTITOUCHD_CLINUXSYSTEM_SHIM_H
#define MULTITOUCHD_CLINUXSYSTEM_SHIM_H
/* Linux event-loop system calls that Swift's Glibc module does not export: epoll, timerfd, signalfd,
   malloc_trim,
   and SO_PEERCRED's struct ucred (which glibc hides behind _GNU_SOURCE; defining that here would change
   the socket declarations Swift sees, so the struct is spelled out below). Header-only. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <grp.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <malloc.h>

/* SO_PEERCRED's struct, spelled out so it is visible whatever the include order. */
struct multitouchd_ucred { int pid; unsigned int uid; unsigned int gid; };

/* accept4 without an address (its sockaddr argument is awkward to pass as NULL from Swift). */
static inline int multitouchd_accept(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }
/* renameat2(..., RENAME_NOREPLACE) through syscall(2): glibc declares renameat2 only under _GNU_SOURCE.
   -1 with errno set; EINVAL where the filesystem does not support the flag. */
static inline int multitouchd_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, 1u /* RENAME_NOREPLACE */);
}
/* O_PATH (open a directory to use as a dirfd without read permission), also _GNU_SOURCE-only. */
static const int multitouchd_O_PATH = __O_PATH;
#endif
