/*
 * libinput's own in-process delivery latency for the side-by-side benchmark (checks/bench/side-by-side.sh).
 *
 *   libinput-latency DEVICE     opens DEVICE in a libinput path context (no seat, no udev enumeration) and,
 *                               until SIGTERM, dispatches and drains its events like a compositor does.
 *
 * Clock: libinput switches every device it opens to CLOCK_MONOTONIC (evdev.c: libevdev_set_clock_id), so
 * an event's libinput_event_*_get_time_usec is the kernel's CLOCK_MONOTONIC event time of the evdev frame
 * it came from. For every frame the program takes CLOCK_MONOTONIC when libinput hands out the frame's
 * first event (right after libinput_dispatch) minus that time: the same "kernel event time -> receipt"
 * the floor (evdev-floor read) and the multitouchd client (evdev-floor client) measure. Touchscreens give
 * touch events (one sample per TOUCH_FRAME's time); touchpads give pointer motion, scroll and gesture
 * events (one sample per distinct event time), since libinput never hands out a touchpad's touches.
 *
 * On SIGTERM it prints one line: events by kind, frames sampled, latency p50/p99/max in microseconds.
 * Its CPU time is measured from outside (/proc/PID/schedstat), like the other readers'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

#define MAX_SAMPLES (1 << 20)
static double *samples;
static size_t sample_count;

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int open_restricted(const char *path, int flags, void *data) {
    (void)data;
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static void close_restricted(int fd, void *data) {
    (void)data;
    close(fd);
}

static const struct libinput_interface interface = {
    .open_restricted = open_restricted,
    .close_restricted = close_restricted,
};

/* The event's time in microseconds (CLOCK_MONOTONIC), or 0 for kinds that carry none (device added). */
static uint64_t event_time(struct libinput_event *event, long long *touch, long long *pointer, long long *gesture) {
    enum libinput_event_type type = libinput_event_get_type(event);
    switch (type) {
    case LIBINPUT_EVENT_TOUCH_DOWN:
    case LIBINPUT_EVENT_TOUCH_UP:
    case LIBINPUT_EVENT_TOUCH_MOTION:
    case LIBINPUT_EVENT_TOUCH_CANCEL:
    case LIBINPUT_EVENT_TOUCH_FRAME:
        ++*touch;
        return libinput_event_touch_get_time_usec(libinput_event_get_touch_event(event));
    case LIBINPUT_EVENT_POINTER_MOTION:
    case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
    case LIBINPUT_EVENT_POINTER_BUTTON:
    case LIBINPUT_EVENT_POINTER_AXIS:
    case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL:
    case LIBINPUT_EVENT_POINTER_SCROLL_FINGER:
    case LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
        ++*pointer;
        return libinput_event_pointer_get_time_usec(libinput_event_get_pointer_event(event));
    case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN:
    case LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE:
    case LIBINPUT_EVENT_GESTURE_SWIPE_END:
    case LIBINPUT_EVENT_GESTURE_PINCH_BEGIN:
    case LIBINPUT_EVENT_GESTURE_PINCH_UPDATE:
    case LIBINPUT_EVENT_GESTURE_PINCH_END:
    case LIBINPUT_EVENT_GESTURE_HOLD_BEGIN:
    case LIBINPUT_EVENT_GESTURE_HOLD_END:
        ++*gesture;
        return libinput_event_gesture_get_time_usec(libinput_event_get_gesture_event(event));
    default:
        return 0;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: libinput-latency DEVICE\n"); return 2; }
    samples = malloc(sizeof *samples * MAX_SAMPLES);
    struct sigaction sa = {.sa_handler = on_term};  /* no SA_RESTART: poll returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    struct libinput *li = libinput_path_create_context(&interface, NULL);
    if (!li || !libinput_path_add_device(li, argv[1])) {
        fprintf(stderr, "libinput-latency: cannot open %s\n", argv[1]);
        return 1;
    }
    long long events = 0, touch = 0, pointer = 0, gesture = 0;
    uint64_t last_time = 0;
    struct pollfd pfd = {.fd = libinput_get_fd(li), .events = POLLIN};
    while (!stop) {
        if (poll(&pfd, 1, -1) < 0) continue; /* EINTR on SIGTERM */
        libinput_dispatch(li);
        struct libinput_event *event;
        while ((event = libinput_get_event(li))) {
            uint64_t received = now_us();
            uint64_t time = event_time(event, &touch, &pointer, &gesture);
            events++;
            /* One sample per evdev frame: its first event out of libinput. */
            if (time != 0 && time != last_time && sample_count < MAX_SAMPLES) {
                samples[sample_count++] = (double)(int64_t)(received - time);
                last_time = time;
            }
            libinput_event_destroy(event);
        }
    }
    qsort(samples, sample_count, sizeof *samples, compare);
    double p50 = sample_count ? samples[sample_count / 2] : -1;
    double p99 = sample_count ? samples[(size_t)((sample_count - 1) * 0.99)] : -1;
    double max = sample_count ? samples[sample_count - 1] : -1;
    printf("inproc events %lld touch %lld pointer %lld gesture %lld frames %zu p50_us %.1f p99_us %.1f max_us %.1f\n",
           events, touch, pointer, gesture, sample_count, p50, p99, max);
    fflush(stdout);
    libinput_unref(li);
    return 0;
}
