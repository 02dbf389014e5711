package persistence

import (
	"context"
	"time"
)

// PumpFunStore keeps PumpFun wallet targets and their events.
type PumpFunStore interface {
	// AddPFTarget stores a new wallet target; ErrExists if (AccountID,
	// Wallet) is already stored.
	AddPFTarget(ctx context.Context, t PFTarget) error
	// DeletePFTarget removes the target of (account, wallet); ErrNotFound if absent.
	DeletePFTarget(ctx context.Context, account, wallet string) error
	// ListPFTargets returns every target, by account then creation order.
	ListPFTargets(ctx context.Context) ([]PFTarget, error)
	// ListPFTargetsOf returns the targets of the accounts named, by account
	// then creation order (a cluster's reload of a few accounts).
	ListPFTargetsOf(ctx context.Context, accounts []string) ([]PFTarget, error)
	// AppendPFEvents stores wallet events and keeps only the newest keep
	// events of each account concerned.
	AppendPFEvents(ctx context.Context, evs []PFEvent, keep int) error
	// ListPFEvents returns the newest events of account, newest first.
	ListPFEvents(ctx context.Context, account string, limit int) ([]PFEvent, error)
}

// PFTarget is a wallet on an account's PumpFun list, with the alert types it
// counts toward (callouts makes it a caller).
type PFTarget struct {
	AccountID  string
	Wallet     string
	Label      string
	AlertTypes []string
	CreatedAt  time.Time
}

// PFEvent is a wallet event recorded for an account (GET /v1/pf/events).
type PFEvent struct {
	AccountID         string
	Wallet            string
	Mint              string
	TokenName         string
	TokenSymbol       string
	EventType         string
	DetectedAt        time.Time
	DeliveryLatencyMS int64
}
