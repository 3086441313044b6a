// Dice tower firmware (Arduino Uno/Nano or any Arduino-core board).
//
// An IR break-beam across the tower's exit goes LOW when a die passes. All the logic (debounce,
// grouping dice into one drop, heartbeat, framing and checksum) is portable C in
// src/tower_logic.c, tested on the host by firmware/tests/. This file only wires it to the pins,
// the clock and the serial port. Protocol: PROTOCOL.md.
#include "src/tower_logic.h"

static const uint8_t BEAM_PIN = 2;        // receiver output, active LOW with INPUT_PULLUP
static const uint8_t LED_PIN = LED_BUILTIN;
static const unsigned long BAUD = 115200;

static tl_tower_t tower;

static uint8_t beamBroken() { return digitalRead(BEAM_PIN) == LOW ? 1 : 0; }

void setup() {
  pinMode(BEAM_PIN, INPUT_PULLUP);
  pinMode(LED_PIN, OUTPUT);
  Serial.begin(BAUD);
  tl_init(&tower, beamBroken(), millis());
}

void loop() {
  uint8_t broken = beamBroken();
  digitalWrite(LED_PIN, broken ? HIGH : LOW);
  tl_step(&tower, broken, millis());
  while (Serial.available() > 0) {
    tl_rx_byte(&tower, (uint8_t)Serial.read());
  }
  char buf[64];
  size_t room = (size_t)Serial.availableForWrite();
  if (room > sizeof buf) room = sizeof buf;
  size_t n = tl_take_output(&tower, buf, room);
  if (n > 0) Serial.write((const uint8_t *)buf, n);
}
