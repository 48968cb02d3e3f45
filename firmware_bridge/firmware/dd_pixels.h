/* Reading Pixels dice advertisements (portable; no radio code here).
 *
 * A Pixels die advertises over Bluetooth LE without a connection.  The layout this bridge expects
 * (Pixels communications protocol, "Advertisement" section; multi-byte values little-endian):
 *
 *   AD type 0x06/0x07  (incomplete/complete list of 128-bit service UUIDs)
 *       contains the Pixels service 6e400001-b5a3-f393-e0a9-e50e24dcca9e; that is how a Pixels
 *       die is recognised (the UUID bytes appear in reverse order on air).
 *   AD type 0xFF       (manufacturer specific data): 2 bytes company identifier, then
 *       [0] LED count           number of LEDs (6 on a d6, 20 on a d20)
 *       [1] design and colour   physical look
 *       [2] roll state          0 unknown, 1 rolled, 2 handling, 3 rolling, 4 crooked, 5 on face
 *                               (older firmware: 1 = on face, no separate "rolled")
 *       [3] current face        face index, 0-based, in the die's own calibration
 *       [4] battery             bits 0-6: level in percent; bit 7: 1 while charging
 *   AD type 0x16/0x21  (service data, 16- or 128-bit UUID): after the UUID,
 *       [0..3] pixel id        32-bit identifier unique to each die
 *       [4..7] build timestamp firmware build time, UNIX seconds
 *
 * The bridge names a die "px" + the pixel id in 8 upper-case hex digits ("px00A7F3C2"), a valid
 * die_id of the serial protocol, stable for the physical die.
 * Note: advertised roll states are sampled, not every change is seen; the tracker in dd_roll.h
 * debounces them.  A bridge wanting every roll event would connect to the die instead.
 */
#ifndef DD_PIXELS_H
#define DD_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#include "dd_protocol.h"

typedef struct {
    uint8_t is_pixels;      /* the Pixels service UUID was advertised */
    uint8_t has_state;      /* manufacturer data was present and well-formed */
    uint8_t has_id;         /* service data with the pixel id was present */
    uint8_t led_count;
    uint8_t design;
    uint8_t roll_state;     /* a dd_raw_state value (0..5); others are reported as unknown */
    uint8_t face;
    uint8_t battery;        /* 0..100 */
    uint8_t charging;       /* 0 or 1 */
    uint32_t pixel_id;
    uint32_t build_time;
} dd_pixels_adv;

/* Walk the AD structures of one advertisement (and/or scan response) payload.  Returns 1 when it
 * is a well-formed Pixels advertisement with roll state and pixel id, 0 otherwise.  Never reads
 * outside adv[0..len). */
int dd_pixels_parse(const uint8_t *adv, size_t len, dd_pixels_adv *out);

/* "px" + 8 hex digits; out must hold DD_ID_MAX + 1 bytes. */
void dd_pixels_die_id(uint32_t pixel_id, char *out);

#endif
