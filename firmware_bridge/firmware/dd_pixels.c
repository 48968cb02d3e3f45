/* Reading Pixels dice advertisements: see dd_pixels.h for the layout. */
#include "dd_pixels.h"

#include <stdio.h>
#include <string.h>

/* 6e400001-b5a3-f393-e0a9-e50e24dcca9e as it appears on air (least significant byte first). */
static const uint8_t PIXELS_SERVICE_LE[16] = {
    0x9e, 0xca, 0xdc, 0x24, 0x0e, 0xe5, 0xa9, 0xe0, 0x93, 0xf3, 0xa3, 0xb5, 0x01, 0x00, 0x40, 0x6e,
};

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

int dd_pixels_parse(const uint8_t *adv, size_t len, dd_pixels_adv *out) {
    size_t pos = 0;
    memset(out, 0, sizeof *out);
    while (pos < len) {
        size_t field_len = adv[pos];
        const uint8_t *data;
        size_t data_len, i;
        uint8_t type;
        if (field_len == 0) break; /* padding: the rest is unused */
        if (field_len > len - pos - 1) return 0; /* structure runs past the end: malformed */
        type = adv[pos + 1];
        data = adv + pos + 2;
        data_len = field_len - 1;
        switch (type) {
        case 0x06:
        case 0x07:
            for (i = 0; i + 16 <= data_len; i += 16)
                if (memcmp(data + i, PIXELS_SERVICE_LE, 16) == 0) out->is_pixels = 1;
            break;
        case 0xFF:
            if (data_len >= 2 + 5) {
                const uint8_t *m = data + 2; /* after the company identifier */
                out->led_count = m[0];
                out->design = m[1];
                out->roll_state = m[2] <= 5 ? m[2] : 0;
                out->face = m[3];
                out->battery = (uint8_t)(m[4] & 0x7F);
                out->charging = (uint8_t)(m[4] >> 7);
                out->has_state = out->battery <= 100;
            }
            break;
        case 0x16:
        case 0x21: {
            size_t uuid_len = type == 0x16 ? 2 : 16;
            if (data_len >= uuid_len + 8) {
                out->pixel_id = le32(data + uuid_len);
                out->build_time = le32(data + uuid_len + 4);
                out->has_id = 1;
            }
            break;
        }
        default:
            break;
        }
        pos += field_len + 1;
    }
    return out->is_pixels && out->has_state && out->has_id;
}

void dd_pixels_die_id(uint32_t pixel_id, char *out) {
    snprintf(out, DD_ID_MAX + 1, "px%08lX", (unsigned long)pixel_id);
}
