/* Dice tower logic in portable C: beam debounce, drop bursts, heartbeat, framing, checksum.
 *
 * Nothing here touches hardware: the sketch (firmware.ino) reads the IR break-beam pin and the
 * clock, calls tl_step() and tl_rx_byte(), and writes what tl_take_output() returns to Serial.
 * The host tests (firmware/tests/) compile this file with gcc and drive it with a scripted beam
 * and clock. Protocol: firmware/PROTOCOL.md. The host parser is reader/tower/protocol.py.
 */
#ifndef TOWER_LOGIC_H
#define TOWER_LOGIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TL_PROTOCOL_VERSION 1
#define TL_FIRMWARE "dice-tower-1.0"
#define TL_DEBOUNCE_MS 3       /* a beam change must hold this long to count */
#define TL_BURST_GAP_MS 250    /* dice passing within this gap are one drop */
#define TL_HEARTBEAT_MS 1000   /* HB period */
#define TL_BLOCKED_MS 2000     /* beam broken this long: FAULT,BEAM_BLOCKED */
#define TL_MAX_LINE 96         /* bytes between '$' and '\n' */
#define TL_OUT_CAP 512         /* queued output; a line that does not fit is dropped (seq shows it) */

uint8_t tl_crc8(const uint8_t *data, size_t n);

/* Writes "$<seq>,<body>*<CRC>\n" into out; returns its length, 0 if it does not fit. */
size_t tl_frame(char *out, size_t cap, uint16_t seq, const char *body);

typedef struct {
    uint8_t stable;      /* debounced state: 1 = beam broken */
    uint8_t last_raw;
    uint32_t changed_at; /* when last_raw last changed */
} tl_debounce_t;

void tl_debounce_init(tl_debounce_t *d, uint8_t raw, uint32_t now_ms);
/* +1: the beam became broken, -1: it became clear, 0: no debounced change. */
int tl_debounce_update(tl_debounce_t *d, uint8_t raw, uint32_t now_ms);

typedef struct {
    tl_debounce_t beam;
    uint16_t seq;
    uint32_t last_hb;
    uint8_t in_burst;
    uint16_t burst_count;
    uint32_t burst_start;
    uint32_t last_edge;
    uint32_t broken_since;
    uint8_t blocked;
    uint32_t drops_total;
    char rx[TL_MAX_LINE + 2];
    size_t rx_len;
    uint8_t rx_skip;     /* discarding an over-long or unframed line */
    uint32_t rx_rejected;
    char out[TL_OUT_CAP];
    size_t out_len;
    uint32_t out_dropped;
} tl_tower_t;

void tl_init(tl_tower_t *t, uint8_t beam_raw, uint32_t now_ms);           /* queues HELLO */
void tl_step(tl_tower_t *t, uint8_t beam_raw, uint32_t now_ms);           /* call every loop() */
void tl_rx_byte(tl_tower_t *t, uint8_t c);                                /* a byte from the host */
size_t tl_take_output(tl_tower_t *t, char *dst, size_t cap);              /* drain queued lines */

#ifdef __cplusplus
}
#endif

#endif
