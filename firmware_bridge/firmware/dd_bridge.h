/* The bridge's portable core: known dice, their trackers, the sequence counter, the serial output
 * and the host commands.  Board glue (radio, UART, clock) feeds it and gives it a write function;
 * see board_esp32.c.
 */
#ifndef DD_BRIDGE_H
#define DD_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "dd_pixels.h"
#include "dd_protocol.h"
#include "dd_roll.h"

#ifndef DD_BRIDGE_MAX_DICE
#define DD_BRIDGE_MAX_DICE 16
#endif
#ifndef DD_LOST_MS
#define DD_LOST_MS 15000u /* no advertisement for this long: the die is reported lost */
#endif

typedef void (*dd_write_fn)(const char *line, size_t len, void *ctx);
typedef void (*dd_blink_fn)(uint32_t pixel_id, uint8_t count, uint32_t rgb, void *ctx);

typedef struct {
    uint8_t used;
    uint8_t lost;
    uint32_t pixel_id;
    char die_id[DD_ID_MAX + 1];
    dd_tracker tracker;
    uint8_t battery_known;
    uint8_t battery;
    uint8_t charging;
    uint32_t last_seen;
} dd_bridge_die;

typedef struct {
    const char *name;
    const char *firmware;
    dd_seq seq;
    dd_bridge_die dice[DD_BRIDGE_MAX_DICE];
    dd_write_fn write;
    dd_blink_fn blink;
    void *ctx;
    char inbuf[DD_LINE_CAP];
    size_t inlen;
    uint8_t skipping;        /* an over-long command line is being skipped */
    uint32_t bad_commands;   /* host lines dropped */
} dd_bridge;

/* Sets up the bridge and sends the hello (seq 0). */
void dd_bridge_init(dd_bridge *b, const char *name, const char *firmware, dd_write_fn write,
                    dd_blink_fn blink, void *ctx);
/* One parsed Pixels advertisement seen at now_ms. */
void dd_bridge_on_adv(dd_bridge *b, uint32_t now_ms, const dd_pixels_adv *adv);
/* Call often (every 10-50 ms): settles dice and reports lost ones. */
void dd_bridge_tick(dd_bridge *b, uint32_t now_ms);
/* Report a fault (DDE) to the host: code is a short token, text a printable explanation. */
void dd_bridge_fault(dd_bridge *b, const char *code, const char *text);
/* Bytes received from the host, in any chunking. */
void dd_bridge_rx(dd_bridge *b, const char *data, size_t len);

#endif
