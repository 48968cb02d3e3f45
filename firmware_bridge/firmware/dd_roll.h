/* Roll-state debouncing for one die.
 *
 * The bridge sees a die's raw state many times a second (Pixels advertisements, or notifications
 * when connected).  Raw states are noisy: a die wobbles between faces as it comes to rest, a die
 * nudged by hand reports a new face, a die picked up reports "handling".  The tracker turns them
 * into the protocol's roll states:
 *
 *   - "rolling" once when the die starts to tumble;
 *   - "handling" once when it is picked up or moved by hand;
 *   - when it has rested on the same face (or crooked) for DD_SETTLE_MS without interruption:
 *       "rolled" + face      if it tumbled since it last rested,
 *       "crooked"            if it tumbled and came to rest cocked,
 *       "onface" + face      otherwise (put down by hand, nudged, powered up): not a roll.
 *
 * Handling after a tumble cancels the roll (the die was caught or picked up before it settled).
 * Times are milliseconds from any free-running clock; wrap-around of the uint32 is handled.
 */
#ifndef DD_ROLL_H
#define DD_ROLL_H

#include <stdint.h>

#include "dd_protocol.h"

#ifndef DD_SETTLE_MS
#define DD_SETTLE_MS 300u
#endif

/* Raw roll states as Pixels dice report them (current firmware: rolled = 1, onFace = 5; older
 * firmware reports 1 for any resting die).  Both resting values are treated alike. */
typedef enum {
    DD_RAW_UNKNOWN = 0,
    DD_RAW_ROLLED = 1,
    DD_RAW_HANDLING = 2,
    DD_RAW_ROLLING = 3,
    DD_RAW_CROOKED = 4,
    DD_RAW_ONFACE = 5
} dd_raw_state;

typedef enum { DD_PHASE_REST = 0, DD_PHASE_HANDLING, DD_PHASE_ROLLING } dd_phase;

typedef struct {
    dd_phase phase;
    uint8_t tumbled;         /* a tumble since the die last rested */
    uint8_t settling;        /* resting, waiting for DD_SETTLE_MS */
    uint8_t cand_crooked;
    int8_t cand_face;
    uint32_t still_since;
    uint8_t has_reported;    /* has emitted a resting state yet */
    uint8_t rep_crooked;
    int8_t rep_face;
    dd_roll_state last;      /* last state emitted */
} dd_tracker;

typedef struct {
    uint8_t has_event;
    dd_roll_state state;
    int8_t face;
} dd_roll_event;

void dd_tracker_init(dd_tracker *t);

/* Feed one raw observation; face is the face index (0..19) for resting states, ignored otherwise.
 * Returns the event to send, if any.  Call dd_tracker_tick as well, so that a die whose last
 * observation was its resting one still settles. */
dd_roll_event dd_tracker_observe(dd_tracker *t, uint32_t now_ms, dd_raw_state raw, int face);
dd_roll_event dd_tracker_tick(dd_tracker *t, uint32_t now_ms);

#endif
