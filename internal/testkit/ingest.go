package testkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// NDJSON marshals each observation to one line of an ingest body
// (application/x-ndjson).
func NDJSON(t testing.TB, obs ...any) string {
	t.Helper()
	var b strings.Builder
	for _, o := range obs {
		j, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}
