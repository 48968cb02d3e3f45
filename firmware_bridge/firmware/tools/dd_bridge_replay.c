/* Host tool: run the bridge core on a scripted table and print what it sends to the host.
 * Script lines (times in ms):
 *   ADV <ms> <pixel id hex> <raw roll state 0-5> <face> <battery> <charging>
 *   TICK <ms>
 *   RX <text>          (a line the host sends; a "\n" is appended)
 * Blink requests are reported on stderr.  Used by the test suite to check that the host accepts
 * everything the firmware sends, in a realistic session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dd_bridge.h"

static void write_stdout(const char *line, size_t len, void *ctx) {
    (void)ctx;
    fwrite(line, 1, len, stdout);
    fflush(stdout);
}

static void blink_stderr(uint32_t pixel_id, uint8_t count, uint32_t rgb, void *ctx) {
    (void)ctx;
    fprintf(stderr, "blink %08lX %u %06lX\n", (unsigned long)pixel_id, (unsigned)count, (unsigned long)rgb);
}

int main(void) {
    static dd_bridge b;
    char line[512];
    dd_bridge_init(&b, "replay", "1.0.0", write_stdout, blink_stderr, NULL);
    while (fgets(line, sizeof line, stdin) != NULL) {
        unsigned long ms, id;
        unsigned state, face, battery, charging;
        if (sscanf(line, "ADV %lu %lx %u %u %u %u", &ms, &id, &state, &face, &battery, &charging) == 6) {
            dd_pixels_adv a;
            memset(&a, 0, sizeof a);
            a.is_pixels = a.has_state = a.has_id = 1;
            a.pixel_id = (uint32_t)id;
            a.roll_state = (uint8_t)state;
            a.face = (uint8_t)face;
            a.battery = (uint8_t)battery;
            a.charging = (uint8_t)charging;
            dd_bridge_on_adv(&b, (uint32_t)ms, &a);
        } else if (sscanf(line, "TICK %lu", &ms) == 1) {
            dd_bridge_tick(&b, (uint32_t)ms);
        } else if (strncmp(line, "RX ", 3) == 0) {
            size_t n = strcspn(line + 3, "\n");
            line[3 + n] = '\n';
            dd_bridge_rx(&b, line + 3, n + 1);
        } else {
            fprintf(stderr, "bad script line: %s", line);
            return 2;
        }
    }
    return 0;
}
