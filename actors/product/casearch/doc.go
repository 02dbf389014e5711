// Package casearch is CA Search (spec 2, POST /v1/search): an in-memory index
// of the last 24 hours of posts, the store path for older windows, request
// and cursor decoding, the post item encoding, and the per-account quota.
//
// Data flow. The handle actors tell the Indexer (the singleton actor
// "casearch") every post they see, and it calls Service.Observe on its own
// goroutine (a re-observation replaces the version held). Observe renders
// the post item once and indexes its terms (Index), and writes the post's
// contract and cashtag terms behind through the engine's writer (the store
// keeps the posts themselves already). At start the index is warmed from
// the stored posts of the window; until then every search reads the store.
//
// Terms (PostTerms, ParseQuery):
//   - contract addresses as protocol.DetectContracts finds them: Solana
//     exactly (case-sensitive), EVM lowercased (case-insensitive);
//   - cashtags, uppercase without '$' (from the text and the payload's
//     `cashtags`);
//   - words: maximal runs of Unicode letters, digits and marks, lowercased
//     and cut to 64 bytes; '_', '$', '@', '#' and punctuation separate them,
//     so "$PEPE" also carries the word "pepe" and "@some_one" the words
//     "some" and "one". At most 256 distinct terms per post.
//
// Query detection: the query is split at white space; a chunk (trimmed of
// punctuation) that is a contract address asks for that address, "$" and a
// ticker for that cashtag, and a query that is a single bare ticker written
// in capitals (2 to 10 letters or digits, PEPE, WIF2) for that cashtag too;
// every other chunk gives its words ("pepe" and "Pepe" are words, and find
// "$PEPE" posts as well). A post matches when it carries every term. A
// query with no term (only punctuation) matches nothing.
//
// Windows and paging: newest first by created_at, then by numeric id (Key,
// TieOf); 200 posts a call, fetched as 201 to know has_next_page. The
// cursor is the position of the last post returned plus a fingerprint of
// query, since and until: a cursor of another query, or anything
// unreadable, starts again from the newest post. The index answers when it
// covers the call (the window starts at or after its floor, or a page fills
// above it); otherwise the store does: posts carrying the call's contract
// and cashtag terms (or all posts of the window, for words only), newest
// first, each checked against every term by reading it. Words are not
// stored as terms (about ten rows a post would cost the store more than
// the post); a store call reads at most 20,000 posts and, when it stops
// there, answers what it found with has_next_page true and a cursor where
// it stopped.
//
// Quota (Quota): per account, 10 calls a second and 20 a minute in fixed
// windows that start at the first call after the last window ended, and
// the add-on's daily allowance per UTC day, kept in the store so a restart
// does not reset it. Calls refused with 429 are not counted; every other
// call that reaches the quota is, one that then fails with 500 included.
// The route takes the quota before it reads the body, so malformed calls
// (400, 413, 415, 422) count too (spec 2: "every call counts once"). When several limits refuse a call, the longest wait is
// named: daily (retry_after = seconds to 00:00 UTC), minute (60), second (1).
//
// The post item: `type` is the payload's type (post, reply, quote,
// repost); `createdAt` is the platform's textual date ("Mon Jan 02 15:04:05
// +0000 2006"); counts the payload does not carry (bookmarks) and `lang`
// are null; author fields the payload does not carry are null, `location`
// comes from the user directory when known; `user_mentions` are parsed from
// the text (byte offsets), with id and name from the directory when known;
// `quoted_tweet` on quotes and `retweeted_tweet` on reposts come from the
// payload's quoted_tweet (their counts are null); `original` (first 30
// replies of a call) is the stored parent (index or store), else the parent
// a reply's payload carries, else omitted.
package casearch
