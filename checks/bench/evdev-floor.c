/*
 * The side-by-side benchmark's two small C programs in one (checks/bench/side-by-side.sh):
 *
 *   evdev-floor read DEVICE     the floor: a bare libevdev read loop that does nothing with the events.
 *                               Until SIGTERM it reads, counts events and frames and takes the latency
 *                               of every SYN_REPORT (CLOCK_MONOTONIC now - the kernel event time).
 *   evdev-floor client SOCKET   a multitouchd client: subscribes to touches, gestures and devices, reads
 *                               lines, counts the gesture messages, and for every "touches" line takes
 *                               now - its "time" (the kernel event time of the frame).
 *
 * On SIGTERM each prints one line: count, then latency p50/p99/max in microseconds. Its own CPU time
 * is measured from outside (/proc/PID/schedstat), like the other readers'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

#define MAX_SAMPLES (1 << 20)
static double *samples;
static size_t sample_count;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sample(double latency_us) {
    if (sample_count < MAX_SAMPLES) samples[sample_count++] = latency_us;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, long long events, long long frames) {
    qsort(samples, sample_count, sizeof *samples, compare);
    double p50 = sample_count ? samples[sample_count / 2] : -1;
    double p99 = sample_count ? samples[(size_t)((sample_count - 1) * 0.99)] : -1;
    double max = sample_count ? samples[sample_count - 1] : -1;
    printf("%s events %lld frames %lld latency_samples %zu p50_us %.1f p99_us %.1f max_us %.1f\n", what, events, frames,
           sample_count, p50, p99, max);
    fflush(stdout);
}

static int read_loop(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) { fprintf(stderr, "evdev-floor: %s: %s\n", path, strerror(errno)); return 1; }
    struct libevdev *dev;
    int rc = libevdev_new_from_fd(fd, &dev);
    if (rc < 0) { fprintf(stderr, "evdev-floor: libevdev: %s\n", strerror(-rc)); return 1; }
    libevdev_set_clock_id(dev, CLOCK_MONOTONIC);
    long long events = 0, frames = 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (!stop) {
        if (poll(&pfd, 1, -1) < 0) continue;  /* EINTR on SIGTERM */
        struct input_event ev;
        unsigned flag = LIBEVDEV_READ_FLAG_NORMAL;
        while ((rc = libevdev_next_event(dev, flag, &ev)) >= 0) {
            flag = rc == LIBEVDEV_READ_STATUS_SYNC ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL;
            events++;
            if (ev.type == EV_SYN && ev.code == SYN_REPORT) {
                frames++;
                sample(now_us() - (ev.input_event_sec * 1e6 + ev.input_event_usec));
            }
        }
    }
    report("floor", events, frames);
    return 0;
}

static int client_loop(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        fprintf(stderr, "evdev-floor: connect %s: %s\n", path, strerror(errno));
        return 1;
    }
    const char *subscribe = "{\"type\":\"subscribe\",\"streams\":[\"touches\",\"gestures\",\"devices\"]}\n";
    if (write(fd, subscribe, strlen(subscribe)) < 0) return 1;
    static char buffer[1 << 20];
    size_t used = 0;
    long long lines = 0, frames = 0, gestures = 0;
    while (!stop) {
        ssize_t n = read(fd, buffer + used, sizeof buffer - used - 1);
        if (n <= 0) { if (n < 0 && errno == EINTR) continue; break; }
        double received = now_us();
        used += (size_t)n;
        buffer[used] = 0;
        char *start = buffer, *end;
        while ((end = memchr(start, '\n', used - (size_t)(start - buffer)))) {
            *end = 0;
            lines++;
            char *t = strstr(start, "\"time\":");
            if (t && strstr(start, "\"type\":\"touches\"")) {
                frames++;
                sample(received - strtod(t + 7, NULL) * 1e6);
            } else if (strstr(start, "\"type\":\"gesture")) {
                gestures++;
            }
            start = end + 1;
        }
        used -= (size_t)(start - buffer);
        memmove(buffer, start, used);
        if (used >= sizeof buffer - 1) used = 0;  /* a line longer than 1 MiB: drop it */
    }
    report("client", lines, frames);
    printf("client_gestures %lld\n", gestures);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: evdev-floor read DEVICE | client SOCKET\n"); return 2; }
    samples = malloc(sizeof *samples * MAX_SAMPLES);
    struct sigaction sa = {.sa_handler = on_term};  /* no SA_RESTART: poll/read return EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (!strcmp(argv[1], "read")) return read_loop(argv[2]);
    if (!strcmp(argv[1], "client")) return client_loop(argv[2]);
    fprintf(stderr, "usage: evdev-floor read DEVICE | client SOCKET\n");
    return 2;
}
