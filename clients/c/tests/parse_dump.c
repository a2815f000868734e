/* Reads protocol lines on stdin and prints what mtd_parse made of each, one line per message, in a
 * fixed text form test_c_client.py compares with Python's reading of the same line. */
#define MULTITOUCHD_IMPLEMENTATION
#include "multitouchd.h"

#include <stdio.h>
#include <string.h>

static char line[MTD_MAX_LINE + 2];

int main(void) {
    mtd_message m;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (mtd_parse(line, &m) != 0) {
            printf("unparsable\n");
            continue;
        }
        printf("%d %s dev=%d time=%.6f session=%ld seq=%ld phase=%d mode=%d fingers=%d", (int)m.type, m.type_name,
               m.device, m.time, m.session, m.seq, (int)m.phase, (int)m.mode, m.fingers);
        printf(" c=%.17g,%.17g t=%.17g,%.17g l=%.17g,%.17g s=%.17g r=%.17g", m.centroid[0], m.centroid[1],
               m.translation[0], m.translation[1], m.location[0], m.location[1], m.scale, m.rotation);
        printf(" m=%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", m.matrix[0], m.matrix[1], m.matrix[2], m.matrix[3],
               m.matrix[4], m.matrix[5]);
        if (m.has_predicted_matrix)
            printf(" pm=%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", m.predicted_matrix[0], m.predicted_matrix[1],
                   m.predicted_matrix[2], m.predicted_matrix[3], m.predicted_matrix[4], m.predicted_matrix[5]);
        printf(" taps=%d n=%d count=%ld fatal=%d code=%s units=%s w=%.17g h=%.17g text=%s", m.tap_count,
               m.touch_count, m.count, m.fatal, m.code, m.units, m.width, m.height, m.text);
        printf(" features=%u region=%s role=%d has_reason=%d devices=%d", m.features, m.region, (int)m.role,
               m.has_reason, m.device_count);
        for (int i = 0; i < m.device_count && i < MTD_MAX_DEVICES; i++)
            printf(" device=%d:%s:%s:%s:%.17g:%.17g:%.17g:%.17g:%d", m.devices[i].id, m.devices[i].name,
                   m.devices[i].device_class, m.devices[i].units, m.devices[i].width, m.devices[i].height,
                   m.devices[i].width_mm, m.devices[i].height_mm, m.devices[i].slots);
        printf(" regions=%d", m.region_count);
        for (int i = 0; i < m.region_count && i < MTD_MAX_REGIONS; i++) printf(" rid=%s", m.region_ids[i]);
        for (int i = 0; i < m.touch_count && i < MTD_MAX_TOUCHES; i++) {
            printf(" touch=%ld:%d:%.17g:%.17g:%.17g:%.17g:%d:mm=%.17g,%.17g", m.touches[i].id, (int)m.touches[i].phase,
                   m.touches[i].x, m.touches[i].y, m.touches[i].prev_x, m.touches[i].prev_y, m.touches[i].tap_count,
                   m.touches[i].mm_x, m.touches[i].mm_y);
            if (m.touches[i].has_predicted) printf(":%.17g,%.17g", m.touches[i].predicted[0], m.touches[i].predicted[1]);
        }
        printf("\n");
    }
    return 0;
}
