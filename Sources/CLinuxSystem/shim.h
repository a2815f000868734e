#ifndef MULTITOUCHD_CLINUXSYSTEM_SHIM_H
#define MULTITOUCHD_CLINUXSYSTEM_SHIM_H
/* Linux event-loop system calls that Swift's Glibc module does not export: epoll, timerfd, signalfd,
   and struct ucred for SO_PEERCRED (needs _GNU_SOURCE). Header-only: no library to link. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <grp.h>

/* SO_PEERCRED's struct, spelled out so it is visible whatever the include order. */
struct multitouchd_ucred { int pid; unsigned int uid; unsigned int gid; };
#endif
