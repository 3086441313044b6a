/* Host-side test driver for tower_logic.c: reads a script on stdin, prints what the tower sends.
 *
 * Script lines:
 *   init <ms> <beam>           tl_init at time ms with the raw beam level (1 = broken)
 *   run <from> <to> <beam>     call tl_step once per millisecond in [from, to) with that level
 *   rx <text>                  feed bytes to tl_rx_byte; "\n" in text is a newline
 *   crc <text>                 print "CRC <hex>" of the text
 *   frame <seq> <body>         print tl_frame's line
 *   stats                      print "STATS rejected=<n> dropped=<n>"
 * Everything the tower queues is printed as soon as a command finishes, one line per message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tower_logic.h"

static tl_tower_t tower;

static void drain(void)
{
    char buf[TL_OUT_CAP];
    size_t n;
    while ((n = tl_take_output(&tower, buf, sizeof buf)) > 0)
        fwrite(buf, 1, n, stdout);
}

int main(void)
{
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *arg = strchr(line, ' ');
        if (arg)
            *arg++ = '\0';
        else
            arg = line + strlen(line);
        if (strcmp(line, "init") == 0) {
            unsigned long ms; int beam;
            sscanf(arg, "%lu %d", &ms, &beam);
            tl_init(&tower, (uint8_t)beam, (uint32_t)ms);
        } else if (strcmp(line, "run") == 0) {
            unsigned long from, to; int beam;
            sscanf(arg, "%lu %lu %d", &from, &to, &beam);
            for (unsigned long ms = from; ms < to; ms++) {
                tl_step(&tower, (uint8_t)beam, (uint32_t)ms);
                drain();
            }
        } else if (strcmp(line, "rx") == 0) {
            for (char *p = arg; *p; p++) {
                if (p[0] == '\\' && p[1] == 'n') {
                    tl_rx_byte(&tower, '\n');
                    p++;
                } else {
                    tl_rx_byte(&tower, (uint8_t)*p);
                }
            }
        } else if (strcmp(line, "crc") == 0) {
            printf("CRC %02X\n", tl_crc8((const uint8_t *)arg, strlen(arg)));
        } else if (strcmp(line, "frame") == 0) {
            unsigned seq; char body[256]; char out[300];
            if (sscanf(arg, "%u %255s", &seq, body) == 2 && tl_frame(out, sizeof out, (uint16_t)seq, body))
                fputs(out, stdout);
            else
                puts("FRAME-REFUSED");
        } else if (strcmp(line, "stats") == 0) {
            printf("STATS rejected=%lu dropped=%lu\n", (unsigned long)tower.rx_rejected,
                   (unsigned long)tower.out_dropped);
        } else if (line[0] && line[0] != '#') {
            fprintf(stderr, "harness: unknown command %s\n", line);
            return 2;
        }
        drain();
    }
    return 0;
}
