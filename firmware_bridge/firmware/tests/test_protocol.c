/* Encoder, decoder and sequence counter against the protocol text and its examples. */
#include "check.h"
#include "dd_protocol.h"

static dd_status decode_str(const char *line, unsigned accept, dd_message *m) {
    return dd_decode(line, strlen(line), accept, m);
}

/* Frame a body with its correct checksum. */
static const char *framed(const char *body) {
    static char buf[256];
    snprintf(buf, sizeof buf, "$%s*%02X\n", body, (unsigned)dd_checksum(body, strlen(body)));
    return buf;
}

static void test_examples(void) {
    dd_message m;
    char out[DD_LINE_CAP];
    CHECK(decode_str("$DDH,0,tablebridge,1.0.0,1*19\n", DD_ACCEPT_BRIDGE, &m) == DD_OK);
    CHECK(m.type == DD_MSG_DDH && m.seq == 0 && m.protocol_version == 1);
    CHECK_STR(m.name, "tablebridge");
    CHECK_STR(m.text, "1.0.0");
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1*09\n", DD_ACCEPT_BRIDGE, &m) == DD_OK);
    CHECK(m.type == DD_MSG_DDR && m.seq == 1 && m.state == DD_ROLLING && m.face == -1);
    CHECK_STR(m.die_id, "pxA7F3");
    CHECK(decode_str("$DDR,2,pxA7F3,rolled,4*43\r\n", DD_ACCEPT_BRIDGE, &m) == DD_OK);
    CHECK(m.state == DD_ROLLED && m.face == 4);
    CHECK(dd_encode(&m, out, sizeof out) == strlen("$DDR,2,pxA7F3,rolled,4*43\n"));
    CHECK_STR(out, "$DDR,2,pxA7F3,rolled,4*43\n");
    CHECK(decode_str("$DDH,0,tablebridge,1.0.0,1*19", DD_ACCEPT_BRIDGE, &m) == DD_OK);
    CHECK(dd_encode(&m, out, sizeof out) > 0);
    CHECK_STR(out, "$DDH,0,tablebridge,1.0.0,1*19\n");
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1*09\n", DD_ACCEPT_HOST, &m) == DD_UNKNOWN_TYPE);
}

static void test_commands(void) {
    dd_message m;
    char out[DD_LINE_CAP];
    CHECK(decode_str(framed("DDC,PING"), DD_ACCEPT_HOST, &m) == DD_OK && m.type == DD_MSG_PING);
    CHECK(decode_str(framed("DDC,LIST"), DD_ACCEPT_HOST, &m) == DD_OK && m.type == DD_MSG_LIST);
    CHECK(decode_str(framed("DDC,BLINK,pxA7F3,3,ff8800"), DD_ACCEPT_HOST, &m) == DD_OK);
    CHECK(m.type == DD_MSG_BLINK && m.blink_count == 3);
    CHECK_STR(m.die_id, "pxA7F3");
    CHECK_STR(m.color, "ff8800");
    CHECK(dd_encode(&m, out, sizeof out) > 0);
    CHECK_STR(out, framed("DDC,BLINK,pxA7F3,3,ff8800"));
    CHECK(decode_str(framed("DDC,PING"), DD_ACCEPT_BRIDGE, &m) == DD_UNKNOWN_TYPE);
    CHECK(decode_str(framed("DDC"), DD_ACCEPT_HOST, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDC,PING,1"), DD_ACCEPT_HOST, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDC,BLINK,pxA7F3,3"), DD_ACCEPT_HOST, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDC,BLINK,pxA7F3,0,FF8800"), DD_ACCEPT_HOST, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDC,BLINK,pxA7F3,256,FF8800"), DD_ACCEPT_HOST, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDC,BLINK,pxA7F3,3,FF880G"), DD_ACCEPT_HOST, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDC,RESET"), DD_ACCEPT_HOST, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDC,RESET,1,2,3,4,5,6,7,8,9"), DD_ACCEPT_HOST, &m) == DD_FIELD_RANGE);
}

static void test_drop_reasons(void) {
    dd_message m;
    char longline[300];
    const char *base = "DDE,1,E,";
    char body[200];
    size_t fill = DD_MAX_LINE - strlen("$") - strlen(base) - strlen("*hh");
    memset(body, 0, sizeof body);
    strcpy(body, base);
    memset(body + strlen(base), 't', fill);
    snprintf(longline, sizeof longline, "%s", framed(body));
    CHECK(strlen(longline) == DD_MAX_LINE + 1);
    CHECK(decode_str(longline, DD_ACCEPT_BRIDGE, &m) == DD_OK); /* exactly 120 bytes: fine */
    body[strlen(body)] = 't';
    CHECK(decode_str(framed(body), DD_ACCEPT_BRIDGE, &m) == DD_TOO_LONG);

    CHECK(decode_str("DDR,1,pxA7F3,rolling,-1*09\n", DD_ACCEPT_BRIDGE, &m) == DD_NO_START);
    CHECK(decode_str("\n", DD_ACCEPT_BRIDGE, &m) == DD_NO_START);
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1*08\n", DD_ACCEPT_BRIDGE, &m) == DD_BAD_CHECKSUM);
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1\n", DD_ACCEPT_BRIDGE, &m) == DD_BAD_CHECKSUM);
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1*9\n", DD_ACCEPT_BRIDGE, &m) == DD_BAD_CHECKSUM);
    CHECK(decode_str("$DDR,1,pxA7F3,rolling,-1*091\n", DD_ACCEPT_BRIDGE, &m) == DD_BAD_CHECKSUM);
    CHECK(decode_str("$DDR,1,p\xe9" "A7F3,rolling,-1*09\n", DD_ACCEPT_BRIDGE, &m) == DD_NOT_ASCII);
    CHECK(dd_decode("$DDR,1,p\0A7F3,rolling,-1*09\n", 28, DD_ACCEPT_BRIDGE, &m) == DD_NOT_ASCII);
    CHECK(decode_str(framed("DDX,1,pxA7F3,rolling,-1"), DD_ACCEPT_BRIDGE, &m) == DD_UNKNOWN_TYPE);
    CHECK(decode_str(framed("DDR,1,pxA7F3,rolling"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDR,1,pxA7F3,rolling,-1,0"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDR,1,a,b,c,d,e,f,g,h,i,j"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_COUNT);
    CHECK(decode_str(framed("DDR,65536,pxA7F3,rolling,-1"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDR,01,pxA7F3,rolling,-1"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDR,1,ABCDEFGHIJKLMNOPQ,rolling,-1"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDR,1,pxA7F3,rolled,-1"), DD_ACCEPT_BRIDGE, &m) == DD_OK); /* face unknown */
    CHECK(m.state == DD_ROLLED && m.face == -1);
    CHECK(decode_str(framed("DDR,1,pxA7F3,rolled,20"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDR,1,pxA7F3,spinning,2"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDB,1,pxA7F3,101,0"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDB,1,pxA7F3,50,2"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDE,1,,text"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
    CHECK(decode_str(framed("DDE,1,E,a$b"), DD_ACCEPT_BRIDGE, &m) == DD_FIELD_RANGE);
}

static void test_encoder_refuses_what_cannot_be_sent(void) {
    dd_message m;
    char out[DD_LINE_CAP];
    char small[10];
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDR;
    strcpy(m.die_id, "bad id");
    m.state = DD_ROLLED;
    m.face = 3;
    CHECK(dd_encode(&m, out, sizeof out) == 0);
    strcpy(m.die_id, "ok");
    m.face = 20;
    CHECK(dd_encode(&m, out, sizeof out) == 0); /* no face 20 */
    m.face = 3;
    CHECK(dd_encode(&m, out, sizeof out) > 0);
    CHECK(dd_encode(&m, small, sizeof small) == 0); /* no room: nothing half written counts */
    memset(&m, 0, sizeof m);
    m.type = DD_MSG_DDE;
    strcpy(m.name, "E");
    strcpy(m.text, "a,b");
    CHECK(dd_encode(&m, out, sizeof out) == 0);
    memset(m.text, 'x', DD_MAX_LINE);
    m.text[DD_MAX_LINE] = '\0';
    CHECK(dd_encode(&m, out, sizeof out) == 0); /* over 120 bytes */
}

static void test_seq(void) {
    dd_seq s;
    dd_seq_init(&s);
    CHECK(dd_seq_take(&s) == 0);
    CHECK(dd_seq_take(&s) == 1);
    s.next = 65535;
    CHECK(dd_seq_take(&s) == 65535);
    CHECK(dd_seq_take(&s) == 0);
}

int main(void) {
    test_examples();
    test_commands();
    test_drop_reasons();
    test_encoder_refuses_what_cannot_be_sent();
    test_seq();
    DONE("test_protocol");
}
