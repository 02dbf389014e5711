// Package chat is the chat-messenger channel of the delivery layer: what
// goes to Telegram chats, and how it gets there under the Bot API's limits.
//
//   - Outbox (outbox.go, actor.go, call.go): the durable sender. One entity
//     actor per chat owns that chat's queue order, its pace (one call in
//     flight, then 1 s in a private chat, 3 s in a group), its retries (a
//     429's retry_after waited out and the message sent once; 5xx and
//     network errors with backoff) and its digest (a chat far behind gets
//     lists of links instead of hundreds of messages). A fixed pool of
//     workers makes the calls after a token of one global limiter (30/s).
//     A message is stored before it is queued and finished once sent or
//     refused (its id kept FinishedKeep, so that queueing it again, as the
//     ingest log's replay of a post does, sends nothing twice); a 403 marks
//     the chat blocked and drops what it had queued.
//     Forum topics are created by the worker the first time a (chat, topic)
//     is needed, stored, and created again when the Bot API says the
//     thread is gone. On a node of a cluster (owned.go) a chat's actor
//     sends only while the node owns the chat (engine/cluster.Owners, scope
//     "chat"); a message for a chat owned elsewhere is stored and its chat
//     announced, and the owner reads the chat's queue back.
//   - TweetAlerts (alerts.go): the singleton "chat-tweetalerts" that hears
//     new posts (a handle.Subscriber), applies spec 1's settings, keywords,
//     mutes and filters (tweetalerts.ChatRoute) and queues one message per
//     linked chat; format.go and tweet.go format them in HTML parse mode,
//     escaping everything that came from the platform.
//   - Products (products.go): the singleton "chat-products" fed by hub
//     subscriptions (ECA and Search Alerts account topics, the Trending
//     product topic filtered by each account's categories).
//   - Chats (chats.go): the registry of linked chats, shared memory written
//     through to the store.
//
// Locks: Chats has a write mutex (held across its store write) and the
// memory RWMutex (memory only), in that order; Outbox.mu guards the chat
// actors' PIDs and the topic map, memory only; the pool's mu guards its job
// list. Chats.Put calls its OnLinked hook (Products.Follow, which takes
// Products.mu and then the hub's locks) while holding its write mutex:
// chats write mutex → Products.mu → delivery.Hub.mu → a topic list's mu.
// Nothing is taken in the other direction.
package chat
