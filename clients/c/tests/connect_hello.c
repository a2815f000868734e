/* Connects to the daemon given as argv[1] and prints what mtd_connect kept of the hello: its line
 * (before and after a later read, which must not change it), its devices and its features, for
 * test_c_client.py to compare with the daemon's hello. */
#define MULTITOUCHD_IMPLEMENTATION
#include "multitouchd.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    mtd_client *c = (mtd_client *)malloc(sizeof *c);
    mtd_message m;
    if (!c || argc < 2 || mtd_connect(c, argv[1]) != 0) {
        perror("connect_hello");
        return 1;
    }
    printf("%s\n", c->hello.line ? c->hello.line : "(null)");
    if (mtd_send(c, "{\"type\":\"ping\",\"id\":1}") != 0 || mtd_read(c, &m) != 1 || m.type != MTD_PONG) {
        perror("connect_hello: ping");
        return 1;
    }
    printf("%s\n", c->hello.line ? c->hello.line : "(null)");
    printf("protocol=%d features=%u devices=%d\n", c->hello.protocol, c->hello.features, c->hello.device_count);
    for (int i = 0; i < c->hello.device_count && i < MTD_MAX_DEVICES; i++) {
        const mtd_device *d = &c->hello.devices[i];
        printf("device=%d:%s:%s:%s:%.17g:%.17g:%.17g:%.17g:%d\n", d->id, d->name, d->device_class, d->units, d->width,
               d->height, d->width_mm, d->height_mm, d->slots);
    }
    mtd_close(c);
    free(c);
    return 0;
}
