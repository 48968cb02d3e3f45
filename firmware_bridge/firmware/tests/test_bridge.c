/* The bridge core end to end: advertisements in, protocol lines out, host commands answered. */
#include "check.h"
#include "dd_bridge.h"

typedef struct {
    char lines[64][DD_LINE_CAP];
    int count;
    uint32_t blinked;
    uint8_t blink_count;
    uint32_t blink_rgb;
} sink;

static void write_line(const char *line, size_t len, void *ctx) {
    sink *s = ctx;
    if (s->count < 64 && len < DD_LINE_CAP) {
        memcpy(s->lines[s->count], line, len);
        s->lines[s->count][len] = '\0';
        s->count++;
    }
}

static void blink(uint32_t pixel_id, uint8_t count, uint32_t rgb, void *ctx) {
    sink *s = ctx;
    s->blinked = pixel_id;
    s->blink_count = count;
    s->blink_rgb = rgb;
}

static dd_pixels_adv adv(uint32_t id, uint8_t state, uint8_t face, uint8_t battery) {
    dd_pixels_adv a;
    memset(&a, 0, sizeof a);
    a.is_pixels = a.has_state = a.has_id = 1;
    a.pixel_id = id;
    a.roll_state = state;
    a.face = face;
    a.battery = battery;
    return a;
}

static const char *line_body(const char *line) { /* "$...*hh\n" -> "...": for readable checks */
    static char body[DD_LINE_CAP];
    size_t n = strlen(line) < 5 ? 0 : strlen(line) - 5;
    memcpy(body, line + 1, n);
    body[n] = '\0';
    return body;
}

int main(void) {
    static dd_bridge b;
    static sink s;
    dd_pixels_adv a;
    dd_message m;
    int i;
    const char *cmd;

    dd_bridge_init(&b, "tablebridge", "1.0.0", write_line, blink, &s);
    CHECK(s.count == 1);
    CHECK_STR(s.lines[0], "$DDH,0,tablebridge,1.0.0,1*19\n");

    a = adv(0xA7F3, 5, 2, 80);
    dd_bridge_on_adv(&b, 0, &a);         /* first sight: battery, then settling on face 2 */
    dd_bridge_tick(&b, 400);
    a = adv(0xA7F3, 3, 0, 80);
    dd_bridge_on_adv(&b, 1000, &a);      /* tumbling */
    dd_bridge_on_adv(&b, 1100, &a);
    a = adv(0xA7F3, 1, 4, 79);
    dd_bridge_on_adv(&b, 2000, &a);      /* at rest on 4; battery dropped a percent */
    dd_bridge_tick(&b, 2200);
    dd_bridge_tick(&b, 2300);
    dd_bridge_tick(&b, 2400);
    CHECK(s.count == 6);
    CHECK_STR(line_body(s.lines[1]), "DDB,1,px0000A7F3,80,0");
    CHECK_STR(line_body(s.lines[2]), "DDR,2,px0000A7F3,onface,2");
    CHECK_STR(line_body(s.lines[3]), "DDR,3,px0000A7F3,rolling,-1");
    CHECK_STR(line_body(s.lines[4]), "DDB,4,px0000A7F3,79,0");
    CHECK_STR(line_body(s.lines[5]), "DDR,5,px0000A7F3,rolled,4");
    for (i = 0; i < s.count; i++) /* every line is valid for the host */
        CHECK(dd_decode(s.lines[i], strlen(s.lines[i]), DD_ACCEPT_BRIDGE, &m) == DD_OK);

    /* host commands, split across reads, with a bad line and an over-long one in between */
    cmd = "$DDC,PI";
    dd_bridge_rx(&b, cmd, strlen(cmd));
    cmd = "NG*7F\r\n$DDC,PING*00\n";
    dd_bridge_rx(&b, cmd, strlen(cmd));
    for (i = 0; i < 200; i++) dd_bridge_rx(&b, "x", 1);
    dd_bridge_rx(&b, "\n", 1);
    CHECK(s.count == 7);
    CHECK_STR(line_body(s.lines[6]), "DDH,6,tablebridge,1.0.0,1");
    CHECK(b.bad_commands == 2);
    cmd = "$DDC,LIST*6D\n";
    CHECK(dd_checksum("DDC,LIST", 8) == 0x6D);
    dd_bridge_rx(&b, cmd, strlen(cmd));
    CHECK(s.count == 8);
    CHECK_STR(line_body(s.lines[7]), "DDR,7,px0000A7F3,rolled,4");
    {
        char line[DD_LINE_CAP];
        memset(&m, 0, sizeof m);
        m.type = DD_MSG_BLINK;
        strcpy(m.die_id, "px0000A7F3");
        m.blink_count = 4;
        strcpy(m.color, "00FF80");
        CHECK(dd_encode(&m, line, sizeof line) > 0);
        dd_bridge_rx(&b, line, strlen(line));
        CHECK(s.blinked == 0xA7F3 && s.blink_count == 4 && s.blink_rgb == 0x00FF80);
        strcpy(m.die_id, "pxNOSUCH");
        CHECK(dd_encode(&m, line, sizeof line) > 0);
        dd_bridge_rx(&b, line, strlen(line));
        CHECK(s.count == 9);
        CHECK(strncmp(line_body(s.lines[8]), "DDE,8,E_NODIE,", 14) == 0);
    }
    /* a die not heard from for DD_LOST_MS is reported lost, once */
    dd_bridge_tick(&b, 2000 + DD_LOST_MS);
    dd_bridge_tick(&b, 2000 + DD_LOST_MS + 10);
    CHECK(s.count == 10);
    CHECK_STR(line_body(s.lines[9]), "DDE,9,E_LOST,lost die px0000A7F3");
    DONE("test_bridge");
}
