/*
 * multitouchd.h: a header-only C client for multitouchd (docs/PROTOCOL.md), for Qt, GTK, SDL and
 * plain C programs. C99, POSIX, no dependencies.
 *
 * In exactly one C or C++ file:
 *
 *     #define MULTITOUCHD_IMPLEMENTATION
 *     #include <multitouchd.h>
 *
 * and plain `#include <multitouchd.h>` everywhere else. Compiler flags: `pkg-config --cflags
 * multitouchd` (installed by the Debian package), or -I clients/c from a checkout.
 *
 *     mtd_client c;
 *     mtd_message m;
 *     if (mtd_connect(&c, NULL) != 0) { perror("multitouchd"); return 1; }   // NULL: default socket
 *     mtd_subscribe(&c, MTD_STREAM_GESTURES);
 *     while (mtd_read(&c, &m) > 0)
 *         if (m.type == MTD_GESTURE) draw_with(m.matrix);     // x' = a*x + c*y + tx, y' = b*x + d*y + ty
 *     mtd_close(&c);
 *
 * Event loops: watch mtd_fd(&c) for input (GLib g_unix_fd_add, QSocketNotifier, SDL in a thread,
 * poll); when it is readable, call mtd_read_nonblocking() until it returns 0. Check
 * mtd_has_buffered() before waiting: messages may already be read.
 *
 * Every message is parsed into an mtd_message (the fields its type has; the rest are zero) and its
 * line is kept in m.line (valid until the next read), so a program can hand fields this header does
 * not parse to a JSON library. Unknown message types come as MTD_UNKNOWN (clients must ignore them).
 * The hello's devices are in c.hello.devices (size a program's regions from devices[i].width and
 * height); a message routed to one of the program's regions names it in m.region (docs/PROTOCOL.md
 * "Touch routing"), touches also carry m.role and, when the daemon ended them, m.text with has_reason.
 * Not thread-safe: one client per thread.
 */
#ifndef MULTITOUCHD_H
#define MULTITOUCHD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MTD_DEFAULT_SOCKET "/run/multitouchd/multitouchd.sock"
/* Protocol 2 leaves out mmX/mmY where they equal x/y; this client reads 1 and 2 (docs/PROTOCOL.md). */
#define MTD_PROTOCOL_VERSION 2
/* The longest line the client accepts from the daemon (a stats reply with many clients fits). */
#define MTD_MAX_LINE 65536
/* Touches parsed per touches message; more are counted in touch_count but not stored. */
#define MTD_MAX_TOUCHES 16
/* Devices parsed per hello; more are counted in device_count but not stored. */
#define MTD_MAX_DEVICES 8
/* Region ids parsed per regions reply; more are counted in region_count but not stored. */
#define MTD_MAX_REGIONS 16
/* A region id's longest form (the protocol allows 1-128 bytes), plus its NUL. */
#define MTD_REGION_ID_SIZE 129
/* Bits of mtd_message.features (a hello's "features"). */
#define MTD_FEATURE_REGIONS 1u

enum mtd_type {
    MTD_UNKNOWN = 0, MTD_HELLO, MTD_DEVICE_ADDED, MTD_DEVICE_REMOVED, MTD_TOUCHES, MTD_SESSION, MTD_GESTURE,
    MTD_TAP, MTD_DOUBLE_TAP, MTD_LONG_PRESS, MTD_DROPPED, MTD_ERROR, MTD_TRANSFORM, MTD_SUBSCRIBED,
    MTD_UNSUBSCRIBED, MTD_PONG, MTD_STATS,
    MTD_REGIONS,                /* the reply to declareRegions/updateRegions: region_ids in force */
    MTD_RECOGNIZED,             /* the reply to recognized: region */
    MTD_REGION_LIST             /* the reply to listRegions: region_ids of the listed regions, topmost
                                   first (owner, z, band, bounds: in line, docs/PROTOCOL.md) */
};

/* Whether a region's message reaches this client as the region's owner or as an observer. */
enum mtd_role { MTD_ROLE_NONE = 0, MTD_ROLE_OWNER, MTD_ROLE_OBSERVER };

enum mtd_phase {
    MTD_PHASE_NONE = 0, MTD_PHASE_BEGAN, MTD_PHASE_MOVED, MTD_PHASE_STATIONARY, MTD_PHASE_CHANGED,
    MTD_PHASE_ENDED, MTD_PHASE_CANCELLED
};

/* Gestures.GestureMode; MOMENTUM and ANIMATED_ZOOM run with no finger (fingers 0) after the session. */
enum mtd_mode {
    MTD_MODE_NONE = 0,
    MTD_MODE_PAN,
    MTD_MODE_PINCH_ROTATE,
    MTD_MODE_QUICK_ZOOM,
    MTD_MODE_MOMENTUM,
    MTD_MODE_ANIMATED_ZOOM
};

enum mtd_stream { MTD_STREAM_TOUCHES = 1, MTD_STREAM_GESTURES = 2, MTD_STREAM_DEVICES = 4, MTD_STREAM_ALL = 7 };

/** One touch of a touches message. */
typedef struct mtd_touch {
    long id;
    enum mtd_phase phase;
    double x, y, prev_x, prev_y;
    double mm_x, mm_y;          /* millimetres: mmX/mmY, or x/y where the daemon leaves them out (equal) */
    int has_mm;                 /* 1 when the line carried mmX/mmY (the published space is pixels) */
    int tap_count;
    int has_predicted;          /* 1 when the client asked for predictions (docs/PREDICTION.md) */
    double predicted[2];        /* where the touch is predicted at time + the horizon, published space */
} mtd_touch;

/** A device object of a hello or deviceAdded (docs/PROTOCOL.md "device object"). */
typedef struct mtd_device {
    int id;
    char name[256];
    char device_class[16];      /* "touchscreen" or "touchpad" */
    char units[16];             /* "pixels" or "millimeters": the published space */
    double width, height;       /* extent of the published space: what regions' rects are in */
    double width_mm, height_mm; /* physical size */
    int slots;
} mtd_device;

/** One message from the daemon. Which fields are set depends on `type` (docs/PROTOCOL.md). */
typedef struct mtd_message {
    enum mtd_type type;
    char type_name[32];         /* "type" as sent, also for MTD_UNKNOWN */
    int device;                 /* device id; for MTD_DEVICE_ADDED the added device's id */
    double time;
    long session, seq;
    enum mtd_phase phase;       /* session, gesture, longPress */
    enum mtd_mode mode;         /* gesture */
    int fingers;                /* touches, gesture, tap, longPress */
    double centroid[2], translation[2], location[2];
    double scale, rotation;     /* gesture: relative to the segment start */
    double matrix[6];           /* gesture, doubleTap, transform: [a, b, c, d, tx, ty] */
    int has_predicted_matrix;   /* gesture: 1 when the client asked for predictions */
    double predicted_matrix[6]; /* gesture: the matrix the content should show at time + the horizon */
    int tap_count;              /* tap */
    int touch_count;            /* touches: touches in the message (touches[] holds the first ones) */
    mtd_touch touches[MTD_MAX_TOUCHES];
    long count;                 /* dropped */
    int fatal;                  /* error: the daemon closes the connection after it */
    char code[32];              /* error code */
    char text[256];             /* error message, deviceRemoved/dropped/touches reason, device name, daemon name */
    char units[16];             /* deviceAdded: "pixels" or "millimeters" */
    double width, height;       /* deviceAdded: extent of the published space */
    int protocol;               /* hello */
    unsigned features;          /* hello: MTD_FEATURE_* bits */
    int device_count;           /* hello: devices in the message (devices[] holds the first ones);
                                   deviceAdded: 1, the added device in devices[0] */
    mtd_device devices[MTD_MAX_DEVICES];
    char region[MTD_REGION_ID_SIZE]; /* a message routed to one of this client's regions, and the
                                   transform and recognized replies about one: its id ("" otherwise) */
    enum mtd_role role;         /* touches routed to a region: owner or observer */
    int has_reason;             /* touches: 1 when the daemon ended them itself, the reason in text */
    int region_count;           /* regions: ids in force; regionList: ids listed (region_ids[] holds the
                                   first ones) */
    char region_ids[MTD_MAX_REGIONS][MTD_REGION_ID_SIZE];
    const char *line;           /* the whole line, NUL-terminated; valid until the next read */
    size_t line_length;
} mtd_message;

/** A connection. Treat the fields as private. */
typedef struct mtd_client {
    int fd;
    int eof;
    size_t start, end;
    char buffer[MTD_MAX_LINE + 1];
    char line[MTD_MAX_LINE + 1];
    long next_id;
    mtd_message hello;          /* the daemon's hello, read by mtd_connect (hello.line stays valid) */
    char hello_line[MTD_MAX_LINE + 1];
} mtd_client;

/** Connects (path NULL: MTD_DEFAULT_SOCKET) and reads the hello into c->hello: its devices (id, size
 *  of the published space, ...) in c->hello.devices, its line in c->hello.line (valid until
 *  mtd_close). 0, or -1 with errno set (EPROTO: not a multitouchd of protocol 1 or 2). */
int mtd_connect(mtd_client *c, const char *path);
/** The socket, for poll and GUI loops. */
int mtd_fd(const mtd_client *c);
/** Sends one request line (a JSON object without the newline). 0, or -1 with errno. */
int mtd_send(mtd_client *c, const char *json);
/** Subscribes to a set of MTD_STREAM_* bits for every device. 0, or -1. */
int mtd_subscribe(mtd_client *c, unsigned streams);
/** Sends setTransform (matrix non-NULL) or resetTransform for a device. 0, or -1. */
int mtd_set_transform(mtd_client *c, int device, const double matrix[6]);
/** The same for one of this client's regions on the device (its own transform). 0, or -1 (EINVAL:
 *  a region id that is empty, longer than 128 bytes, or holds '"', '\\' or a control character). */
int mtd_set_region_transform(mtd_client *c, int device, const char *region, const double matrix[6]);
/** Blocks for the next message: 1 (in *m), 0 when the daemon closed the connection, -1 with errno. */
int mtd_read(mtd_client *c, mtd_message *m);
/** The next message if one can be had without blocking: 1, 0 when none is available now, -1 with
 *  errno (ECONNRESET once the daemon closed the connection and every message was read). */
int mtd_read_nonblocking(mtd_client *c, mtd_message *m);
/** 1 when a complete message is already buffered. */
int mtd_has_buffered(const mtd_client *c);
/** Parses one line (no newline) into *m; 0, or -1 when it is not a JSON object with a "type". */
int mtd_parse(const char *line, mtd_message *m);
/** The protocol's name of a gesture mode ("pan", ...; "" for MTD_MODE_NONE, a mode this header does
 *  not know). */
const char *mtd_mode_name(enum mtd_mode mode);
/** Applies an [a, b, c, d, tx, ty] matrix to a point. */
void mtd_apply(const double matrix[6], double x, double y, double *out_x, double *out_y);
void mtd_close(mtd_client *c);

#ifdef __cplusplus
}
#endif
#endif /* MULTITOUCHD_H */

#ifdef MULTITOUCHD_IMPLEMENTATION
#ifndef MULTITOUCHD_IMPLEMENTED
#define MULTITOUCHD_IMPLEMENTED

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

/* A tiny JSON reader: just enough to walk the protocol's objects. Each function takes the text
 * position and returns the position after what it read, or NULL on malformed input. */

static const char *mtd__ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

static const char *mtd__hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
        else return NULL;
    }
    *out = v;
    return p + 4;
}

/* Reads a string into out as UTF-8 (\uXXXX escapes and surrogate pairs decoded), truncated to
 * size - 1 bytes at a character boundary. */
static const char *mtd__string(const char *p, char *out, size_t size) {
    size_t n = 0;
    if (*p != '"') return NULL;
    p++;
    while (*p && *p != '"') {
        char bytes[4];
        size_t count = 1;
        bytes[0] = *p++;
        if (bytes[0] == '\\') {
            char ch = *p++;
            switch (ch) {
            case 'n': bytes[0] = '\n'; break;
            case 't': bytes[0] = '\t'; break;
            case 'r': bytes[0] = '\r'; break;
            case 'b': bytes[0] = '\b'; break;
            case 'f': bytes[0] = '\f'; break;
            case '"': case '\\': case '/': bytes[0] = ch; break;
            case 'u': {
                unsigned v, low;
                p = mtd__hex4(p, &v);
                if (!p) return NULL;
                if (v >= 0xD800 && v < 0xDC00 && p[0] == '\\' && p[1] == 'u' && mtd__hex4(p + 2, &low) && low >= 0xDC00 &&
                    low < 0xE000) {
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
                if (v >= 0xD800 && v < 0xE000) v = 0xFFFD; /* a lone surrogate */
                if (v < 0x80) {
                    bytes[0] = (char)v;
                } else if (v < 0x800) {
                    bytes[0] = (char)(0xC0 | (v >> 6));
                    bytes[1] = (char)(0x80 | (v & 0x3F));
                    count = 2;
                } else if (v < 0x10000) {
                    bytes[0] = (char)(0xE0 | (v >> 12));
                    bytes[1] = (char)(0x80 | ((v >> 6) & 0x3F));
                    bytes[2] = (char)(0x80 | (v & 0x3F));
                    count = 3;
                } else {
                    bytes[0] = (char)(0xF0 | (v >> 18));
                    bytes[1] = (char)(0x80 | ((v >> 12) & 0x3F));
                    bytes[2] = (char)(0x80 | ((v >> 6) & 0x3F));
                    bytes[3] = (char)(0x80 | (v & 0x3F));
                    count = 4;
                }
                break;
            }
            default: return NULL;
            }
        } else if ((unsigned char)bytes[0] >= 0xC0) {
            /* Keep a raw multi-byte UTF-8 character whole, so truncation never splits it. */
            while (count < 4 && ((unsigned char)*p & 0xC0) == 0x80) bytes[count++] = *p++;
        }
        if (out && n + count < size) {
            memcpy(out + n, bytes, count);
            n += count;
        } else if (out) {
            size = n + 1; /* full: stop storing, keep reading */
        }
    }
    if (*p != '"') return NULL;
    if (out && size) out[n] = 0;
    return p + 1;
}

static const char *mtd__number(const char *p, double *out) {
    char *end;
    double v = strtod(p, &end);
    if (end == p) return NULL;
    if (out) *out = v;
    return end;
}

static const char *mtd__skip(const char *p, int depth) {
    p = mtd__ws(p);
    if (depth > 32) return NULL;
    if (*p == '"') return mtd__string(p, NULL, 0);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = mtd__ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = mtd__string(mtd__ws(p), NULL, 0);
                if (!p) return NULL;
                p = mtd__ws(p);
                if (*p++ != ':') return NULL;
            }
            p = mtd__skip(p, depth + 1);
            if (!p) return NULL;
            p = mtd__ws(p);
            if (*p == ',') { p++; continue; }
            if (*p == close) return p + 1;
            return NULL;
        }
    }
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    return mtd__number(p, NULL);
}

/* Reads an array of up to n numbers. */
static const char *mtd__numbers(const char *p, double *out, int n) {
    int i = 0;
    p = mtd__ws(p);
    if (*p != '[') return NULL;
    p = mtd__ws(p + 1);
    if (*p == ']') return p + 1;
    for (;;) {
        double v;
        p = mtd__number(mtd__ws(p), &v);
        if (!p) return NULL;
        if (i < n) out[i] = v;
        i++;
        p = mtd__ws(p);
        if (*p == ',') { p++; continue; }
        if (*p == ']') return p + 1;
        return NULL;
    }
}

/* Calls field(key, value position, context) for each member of an object; field returns the
 * position after the value it read, or NULL to stop. */
typedef const char *(*mtd__field_fn)(const char *key, const char *value, void *context);

static const char *mtd__object(const char *p, mtd__field_fn field, void *context) {
    char key[32];
    p = mtd__ws(p);
    if (*p != '{') return NULL;
    p = mtd__ws(p + 1);
    if (*p == '}') return p + 1;
    for (;;) {
        p = mtd__string(mtd__ws(p), key, sizeof key);
        if (!p) return NULL;
        p = mtd__ws(p);
        if (*p++ != ':') return NULL;
        p = field(key, mtd__ws(p), context);
        if (!p) return NULL;
        p = mtd__ws(p);
        if (*p == ',') { p++; continue; }
        if (*p == '}') return p + 1;
        return NULL;
    }
}

const char *mtd_mode_name(enum mtd_mode mode) {
    static const char *const names[] = {"", "pan", "pinchRotate", "quickZoom", "momentum", "animatedZoom"};
    return (unsigned)mode <= MTD_MODE_ANIMATED_ZOOM ? names[mode] : "";
}

static enum mtd_phase mtd__phase(const char *s) {
    static const char *const names[] = {"", "began", "moved", "stationary", "changed", "ended", "cancelled"};
    for (int i = 1; i < 7; i++)
        if (!strcmp(s, names[i])) return (enum mtd_phase)i;
    return MTD_PHASE_NONE;
}

/* Reads a number as an integer. *out is always written (0 when the text is not a number or out of
 * range), so callers never read an unset value (GCC 12's -Wmaybe-uninitialized at -O2). */
static const char *mtd__int(const char *p, long *out) {
    double v = 0;
    char *end;
    int saved = errno;
    long exact;
    /* An integer literal is read exactly (a double would round ids and counters past 2^53). */
    errno = 0;
    exact = strtol(p, &end, 10);
    if (end != p && errno == 0 && *end != '.' && *end != 'e' && *end != 'E') {
        errno = saved;
        *out = exact;
        return end;
    }
    errno = saved;
    p = mtd__number(p, &v);
    *out = (p && v >= (double)LONG_MIN && v < -(double)LONG_MIN) ? (long)v : 0;
    return p;
}

static const char *mtd__int32(const char *p, int *out) {
    long v;
    p = mtd__int(p, &v);
    *out = (v >= INT_MIN && v <= INT_MAX) ? (int)v : 0;
    return p;
}

static const char *mtd__touch_field(const char *key, const char *p, void *context) {
    mtd_touch *t = (mtd_touch *)context;
    char text[16];
    if (!strcmp(key, "id")) return mtd__int(p, &t->id);
    if (!strcmp(key, "phase")) {
        p = mtd__string(p, text, sizeof text);
        t->phase = mtd__phase(text);
        return p;
    }
    if (!strcmp(key, "x")) return mtd__number(p, &t->x);
    if (!strcmp(key, "y")) return mtd__number(p, &t->y);
    if (!strcmp(key, "prevX")) return mtd__number(p, &t->prev_x);
    if (!strcmp(key, "prevY")) return mtd__number(p, &t->prev_y);
    if (!strcmp(key, "mmX")) {
        t->has_mm = 1;
        return mtd__number(p, &t->mm_x);
    }
    if (!strcmp(key, "mmY")) {
        t->has_mm = 1;
        return mtd__number(p, &t->mm_y);
    }
    if (!strcmp(key, "predicted")) {
        t->has_predicted = 1;
        return mtd__numbers(p, t->predicted, 2);
    }
    if (!strcmp(key, "tapCount")) return mtd__int32(p, &t->tap_count);
    return mtd__skip(p, 1);
}

static const char *mtd__touches(const char *p, mtd_message *m) {
    p = mtd__ws(p);
    if (*p != '[') return NULL;
    p = mtd__ws(p + 1);
    if (*p == ']') return p + 1;
    for (;;) {
        mtd_touch scratch;
        mtd_touch *t = m->touch_count < MTD_MAX_TOUCHES ? &m->touches[m->touch_count] : &scratch;
        memset(t, 0, sizeof *t);
        p = mtd__object(p, mtd__touch_field, t);
        if (!p) return NULL;
        if (!t->has_mm) {  /* protocol 2: absent means equal to x/y */
            t->mm_x = t->x;
            t->mm_y = t->y;
        }
        m->touch_count++;
        p = mtd__ws(p);
        if (*p == ',') { p = mtd__ws(p + 1); continue; }
        if (*p == ']') return p + 1;
        return NULL;
    }
}

static const char *mtd__device_field(const char *key, const char *p, void *context) {
    mtd_device *d = (mtd_device *)context;
    if (!strcmp(key, "id")) return mtd__int32(p, &d->id);
    if (!strcmp(key, "name")) return mtd__string(p, d->name, sizeof d->name);
    if (!strcmp(key, "class")) return mtd__string(p, d->device_class, sizeof d->device_class);
    if (!strcmp(key, "units")) return mtd__string(p, d->units, sizeof d->units);
    if (!strcmp(key, "width")) return mtd__number(p, &d->width);
    if (!strcmp(key, "height")) return mtd__number(p, &d->height);
    if (!strcmp(key, "widthMM")) return mtd__number(p, &d->width_mm);
    if (!strcmp(key, "heightMM")) return mtd__number(p, &d->height_mm);
    if (!strcmp(key, "slots")) return mtd__int32(p, &d->slots);
    return mtd__skip(p, 1);
}

/* One device object into the next devices[] entry (counted past MTD_MAX_DEVICES, not stored). */
static const char *mtd__device(const char *p, mtd_message *m) {
    mtd_device scratch;
    mtd_device *d = m->device_count < MTD_MAX_DEVICES ? &m->devices[m->device_count] : &scratch;
    memset(d, 0, sizeof *d);
    p = mtd__object(p, mtd__device_field, d);
    if (p) m->device_count++;
    return p;
}

/* A hello's array of device objects; any other array under "devices" (a subscribed reply's ids, the
 * stats' device entries) is skipped, and mtd_parse keeps devices[] for hello and deviceAdded only. */
static const char *mtd__devices(const char *p, mtd_message *m) {
    const char *start = p = mtd__ws(p);
    if (*p != '[') return NULL;
    p = mtd__ws(p + 1);
    if (*p == ']') return p + 1;
    if (*p != '{') return mtd__skip(start, 1);
    for (;;) {
        p = mtd__device(p, m);
        if (!p) return NULL;
        p = mtd__ws(p);
        if (*p == ',') { p = mtd__ws(p + 1); continue; }
        if (*p == ']') return p + 1;
        return NULL;
    }
}

/* An array of strings: region ids into region_ids[] (counted past MTD_MAX_REGIONS), or a hello's
 * features into feature bits. */
/* One region object of a regionList: its "region" id into region_ids. */
static const char *mtd__listed_region(const char *key, const char *p, void *context) {
    mtd_message *m = (mtd_message *)context;
    char scratch[MTD_REGION_ID_SIZE];
    if (strcmp(key, "region")) return mtd__skip(p, 1);
    return mtd__string(p, m->region_count < MTD_MAX_REGIONS ? m->region_ids[m->region_count] : scratch,
                       MTD_REGION_ID_SIZE);
}

static const char *mtd__strings(const char *p, mtd_message *m, int features) {
    const char *start = p = mtd__ws(p);
    if (*p != '[') return NULL;
    p = mtd__ws(p + 1);
    if (*p == ']') return p + 1;
    if (*p == '{' && !features && !strcmp(m->type_name, "regionList")) {
        for (;;) { /* regionList: region objects, their ids counted and kept */
            p = mtd__object(p, mtd__listed_region, m);
            if (!p) return NULL;
            m->region_count++;
            p = mtd__ws(p);
            if (*p == ',') { p = mtd__ws(p + 1); continue; }
            if (*p == ']') return p + 1;
            return NULL;
        }
    }
    if (*p != '"') return mtd__skip(start, 1); /* not an array of strings: not ours to read */
    for (;;) {
        char scratch[MTD_REGION_ID_SIZE];
        char *out = !features && m->region_count < MTD_MAX_REGIONS ? m->region_ids[m->region_count] : scratch;
        p = mtd__ws(p);
        if (*p != '"') return NULL;
        p = mtd__string(p, out, MTD_REGION_ID_SIZE);
        if (!p) return NULL;
        if (features) {
            if (!strcmp(out, "regions")) m->features |= MTD_FEATURE_REGIONS;
        } else {
            m->region_count++;
        }
        p = mtd__ws(p);
        if (*p == ',') { p++; continue; }
        if (*p == ']') return p + 1;
        return NULL;
    }
}

static const char *mtd__message_field(const char *key, const char *p, void *context) {
    mtd_message *m = (mtd_message *)context;
    char text[16];
    if (!strcmp(key, "type")) return mtd__string(p, m->type_name, sizeof m->type_name);
    if (!strcmp(key, "device")) {
        if (*p == '{') { /* deviceAdded: the device object, also in the flat fields below */
            p = mtd__device(p, m);
            if (p && m->device_count == 1) {
                m->device = m->devices[0].id;
                m->width = m->devices[0].width;
                m->height = m->devices[0].height;
                memcpy(m->units, m->devices[0].units, sizeof m->units);
                memcpy(m->text, m->devices[0].name, sizeof m->devices[0].name);
            }
            return p;
        }
        return mtd__int32(p, &m->device);
    }
    if (!strcmp(key, "devices") && *p == '[') return mtd__devices(p, m);
    if (!strcmp(key, "features") && *p == '[') return mtd__strings(p, m, 1);
    if (!strcmp(key, "regions") && *p == '[') return mtd__strings(p, m, 0);
    if (!strcmp(key, "region")) return mtd__string(p, m->region, sizeof m->region);
    if (!strcmp(key, "role")) {
        p = mtd__string(p, text, sizeof text);
        m->role = !strcmp(text, "owner") ? MTD_ROLE_OWNER : !strcmp(text, "observer") ? MTD_ROLE_OBSERVER : MTD_ROLE_NONE;
        return p;
    }
    if (!strcmp(key, "time")) return mtd__number(p, &m->time);
    if (!strcmp(key, "session")) return mtd__int(p, &m->session);
    if (!strcmp(key, "seq")) return mtd__int(p, &m->seq);
    if (!strcmp(key, "phase")) {
        p = mtd__string(p, text, sizeof text);
        m->phase = mtd__phase(text);
        return p;
    }
    if (!strcmp(key, "mode")) {
        p = mtd__string(p, text, sizeof text);
        m->mode = MTD_MODE_NONE;
        for (int i = 1; i <= MTD_MODE_ANIMATED_ZOOM; i++)
            if (!strcmp(text, mtd_mode_name((enum mtd_mode)i))) m->mode = (enum mtd_mode)i;
        return p;
    }
    if (!strcmp(key, "fingers")) return mtd__int32(p, &m->fingers);
    if (!strcmp(key, "centroid")) return mtd__numbers(p, m->centroid, 2);
    if (!strcmp(key, "translation")) return mtd__numbers(p, m->translation, 2);
    if (!strcmp(key, "location")) return mtd__numbers(p, m->location, 2);
    if (!strcmp(key, "scale")) return mtd__number(p, &m->scale);
    if (!strcmp(key, "rotation")) return mtd__number(p, &m->rotation);
    if (!strcmp(key, "matrix")) return mtd__numbers(p, m->matrix, 6);
    if (!strcmp(key, "predictedMatrix")) {
        m->has_predicted_matrix = 1;
        return mtd__numbers(p, m->predicted_matrix, 6);
    }
    if (!strcmp(key, "tapCount")) return mtd__int32(p, &m->tap_count);
    if (!strcmp(key, "touches") && *p == '[') return mtd__touches(p, m);
    if (!strcmp(key, "count")) return mtd__int(p, &m->count);
    if (!strcmp(key, "fatal")) {
        m->fatal = !strncmp(p, "true", 4);
        return mtd__skip(p, 1);
    }
    if (!strcmp(key, "code")) return mtd__string(p, m->code, sizeof m->code);
    if (!strcmp(key, "reason")) {
        m->has_reason = 1;
        return mtd__string(p, m->text, sizeof m->text);
    }
    if (!strcmp(key, "message") || !strcmp(key, "daemon")) return mtd__string(p, m->text, sizeof m->text);
    if (!strcmp(key, "protocol") && *p != '"') return mtd__int32(p, &m->protocol);
    return mtd__skip(p, 1);
}

int mtd_parse(const char *line, mtd_message *m) {
    static const char *const names[] = {
        "", "hello", "deviceAdded", "deviceRemoved", "touches", "session", "gesture", "tap", "doubleTap",
        "longPress", "dropped", "error", "transform", "subscribed", "unsubscribed", "pong", "stats", "regions",
        "recognized", "regionList"};
    const char *p;
    memset(m, 0, sizeof *m);
    m->line = line;
    m->line_length = strlen(line);
    p = mtd__object(line, mtd__message_field, m);
    if (!p || *mtd__ws(p) != 0 || !m->type_name[0]) return -1;
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(m->type_name, names[i])) m->type = (enum mtd_type)i;
    /* Keys that mean these only in their own message types. */
    if (m->type != MTD_HELLO && m->type != MTD_DEVICE_ADDED) {
        m->device_count = 0;
        memset(m->devices, 0, sizeof m->devices);
    }
    if (m->type != MTD_HELLO) m->features = 0;
    if (m->type != MTD_REGIONS && m->type != MTD_REGION_LIST) {
        m->region_count = 0;
        memset(m->region_ids, 0, sizeof m->region_ids);
    }
    return 0;
}

void mtd_apply(const double t[6], double x, double y, double *out_x, double *out_y) {
    *out_x = t[0] * x + t[2] * y + t[4];
    *out_y = t[1] * x + t[3] * y + t[5];
}

/* The next complete line from the buffer into c->line; 1, or 0 when none is complete. */
static int mtd__take_line(mtd_client *c) {
    char *start = c->buffer + c->start;
    char *newline = (char *)memchr(start, '\n', c->end - c->start);
    size_t n;
    if (!newline) return 0;
    n = (size_t)(newline - start);
    memcpy(c->line, start, n);
    c->line[n] = 0;
    c->start += n + 1;
    return 1;
}

/* Reads more bytes: 1 read some, 0 end of connection, -1 error (EAGAIN when nonblocking and none). */
static int mtd__fill(mtd_client *c, int flags) {
    ssize_t n;
    if (c->start > 0) {
        memmove(c->buffer, c->buffer + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    if (c->end >= MTD_MAX_LINE) {
        errno = EMSGSIZE;
        return -1;
    }
    do {
        n = recv(c->fd, c->buffer + c->end, MTD_MAX_LINE - c->end, flags);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return -1;
    if (n == 0) {
        c->eof = 1;
        return 0;
    }
    c->end += (size_t)n;
    return 1;
}

static int mtd__deliver(mtd_client *c, mtd_message *m) {
    if (mtd_parse(c->line, m) != 0) {
        errno = EPROTO;
        return -1;
    }
    return 1;
}

int mtd_read(mtd_client *c, mtd_message *m) {
    while (!mtd__take_line(c)) {
        int r;
        if (c->eof) return 0;
        r = mtd__fill(c, 0);
        if (r <= 0) return r;
    }
    return mtd__deliver(c, m);
}

int mtd_read_nonblocking(mtd_client *c, mtd_message *m) {
    if (!mtd__take_line(c)) {
        if (c->eof) {
            errno = ECONNRESET;
            return -1;
        }
        if (mtd__fill(c, MSG_DONTWAIT) < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        if (!mtd__take_line(c)) {
            if (c->eof) {
                errno = ECONNRESET;
                return -1;
            }
            return 0;
        }
    }
    return mtd__deliver(c, m);
}

int mtd_has_buffered(const mtd_client *c) {
    return memchr(c->buffer + c->start, '\n', c->end - c->start) != NULL;
}

int mtd_connect(mtd_client *c, const char *path) {
    struct sockaddr_un address;
    int r;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (!path) path = MTD_DEFAULT_SOCKET;
    if (strlen(path) >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, path);
    c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (c->fd < 0) return -1;
    fcntl(c->fd, F_SETFD, FD_CLOEXEC); /* not inherited by programs the client starts */
    if (connect(c->fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        mtd_close(c);
        errno = saved;
        return -1;
    }
    r = mtd_read(c, &c->hello);
    if (r <= 0 || c->hello.type != MTD_HELLO || c->hello.protocol < 1 ||
        c->hello.protocol > MTD_PROTOCOL_VERSION) {
        int saved = errno;
        mtd_close(c);
        errno = r < 0 ? saved : EPROTO;
        return -1;
    }
    /* The line buffer is reused by the next read: the hello keeps a copy of its own. */
    memcpy(c->hello_line, c->line, c->hello.line_length + 1);
    c->hello.line = c->hello_line;
    return 0;
}

int mtd_fd(const mtd_client *c) { return c->fd; }

int mtd_send(mtd_client *c, const char *json) {
    size_t length = strlen(json);
    struct iovec parts[2];
    struct msghdr message;
    size_t sent = 0;
    parts[0].iov_base = (void *)json;
    parts[0].iov_len = length;
    parts[1].iov_base = (void *)"\n";
    parts[1].iov_len = 1;
    while (sent < length + 1) {
        ssize_t n;
        memset(&message, 0, sizeof message);
        if (sent < length) {
            parts[0].iov_base = (void *)(json + sent);
            parts[0].iov_len = length - sent;
            message.msg_iov = parts;
            message.msg_iovlen = 2;
        } else {
            message.msg_iov = &parts[1];
            message.msg_iovlen = 1;
        }
        n = sendmsg(c->fd, &message, MSG_NOSIGNAL); /* a closed daemon is EPIPE, not SIGPIPE */
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        sent += (size_t)n;
    }
    return 0;
}

int mtd_subscribe(mtd_client *c, unsigned streams) {
    char request[128];
    static const char *const names[] = {"touches", "gestures", "devices"};
    int first = 1;
    size_t n = (size_t)snprintf(request, sizeof request, "{\"type\":\"subscribe\",\"streams\":[");
    for (int i = 0; i < 3; i++) {
        if (!(streams & (1u << i))) continue;
        n += (size_t)snprintf(request + n, sizeof request - n, "%s\"%s\"", first ? "" : ",", names[i]);
        first = 0;
    }
    snprintf(request + n, sizeof request - n, "]}");
    return mtd_send(c, request);
}

int mtd_set_transform(mtd_client *c, int device, const double t[6]) {
    char request[256];
    if (!t) {
        snprintf(request, sizeof request, "{\"type\":\"resetTransform\",\"device\":%d}", device);
    } else {
        snprintf(request, sizeof request,
                 "{\"type\":\"setTransform\",\"device\":%d,\"matrix\":[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g]}", device,
                 t[0], t[1], t[2], t[3], t[4], t[5]);
    }
    return mtd_send(c, request);
}

/* 1 when a region id can be written into a request as it is (no escaping needed), else 0. */
static int mtd__plain_id(const char *id) {
    size_t n = 0;
    for (; id[n]; n++)
        if ((unsigned char)id[n] < 0x20 || id[n] == '"' || id[n] == '\\') return 0;
    return n > 0 && n < MTD_REGION_ID_SIZE;
}

int mtd_set_region_transform(mtd_client *c, int device, const char *region, const double t[6]) {
    char request[512];
    if (!region || !mtd__plain_id(region)) {
        errno = EINVAL;
        return -1;
    }
    if (!t) {
        snprintf(request, sizeof request, "{\"type\":\"resetTransform\",\"device\":%d,\"region\":\"%s\"}", device,
                 region);
    } else {
        snprintf(request, sizeof request,
                 "{\"type\":\"setTransform\",\"device\":%d,\"region\":\"%s\",\"matrix\":[%.17g,%.17g,%.17g,%.17g,%.17g,"
                 "%.17g]}",
                 device, region, t[0], t[1], t[2], t[3], t[4], t[5]);
    }
    return mtd_send(c, request);
}

void mtd_close(mtd_client *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

#endif /* MULTITOUCHD_IMPLEMENTED */
#endif /* MULTITOUCHD_IMPLEMENTATION */
