package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/alertd/alertd/protocol"
)

// testTimingsEnv names a hidden, test-only override of protocol.Timings. It
// is not a documented setting of `alertd serve` (CONTRACT.md has none for
// timings): end-to-end tests set it to shorten the spec's time constants,
// for example ALERTD_TEST_TIMINGS="LoginWindow=800ms,HeartbeatTimeout=3s".
// Names are the Timings field names; values are Go durations (a list field
// such as WebhookBackoff takes durations separated by '|').
const testTimingsEnv = "ALERTD_TEST_TIMINGS"

// applyTestTimings overrides fields of t from ALERTD_TEST_TIMINGS, if set.
func applyTestTimings(t *protocol.Timings) error {
	spec, ok := os.LookupEnv(testTimingsEnv)
	if !ok || strings.TrimSpace(spec) == "" {
		return nil
	}
	return parseTimings(spec, t)
}

// parseTimings applies "Name=duration,..." to t. An unknown name or a bad or
// negative duration is an error, so a typo in a test does not pass silently
// with the spec's value.
func parseTimings(spec string, t *protocol.Timings) error {
	v := reflect.ValueOf(t).Elem()
	durType := reflect.TypeOf(time.Duration(0))
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("%s: %q is not Name=duration", testTimingsEnv, item)
		}
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanSet() {
			return fmt.Errorf("%s: no timing named %q", testTimingsEnv, name)
		}
		switch {
		case f.Type() == durType:
			d, err := parseNonNegative(val)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", testTimingsEnv, name, err)
			}
			f.SetInt(int64(d))
		case f.Kind() == reflect.Slice && f.Type().Elem() == durType:
			var list []time.Duration
			for _, s := range strings.Split(val, "|") {
				d, err := parseNonNegative(strings.TrimSpace(s))
				if err != nil {
					return fmt.Errorf("%s: %s: %w", testTimingsEnv, name, err)
				}
				list = append(list, d)
			}
			f.Set(reflect.ValueOf(list))
		default:
			return fmt.Errorf("%s: %q is not a duration field", testTimingsEnv, name)
		}
	}
	return nil
}

func parseNonNegative(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %s", s)
	}
	return d, nil
}
