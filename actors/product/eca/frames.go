package eca

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// FrameType is the `type` of every frame of /v1/eca/ws.
const FrameType = "match"

// TimeFormat is how ECA shows times: ISO 8601 in UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// EntryRef is the match frame's watchlist_entry. Entries added through the
// API have source "api" and no community, handle or messenger id (those
// belong to entries added from a chat community in the bot).
type EntryRef struct {
	ID                 int64   `json:"id"`
	Source             string  `json:"source"`
	CommunityName      *string `json:"community_name"`
	SocialHandle       *string `json:"social_handle"`
	AddedByMessengerID *string `json:"added_by_messenger_id"`
}

// Token is the match frame's token.
type Token struct {
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Mint         string `json:"mint"`
	Creator      string `json:"creator"`
	BondingCurve string `json:"bonding_curve"`
	URI          string `json:"uri"`
	Signature    string `json:"signature"`
}

// MatchData is the match frame's data, also what GET /v1/eca/matches lists.
type MatchData struct {
	WatchlistEntry EntryRef `json:"watchlist_entry"`
	Token          Token    `json:"token"`
	MatchType      string   `json:"match_type"`
	MatchedAt      string   `json:"matched_at"`
}

// NewMatchData describes entry e matched by launched token l at `at`.
func NewMatchData(e *persistence.ECAEntry, l *protocol.LaunchpadObs, matchType string, at time.Time) MatchData {
	return MatchData{
		WatchlistEntry: EntryRef{ID: e.ID, Source: e.Source},
		Token: Token{Name: l.TokenName, Symbol: l.TokenSymbol, Mint: l.Mint, Creator: l.Creator,
			BondingCurve: l.BondingCurve, URI: l.URI, Signature: l.Signature},
		MatchType: matchType,
		MatchedAt: at.UTC().Format(TimeFormat),
	}
}
