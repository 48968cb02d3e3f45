/* Roll-state debouncing: see dd_roll.h. */
#include "dd_roll.h"

static dd_roll_event none(void) {
    dd_roll_event e = {0, DD_ONFACE, DD_UNKNOWN_FACE};
    return e;
}

static dd_roll_event emit(dd_tracker *t, dd_roll_state state, int face) {
    dd_roll_event e;
    e.has_event = 1;
    e.state = state;
    e.face = (int8_t)face;
    t->last = state;
    return e;
}

void dd_tracker_init(dd_tracker *t) {
    t->phase = DD_PHASE_REST;
    t->tumbled = 0;
    t->settling = 0;
    t->cand_crooked = 0;
    t->cand_face = DD_UNKNOWN_FACE;
    t->still_since = 0;
    t->has_reported = 0;
    t->rep_crooked = 0;
    t->rep_face = DD_UNKNOWN_FACE;
    t->last = DD_ONFACE;
}

dd_roll_event dd_tracker_tick(dd_tracker *t, uint32_t now_ms) {
    dd_roll_state state;
    int face;
    if (!t->settling || (uint32_t)(now_ms - t->still_since) < DD_SETTLE_MS) return none();
    t->settling = 0;
    if (t->tumbled) {
        state = t->cand_crooked ? DD_CROOKED : DD_ROLLED;
        face = t->cand_crooked ? DD_UNKNOWN_FACE : t->cand_face;
    } else {
        state = DD_ONFACE; /* put down by hand, nudged or just powered up: not a roll */
        face = t->cand_crooked ? DD_UNKNOWN_FACE : t->cand_face;
    }
    t->phase = DD_PHASE_REST;
    t->tumbled = 0;
    t->has_reported = 1;
    t->rep_crooked = t->cand_crooked;
    t->rep_face = t->cand_face;
    return emit(t, state, face);
}

dd_roll_event dd_tracker_observe(dd_tracker *t, uint32_t now_ms, dd_raw_state raw, int face) {
    uint8_t crooked;
    switch (raw) {
    case DD_RAW_ROLLING:
        t->settling = 0;
        t->tumbled = 1;
        if (t->phase != DD_PHASE_ROLLING) {
            t->phase = DD_PHASE_ROLLING;
            return emit(t, DD_ROLLING, DD_UNKNOWN_FACE);
        }
        return none();
    case DD_RAW_HANDLING:
        t->settling = 0;
        t->tumbled = 0; /* handling is not a roll, and cancels one not yet settled */
        if (t->phase != DD_PHASE_HANDLING) {
            t->phase = DD_PHASE_HANDLING;
            return emit(t, DD_HANDLING, DD_UNKNOWN_FACE);
        }
        return none();
    case DD_RAW_ROLLED:
    case DD_RAW_ONFACE:
    case DD_RAW_CROOKED:
        crooked = raw == DD_RAW_CROOKED;
        if (!crooked && (face < 0 || face > DD_MAX_FACE)) return none(); /* no usable face: ignore */
        if (crooked) face = DD_UNKNOWN_FACE;
        if (t->phase == DD_PHASE_REST && !t->settling && t->has_reported && crooked == t->rep_crooked &&
            face == t->rep_face)
            return none(); /* still where it was */
        if (!t->settling || crooked != t->cand_crooked || face != t->cand_face) {
            t->settling = 1; /* (re)start the still timer on a new resting position */
            t->cand_crooked = crooked;
            t->cand_face = (int8_t)face;
            t->still_since = now_ms;
        }
        return dd_tracker_tick(t, now_ms);
    default:
        return none();
    }
}
