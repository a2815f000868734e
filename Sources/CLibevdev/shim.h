#ifndef MULTITOUCHD_CLIBEVDEV_SHIM_H
#define MULTITOUCHD_CLIBEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <sys/signalfd.h>

/* Seconds and microseconds of an input_event: the field is `time` (struct timeval) on 64-bit and
 * `__sec`/`__usec` on 32-bit with 64-bit time_t; the kernel header hides that behind these macros,
 * which Swift cannot import. */
static inline long long multitouchd_event_sec(const struct input_event *ev) { return (long long)ev->input_event_sec; }
static inline long long multitouchd_event_usec(const struct input_event *ev) { return (long long)ev->input_event_usec; }
static inline void multitouchd_event_set_time(struct input_event *ev, long long sec, long long usec) {
    ev->input_event_sec = sec;
    ev->input_event_usec = usec;
}
#endif
