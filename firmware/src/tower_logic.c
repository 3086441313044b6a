/* See tower_logic.h. Millisecond times are uint32_t and compared by subtraction, so the
 * 49-day wrap of millis() is harmless. */
#include "tower_logic.h"

#include <stdio.h>
#include <string.h>

uint8_t tl_crc8(const uint8_t *data, size_t n)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x80) ? (uint8_t)((crc << 1) ^ 0x07) : (uint8_t)(crc << 1);
    }
    return crc;
}

size_t tl_frame(char *out, size_t cap, uint16_t seq, const char *body)
{
    char inner[TL_MAX_LINE + 1];
    int n = snprintf(inner, sizeof inner, "%u,%s", (unsigned)seq, body);
    if (n < 0 || (size_t)n >= sizeof inner)
        return 0;
    uint8_t crc = tl_crc8((const uint8_t *)inner, (size_t)n);
    int m = snprintf(out, cap, "$%s*%02X\n", inner, crc);
    if (m < 0 || (size_t)m >= cap)
        return 0;
    return (size_t)m;
}

void tl_debounce_init(tl_debounce_t *d, uint8_t raw, uint32_t now_ms)
{
    d->stable = raw ? 1 : 0;
    d->last_raw = d->stable;
    d->changed_at = now_ms;
}

int tl_debounce_update(tl_debounce_t *d, uint8_t raw, uint32_t now_ms)
{
    raw = raw ? 1 : 0;
    if (raw != d->last_raw) {
        d->last_raw = raw;
        d->changed_at = now_ms;
        return 0;
    }
    if (raw != d->stable && (uint32_t)(now_ms - d->changed_at) >= TL_DEBOUNCE_MS) {
        d->stable = raw;
        return raw ? 1 : -1;
    }
    return 0;
}

static void send(tl_tower_t *t, const char *body)
{
    char line[TL_MAX_LINE + 8];
    size_t n = tl_frame(line, sizeof line, t->seq, body);
    t->seq++;  /* counted even if dropped, so the host sees the gap */
    if (n == 0 || t->out_len + n > TL_OUT_CAP) {
        t->out_dropped++;
        return;
    }
    memcpy(t->out + t->out_len, line, n);
    t->out_len += n;
}

static void send_hello(tl_tower_t *t)
{
    char body[48];
    t->seq = 0;
    snprintf(body, sizeof body, "HELLO,%d,%s", TL_PROTOCOL_VERSION, TL_FIRMWARE);
    send(t, body);
}

void tl_init(tl_tower_t *t, uint8_t beam_raw, uint32_t now_ms)
{
    memset(t, 0, sizeof *t);
    tl_debounce_init(&t->beam, beam_raw, now_ms);
    t->last_hb = now_ms;
    send_hello(t);
}

void tl_step(tl_tower_t *t, uint8_t beam_raw, uint32_t now_ms)
{
    char body[48];
    int edge = tl_debounce_update(&t->beam, beam_raw, now_ms);
    if (edge == 1) {
        if (!t->in_burst) {
            t->in_burst = 1;
            t->burst_count = 0;
            t->burst_start = t->beam.changed_at;  /* when the beam really broke */
        }
        t->burst_count++;
        t->broken_since = t->beam.changed_at;
        t->last_edge = t->beam.changed_at;
    } else if (edge == -1) {
        t->last_edge = t->beam.changed_at;
        if (t->blocked) {
            t->blocked = 0;
            send(t, "FAULT,CLEAR");
        }
    }
    if (t->beam.stable && !t->blocked && (uint32_t)(now_ms - t->broken_since) >= TL_BLOCKED_MS) {
        t->blocked = 1;
        send(t, "FAULT,BEAM_BLOCKED");
    }
    if (t->in_burst && !t->beam.stable && (uint32_t)(now_ms - t->last_edge) >= TL_BURST_GAP_MS) {
        t->in_burst = 0;
        t->drops_total++;
        snprintf(body, sizeof body, "DROP,%lu,%u", (unsigned long)t->burst_start,
                 (unsigned)t->burst_count);
        send(t, body);
    }
    if ((uint32_t)(now_ms - t->last_hb) >= TL_HEARTBEAT_MS) {
        t->last_hb = now_ms;
        snprintf(body, sizeof body, "HB,%lu,%lu", (unsigned long)now_ms,
                 (unsigned long)t->drops_total);
        send(t, body);
    }
}

static void handle_command(tl_tower_t *t)
{
    /* t->rx holds "$<seq>,<TYPE>*CC" without the newline */
    size_t n = t->rx_len;
    if (n < 5 || t->rx[0] != '$' || t->rx[n - 3] != '*') {
        t->rx_rejected++;
        return;
    }
    unsigned crc = 0;
    if (sscanf(t->rx + n - 2, "%2X", &crc) != 1
        || tl_crc8((const uint8_t *)t->rx + 1, n - 4) != (uint8_t)crc) {
        t->rx_rejected++;
        return;
    }
    t->rx[n - 3] = '\0';
    const char *comma = strchr(t->rx + 1, ',');
    if (!comma) {
        t->rx_rejected++;
        return;
    }
    const char *type = comma + 1;
    if (strcmp(type, "HELLO") == 0)
        send_hello(t);
    else if (strcmp(type, "PING") == 0)
        send(t, "PONG");
    else
        t->rx_rejected++;
}

void tl_rx_byte(tl_tower_t *t, uint8_t c)
{
    if (c == '$') {  /* a '$' always starts a fresh line */
        t->rx_len = 0;
        t->rx_skip = 0;
        t->rx[t->rx_len++] = (char)c;
        return;
    }
    if (c == '\r')
        return;
    if (c == '\n') {
        if (!t->rx_skip && t->rx_len > 0) {
            t->rx[t->rx_len] = '\0';
            handle_command(t);
        }
        t->rx_len = 0;
        t->rx_skip = 0;
        return;
    }
    if (t->rx_skip)
        return;
    if (t->rx_len == 0 || t->rx_len >= TL_MAX_LINE) {  /* noise, or a line far too long */
        t->rx_skip = 1;
        t->rx_len = 0;
        t->rx_rejected++;
        return;
    }
    t->rx[t->rx_len++] = (char)c;
}

size_t tl_take_output(tl_tower_t *t, char *dst, size_t cap)
{
    size_t n = t->out_len < cap ? t->out_len : cap;
    memcpy(dst, t->out, n);
    memmove(t->out, t->out + n, t->out_len - n);
    t->out_len -= n;
    return n;
}
