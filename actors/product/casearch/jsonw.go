package casearch

import (
	"strconv"

	"github.com/alertd/alertd/protocol"
)

// Small JSON appenders: results are assembled from pre-encoded parts, so the
// hot path never goes through reflection.

// appendString appends s as a JSON string (protocol.AppendJSONString).
func appendString(dst []byte, s string) []byte { return protocol.AppendJSONString(dst, s) }

// appendStringOrNull appends s, or null when it is empty.
func appendStringOrNull(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendString(dst, s)
}

func appendStrPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendString(dst, *s)
}

func appendIntPtr(dst []byte, v *int64) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *v, 10)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendKey appends ,"name": (or "name": first in an object when first).
func appendKey(dst []byte, name string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}
