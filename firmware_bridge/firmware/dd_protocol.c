/* Smart-dice serial protocol, version 1: see dd_protocol.h. */
#include "dd_protocol.h"

#include <stdio.h>
#include <string.h>

#define DD_MAX_FIELDS 8

static const char *const STATUS_NAMES[] = {
    "ok", "too_long", "not_ascii", "no_start", "bad_checksum", "unknown_type", "field_count", "field_range",
};
static const char *const STATE_NAMES[] = {"rolling", "handling", "rolled", "crooked", "onface"};

const char *dd_status_name(dd_status status) {
    return (unsigned)status < sizeof STATUS_NAMES / sizeof STATUS_NAMES[0] ? STATUS_NAMES[status] : "?";
}

const char *dd_state_name(dd_roll_state state) {
    return (unsigned)state < sizeof STATE_NAMES / sizeof STATE_NAMES[0] ? STATE_NAMES[state] : "?";
}

uint8_t dd_checksum(const char *body, size_t len) {
    uint8_t x = 0;
    size_t i;
    for (i = 0; i < len; i++) x ^= (uint8_t)body[i];
    return x;
}

static int is_id_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int valid_id_span(const char *s, size_t len) {
    size_t i;
    if (len < 1 || len > DD_ID_MAX) return 0;
    for (i = 0; i < len; i++)
        if (!is_id_char(s[i])) return 0;
    return 1;
}

int dd_valid_die_id(const char *id) { return valid_id_span(id, strlen(id)); }

/* A field we may send: printable ASCII without '$', '*' or ','. */
static int sendable(const char *s) {
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7E || *s == '$' || *s == '*' || *s == ',') return 0;
    return 1;
}

/* Canonical unsigned decimal ("0" or no leading zero, at most 5 digits) not above hi. */
static int parse_uint(const char *s, size_t len, unsigned long hi, unsigned long *out) {
    unsigned long v = 0;
    size_t i;
    if (len < 1 || len > 5 || (len > 1 && s[0] == '0')) return 0;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v > hi) return 0;
    *out = v;
    return 1;
}

static int span_eq(const char *s, size_t len, const char *lit) {
    return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static void copy_span(char *dst, const char *s, size_t len) {
    memcpy(dst, s, len);
    dst[len] = '\0';
}

size_t dd_encode(const dd_message *m, char *out, size_t cap) {
    char body[DD_LINE_CAP + 8];
    int n;
    switch (m->type) {
    case DD_MSG_DDH:
        if (!m->name[0] || !m->text[0] || !sendable(m->name) || !sendable(m->text)) return 0;
        n = snprintf(body, sizeof body, "DDH,%u,%s,%s,%u", (unsigned)m->seq, m->name, m->text,
                     (unsigned)m->protocol_version);
        break;
    case DD_MSG_DDR:
        if (!dd_valid_die_id(m->die_id) || (unsigned)m->state > DD_ONFACE || m->face < DD_UNKNOWN_FACE ||
            m->face > DD_MAX_FACE)
            return 0;
        n = snprintf(body, sizeof body, "DDR,%u,%s,%s,%d", (unsigned)m->seq, m->die_id, dd_state_name(m->state),
                     (int)m->face);
        break;
    case DD_MSG_DDB:
        if (!dd_valid_die_id(m->die_id) || m->battery > 100 || m->charging > 1) return 0;
        n = snprintf(body, sizeof body, "DDB,%u,%s,%u,%u", (unsigned)m->seq, m->die_id, (unsigned)m->battery,
                     (unsigned)m->charging);
        break;
    case DD_MSG_DDE:
        if (!m->name[0] || !sendable(m->name) || !sendable(m->text)) return 0;
        n = snprintf(body, sizeof body, "DDE,%u,%s,%s", (unsigned)m->seq, m->name, m->text);
        break;
    case DD_MSG_PING:
        n = snprintf(body, sizeof body, "DDC,PING");
        break;
    case DD_MSG_LIST:
        n = snprintf(body, sizeof body, "DDC,LIST");
        break;
    case DD_MSG_BLINK: {
        int i;
        if (!dd_valid_die_id(m->die_id) || m->blink_count < 1) return 0;
        for (i = 0; i < 6; i++)
            if (hex_value(m->color[i]) < 0) return 0;
        if (m->color[6] != '\0') return 0;
        n = snprintf(body, sizeof body, "DDC,BLINK,%s,%u,%s", m->die_id, (unsigned)m->blink_count, m->color);
        break;
    }
    default:
        return 0;
    }
    if (n < 0 || (size_t)n + 4 > DD_MAX_LINE || (size_t)n + 6 > cap) return 0; /* "$" + body + "*hh" */
    n = snprintf(out, cap, "$%s*%02X\n", body, (unsigned)dd_checksum(body, (size_t)n));
    return (size_t)n;
}

static dd_status decode_fields(const char *f[], const size_t fl[], size_t nf, dd_msg_type type, dd_message *out) {
    unsigned long v;
    size_t i;
    out->type = type;
    switch (type) {
    case DD_MSG_DDH:
        if (nf != 4) return DD_FIELD_COUNT;
        if (!parse_uint(f[0], fl[0], 65535, &v)) return DD_FIELD_RANGE;
        out->seq = (uint16_t)v;
        if (fl[1] == 0 || fl[2] == 0) return DD_FIELD_RANGE;
        copy_span(out->name, f[1], fl[1]);
        copy_span(out->text, f[2], fl[2]);
        if (!parse_uint(f[3], fl[3], 65535, &v)) return DD_FIELD_RANGE;
        out->protocol_version = (uint16_t)v;
        return DD_OK;
    case DD_MSG_DDR:
        if (nf != 4) return DD_FIELD_COUNT;
        if (!parse_uint(f[0], fl[0], 65535, &v)) return DD_FIELD_RANGE;
        out->seq = (uint16_t)v;
        if (!valid_id_span(f[1], fl[1])) return DD_FIELD_RANGE;
        copy_span(out->die_id, f[1], fl[1]);
        for (i = 0; i < 5; i++)
            if (span_eq(f[2], fl[2], STATE_NAMES[i])) break;
        if (i == 5) return DD_FIELD_RANGE;
        out->state = (dd_roll_state)i;
        if (span_eq(f[3], fl[3], "-1")) {
            out->face = DD_UNKNOWN_FACE; /* -1 (unknown) is in range for every state */
        } else {
            if (!parse_uint(f[3], fl[3], DD_MAX_FACE, &v)) return DD_FIELD_RANGE;
            out->face = (int8_t)v;
        }
        return DD_OK;
    case DD_MSG_DDB:
        if (nf != 4) return DD_FIELD_COUNT;
        if (!parse_uint(f[0], fl[0], 65535, &v)) return DD_FIELD_RANGE;
        out->seq = (uint16_t)v;
        if (!valid_id_span(f[1], fl[1])) return DD_FIELD_RANGE;
        copy_span(out->die_id, f[1], fl[1]);
        if (!parse_uint(f[2], fl[2], 100, &v)) return DD_FIELD_RANGE;
        out->battery = (uint8_t)v;
        if (fl[3] != 1 || (f[3][0] != '0' && f[3][0] != '1')) return DD_FIELD_RANGE;
        out->charging = (uint8_t)(f[3][0] - '0');
        return DD_OK;
    case DD_MSG_DDE:
        if (nf != 3) return DD_FIELD_COUNT;
        if (!parse_uint(f[0], fl[0], 65535, &v)) return DD_FIELD_RANGE;
        out->seq = (uint16_t)v;
        if (fl[1] == 0) return DD_FIELD_RANGE;
        copy_span(out->name, f[1], fl[1]);
        copy_span(out->text, f[2], fl[2]);
        return DD_OK;
    default: /* DDC: the command is the first field */
        if (nf == 0) return DD_FIELD_COUNT;
        if (span_eq(f[0], fl[0], "PING") || span_eq(f[0], fl[0], "LIST")) {
            out->type = f[0][0] == 'P' ? DD_MSG_PING : DD_MSG_LIST;
            return nf == 1 ? DD_OK : DD_FIELD_COUNT;
        }
        if (span_eq(f[0], fl[0], "BLINK")) {
            out->type = DD_MSG_BLINK;
            if (nf != 4) return DD_FIELD_COUNT;
            if (!parse_uint(f[2], fl[2], DD_MAX_BLINK, &v) || v < 1) return DD_FIELD_RANGE;
            out->blink_count = (uint8_t)v;
            if (!valid_id_span(f[1], fl[1])) return DD_FIELD_RANGE;
            copy_span(out->die_id, f[1], fl[1]);
            if (fl[3] != 6) return DD_FIELD_RANGE;
            for (i = 0; i < 6; i++)
                if (hex_value(f[3][i]) < 0) return DD_FIELD_RANGE;
            copy_span(out->color, f[3], 6);
            return DD_OK;
        }
        return DD_FIELD_RANGE;
    }
}

dd_status dd_decode(const char *line, size_t len, unsigned accept, dd_message *out) {
    const char *f[DD_MAX_FIELDS];
    size_t fl[DD_MAX_FIELDS];
    size_t i, star, body_len, nf = 0, start;
    const char *body;
    int hi, lo;
    dd_msg_type type;

    if (len > 0 && line[len - 1] == '\n') len--;
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len > DD_MAX_LINE) return DD_TOO_LONG;
    for (i = 0; i < len; i++)
        if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7E) return DD_NOT_ASCII;
    if (len == 0 || line[0] != '$') return DD_NO_START;
    star = len;
    for (i = len; i-- > 0;)
        if (line[i] == '*') { star = i; break; }
    if (star == len || len - star != 3) return DD_BAD_CHECKSUM;
    hi = hex_value(line[star + 1]);
    lo = hex_value(line[star + 2]);
    if (hi < 0 || lo < 0) return DD_BAD_CHECKSUM;
    body = line + 1;
    body_len = star - 1;
    if (dd_checksum(body, body_len) != (uint8_t)(hi * 16 + lo)) return DD_BAD_CHECKSUM;

    /* the type, then the fields; more fields than any type takes is a wrong count */
    for (i = 0; i < body_len && body[i] != ','; i++) {}
    if (span_eq(body, i, "DDH")) type = DD_MSG_DDH;
    else if (span_eq(body, i, "DDR")) type = DD_MSG_DDR;
    else if (span_eq(body, i, "DDB")) type = DD_MSG_DDB;
    else if (span_eq(body, i, "DDE")) type = DD_MSG_DDE;
    else if (span_eq(body, i, "DDC")) type = DD_MSG_PING; /* refined by decode_fields */
    else return DD_UNKNOWN_TYPE;
    if (!(accept & (type == DD_MSG_PING ? DD_ACCEPT_HOST : (1u << type)))) return DD_UNKNOWN_TYPE;

    if (i < body_len) { /* fields follow the comma after the type */
        start = i + 1;
        for (i = start;; i++) {
            if (i == body_len || body[i] == ',') {
                if (nf < DD_MAX_FIELDS) {
                    f[nf] = body + start;
                    fl[nf] = i - start;
                }
                nf++;
                start = i + 1;
                if (i == body_len) break;
            } else if (body[i] == '$' || body[i] == '*') {
                return DD_FIELD_RANGE;
            }
        }
    }
    /* beyond DD_MAX_FIELDS only the count is kept: every type then fails its count check */
    memset(out, 0, sizeof *out);
    return decode_fields(f, fl, nf, type, out);
}

void dd_seq_init(dd_seq *s) { s->next = 0; }

uint16_t dd_seq_take(dd_seq *s) {
    uint16_t v = s->next;
    s->next = (uint16_t)(v == 65535u ? 0u : v + 1u);
    return v;
}
