/* Host tool: decode every line of stdin as the given side would, and print one verdict per line:
 *   "OK <the line re-encoded>"  or  "DROP <reason>"   (reason names as the host's DropReason)
 * Usage: dd_decode_lines host|bridge < lines     ("host" = what a host accepts: DDH DDR DDB DDE)
 * Used by the test suite to check that the C and Python decoders agree line for line. */
#include <stdio.h>
#include <string.h>

#include "dd_protocol.h"

static void verdict(const char *line, size_t len, unsigned accept) {
    dd_message m;
    char out[DD_LINE_CAP];
    dd_status st = dd_decode(line, len, accept, &m);
    if (st == DD_OK && dd_encode(&m, out, sizeof out) > 0) {
        fputs("OK ", stdout);
        fputs(out, stdout);
    } else {
        printf("DROP %s\n", dd_status_name(st));
    }
}

int main(int argc, char **argv) {
    static char line[1 << 16];
    size_t len = 0;
    int c;
    unsigned accept = argc > 1 && strcmp(argv[1], "bridge") == 0 ? DD_ACCEPT_HOST : DD_ACCEPT_BRIDGE;
    while ((c = getchar()) != EOF) {
        if (c == '\n') {
            verdict(line, len, accept);
            len = 0;
        } else if (len < sizeof line) {
            line[len++] = (char)c;
        }
    }
    if (len > 0) verdict(line, len, accept);
    return 0;
}
