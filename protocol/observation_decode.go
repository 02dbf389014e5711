package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	json "github.com/goccy/go-json"
)

// ErrNotArray is returned by SplitArray for a body that is not a JSON array.
var ErrNotArray = errors.New("body is not a JSON array of observations")

// SplitNDJSON returns the non-blank lines of an NDJSON body. Blank lines are
// not observations and take no index.
func SplitNDJSON(body []byte) [][]byte {
	var lines [][]byte
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		var line []byte
		if i < 0 {
			line, body = body, nil
		} else {
			line, body = body[:i], body[i+1:]
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// SplitArray returns the elements of a JSON array body.
func SplitArray(body []byte) ([][]byte, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, ErrNotArray
	}
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = bytes.TrimSpace(it)
	}
	return out, nil
}

// DecodeObservation decodes and validates one observation. detectedAt is the
// epoch-ms acceptance time. The returned observation keeps its own copy of
// line (Raw), and its strings share that copy instead of each having an
// allocation of its own (ingest decodes over 100,000 lines a second; the
// copies were half of its allocations). Raw is therefore never written to,
// and a consumer that keeps a small string of many observations for long (a
// map key) clones it; the post id and the routing key, the strings the
// engine keeps that way, are cloned here. The error text is meant for the
// `rejected` list of the ingest answer.
func DecodeObservation(line []byte, detectedAt int64) (*Observation, error) {
	kind, ok := leadingKind(line)
	if !ok {
		var head struct {
			Kind *string `json:"kind"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("invalid JSON: %s", shortErr(err))
		}
		if head.Kind == nil {
			return nil, errors.New("missing field: kind")
		}
		kind = *head.Kind
	}
	raw := append(json.RawMessage(nil), line...)
	var (
		o   *Observation
		err error
	)
	switch kind {
	case KindUser:
		o, err = decodeKind(raw, func(o *Observation, v *UserObs) { o.User = v }, (*UserObs).validate)
	case KindPost:
		o, err = decodeKind(raw, func(o *Observation, v *Tweet) { o.Post = v }, validatePost)
	case KindPostDeleted:
		o, err = decodeKind(raw, func(o *Observation, v *PostDeletedObs) { o.PostDeleted = v }, (*PostDeletedObs).validate)
	case KindFollowing:
		o, err = decodeKind(raw, func(o *Observation, v *FollowingObs) { o.Following = v }, (*FollowingObs).validate)
	case KindFollowersNew:
		o, err = decodeKind(raw, func(o *Observation, v *FollowersNewObs) { o.FollowersNew = v }, (*FollowersNewObs).validate)
	case KindCommunities:
		o, err = decodeKind(raw, func(o *Observation, v *CommunitiesObs) { o.Communities = v }, (*CommunitiesObs).validate)
	case KindEngagement:
		o, err = decodeKind(raw, func(o *Observation, v *EngagementObs) { o.Engagement = v }, (*EngagementObs).validate)
	case KindTrending:
		o, err = decodeKind(raw, func(o *Observation, v *TrendingObs) { o.Trending = v }, (*TrendingObs).validate)
	case KindLaunchpad:
		o, err = decodeKind(raw, func(o *Observation, v *LaunchpadObs) { o.Launchpad = v }, (*LaunchpadObs).validate)
	case KindCallout:
		o, err = decodeKind(raw, func(o *Observation, v *CalloutObs) { o.Callout = v }, (*CalloutObs).validate)
	case KindMarketCap:
		o, err = decodeKind(raw, func(o *Observation, v *MarketCapObs) { o.MarketCap = v }, (*MarketCapObs).validate)
	default:
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		return nil, err
	}
	o.Kind, o.DetectedAt = kind, detectedAt
	o.Key = cloneShared(o.Key, raw)
	if o.Post != nil {
		o.Post.ID = cloneShared(o.Post.ID, raw)
	}
	return o, nil
}

// withBody is an observation and its kind's body in one allocation.
type withBody[T any] struct {
	obs  Observation
	body T
}

// decodeKind decodes raw into a new observation whose body of type T set
// attaches, and validates it.
func decodeKind[T any](raw json.RawMessage, set func(*Observation, *T), validate func(*T, *Observation) error) (*Observation, error) {
	w := new(withBody[T])
	o := &w.obs
	o.Raw = raw
	set(o, &w.body)
	if err := json.UnmarshalWithOption(raw, &w.body, json.DecodeNoCopyString()); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("invalid JSON: %s", shortErr(err))
		}
		return nil, fmt.Errorf("invalid field: %s", shortErr(err))
	}
	if err := validate(&w.body, o); err != nil {
		return nil, err
	}
	return o, nil
}

// cloneShared returns s in an allocation of its own when it shares raw's,
// so that keeping it does not keep the whole line.
func cloneShared(s string, raw []byte) string {
	if len(s) == 0 || len(raw) == 0 {
		return s
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&raw[0]))
	if p >= lo && p < lo+uintptr(len(raw)) {
		return strings.Clone(s)
	}
	return s
}

// leadingKind reads the kind of a line that starts with {"kind":"<plain
// ASCII>", as upstreams write it, so the common case is parsed once (by the
// typed decode, which also rejects malformed JSON). Anything else takes the
// general path. A known kind is returned as its constant (no allocation).
func leadingKind(line []byte) (string, bool) {
	const prefix = `{"kind":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || end > 32 {
		return "", false
	}
	for _, k := range Kinds {
		if string(rest[:end]) == k {
			return k, true
		}
	}
	for _, c := range rest[:end] {
		if c < 'a' || c > 'z' {
			if c != '_' {
				return "", false
			}
		}
	}
	return string(rest[:end]), true
}

// shortErr keeps decoder messages to one short line.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
