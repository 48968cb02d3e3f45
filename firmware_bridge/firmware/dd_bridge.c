/* The bridge's portable core: see dd_bridge.h. */
#include "dd_bridge.h"

#include <stdio.h>
#include <string.h>

static void send(dd_bridge *b, dd_message *m) {
    char line[DD_LINE_CAP];
    size_t n;
    m->seq = dd_seq_take(&b->seq);
    n = dd_encode(m, line, sizeof line);
    if (n > 0) b->write(line, n, b->ctx);
}

static void send_hello(dd_bridge *b) {
    dd_message m;
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDH;
    snprintf(m.name, sizeof m.name, "%s", b->name);
    snprintf(m.text, sizeof m.text, "%s", b->firmware);
    m.protocol_version = DD_PROTOCOL_VERSION;
    send(b, &m);
}

static void send_state(dd_bridge *b, const dd_bridge_die *d, dd_roll_state state, int face) {
    dd_message m;
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDR;
    memcpy(m.die_id, d->die_id, sizeof m.die_id);
    m.state = state;
    m.face = (int8_t)face;
    send(b, &m);
}

static void send_battery(dd_bridge *b, const dd_bridge_die *d) {
    dd_message m;
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDB;
    memcpy(m.die_id, d->die_id, sizeof m.die_id);
    m.battery = d->battery;
    m.charging = d->charging;
    send(b, &m);
}

void dd_bridge_fault(dd_bridge *b, const char *code, const char *text) {
    dd_message m;
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDE;
    snprintf(m.name, sizeof m.name, "%s", code);
    snprintf(m.text, sizeof m.text, "%s", text);
    send(b, &m);
}

void dd_bridge_init(dd_bridge *b, const char *name, const char *firmware, dd_write_fn write,
                    dd_blink_fn blink, void *ctx) {
    memset(b, 0, sizeof *b);
    b->name = name;
    b->firmware = firmware;
    b->write = write;
    b->blink = blink;
    b->ctx = ctx;
    dd_seq_init(&b->seq);
    send_hello(b);
}

static dd_bridge_die *find_die(dd_bridge *b, uint32_t pixel_id, int create) {
    size_t i;
    dd_bridge_die *free_slot = NULL;
    for (i = 0; i < DD_BRIDGE_MAX_DICE; i++) {
        if (b->dice[i].used && b->dice[i].pixel_id == pixel_id) return &b->dice[i];
        if (!b->dice[i].used && free_slot == NULL) free_slot = &b->dice[i];
    }
    if (!create || free_slot == NULL) return NULL;
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->used = 1;
    free_slot->pixel_id = pixel_id;
    dd_pixels_die_id(pixel_id, free_slot->die_id);
    dd_tracker_init(&free_slot->tracker);
    return free_slot;
}

static void report(dd_bridge *b, const dd_bridge_die *d, dd_roll_event e) {
    if (e.has_event) send_state(b, d, e.state, e.face);
}

void dd_bridge_on_adv(dd_bridge *b, uint32_t now_ms, const dd_pixels_adv *adv) {
    dd_bridge_die *d;
    if (!adv->has_state || !adv->has_id) return;
    d = find_die(b, adv->pixel_id, 1);
    if (d == NULL) {
        dd_bridge_fault(b, "E_FULL", "too many dice");
        return;
    }
    d->last_seen = now_ms;
    d->lost = 0;
    if (!d->battery_known || d->battery != adv->battery || d->charging != adv->charging) {
        d->battery_known = 1;
        d->battery = adv->battery;
        d->charging = adv->charging;
        send_battery(b, d);
    }
    report(b, d, dd_tracker_observe(&d->tracker, now_ms, (dd_raw_state)adv->roll_state, adv->face));
}

void dd_bridge_tick(dd_bridge *b, uint32_t now_ms) {
    size_t i;
    char text[48];
    for (i = 0; i < DD_BRIDGE_MAX_DICE; i++) {
        dd_bridge_die *d = &b->dice[i];
        if (!d->used) continue;
        report(b, d, dd_tracker_tick(&d->tracker, now_ms));
        if (!d->lost && (uint32_t)(now_ms - d->last_seen) >= DD_LOST_MS) {
            d->lost = 1;
            snprintf(text, sizeof text, "lost die %s", d->die_id);
            dd_bridge_fault(b, "E_LOST", text);
        }
    }
}

static void command(dd_bridge *b, const char *line, size_t len) {
    dd_message m;
    size_t i;
    if (dd_decode(line, len, DD_ACCEPT_HOST, &m) != DD_OK) {
        b->bad_commands++;
        return;
    }
    if (m.type == DD_MSG_PING) {
        send_hello(b);
    } else if (m.type == DD_MSG_LIST) {
        for (i = 0; i < DD_BRIDGE_MAX_DICE; i++) {
            const dd_bridge_die *d = &b->dice[i];
            const dd_tracker *t = &d->tracker;
            if (!d->used) continue;
            if (t->phase == DD_PHASE_ROLLING) send_state(b, d, DD_ROLLING, DD_UNKNOWN_FACE);
            else if (t->phase == DD_PHASE_HANDLING) send_state(b, d, DD_HANDLING, DD_UNKNOWN_FACE);
            else if (!t->has_reported) send_state(b, d, DD_ONFACE, DD_UNKNOWN_FACE);
            else if (t->rep_crooked) send_state(b, d, DD_CROOKED, DD_UNKNOWN_FACE);
            else send_state(b, d, t->last == DD_ROLLED ? DD_ROLLED : DD_ONFACE, t->rep_face);
        }
    } else if (m.type == DD_MSG_BLINK) {
        for (i = 0; i < DD_BRIDGE_MAX_DICE; i++) {
            if (b->dice[i].used && strcmp(b->dice[i].die_id, m.die_id) == 0) {
                unsigned long rgb = 0;
                sscanf(m.color, "%6lx", &rgb);
                if (b->blink != NULL) b->blink(b->dice[i].pixel_id, m.blink_count, (uint32_t)rgb, b->ctx);
                return;
            }
        }
        dd_bridge_fault(b, "E_NODIE", "blink: no such die");
    }
}

void dd_bridge_rx(dd_bridge *b, const char *data, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n') {
            if (!b->skipping) command(b, b->inbuf, b->inlen);
            else b->bad_commands++;
            b->inlen = 0;
            b->skipping = 0;
        } else if (b->skipping) {
            continue;
        } else if (b->inlen < DD_MAX_LINE + 1) { /* room for a '\r' before the '\n' */
            b->inbuf[b->inlen++] = c;
        } else {
            b->skipping = 1; /* too long: drop it, resynchronise on the next line end */
        }
    }
}
