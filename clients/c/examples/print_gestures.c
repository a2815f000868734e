/*
 * Prints multitouchd's gestures and applies each gesture's matrix to a point of the content, the
 * way a map view would: cc -o print_gestures print_gestures.c $(pkg-config --cflags multitouchd)
 *
 *     print_gestures [SOCKET]
 *
 * Waits with poll() on mtd_fd() and reads with mtd_read_nonblocking(), as a GUI loop would.
 * Exits 0 when the daemon closes the connection, 1 on an error.
 */
#define MULTITOUCHD_IMPLEMENTATION
#include "multitouchd.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static const char *phase_name(enum mtd_phase p) {
    switch (p) {
    case MTD_PHASE_BEGAN: return "began";
    case MTD_PHASE_MOVED: return "moved";
    case MTD_PHASE_STATIONARY: return "stationary";
    case MTD_PHASE_CHANGED: return "changed";
    case MTD_PHASE_ENDED: return "ended";
    case MTD_PHASE_CANCELLED: return "cancelled";
    case MTD_PHASE_NONE: break;
    }
    return "?";
}

/* One line per message of interest; returns 0 to stop (device removed), 1 to go on. */
static int print_message(const mtd_message *m) {
    double x, y;
    switch (m->type) {
    case MTD_GESTURE:
        /* Where the content point (10, 20) is drawn now. */
        mtd_apply(m->matrix, 10, 20, &x, &y);
        printf("gesture %ld %s %s fingers=%d scale=%.4f rotation=%.4f matrix=[%g,%g,%g,%g,%g,%g] (10,20)->(%.4f,%.4f)\n",
               m->seq, mtd_mode_name(m->mode), phase_name(m->phase), m->fingers, m->scale,
               m->rotation, m->matrix[0], m->matrix[1], m->matrix[2], m->matrix[3], m->matrix[4], m->matrix[5], x, y);
        break;
    case MTD_SESSION: printf("session %ld %s\n", m->session, phase_name(m->phase)); break;
    case MTD_TOUCHES:
        printf("touches device=%d fingers=%d count=%d first=%ld:%s\n", m->device, m->fingers, m->touch_count,
               m->touch_count ? m->touches[0].id : 0L, m->touch_count ? phase_name(m->touches[0].phase) : "-");
        break;
    case MTD_TAP: printf("tap x%d at (%.1f, %.1f)\n", m->tap_count, m->location[0], m->location[1]); break;
    case MTD_DEVICE_ADDED:
        printf("device %d added: %s (%.1f x %.1f %s)\n", m->device, m->text, m->width, m->height, m->units);
        break;
    case MTD_DEVICE_REMOVED: printf("device %d removed (%s)\n", m->device, m->text); return 0;
    case MTD_ERROR: fprintf(stderr, "error %s: %s\n", m->code, m->text); break;
    default: break;
    }
    return 1;
}

int main(int argc, char **argv) {
    mtd_client c;
    mtd_message m;
    const char *path = argc > 1 ? argv[1] : MTD_DEFAULT_SOCKET;
    if (mtd_connect(&c, path) != 0) {
        fprintf(stderr, "print_gestures: cannot connect to %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("connected to %s\n", c.hello.text);
    /* The hello's devices: a program that declares regions sizes them from width and height. */
    for (int i = 0; i < c.hello.device_count && i < MTD_MAX_DEVICES; i++)
        printf("device %d: %s (%.1f x %.1f %s)\n", c.hello.devices[i].id, c.hello.devices[i].name,
               c.hello.devices[i].width, c.hello.devices[i].height, c.hello.devices[i].units);
    if (mtd_subscribe(&c, MTD_STREAM_ALL) != 0) {
        perror("print_gestures: subscribe");
        return 1;
    }
    for (;;) {
        struct pollfd p = {mtd_fd(&c), POLLIN, 0};
        int r;
        if (!mtd_has_buffered(&c) && poll(&p, 1, -1) < 0 && errno != EINTR) {
            perror("print_gestures: poll");
            return 1;
        }
        while ((r = mtd_read_nonblocking(&c, &m)) > 0) {
            if (!print_message(&m)) {
                mtd_close(&c);
                return 0;
            }
        }
        if (r < 0) {
            if (errno == ECONNRESET) break; /* the daemon closed the connection */
            perror("print_gestures: read");
            return 1;
        }
        fflush(stdout);
    }
    mtd_close(&c);
    return 0;
}
