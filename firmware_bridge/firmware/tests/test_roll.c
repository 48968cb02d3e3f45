/* Roll-state debouncing: a die must be still DD_SETTLE_MS before "rolled"; handling is no roll. */
#include "check.h"
#include "dd_roll.h"

static dd_roll_event feed(dd_tracker *t, uint32_t now, dd_raw_state raw, int face) {
    return dd_tracker_observe(t, now, raw, face);
}

static int is_event(dd_roll_event e, dd_roll_state state, int face) {
    return e.has_event && e.state == state && e.face == face;
}

static void test_a_clean_roll(void) {
    dd_tracker t;
    dd_roll_event e;
    dd_tracker_init(&t);
    CHECK(is_event(feed(&t, 0, DD_RAW_ROLLING, 0), DD_ROLLING, -1));
    CHECK(!feed(&t, 50, DD_RAW_ROLLING, 2).has_event); /* reported once */
    CHECK(!feed(&t, 900, DD_RAW_ROLLED, 4).has_event); /* at rest, not yet settled */
    CHECK(!dd_tracker_tick(&t, 900 + DD_SETTLE_MS - 1).has_event);
    e = dd_tracker_tick(&t, 900 + DD_SETTLE_MS);
    CHECK(is_event(e, DD_ROLLED, 4));
    CHECK(!dd_tracker_tick(&t, 5000).has_event);            /* once */
    CHECK(!feed(&t, 5100, DD_RAW_ONFACE, 4).has_event);     /* same face: nothing new */
}

static void test_wobble_restarts_the_still_timer(void) {
    dd_tracker t;
    dd_tracker_init(&t);
    feed(&t, 0, DD_RAW_ROLLING, 0);
    CHECK(!feed(&t, 1000, DD_RAW_ROLLED, 2).has_event);
    CHECK(!feed(&t, 1200, DD_RAW_ROLLED, 5).has_event); /* tipped over to another face */
    CHECK(!dd_tracker_tick(&t, 1000 + DD_SETTLE_MS).has_event);
    CHECK(!feed(&t, 1250, DD_RAW_ROLLING, 0).has_event); /* moving again: no new "rolling" */
    CHECK(!feed(&t, 1400, DD_RAW_ROLLED, 5).has_event);
    CHECK(is_event(feed(&t, 1400 + DD_SETTLE_MS, DD_RAW_ROLLED, 5), DD_ROLLED, 5));
}

static void test_handling_is_not_a_roll(void) {
    dd_tracker t;
    dd_tracker_init(&t);
    CHECK(is_event(feed(&t, 0, DD_RAW_HANDLING, 0), DD_HANDLING, -1));
    CHECK(!feed(&t, 100, DD_RAW_HANDLING, 0).has_event);
    CHECK(!feed(&t, 2000, DD_RAW_ONFACE, 3).has_event);
    CHECK(is_event(dd_tracker_tick(&t, 2000 + DD_SETTLE_MS), DD_ONFACE, 3));
    /* picked up in the middle of a tumble: the roll is cancelled */
    CHECK(is_event(feed(&t, 3000, DD_RAW_ROLLING, 0), DD_ROLLING, -1));
    CHECK(is_event(feed(&t, 3200, DD_RAW_HANDLING, 0), DD_HANDLING, -1));
    feed(&t, 3500, DD_RAW_ROLLED, 1);
    CHECK(is_event(dd_tracker_tick(&t, 3500 + DD_SETTLE_MS), DD_ONFACE, 1));
    /* a handled die that is then thrown is a roll */
    feed(&t, 5000, DD_RAW_HANDLING, 0);
    CHECK(is_event(feed(&t, 5400, DD_RAW_ROLLING, 0), DD_ROLLING, -1));
    feed(&t, 6000, DD_RAW_ROLLED, 0);
    CHECK(is_event(dd_tracker_tick(&t, 6000 + DD_SETTLE_MS), DD_ROLLED, 0));
}

static void test_nudge_and_power_up(void) {
    dd_tracker t;
    dd_tracker_init(&t);
    feed(&t, 0, DD_RAW_ONFACE, 2); /* powered up on face 2 */
    CHECK(is_event(dd_tracker_tick(&t, DD_SETTLE_MS), DD_ONFACE, 2));
    feed(&t, 1000, DD_RAW_ONFACE, 3); /* pushed over by hand without a tumble */
    CHECK(is_event(dd_tracker_tick(&t, 1000 + DD_SETTLE_MS), DD_ONFACE, 3));
}

static void test_crooked(void) {
    dd_tracker t;
    dd_tracker_init(&t);
    feed(&t, 0, DD_RAW_ROLLING, 0);
    feed(&t, 800, DD_RAW_CROOKED, 7);
    CHECK(is_event(dd_tracker_tick(&t, 800 + DD_SETTLE_MS), DD_CROOKED, -1));
    /* then nudged flat: on a face, not a roll */
    feed(&t, 2000, DD_RAW_ONFACE, 4);
    CHECK(is_event(dd_tracker_tick(&t, 2000 + DD_SETTLE_MS), DD_ONFACE, 4));
}

static void test_bad_input_and_clock_wrap(void) {
    dd_tracker t;
    uint32_t near_wrap = 0xFFFFFF00u;
    dd_tracker_init(&t);
    CHECK(!feed(&t, 0, DD_RAW_UNKNOWN, 3).has_event);
    CHECK(!feed(&t, 0, (dd_raw_state)9, 3).has_event);
    feed(&t, near_wrap, DD_RAW_ROLLING, 0);
    CHECK(!feed(&t, near_wrap + 10, DD_RAW_ROLLED, 20).has_event); /* impossible face: ignored */
    CHECK(!feed(&t, near_wrap + 20, DD_RAW_ROLLED, -3).has_event);
    feed(&t, near_wrap + 100, DD_RAW_ROLLED, 19);
    CHECK(!dd_tracker_tick(&t, near_wrap + 100 + DD_SETTLE_MS - 1).has_event);
    CHECK(is_event(dd_tracker_tick(&t, near_wrap + 100 + DD_SETTLE_MS), DD_ROLLED, 19)); /* wrapped */
}

int main(void) {
    test_a_clean_roll();
    test_wobble_restarts_the_still_timer();
    test_handling_is_not_a_roll();
    test_nudge_and_power_up();
    test_crooked();
    test_bad_input_and_clock_wrap();
    DONE("test_roll");
}
