/* Smart-dice serial protocol, version 1: encoder, decoder and sequence counter.
 *
 * Portable C99, no allocation, no I/O.  One message per line, "$<body>*<hh>\n", where <hh> is the
 * XOR of every body byte in hex; the body is comma-separated fields, the first the message type.
 * The decoder applies the same checks in the same order as the host (firmware_bridge/protocol.py),
 * so both sides drop a bad line for the same reason.
 */
#ifndef DD_PROTOCOL_H
#define DD_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define DD_PROTOCOL_VERSION 1
#define DD_MAX_LINE 120   /* bytes before the line end */
#define DD_LINE_CAP (DD_MAX_LINE + 2) /* room for "\n" and a terminating NUL */
#define DD_ID_MAX 16
#define DD_MAX_FACE 19
#define DD_UNKNOWN_FACE (-1)
#define DD_MAX_BLINK 255

typedef enum {
    DD_OK = 0,
    DD_TOO_LONG,      /* more than 120 bytes before the line end */
    DD_NOT_ASCII,     /* a byte outside printable ASCII */
    DD_NO_START,      /* does not begin with '$' */
    DD_BAD_CHECKSUM,  /* no "*hh" trailer, or the XOR does not match */
    DD_UNKNOWN_TYPE,  /* a type this side does not accept */
    DD_FIELD_COUNT,   /* wrong number of fields */
    DD_FIELD_RANGE    /* a field malformed or out of range */
} dd_status;

typedef enum { DD_ROLLING = 0, DD_HANDLING, DD_ROLLED, DD_CROOKED, DD_ONFACE } dd_roll_state;

typedef enum {
    DD_MSG_DDH = 0, /* bridge -> host */
    DD_MSG_DDR,
    DD_MSG_DDB,
    DD_MSG_DDE,
    DD_MSG_PING,    /* host -> bridge (DDC) */
    DD_MSG_BLINK,
    DD_MSG_LIST
} dd_msg_type;

#define DD_ACCEPT_BRIDGE 0x0Fu /* DDH, DDR, DDB, DDE: what a host accepts */
#define DD_ACCEPT_HOST 0x70u   /* DDC commands: what a bridge accepts */
#define DD_ACCEPT_ALL 0x7Fu

typedef struct {
    dd_msg_type type;
    uint16_t seq;                    /* DDH DDR DDB DDE */
    char die_id[DD_ID_MAX + 1];      /* DDR DDB BLINK */
    dd_roll_state state;             /* DDR */
    int8_t face;                     /* DDR: 0..19 or -1 */
    uint8_t battery;                 /* DDB: 0..100 */
    uint8_t charging;                /* DDB: 0 or 1 */
    uint16_t protocol_version;       /* DDH */
    char name[DD_MAX_LINE + 1];      /* DDH bridge_name, DDE code */
    char text[DD_MAX_LINE + 1];      /* DDH firmware_version, DDE text */
    uint8_t blink_count;             /* BLINK: 1..255 */
    char color[7];                   /* BLINK: rrggbb */
} dd_message;

const char *dd_status_name(dd_status status);    /* "too_long", ... as the host names them */
const char *dd_state_name(dd_roll_state state);  /* "rolling", ... */

uint8_t dd_checksum(const char *body, size_t len);
int dd_valid_die_id(const char *id);

/* Encode m as one line ending in '\n' into out (NUL-terminated).  Returns the line length including
 * the '\n', or 0 when m cannot be sent (bad field, or longer than 120 bytes) or cap is too small. */
size_t dd_encode(const dd_message *m, char *out, size_t cap);

/* Decode one line of len bytes (a trailing "\n" or "\r\n" is allowed).  accept is a mask of
 * DD_ACCEPT_* bits.  On DD_OK *out holds the message; otherwise *out is unspecified. */
dd_status dd_decode(const char *line, size_t len, unsigned accept, dd_message *out);

/* The per-bridge sequence counter: 0..65535, +1 per message, wraps to 0. */
typedef struct { uint16_t next; } dd_seq;
void dd_seq_init(dd_seq *s);
uint16_t dd_seq_take(dd_seq *s);

#endif
