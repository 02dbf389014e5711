// Package kit starts, reaches and stops alertd's actors, and supervises them
// all the same way.
//
// # What is an actor here
//
// An actor is a protoactor-go actor: a value with a Receive method that owns
// some state and is only ever run by one goroutine at a time, one message at
// a time, in the order its mailbox received them. Nobody else reads or
// writes its state: others send it messages (plain structs, sent as
// pointers, declared in the package's messages.go) and, when they need an
// answer, ask. There is no lock inside an actor. Mailboxes are unbounded and
// a Tell never blocks; an idle actor costs memory, not a goroutine.
//
// alertd has two kinds of actors:
//
//   - singletons, one per process, one per product (cw, ct, et, trending,
//     pumpfun, eca, searchalerts, b2b, casearch, tweetalerts): spawned by
//     Kit.Spawn under one
//     guardian actor, reached through the *Ref it returns;
//   - entity actors, one per thing (a handle, a platform user, a webhook
//     endpoint): spawned on demand by their owner (actors/handle's Router is
//     the lookup of handle actors) and supervised by the same Supervisor.
//
// Shared read-mostly memory under a lock (actors/state, the product
// registries) is not an actor; actors read it, its one writer holds the lock
// only for memory updates, never across I/O.
//
// # Who owns what
//
// The Kit owns the guardian and, through it, every singleton: the guardian
// is their parent, so their failures come to its strategy. A product's
// wrapper (cw.Tracker, trending.Service, ...) owns its *Ref and is the only
// code that sends to it: it turns method calls into Tell and Ask. Each
// singleton owns its own state; what must survive it lives in the store and
// is reloaded by Load.
//
// # Talking to an actor
//
//   - Ref.Tell(msg): fire and forget, never blocks.
//   - Ask[T](ref, msg, WithTimeout(d)): wait for the answer (c.Respond(v) with
//     a T, or an error value). Errors are *AskError wrapping ErrTimeout,
//     ErrStopped (dead letter), ErrUnexpectedAnswer or the actor's error.
//     Ask blocks: call it from REST handlers, wiring and tests, never from
//     inside an actor (A asks B while B asks A is a deadlock); an actor uses
//     c.RequestFuture with c.ReenterAfter.
//   - Ref.Stop(): drain (the actor handles what its mailbox holds), stop,
//     wait. Kit.Close stops the rest, last spawned first, then the guardian.
//
// # Supervision: the strategy and why
//
// One Supervisor, chosen on purpose, for every actor:
//
//   - Restart, always, and never Stop or Resume. Resume would keep the
//     instance whose update a panic cut in half. Stop (protoactor's default
//     after 10 failures in 10 s) leaves a dead PID that routers still send
//     to: for handle actors that made ingest answer 503 forever.
//   - Fresh state: protoactor's restart calls the producer again, and every
//     producer here returns a NEW instance (never a captured one). State that
//     matters is reloaded from the store in Started (Loader.Load for
//     singletons, the handle actors' load hook). Shared registries survive,
//     as they are not the actor's state.
//   - The message that panicked is dropped and logged (actor name, message
//     type, panic value and stack), not retried: a panic is a bug that the
//     same input would most likely trigger again, and retrying it would stall
//     everything queued behind it in a restart loop. The messages behind it
//     stay in the mailbox and go to the new instance.
//   - Restart storms are bounded by Backoff: the first failure restarts at
//     once, further ones in a row (within Window) wait Initial, doubling up to
//     Max (defaults 10 ms, 1 s, 10 s). The mailbox is suspended while it
//     waits: nothing is lost. Max is short because handle actors' messages
//     count in the ingest backlog while they wait.
//   - A Load that fails at restart is a failure too: the actor retries after
//     its backoff, and its messages wait until the store answers.
//
// Timers of delayed restarts belong to the Supervisor: Ref.Stop hurries the
// one of its actor, Close fires them all, so shutdown waits for none.
//
// # Calls outside the process
//
// An actor never makes a slow outside call in Receive (a webhook POST, a
// Bot API call): it submits a job to Workers, a fixed set of goroutines
// shared by all the actors of one engine, and hears the result as a
// message. The webhook and chat engines both use it.
package kit
