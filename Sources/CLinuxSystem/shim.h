#ifndef MULTITOUCHD_CLINUXSYSTEM_SHIM_H
#define MULTITOUCHD_CLINUXSYSTEM_SHIM_H
/* Linux event-loop system calls that Swift's Glibc module does not export: epoll, timerfd, signalfd,
   and SO_PEERCRED's struct ucred (which glibc hides behind _GNU_SOURCE; defining that here would change
   the socket declarations Swift sees, so the struct is spelled out below). Header-only. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <grp.h>

/* SO_PEERCRED's struct, spelled out so it is visible whatever the include order. */
struct multitouchd_ucred { int pid; unsigned int uid; unsigned int gid; };

/* accept4 without an address (its sockaddr argument is awkward to pass as NULL from Swift). */
static inline int multitouchd_accept(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }
#endif
