/* Bounded random test of the decoder (and of the other parsers that take outside bytes).
 *
 * Seeded and repeatable: `test_fuzz [iterations] [seed]`.  Under AddressSanitizer/UBSan (the
 * Makefile's default) any out-of-bounds read or undefined behaviour aborts the run.  Properties:
 *   1. random bytes never crash the decoder; whatever it accepts re-encodes to the same line
 *      (canonical form, up to the case of the checksum digits) and has a matching checksum;
 *   2. every valid message encodes, and decodes back to the same line;
 *   3. one changed body byte, or any truncation, is never accepted;
 *   4. random advertisement payloads and random host bytes never crash their parsers, and the
 *      bridge answers only with lines the host accepts.
 */
#include <ctype.h>
#include <stdlib.h>

#include "check.h"
#include "dd_bridge.h"

static uint64_t rng_state;

static uint32_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

static uint32_t below(uint32_t n) { return rnd() % n; }

static const char ALPHABET[] = "$*,-0123456789ABCDEFabcdefDDRHBECPINGLISTrolledinghcokfa_xyz \r\n";

static size_t random_line(char *buf, size_t cap) {
    size_t len = below(160), i;
    if (len > cap) len = cap;
    for (i = 0; i < len; i++) {
        uint32_t k = below(10);
        buf[i] = k < 7 ? ALPHABET[below(sizeof ALPHABET - 1)] : (char)below(256);
    }
    if (len > 0 && below(2)) buf[0] = '$';
    return len;
}

static void random_id(char *out);

/* A line of plausible tokens framed with a correct checksum: reaches the field checks. */
static size_t random_framed(char *buf, size_t cap) {
    static const char *const TYPES[] = {"DDH", "DDR", "DDB", "DDE", "DDC", "DDX", ""};
    static const char *const TOKENS[] = {"0", "1", "-1", "19", "20", "100", "101", "65535", "65536", "01",
                                         "rolled", "rolling", "handling", "crooked", "onface", "PING",
                                         "BLINK", "LIST", "FF00aa", "FF00a", "", "1.0.0", " "};
    char body[200];
    size_t n, fields = below(7), k;
    n = (size_t)snprintf(body, sizeof body, "%s", TYPES[below(7)]);
    for (k = 0; k < fields && n < 150; k++) {
        char id[DD_ID_MAX + 1];
        const char *tok;
        if (below(4) == 0) {
            random_id(id);
            tok = id;
        } else {
            tok = TOKENS[below(sizeof TOKENS / sizeof TOKENS[0])];
        }
        n += (size_t)snprintf(body + n, sizeof body - n, ",%s", tok);
    }
    return (size_t)snprintf(buf, cap, "$%s*%02X", body, (unsigned)dd_checksum(body, n));
}

static void random_id(char *out) {
    static const char ID[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    size_t n = 1 + below(DD_ID_MAX), i;
    for (i = 0; i < n; i++) out[i] = ID[below(sizeof ID - 1)];
    out[n] = '\0';
}

static void random_text(char *out, size_t max, int allow_empty) {
    size_t n = below((uint32_t)max + 1), i;
    if (!allow_empty && n == 0) n = 1;
    for (i = 0; i < n; i++) {
        char c;
        do c = (char)(0x20 + below(95)); while (c == '$' || c == '*' || c == ',');
        out[i] = c;
    }
    out[n] = '\0';
}

static void random_message(dd_message *m) {
    memset(m, 0, sizeof *m);
    m->type = (dd_msg_type)below(7);
    m->seq = (uint16_t)below(65536);
    random_id(m->die_id);
    m->state = (dd_roll_state)below(5);
    m->face = (int8_t)((int)below(21) - 1);
    m->battery = (uint8_t)below(101);
    m->charging = (uint8_t)below(2);
    m->protocol_version = (uint16_t)(1 + below(3));
    random_text(m->name, 12, 0);
    random_text(m->text, m->type == DD_MSG_DDE ? 40 : 12, m->type == DD_MSG_DDE);
    m->blink_count = (uint8_t)(1 + below(255));
    {
        static const char HEX[] = "0123456789ABCDEFabcdef";
        int k;
        for (k = 0; k < 6; k++) m->color[k] = HEX[below(sizeof HEX - 1)];
        m->color[6] = '\0';
    }
}

static void canonical(const char *line, size_t len, char *out) { /* strip line end, upper-case hh */
    if (len && line[len - 1] == '\n') len--;
    if (len && line[len - 1] == '\r') len--;
    memcpy(out, line, len);
    out[len] = '\0';
    if (len >= 2) {
        out[len - 1] = (char)toupper((unsigned char)out[len - 1]);
        out[len - 2] = (char)toupper((unsigned char)out[len - 2]);
    }
}

static void on_write(const char *line, size_t len, void *ctx) {
    dd_message m;
    (void)ctx;
    CHECK(dd_decode(line, len, DD_ACCEPT_BRIDGE, &m) == DD_OK);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 200000;
    long i, accepted = 0;
    static dd_bridge bridge;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9E3779B97F4A7C15ULL;
    if (rng_state == 0) rng_state = 1;
    dd_bridge_init(&bridge, "fuzz", "0", on_write, NULL, NULL);

    for (i = 0; i < iterations; i++) {
        char line[256], again[DD_LINE_CAP], canon[256], canon2[256];
        dd_message m, back;
        size_t len, n, pos;
        unsigned accept = (unsigned[]){DD_ACCEPT_BRIDGE, DD_ACCEPT_HOST, DD_ACCEPT_ALL}[below(3)];

        /* 1. random bytes, or random tokens with a valid frame */
        len = below(2) ? random_line(line, sizeof line) : random_framed(line, sizeof line);
        if (dd_decode(line, len, accept, &m) == DD_OK) {
            accepted++;
            n = dd_encode(&m, again, sizeof again);
            CHECK(n > 0);
            canonical(line, len, canon);
            canonical(again, n, canon2);
            CHECK_STR(canon, canon2);
        }

        /* 2. a valid message round-trips */
        random_message(&m);
        n = dd_encode(&m, line, sizeof line);
        if (n == 0) continue; /* longer than 120 bytes: refused, as it must be */
        CHECK(dd_decode(line, n, DD_ACCEPT_ALL, &back) == DD_OK);
        CHECK(dd_encode(&back, again, sizeof again) == n && memcmp(line, again, n) == 0);

        /* 3. one changed body byte, or a truncation, is refused */
        pos = 1 + below((uint32_t)(n - 5));
        {
            char old = line[pos];
            char repl = (char)below(256);
            if (repl != old && repl != '\n') {
                line[pos] = repl;
                CHECK(dd_decode(line, n, DD_ACCEPT_ALL, &back) != DD_OK);
                line[pos] = old;
            }
        }
        CHECK(dd_decode(line, below((uint32_t)(n - 1)), DD_ACCEPT_ALL, &back) != DD_OK);

        /* 4. other parsers of outside bytes */
        if ((i & 7) == 0) {
            uint8_t adv[64];
            dd_pixels_adv a;
            size_t k, alen = below(sizeof adv + 1);
            for (k = 0; k < alen; k++) adv[k] = (uint8_t)below(256);
            if (dd_pixels_parse(adv, alen, &a)) dd_bridge_on_adv(&bridge, (uint32_t)i, &a);
            dd_bridge_rx(&bridge, line, n);                 /* bridge messages are not commands */
            len = random_line(line, sizeof line);
            dd_bridge_rx(&bridge, line, len);
            dd_bridge_tick(&bridge, (uint32_t)i * 50u);
        }
    }
    printf("test_fuzz: %ld iterations, %ld random lines accepted\n", iterations, accepted);
    DONE("test_fuzz");
}
