package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

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
// line. The error text is meant for the `rejected` list of the ingest answer.
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
	o := &Observation{Kind: kind, DetectedAt: detectedAt, Raw: raw}
	var err error
	switch o.Kind {
	case KindUser:
		o.User = new(UserObs)
		err = decodeInto(raw, o.User, func() error { return o.User.validate(o) })
	case KindPost:
		o.Post = new(Tweet)
		err = decodeInto(raw, o.Post, func() error { return validatePost(o.Post, o) })
	case KindPostDeleted:
		o.PostDeleted = new(PostDeletedObs)
		err = decodeInto(raw, o.PostDeleted, func() error { return o.PostDeleted.validate(o) })
	case KindFollowing:
		o.Following = new(FollowingObs)
		err = decodeInto(raw, o.Following, func() error { return o.Following.validate(o) })
	case KindFollowersNew:
		o.FollowersNew = new(FollowersNewObs)
		err = decodeInto(raw, o.FollowersNew, func() error { return o.FollowersNew.validate(o) })
	case KindCommunities:
		o.Communities = new(CommunitiesObs)
		err = decodeInto(raw, o.Communities, func() error { return o.Communities.validate(o) })
	case KindEngagement:
		o.Engagement = new(EngagementObs)
		err = decodeInto(raw, o.Engagement, func() error { return o.Engagement.validate(o) })
	case KindTrending:
		o.Trending = new(TrendingObs)
		err = decodeInto(raw, o.Trending, func() error { return o.Trending.validate(o) })
	case KindLaunchpad:
		o.Launchpad = new(LaunchpadObs)
		err = decodeInto(raw, o.Launchpad, func() error { return o.Launchpad.validate(o) })
	case KindCallout:
		o.Callout = new(CalloutObs)
		err = decodeInto(raw, o.Callout, func() error { return o.Callout.validate(o) })
	case KindMarketCap:
		o.MarketCap = new(MarketCapObs)
		err = decodeInto(raw, o.MarketCap, func() error { return o.MarketCap.validate(o) })
	default:
		return nil, fmt.Errorf("unknown kind %q", o.Kind)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// leadingKind reads the kind of a line that starts with {"kind":"<plain
// ASCII>", as upstreams write it, so the common case is parsed once (by the
// typed decode, which also rejects malformed JSON). Anything else takes the
// general path.
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
	for _, c := range rest[:end] {
		if c < 'a' || c > 'z' {
			if c != '_' {
				return "", false
			}
		}
	}
	return string(rest[:end]), true
}

func decodeInto(raw []byte, v any, validate func() error) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("invalid JSON: %s", shortErr(err))
		}
		return fmt.Errorf("invalid field: %s", shortErr(err))
	}
	return validate()
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
