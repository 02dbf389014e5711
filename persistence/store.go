// Package persistence defines the store interfaces of alertd. Two
// implementations satisfy them: the embedded store (pure Go SQLite under
// --data-dir, the default) and PostgreSQL through pgx (DATABASE_URL). Both run
// the same contract suite (persistence/storetest).
//
// The hot path never calls a store synchronously: actors batch their writes
// through a writer, and REST reads go through caches where latency matters.
package persistence

import (
	"context"
	"errors"
	"time"

	"github.com/alertd/alertd/protocol"
)

// ErrNotFound is returned when a requested record does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when a record to be created is already stored
// (CreateAccount of a taken id, IssueKey of a hash already issued).
var ErrExists = errors.New("already exists")

// Store is everything the engine persists.
type Store interface {
	AccountStore
	DirectoryStore
	ObservationStore
	TargetStore
	TraceStore
	LookupStore
	CASearchStore
	TweetAlertsStore
	WatchStore
	StoredWebhookStore
	TrendingStore
	PumpFunStore
	ECAStore
	SearchAlertsStore
	RetentionStore
	ChatStore

	// Kind names the implementation: "embedded" or "postgres".
	Kind() string
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Account is a client account; every product subscription and key hangs off one.
type Account struct {
	ID        string
	CreatedAt time.Time
}

// Subscription is an account's plan on one product.
type Subscription struct {
	AccountID string
	Product   protocol.Product
	Plan      string
	// Modules of a dt subscription; empty for other products.
	Modules []string
	// MaxHandles (dt, cw, ct), MaxTweets (et), MaxWallets (pf); 0 where unused.
	MaxHandles int
	MaxTweets  int
	MaxWallets int
	// CASearchDailyLimit is nil when the account has no CA Search add-on.
	CASearchDailyLimit *int
	LateDelivery       bool
	// ExpiresAt is nil for plans with no end date.
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Expired reports whether the subscription has ended at now.
func (s *Subscription) Expired(now time.Time) bool {
	return s.ExpiresAt != nil && !now.Before(*s.ExpiresAt)
}

// KeyState is the lifecycle state of an API key.
type KeyState string

const (
	KeyActive      KeyState = "active"
	KeyDeactivated KeyState = "deactivated" // admin DELETE: key_deactivated
	KeyRevoked     KeyState = "revoked"     // superseded by a newer key: key_unknown
)

// APIKey is a stored key. Only the SHA-256 of the key is kept; the key itself
// is shown once, when it is issued.
type APIKey struct {
	Hash      []byte // sha256 of the full key
	Product   protocol.Product
	AccountID string
	State     KeyState
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AccountStore holds accounts, subscriptions and keys.
type AccountStore interface {
	// CreateAccount makes a new account with the given id; ErrExists if the id
	// is taken.
	CreateAccount(ctx context.Context, id string, now time.Time) (Account, error)
	GetAccount(ctx context.Context, id string) (Account, error)

	// PutSubscription inserts or replaces the subscription of (AccountID, Product).
	PutSubscription(ctx context.Context, s Subscription) error
	GetSubscription(ctx context.Context, accountID string, p protocol.Product) (Subscription, error)
	ListSubscriptions(ctx context.Context) ([]Subscription, error)

	// IssueKey stores k as the one active key of (k.AccountID, k.Product):
	// every earlier active or deactivated key of that pair becomes revoked, in
	// the same transaction. ErrNotFound if the account does not exist,
	// ErrExists if the hash is already stored.
	IssueKey(ctx context.Context, k APIKey) error
	// KeyByHash returns the key whose hash is h, in any state.
	KeyByHash(ctx context.Context, h []byte) (APIKey, error)
	// SetKeyState changes the state of the key whose hash is h.
	SetKeyState(ctx context.Context, h []byte, s KeyState, now time.Time) (APIKey, error)
	// ListKeys returns every stored key (to warm the auth cache at start).
	ListKeys(ctx context.Context) ([]APIKey, error)
}

// User is one platform account as the directory knows it: the latest `user`
// observation.
type User struct {
	ID         string
	Handle     string // lowercase
	Suspended  bool
	Categories []string
	// Snapshot is the latest user observation as received (protocol.UserObs JSON).
	Snapshot  []byte
	UpdatedAt time.Time
}

// DirectoryStore is the user directory: handle resolution and lookups.
type DirectoryStore interface {
	// UpsertUsers stores users by id; a user whose handle changed keeps its id
	// and takes the new handle. A handle held by another id moves to the newer one.
	UpsertUsers(ctx context.Context, users []User) error
	UserByHandle(ctx context.Context, handle string) (User, error)
	UserByID(ctx context.Context, id string) (User, error)
	// ListUsers returns every user, for warming the in-memory directory.
	ListUsers(ctx context.Context) ([]User, error)
}

// Post is one captured post.
type Post struct {
	ID        string
	Handle    string // author, lowercase
	CreatedAt time.Time
	// DetectedAt is when the engine first accepted it.
	DetectedAt time.Time
	// Data is the tweet payload JSON (protocol.Tweet), latest version.
	Data []byte
}

// Snapshot is the latest complete list of one kind for a handle
// (following, communities): what its handle actor reloads when it starts
// (actors/handle, StoreLoader).
type Snapshot struct {
	Handle string
	Kind   string // protocol.KindFollowing or protocol.KindCommunities
	// Data is the observation JSON; for communities, with each community's
	// joined_at (epoch ms, 0: unknown) added by the handle actor.
	Data       []byte
	ObservedAt time.Time
}

// ObservationRecord is an observation kept as received, for the kinds that no
// typed table holds yet (deletions, engagement, trending, launchpad, callouts).
type ObservationRecord struct {
	Kind       string
	Key        string
	Data       []byte
	DetectedAt time.Time
}

// ObservationStore holds what ingest brings in.
type ObservationStore interface {
	// SavePosts inserts posts or replaces the data of posts already stored
	// (keeping the first DetectedAt).
	SavePosts(ctx context.Context, posts []Post) error
	PostByID(ctx context.Context, id string) (Post, error)
	// RecentPosts returns the newest posts of handle by CreatedAt, newest first.
	RecentPosts(ctx context.Context, handle string, limit int) ([]Post, error)

	// PutSnapshots stores each snapshot as the latest of its (Handle, Kind).
	PutSnapshots(ctx context.Context, snaps []Snapshot) error
	GetSnapshot(ctx context.Context, handle, kind string) (Snapshot, error)

	// AppendObservations keeps observations of the other kinds.
	AppendObservations(ctx context.Context, recs []ObservationRecord) error
	// ListObservations returns records of kind with DetectedAt >= since, oldest first.
	ListObservations(ctx context.Context, kind string, since time.Time, limit int) ([]ObservationRecord, error)
}

// Target is one handle on an account's B2B target list.
type Target struct {
	ID        int64
	AccountID string
	Handle    string // the key, lowercase
	// ScreenName is the handle as the customer typed it ("": Handle); the
	// list shows it (ShownName).
	ScreenName   string
	DisplayName  string
	SocialUserID *string // nil until the handle resolves
	IsActive     bool    // false: paused by the system
	CreatedAt    time.Time
}

// ShownName is the target's screen_name as lists show it: as the customer
// typed it, else the key.
func (t *Target) ShownName() string {
	if t.ScreenName != "" {
		return t.ScreenName
	}
	return t.Handle
}

// TargetStore holds the B2B target lists.
type TargetStore interface {
	// PutTarget inserts t (ID 0; the store assigns one) or updates the target
	// of (AccountID, Handle), and returns it as stored.
	PutTarget(ctx context.Context, t Target) (Target, error)
	// DeleteTarget removes the target of (account, handle); ErrNotFound if absent.
	DeleteTarget(ctx context.Context, account, handle string) error
	// WriteTargets upserts put (each as PutTarget does) and deletes del
	// (absent ones are no error) in one transaction: all or nothing. It
	// returns put as stored, in the order given. A key may appear at most
	// once across put and del. The ID of a put row is only a hint: 0 says
	// the row is probably new.
	WriteTargets(ctx context.Context, put []Target, del []TargetKey) ([]Target, error)
	// WriteTargetRows makes the store hold exactly the rows given, ids
	// included (the caller assigns them): it deletes del (absent ones are
	// no error), then writes each put row at its key with its ID, replacing
	// a row at that key with another id; all or nothing. Ids the store
	// generates later (PutTarget) continue above them.
	WriteTargetRows(ctx context.Context, put []Target, del []TargetKey) error
	// ListAllTargets returns every target, by account then creation order.
	ListAllTargets(ctx context.Context) ([]Target, error)
	// ListTargetsOf returns the targets of the accounts named, by account
	// then creation order.
	ListTargetsOf(ctx context.Context, accounts []string) ([]Target, error)
}

// TargetKey names the target of one handle on one account's list.
type TargetKey struct {
	AccountID string
	Handle    string
}

// TraceRecord is a non-tweet realtime event kept for GET /v1/dt/events.
type TraceRecord struct {
	EventID   string
	Event     string // event name, e.g. social.following.new
	Handle    string
	EventTime time.Time
	Data      []byte // the event's data JSON
}

// TraceStore keeps trace records.
type TraceStore interface {
	AppendTrace(ctx context.Context, recs []TraceRecord) error
	// TraceWindow returns the records of handle with from <= EventTime <= to,
	// oldest first, at most limit.
	TraceWindow(ctx context.Context, handle string, from, to time.Time, limit int) ([]TraceRecord, error)
}
