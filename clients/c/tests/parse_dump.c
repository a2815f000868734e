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
