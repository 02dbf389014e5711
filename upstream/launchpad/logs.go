package launchpad

import (
	"encoding/base64"
	"strings"
)

const (
	dataPrefix = "Program data: "
	program    = "Program "
)

// programData returns the payloads of the "Program data:" lines that prog
// itself wrote. Logs of a transaction interleave every program it invokes
// ("Program <id> invoke [n]" ... "Program <id> success" or "failed"), so the
// call stack is followed and data lines of other programs are left out.
// bad counts data lines that are not base64.
func programData(prog string, logs []string) (payloads [][]byte, bad int) {
	var stack []string
	for _, l := range logs {
		if rest, ok := strings.CutPrefix(l, dataPrefix); ok {
			if len(stack) == 0 || stack[len(stack)-1] != prog {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(rest)
			if err != nil {
				bad++
				continue
			}
			payloads = append(payloads, b)
			continue
		}
		rest, ok := strings.CutPrefix(l, program)
		if !ok {
			continue
		}
		id, verb, _ := strings.Cut(rest, " ")
		switch {
		case strings.HasPrefix(verb, "invoke ["):
			stack = append(stack, id)
		case verb == "success" || strings.HasPrefix(verb, "failed"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return payloads, bad
}
