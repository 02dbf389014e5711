package protocol

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/goccy/go-json"
)

// LOGIN decoding and the per-session login filter of the realtime WebSocket
// (spec 2 "Flow" and "Login filters"). The filter is compiled once at login
// into bitsets and checked per event against EventMeta, never against the
// encoded bytes.

// EventType is the login-filter type of an event: one of the four post types,
// the four other non-profile events, or one of the nine update_* types.
type EventType uint8

const (
	TypeNone EventType = iota
	TypeTweet
	TypeRetweet
	TypeQuote
	TypeReply
	TypeFollow
	TypeUnfollow
	TypeFollower
	TypeDeleted
	TypeUpdateHandle
	TypeUpdateBio
	TypeUpdatePhoto
	TypeUpdateName
	TypeUpdateBannerURL
	TypeUpdateLocation
	TypeUpdateWebsite
	TypeUpdatePinnedPost
	TypeUpdateVerified
	eventTypeCount
)

var eventTypeNames = [eventTypeCount]string{
	TypeNone:             "",
	TypeTweet:            "tweet",
	TypeRetweet:          "retweet",
	TypeQuote:            "quote",
	TypeReply:            "reply",
	TypeFollow:           "follow",
	TypeUnfollow:         "unfollow",
	TypeFollower:         "follower",
	TypeDeleted:          "deleted",
	TypeUpdateHandle:     "update_handle",
	TypeUpdateBio:        "update_bio",
	TypeUpdatePhoto:      "update_photo",
	TypeUpdateName:       "update_name",
	TypeUpdateBannerURL:  "update_banner_url",
	TypeUpdateLocation:   "update_location",
	TypeUpdateWebsite:    "update_website",
	TypeUpdatePinnedPost: "update_pinned_post",
	TypeUpdateVerified:   "update_verified",
}

// String is the type's name in `types` ("update_bio"); "" for TypeNone.
func (t EventType) String() string {
	if t >= eventTypeCount {
		return ""
	}
	return eventTypeNames[t]
}

// IsPost reports whether t is a post type (tweet, retweet, quote, reply):
// only those events are gated by onlyCA and onlyTicker.
func (t EventType) IsPost() bool { return t >= TypeTweet && t <= TypeReply }

// NormalizeTypeLabel folds a `types` entry: trimmed, lowercase, spaces as
// underscores ("Update Bio" becomes "update_bio").
func NormalizeTypeLabel(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_")
}

// ParseEventType reads one `types` entry, case-insensitive, title-case labels
// accepted. "all" is not a type (see DecodeLogin).
func ParseEventType(s string) (EventType, bool) {
	n := NormalizeTypeLabel(s)
	for t := TypeTweet; t < eventTypeCount; t++ {
		if eventTypeNames[t] == n {
			return t, true
		}
	}
	return TypeNone, false
}

// EventKindSet is a set of event kinds, for per-session module gating.
type EventKindSet uint16

// Has reports whether k is in the set.
func (s EventKindSet) Has(k EventKind) bool { return k.valid() && s&(1<<k) != 0 }

// KindsForModules is the set of events that a client with modules receives
// (realtime: posts and deletions; follows; profile_watch; followers).
func KindsForModules(modules []string) EventKindSet {
	var s EventKindSet
	for k := EventKindPostNew; k < eventKindCount; k++ {
		if slices.Contains(modules, k.Module()) {
			s |= 1 << k
		}
	}
	return s
}

// categoryInline is the number of category ids held in CategorySet's inline
// bits; higher ids go to its sorted overflow slice.
const categoryInline = 128

// CategorySet is a set of interned category ids: a 128-bit bitset, plus a
// sorted slice for ids beyond it. Sets are values; Add copies the overflow
// slice, so copies never share mutations. The zero value is the empty set.
type CategorySet struct {
	bits [2]uint64
	ext  []uint32
}

// Add puts id in the set.
func (s *CategorySet) Add(id uint32) {
	if id < categoryInline {
		s.bits[id>>6] |= 1 << (id & 63)
		return
	}
	i, found := slices.BinarySearch(s.ext, id)
	if found {
		return
	}
	ext := make([]uint32, 0, len(s.ext)+1)
	ext = append(ext, s.ext[:i]...)
	ext = append(ext, id)
	s.ext = append(ext, s.ext[i:]...)
}

// Has reports whether id is in the set.
func (s CategorySet) Has(id uint32) bool {
	if id < categoryInline {
		return s.bits[id>>6]&(1<<(id&63)) != 0
	}
	_, found := slices.BinarySearch(s.ext, id)
	return found
}

// Empty reports whether the set has no category.
func (s CategorySet) Empty() bool { return s.bits[0] == 0 && s.bits[1] == 0 && len(s.ext) == 0 }

// Intersects reports whether the sets share a category.
func (s CategorySet) Intersects(o CategorySet) bool {
	if s.bits[0]&o.bits[0] != 0 || s.bits[1]&o.bits[1] != 0 {
		return true
	}
	a, b := s.ext, o.ext
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] == b[0]:
			return true
		case a[0] < b[0]:
			a = a[1:]
		default:
			b = b[1:]
		}
	}
	return false
}

// CategoryInterner numbers categories for CategorySet, by their match key
// (CategoryMatchKey: case, spaces and underscores ignored, so "PerpCoins",
// "Perp  Coins" and "perp_coins" are one category). It is safe for concurrent use and only grows. Intern only
// categories that come from upstream data (user observations), never client
// input: login filters look names up and resolve unknown ones later (Filter).
type CategoryInterner struct {
	mu  sync.RWMutex
	ids map[string]uint32
	n   atomic.Uint32
}

// NewCategoryInterner returns an empty interner.
func NewCategoryInterner() *CategoryInterner {
	return &CategoryInterner{ids: make(map[string]uint32)}
}

// DefaultCategories is the process-wide interner that DecodeLogin uses when
// given nil.
var DefaultCategories = NewCategoryInterner()

// Len is the number of interned categories.
func (ci *CategoryInterner) Len() int { return int(ci.n.Load()) }

// CategoryMatchKey is what category names are compared by: lowercase,
// without spaces or underscores (spec 2: categories are case- and
// space-insensitive; "PerpCoins", "Perp  Coins" and "perp_coins" match).
func CategoryMatchKey(c string) string {
	c = strings.ToLower(c)
	if !strings.ContainsAny(c, " _\t") {
		return c
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '\t' {
			return -1
		}
		return r
	}, c)
}

// Lookup returns the id of slug without interning it.
func (ci *CategoryInterner) Lookup(slug string) (uint32, bool) {
	k := CategoryMatchKey(slug)
	ci.mu.RLock()
	id, ok := ci.ids[k]
	ci.mu.RUnlock()
	return id, ok
}

// Intern returns the id of slug, numbering it when new. ok is false for a
// slug that is empty once normalised.
func (ci *CategoryInterner) Intern(slug string) (uint32, bool) {
	if id, ok := ci.Lookup(slug); ok {
		return id, true
	}
	n := CategoryMatchKey(slug)
	if n == "" {
		return 0, false
	}
	ci.mu.Lock()
	defer ci.mu.Unlock()
	if id, ok := ci.ids[n]; ok {
		return id, true
	}
	id := ci.n.Load()
	ci.ids[n] = id
	ci.n.Store(id + 1)
	return id, true
}

// Set interns slugs and returns their set (an account's categories).
func (ci *CategoryInterner) Set(slugs []string) CategorySet {
	var s CategorySet
	for _, c := range slugs {
		if id, ok := ci.Intern(c); ok {
			s.Add(id)
		}
	}
	return s
}

// Filter is a session's compiled login filter. The zero value lets every
// event through. A Filter belongs to one session: Allows may update its
// cache of category ids, so it must not be called from two goroutines at
// once (copy the Filter per session instead).
type Filter struct {
	types      uint32 // bit per EventType; 0 with hasTypes false: every type
	hasTypes   bool   // `types` named at least one label, maybe only unknown ones
	onlyCA     bool
	onlyTicker bool
	hasCats    bool
	cats       CategorySet
	// pending are named categories that no account had when the filter was
	// built; they are looked up again when the interner grows.
	pending []string
	ci      *CategoryInterner
	seen    int
}

// NewFilter compiles a filter. types nil: every type; non-nil but empty (the
// client named only labels the engine does not know): no type. categories empty:
// every account; otherwise only accounts in at least one of them (names are
// normalised; ci nil means DefaultCategories).
func NewFilter(onlyCA, onlyTicker bool, types []EventType, categories []string, ci *CategoryInterner) Filter {
	f := Filter{onlyCA: onlyCA, onlyTicker: onlyTicker, hasTypes: types != nil}
	for _, t := range types {
		f.types |= 1 << t
	}
	if len(categories) > 0 {
		if ci == nil {
			ci = DefaultCategories
		}
		f.hasCats, f.ci, f.seen = true, ci, ci.Len()
		for _, c := range categories {
			n := CategoryMatchKey(c)
			if id, ok := ci.Lookup(n); ok {
				f.cats.Add(id)
			} else if n != "" && !slices.Contains(f.pending, n) {
				f.pending = append(f.pending, n)
			}
		}
	}
	return f
}

// Allows reports whether the filter lets an event through: its type must be
// among `types` (when set); a post event must carry a contract address under
// onlyCA and a cashtag under onlyTicker; and under `categories` the account
// must be in one of them (an account with none is excluded).
func (f *Filter) Allows(m EventMeta) bool {
	if f.hasTypes && f.types&(1<<m.Type) == 0 {
		return false
	}
	if m.Type.IsPost() && (f.onlyCA && !m.HasCA || f.onlyTicker && !m.HasTicker) {
		return false
	}
	if f.hasCats {
		if len(f.pending) > 0 && f.ci.Len() != f.seen {
			f.resolve()
		}
		return f.cats.Intersects(m.Categories)
	}
	return true
}

func (f *Filter) resolve() {
	f.seen = f.ci.Len()
	var still []string
	for _, n := range f.pending {
		if id, ok := f.ci.Lookup(n); ok {
			f.cats.Add(id)
		} else {
			still = append(still, n)
		}
	}
	f.pending = still
}

// Passthrough reports whether the filter removes nothing.
func (f *Filter) Passthrough() bool {
	return !f.hasTypes && !f.onlyCA && !f.onlyTicker && !f.hasCats
}

// OnlyCA, OnlyTicker and HasCategories describe the filter (logs, tests).
func (f *Filter) OnlyCA() bool        { return f.onlyCA }
func (f *Filter) OnlyTicker() bool    { return f.onlyTicker }
func (f *Filter) HasCategories() bool { return f.hasCats }

// Types lists the allowed types; nil when every type is allowed.
func (f *Filter) Types() []EventType {
	var out []EventType
	for t := TypeTweet; t < eventTypeCount; t++ {
		if f.types&(1<<t) != 0 {
			out = append(out, t)
		}
	}
	return out
}

// Login is a decoded LOGIN frame.
type Login struct {
	Key    string // trimmed, never empty
	Filter Filter
}

// LoginError is a rejected LOGIN: Code is login_invalid (bad frame, bad
// filter) or key_missing (a well-formed LOGIN without a key, which counts as
// a failed login). Reason gives the DISCONNECT reason.
type LoginError struct {
	Code    string
	Message string
}

func (e *LoginError) Error() string { return e.Code + ": " + e.Message }

// Reason is the DISCONNECT reason of the error's code.
func (e *LoginError) Reason() string {
	r, _ := DisconnectReason(e.Code)
	return r
}

func loginInvalid(msg string) *LoginError { return &LoginError{Code: CodeLoginInvalid, Message: msg} }

// Bounds on LOGIN filters; longer lists are refused as login_invalid.
const (
	MaxLoginTypes       = 64
	MaxLoginCategories  = 256
	MaxLoginCategoryLen = 100
)

type loginFrame struct {
	Op json.RawMessage `json:"op"`
	D  json.RawMessage `json:"d"`
}

type loginObject struct {
	APIKey     *string  `json:"api_key"`
	APIKeyAlt  *string  `json:"apiKey"`
	OnlyCA     *bool    `json:"onlyCA"`
	OnlyTicker *bool    `json:"onlyTicker"`
	Types      []string `json:"types"`
	Categories []string `json:"categories"`
}

// DecodeLogin reads a LOGIN frame: `op` must be a JSON number equal to 2 (2,
// 2.0 and 2e0 are accepted; "2", 2.5 and a missing op are not); `d` is a
// non-empty key string or an object with `api_key` (alias `apiKey`) and
// optional filters onlyCA, onlyTicker (booleans), types and categories (arrays
// of strings; empty or holding "All" disables the filter; an unknown type
// matches nothing, since filters only remove events: `types` naming only
// unknown labels lets no event through). ci interns categories (nil: DefaultCategories). The error
// is always a *LoginError.
func DecodeLogin(b []byte, ci *CategoryInterner) (Login, error) {
	var fr loginFrame
	if err := unmarshalClient(b, &fr); err != nil {
		return Login{}, loginInvalid("LOGIN must be a JSON object {\"op\":2,\"d\":...}")
	}
	if !isOpTwo(fr.Op) {
		return Login{}, loginInvalid("LOGIN must have op 2")
	}
	d := bytes.TrimSpace(fr.D)
	if len(d) == 0 || d[0] != '"' && d[0] != '{' {
		return Login{}, loginInvalid("LOGIN d must be an API key string or an object with api_key")
	}
	if d[0] == '"' {
		var key string
		if err := unmarshalClient(d, &key); err != nil {
			return Login{}, loginInvalid("LOGIN d is not a valid string")
		}
		return keyOnly(key)
	}
	var o loginObject
	if err := unmarshalClient(d, &o); err != nil {
		return Login{}, loginInvalid("LOGIN d has a field of the wrong type: " + shortErr(err))
	}
	var key string
	for _, k := range []*string{o.APIKey, o.APIKeyAlt} {
		if k != nil && strings.TrimSpace(*k) != "" {
			key = strings.TrimSpace(*k)
			break
		}
	}
	if key == "" {
		return Login{}, &LoginError{Code: CodeKeyMissing, Message: "LOGIN carries no API key"}
	}
	types, err := parseLoginTypes(o.Types)
	if err != nil {
		return Login{}, err
	}
	cats, err := parseLoginCategories(o.Categories)
	if err != nil {
		return Login{}, err
	}
	f := NewFilter(o.OnlyCA != nil && *o.OnlyCA, o.OnlyTicker != nil && *o.OnlyTicker, types, cats, ci)
	return Login{Key: key, Filter: f}, nil
}

// unmarshalClient is json.Unmarshal for client bytes: a panic inside the
// decoder on hostile input becomes an error instead of taking the session
// down.
func unmarshalClient(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("malformed JSON")
		}
	}()
	return json.Unmarshal(b, v)
}

func keyOnly(key string) (Login, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return Login{}, &LoginError{Code: CodeKeyMissing, Message: "LOGIN carries no API key"}
	}
	return Login{Key: key}, nil
}

// isOpTwo reports whether raw is a JSON number equal to 2.
func isOpTwo(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return false
	}
	if len(raw) == 1 {
		return raw[0] == '2'
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && v == 2
}

func parseLoginTypes(in []string) ([]EventType, error) {
	if len(in) > MaxLoginTypes {
		return nil, loginInvalid("too many types")
	}
	if len(in) == 0 {
		return nil, nil
	}
	// Non-nil from here: a list of only unknown labels is a filter that
	// matches nothing, not "every type".
	out := make([]EventType, 0, len(in))
	for _, s := range in {
		if NormalizeTypeLabel(s) == "all" {
			return nil, nil
		}
		if t, ok := ParseEventType(s); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

func parseLoginCategories(in []string) ([]string, error) {
	if len(in) > MaxLoginCategories {
		return nil, loginInvalid("too many categories")
	}
	var out []string
	for _, s := range in {
		if len(s) > MaxLoginCategoryLen {
			return nil, loginInvalid("category name too long")
		}
		n := NormalizeCategory(s)
		if n == "all" {
			return nil, nil
		}
		if n != "" {
			out = append(out, n)
		}
	}
	return out, nil
}
