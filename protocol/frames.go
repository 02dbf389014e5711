package protocol

// Frames of the WebSockets other than the realtime opcode socket
// (realtime.go) and the Tweet Alerts socket (tweetalerts_ws.go): one encoder
// per wire shape. They append to dst and never fail; data is an encoded JSON
// value, copied as it is.

// AppendTypeDataFrame appends the frame of every product socket (spec 3:
// /v1/cw/ws, /v1/ct/ws, /v1/et/ws, /v1/trending/ws, /v1/pf/ws, /v1/eca/ws,
// /v1/sa/ws): {"type":<typ>,"data":<data>}.
func AppendTypeDataFrame(dst []byte, typ string, data []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendJSONString(dst, typ)
	dst = append(dst, `,"data":`...)
	dst = append(dst, data...)
	return append(dst, '}')
}

// TweetOnlyGreeting is the first frame of a tweet-only socket (/v1/dt/ws and
// /social/tweet/websocket, spec 2).
var TweetOnlyGreeting = []byte(`{"event_type":"connected"}`)

// AppendTweetOnlyFrame appends a post frame of the tweet-only sockets:
// {"event_type":"tweet","data":<tweet payload>}.
func AppendTweetOnlyFrame(dst []byte, tweetData []byte) []byte {
	dst = append(dst, `{"event_type":"tweet","data":`...)
	dst = append(dst, tweetData...)
	return append(dst, '}')
}
