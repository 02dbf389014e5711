// Package protocol holds the wire contract of alertd: response envelopes and
// error codes, product and key rules, observation kinds, and the time
// constants of the spec. It does no I/O and imports nothing from the other
// top-level folders.
package protocol
