package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
)

// execRows writes n rows through "head VALUES (...), (...) tail", up to
// Dialect.BatchRows rows a statement; args appends the cols values of row i
// to dst.
func (s *Store) execRows(ctx context.Context, tx *sql.Tx, head, tail string, cols, n int, args func(dst []any, i int) []any) error {
	return s.execChunks(ctx, tx, n, cols, func(size int) string {
		return head + " VALUES " + tuples(size, cols) + " " + tail
	}, args)
}

// execIn runs "head ($1, $2, ...)" over n values, up to Dialect.BatchRows
// values a statement; args appends value i to dst.
func (s *Store) execIn(ctx context.Context, tx *sql.Tx, head string, n int, args func(dst []any, i int) []any) error {
	return s.execChunks(ctx, tx, n, 1, func(size int) string { return head + tuples(1, size) }, args)
}

// execChunks runs the statement text(size) over n rows of perRow values. With
// BatchRows <= 1 it executes text(1) per row, prepared once per store
// (txStmt). Otherwise
// it writes chunks of BatchRows rows, then the remainder in chunks of halving
// size, so that one kind of write uses few distinct statement texts (pgx
// prepares each once per connection and caches it).
func (s *Store) execChunks(ctx context.Context, tx *sql.Tx, n, perRow int, text func(size int) string, args func(dst []any, i int) []any) error {
	if n == 0 {
		return nil
	}
	maxRows := s.d.BatchRows
	if maxRows <= 1 {
		st, err := s.txStmt(ctx, tx, text(1))
		if err != nil {
			return err
		}
		defer st.Close()
		buf := make([]any, 0, perRow)
		for i := range n {
			if _, err := st.ExecContext(ctx, args(buf[:0], i)...); err != nil {
				return err
			}
		}
		return nil
	}
	buf := make([]any, 0, min(n, maxRows)*perRow)
	for start := 0; start < n; {
		size := maxRows
		for size > n-start {
			size /= 2
		}
		buf = buf[:0]
		for i := start; i < start+size; i++ {
			buf = args(buf, i)
		}
		if _, err := tx.ExecContext(ctx, text(size), buf...); err != nil {
			return err
		}
		start += size
	}
	return nil
}

var tuplesCache sync.Map // [2]int{rows, cols} -> string

// tuples returns "($1, $2), ($3, $4)" for rows=2, cols=2.
func tuples(rows, cols int) string {
	key := [2]int{rows, cols}
	if s, ok := tuplesCache.Load(key); ok {
		return s.(string)
	}
	var b strings.Builder
	n := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		b.WriteByte(')')
	}
	s := b.String()
	tuplesCache.Store(key, s)
	return s
}
