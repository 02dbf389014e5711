package sqlstore

import "testing"

func TestTuples(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		want       string
	}{
		{1, 1, "($1)"},
		{2, 3, "($1, $2, $3), ($4, $5, $6)"},
		{1, 4, "($1, $2, $3, $4)"},
		{3, 1, "($1), ($2), ($3)"},
	} {
		if got := tuples(c.rows, c.cols); got != c.want {
			t.Errorf("tuples(%d, %d) = %q, want %q", c.rows, c.cols, got, c.want)
		}
		if got := tuples(c.rows, c.cols); got != c.want { // cached
			t.Errorf("tuples(%d, %d) again = %q, want %q", c.rows, c.cols, got, c.want)
		}
	}
}
