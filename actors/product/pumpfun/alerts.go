package pumpfun

import (
	"fmt"
	"strings"

	"github.com/alertd/alertd/protocol"
)

// The four PumpFun alert types (spec 3: "Callouts, Livestream, Token Launch
// and Graduation are four separate subscriptions"). A wallet target counts
// toward each alert type it lists, and the plan's max_wallets is the ceiling
// of each type separately. A target listing callouts makes the wallet a
// caller: its callouts (caller_wallet) reach the account.
const (
	AlertCallouts    = "callouts"
	AlertLivestream  = "livestream"
	AlertTokenLaunch = "token_launch"
	AlertGraduation  = "graduation"
)

// AlertTypes lists the alert types in their canonical order.
var AlertTypes = []string{AlertCallouts, AlertLivestream, AlertTokenLaunch, AlertGraduation}

// DefaultAlertTypes are those of a target added without alert_types: the
// three wallet-event types.
var DefaultAlertTypes = []string{AlertLivestream, AlertTokenLaunch, AlertGraduation}

// alertBits is a set of alert types, one bit each in AlertTypes order.
type alertBits uint8

func bitOf(alertType string) alertBits {
	for i, a := range AlertTypes {
		if a == alertType {
			return 1 << i
		}
	}
	return 0
}

// Mask is the delivery mask bit of an alert type's frames (delivery.Event's
// Mask), for subscribers that take some alert types only.
func Mask(alertType string) uint8 { return uint8(bitOf(alertType)) }

func bitsOf(types []string) alertBits {
	var b alertBits
	for _, t := range types {
		b |= bitOf(t)
	}
	return b
}

// Event types of PumpFun frames and records (spec 3).
const (
	EventCalloutNew       = "callout_new"
	EventCalloutMilestone = "callout_milestone"
)

// AlertTypeOf returns the alert type an event type belongs to ("" if none).
func AlertTypeOf(eventType string) string {
	switch eventType {
	case protocol.LaunchLivestreamStarted, protocol.LaunchLivestreamEnded:
		return AlertLivestream
	case protocol.LaunchTokenLaunched:
		return AlertTokenLaunch
	case protocol.LaunchGraduated:
		return AlertGraduation
	case EventCalloutNew, EventCalloutMilestone:
		return AlertCallouts
	}
	return ""
}

// ParseAlertTypes validates the alert_types of a new target and returns them
// once each, in canonical order; nil gives DefaultAlertTypes. An empty list
// is refused: a target must count toward some alert type.
func ParseAlertTypes(in []string) ([]string, error) {
	if in == nil {
		return append([]string(nil), DefaultAlertTypes...), nil
	}
	var b alertBits
	for _, t := range in {
		bit := bitOf(strings.ToLower(strings.TrimSpace(t)))
		if bit == 0 {
			return nil, fmt.Errorf("unknown alert type %q: use %s", t, strings.Join(AlertTypes, ", "))
		}
		b |= bit
	}
	if b == 0 {
		return nil, fmt.Errorf("alert_types must name at least one of %s", strings.Join(AlertTypes, ", "))
	}
	var out []string
	for i, a := range AlertTypes {
		if b&(1<<i) != 0 {
			out = append(out, a)
		}
	}
	return out, nil
}

// MaxLabel is the longest target label, in characters.
const MaxLabel = 100
