/* Pixels advertisement parsing: the layout documented in dd_pixels.h, and malformed payloads. */
#include "check.h"
#include "dd_pixels.h"

static const uint8_t UUID_LE[16] = {0x9e, 0xca, 0xdc, 0x24, 0x0e, 0xe5, 0xa9, 0xe0,
                                    0x93, 0xf3, 0xa3, 0xb5, 0x01, 0x00, 0x40, 0x6e};

/* Build an advertisement: flags, the service UUID, manufacturer data and 16-bit service data. */
static size_t build(uint8_t *p, uint8_t roll_state, uint8_t face, uint8_t battery_byte, uint32_t id) {
    size_t n = 0;
    p[n++] = 2; p[n++] = 0x01; p[n++] = 0x06;                       /* flags */
    p[n++] = 17; p[n++] = 0x07; memcpy(p + n, UUID_LE, 16); n += 16; /* 128-bit UUID list */
    p[n++] = 8; p[n++] = 0xFF; p[n++] = 0x34; p[n++] = 0x12;          /* company id */
    p[n++] = 6; p[n++] = 0x11; p[n++] = roll_state; p[n++] = face; p[n++] = battery_byte;
    p[n++] = 11; p[n++] = 0x16; p[n++] = 0x0A; p[n++] = 0x18;         /* service data, 16-bit uuid */
    p[n++] = (uint8_t)id; p[n++] = (uint8_t)(id >> 8); p[n++] = (uint8_t)(id >> 16); p[n++] = (uint8_t)(id >> 24);
    p[n++] = 0x78; p[n++] = 0x56; p[n++] = 0x34; p[n++] = 0x12;       /* build timestamp */
    return n;
}

int main(void) {
    uint8_t adv[64];
    dd_pixels_adv a;
    char id[DD_ID_MAX + 1];
    size_t n = build(adv, 3, 4, 0x80 | 57, 0x00A7F3C2u);
    size_t cut;

    CHECK(dd_pixels_parse(adv, n, &a) == 1);
    CHECK(a.roll_state == 3 && a.face == 4 && a.battery == 57 && a.charging == 1);
    CHECK(a.led_count == 6 && a.design == 0x11);
    CHECK(a.pixel_id == 0x00A7F3C2u && a.build_time == 0x12345678u);
    dd_pixels_die_id(a.pixel_id, id);
    CHECK_STR(id, "px00A7F3C2");
    CHECK(dd_valid_die_id(id));

    n = build(adv, 1, 19, 100, 0xFFFFFFFFu);
    CHECK(dd_pixels_parse(adv, n, &a) == 1 && a.charging == 0 && a.battery == 100);
    dd_pixels_die_id(a.pixel_id, id);
    CHECK_STR(id, "pxFFFFFFFF");

    n = build(adv, 9, 0, 50, 1); /* unknown roll state value: reported as unknown */
    CHECK(dd_pixels_parse(adv, n, &a) == 1 && a.roll_state == 0);
    n = build(adv, 1, 0, 0x7F, 1); /* battery 127%: not a state we trust */
    CHECK(dd_pixels_parse(adv, n, &a) == 0);

    n = build(adv, 1, 2, 50, 7);
    adv[5] ^= 0xFF; /* another service: not a Pixels die */
    CHECK(dd_pixels_parse(adv, n, &a) == 0 && !a.is_pixels);

    n = build(adv, 1, 2, 50, 7);
    for (cut = 0; cut < n; cut++) /* every truncation is refused or parsed within bounds */
        CHECK(dd_pixels_parse(adv, cut, &a) == 0);
    adv[3] = 60; /* a structure claiming more bytes than there are */
    CHECK(dd_pixels_parse(adv, n, &a) == 0);
    CHECK(dd_pixels_parse(adv, 0, &a) == 0);
    DONE("test_pixels");
}
