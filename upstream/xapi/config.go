package xapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
)

// DefaultBaseURL is the API's base (CONTRACT.md section 8, --x-api-url).
const DefaultBaseURL = "https://api.x.com"

// Monitored is one handle the engine monitors. Following says whether some
// plan needs the handle's following list (B2B follows, Community Watch,
// Convergence Tracker).
type Monitored struct {
	Handle    string // normalized: lowercase, no '@'
	Following bool
}

// HandleSet is how the connector learns what to monitor: the engine's B2B
// targets, Tweet Alerts tracked accounts, Community Watch and Convergence
// targets, merged.
type HandleSet interface {
	// Monitored returns the current set, sorted by handle, one entry each.
	Monitored() []Monitored
	// Changed receives (at least once) after the set changed. The connector
	// is its only receiver.
	Changed() <-chan struct{}
}

// Config configures a Connector. Zero fields take the defaults below.
type Config struct {
	BaseURL string // DefaultBaseURL when empty
	Token   string // the app's bearer token (OAuth 2.0 App-Only)
	Handles HandleSet
	Limits  Limits // ProLimits when zero

	// RuleDebounce gathers handle changes into one rule update (1 s).
	RuleDebounce time.Duration
	// StallAfter gives a stream up when not even a keep-alive came for this
	// long (30 s: the API sends one every 20 s; the margin absorbs jitter).
	StallAfter time.Duration
	// Backfill asks a reconnected stream for the missed minutes (1 to 5,
	// backfill_minutes; not every plan allows it).
	Backfill bool
	// ProfileEvery is how often monitored profiles are re-read (15 min).
	ProfileEvery time.Duration
	// FollowingEvery is how often a following list is re-read at most (1 h).
	FollowingEvery time.Duration

	HTTP   *http.Client // a client without an overall timeout; http.DefaultClient when nil
	Clock  clockwork.Clock
	Logger *slog.Logger
}

func (c *Config) withDefaults() {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Limits.MaxRules <= 0 {
		c.Limits.MaxRules = ProLimits.MaxRules
	}
	if c.Limits.MaxRuleLen <= 0 {
		c.Limits.MaxRuleLen = ProLimits.MaxRuleLen
	}
	if c.RuleDebounce <= 0 {
		c.RuleDebounce = time.Second
	}
	if c.StallAfter <= 0 {
		c.StallAfter = 30 * time.Second
	}
	if c.ProfileEvery <= 0 {
		c.ProfileEvery = 15 * time.Minute
	}
	if c.FollowingEvery <= 0 {
		c.FollowingEvery = time.Hour
	}
	if c.HTTP == nil {
		c.HTTP = http.DefaultClient
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Logger = c.Logger.With("connector", "x")
}
